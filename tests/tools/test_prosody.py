"""Prosody measures what it claims on signals whose answer is known by construction."""

from __future__ import annotations

import numpy as np

from empathygraph.tools import prosody
from empathygraph.tools.asr import Word


def _voice(f0: np.ndarray, level: float = 0.3) -> np.ndarray:
    """A harmonic-rich tone following the F0 contour ``f0`` (one value per sample)."""
    phase = 2 * np.pi * np.cumsum(f0) / 16_000
    return level * sum(np.sin(k * phase) / k for k in range(1, 6))


def test_pitch_of_a_steady_tone() -> None:
    f0, _ = prosody.pitch_track(_voice(np.full(16_000, 200.0)))
    voiced = f0[f0 > 0]
    assert len(voiced) > 0.8 * len(f0)
    assert abs(np.median(voiced) - 200) < 6


def test_rising_pitch_has_a_wide_range_and_flat_pitch_reads_monotone() -> None:
    glide = prosody.measure(_voice(np.geomspace(120, 300, 32_000)), [])
    flat = prosody.measure(_voice(np.full(32_000, 150.0)), [])
    assert glide.pitch_range_st > 10
    assert flat.pitch_range_st < 1
    assert "monotone" in prosody.describe(flat)


def test_rate_pauses_and_hesitations_come_from_word_timings() -> None:
    words = [Word("I", 0.0, 0.2, 1), Word("um", 0.3, 0.5, 1), Word("lost", 1.6, 1.9, 1), Word("it", 2.0, 2.2, 1)]
    p = prosody.measure(_voice(np.full(40_000, 180.0)), words)
    assert p.pauses == 1 and p.long_pauses == 1 and p.hesitations == 1
    assert abs(p.rate_wps - 4 / 2.2) < 1e-6
    text = prosody.describe(p)
    assert "long pauses" in text and "hesitating" in text


def test_loud_fast_lively_speech_is_more_aroused_than_quiet_slow_flat_speech() -> None:
    fast = [Word(str(i), i * 0.2, i * 0.2 + 0.15, 1) for i in range(15)]
    slow = [Word(str(i), i * 0.8, i * 0.8 + 0.3, 1) for i in range(4)]
    excited = prosody.measure(_voice(np.geomspace(150, 400, 48_000), 0.8), fast)
    subdued = prosody.measure(_voice(np.full(48_000, 110.0), 0.02), slow)
    assert prosody.arousal(excited) > 0.3 > -0.3 > prosody.arousal(subdued)
    assert "quietly" in prosody.describe(subdued) and "slowly" in prosody.describe(subdued)
