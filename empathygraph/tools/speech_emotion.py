"""Speech emotion: valence and arousal of an utterance from its voice and its words.

Arousal comes from prosody (pitch level and range, rate, voicing, loudness). Valence is
carried mostly by what is said, so it is the expected valence of the transcript's ED-emotion
distribution, weighted by how reliably the words were recognised, with the voice's pitch
variation and tempo deciding the rest.
"""

from __future__ import annotations

import numpy as np

from empathygraph.schemas import LabelScore
from empathygraph.tools import prosody

# Valence and arousal of the 32 ED emotions in [-1, 1]: hand-set placements on Russell's
# circumplex of affect (not fitted to any evaluation data).
ED_VALENCE_AROUSAL: dict[str, tuple[float, float]] = {
    "afraid": (-0.80, 0.60), "angry": (-0.80, 0.80), "annoyed": (-0.70, 0.50), "anticipating": (0.40, 0.50),
    "anxious": (-0.60, 0.70), "apprehensive": (-0.50, 0.40), "ashamed": (-0.80, 0.20), "caring": (0.80, 0.10),
    "confident": (0.80, 0.50), "content": (0.70, -0.40), "devastated": (-0.90, 0.60), "disappointed": (-0.70, -0.10),
    "disgusted": (-0.80, 0.50), "embarrassed": (-0.60, 0.40), "excited": (0.90, 0.90), "faithful": (0.70, -0.20),
    "furious": (-0.90, 0.90), "grateful": (0.90, 0.00), "guilty": (-0.70, 0.30), "hopeful": (0.70, 0.20),
    "impressed": (0.70, 0.40), "jealous": (-0.60, 0.60), "joyful": (0.90, 0.60), "lonely": (-0.70, -0.50),
    "nostalgic": (0.20, -0.20), "prepared": (0.50, 0.10), "proud": (0.80, 0.50), "sad": (-0.80, -0.40),
    "sentimental": (0.30, -0.10), "surprised": (0.30, 0.80), "terrified": (-0.90, 0.90), "trusting": (0.70, -0.20),
}  # fmt: skip


def text_valence(emotions: list[LabelScore]) -> float | None:
    """Expected valence of a (partial) ED-emotion distribution; None when it is empty."""
    known = [(ED_VALENCE_AROUSAL[e.label][0], e.score) for e in emotions if e.label in ED_VALENCE_AROUSAL]
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
