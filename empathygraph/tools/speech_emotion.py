"""Speech emotion: valence and arousal of an utterance from its voice and its words.

Arousal comes from prosody (pitch level and range, rate, voicing, loudness). Valence is
carried mostly by what is said, so it is the expected valence of the transcript's ED-emotion
distribution (the valence placements of ``schemas.EMOTION_VALENCE_AROUSAL``), weighted by how reliably the
words were recognised, with the voice's pitch variation and tempo deciding the rest.
"""

from __future__ import annotations

import numpy as np

from empathygraph.schemas import EMOTION_VALENCE_AROUSAL, LabelScore
from empathygraph.tools import prosody

VALENCE: dict[str, float] = {emotion.value: valence for emotion, (valence, _) in EMOTION_VALENCE_AROUSAL.items()}


def text_valence(emotions: list[LabelScore]) -> float | None:
    """Expected valence of a (partial) ED-emotion distribution; None when it is empty."""
    known = [(VALENCE[e.label], e.score) for e in emotions if e.label in VALENCE]
    total = sum(w for _, w in known)
    return sum(v * w for v, w in known) / total if total > 0 else None


def estimate(p: prosody.Prosody, emotions: list[LabelScore], asr_confidence: float) -> tuple[float, float]:
    """Return (valence, arousal) in [-1, 1].

    Args:
        p: the utterance's prosody.
        emotions: the transcript's ED-emotion distribution (empty without words).
        asr_confidence: mean word probability of the transcript; the words' valence counts
            only as far as the words were heard reliably (foreign or mumbled speech gives noise).
    """
    arousal = prosody.arousal(p)
    voice_valence = float(
        np.tanh(
            0.3 * (p.pitch_range_st - prosody.NORMS["pitch_range_st"]) / 3.0
            + (0.2 * (p.rate_wps - prosody.NORMS["rate_wps"]) / 0.8 if p.rate_wps else 0.0)
        )
    )
    words = text_valence(emotions)
    trust = 0.0 if words is None else 0.85 * float(np.clip((asr_confidence - 0.5) / 0.4, 0.0, 1.0))
    valence = trust * (words or 0.0) + (1 - trust) * voice_valence
    return float(np.clip(valence, -1, 1)), float(np.clip(arousal, -1, 1))
