"""Summarise per-frame expression probabilities: overall distribution, peak, trend, words."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from empathygraph.schemas import CoarseEmotion, LabelScore

_ADJECTIVE = {
    CoarseEmotion.NEUTRAL: "neutral",
    CoarseEmotion.JOY: "happy",
    CoarseEmotion.SADNESS: "sad",
    CoarseEmotion.ANGER: "angry",
    CoarseEmotion.FEAR: "afraid",
    CoarseEmotion.DISGUST: "disgusted",
    CoarseEmotion.SURPRISE: "surprised",
}
_TREND_DELTA = 0.15  # change in an emotion's mean probability, first third vs last third


@dataclass(frozen=True)
class ExpressionSummary:
    """What the face showed over the sampled frames."""

    distribution: list[LabelScore]
    peak: CoarseEmotion
    trend: str | None
    description: str


def summarize(labels: tuple[CoarseEmotion, ...], probs: np.ndarray, video: bool) -> ExpressionSummary:
    """Summarise ``probs`` (frames × len(labels)) into a distribution, peak, trend and a sentence."""
    mean = probs.mean(axis=0)
    order = np.argsort(-mean)
    distribution = [LabelScore(label=labels[i].value, score=round(float(mean[i]), 4)) for i in order]
    top = labels[order[0]]
    # The peak is the strongest single-frame non-neutral expression, if one stands out.
    expressive = [i for i, lab in enumerate(labels) if lab is not CoarseEmotion.NEUTRAL]
    frame, col = np.unravel_index(np.argmax(probs[:, expressive]), (len(probs), len(expressive)))
    peak_label = labels[expressive[col]]
    peak = peak_label if probs[frame, expressive[col]] >= 0.5 else top

    text = f"looks mostly {_ADJECTIVE[top]} ({mean[order[0]]:.2f})"
    second = labels[order[1]]
    if mean[order[1]] >= 0.2:
        text += f", partly {_ADJECTIVE[second]} ({mean[order[1]]:.2f})"
    trend = None
    if video and len(probs) >= 3:
        third = max(1, len(probs) // 3)
        delta = probs[-third:].mean(axis=0) - probs[:third].mean(axis=0)
        rising, falling = int(np.argmax(delta)), int(np.argmin(delta))
        parts = []
        if delta[rising] >= _TREND_DELTA:
            parts.append(f"{_ADJECTIVE[labels[rising]]} grows")
        if delta[falling] <= -_TREND_DELTA:
            parts.append(f"{_ADJECTIVE[labels[falling]]} fades")
        trend = " and ".join(parts) if parts else "steady"
        if peak is not top:
            text += f"; a moment of {_ADJECTIVE[peak]} at {frame}/{len(probs)} frames"
        text += f"; over the clip: {trend}"
    return ExpressionSummary(distribution, peak, trend, text)
