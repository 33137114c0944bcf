"""The face track's mouth from phoneme timings: visemes shape it, p/b/m shut it, pauses rest it."""

from __future__ import annotations

import numpy as np

from empathygraph.generators.avatar.motion import (
    bilabial_closure,
    build_track,
    lip_shape_from_phonemes,
    mouth_from_phonemes,
)
from empathygraph.generators.base import PhonemeTiming, Speech
from empathygraph.schemas import AvatarDirectives, CoarseEmotion

FPS = 25


def timings(*sounds: tuple[str, float]) -> list[PhonemeTiming]:
    """Consecutive phonemes, each (symbol, seconds)."""
    out, t = [], 0.0
    for symbol, seconds in sounds:
        out.append(PhonemeTiming(symbol, t, t + seconds))
        t += seconds
    return out


def frame(seconds: float) -> int:
    return int(seconds * FPS)


def test_open_vowels_open_wide_bilabials_shut_and_punctuation_rests():
    # "ˈma, ..." : a stress mark, m, a long a (length mark), a comma, then silence
    phonemes = timings(("ˈ", 0.04), ("m", 0.12), ("a", 0.2), ("ː", 0.12), (",", 0.32), ("i", 0.2))
    frames = frame(1.0)
    mouth = mouth_from_phonemes(phonemes, frames, FPS)
    shut = bilabial_closure(phonemes, frames, FPS)
    assert mouth[frame(0.3)] > 0.9  # the a, and its length mark keeps it open
    assert mouth[frame(0.42)] > 0.9
    assert mouth[frame(0.65)] == 0.0  # the comma: the mouth rests
    assert 0.2 < mouth[frame(0.9)] < 0.5  # i: a mid opening
    assert shut[frame(0.1)] == 1.0 and shut[frame(0.6)] == 0.0  # lips meet on m (the stress mark joins it)


def test_rounded_and_spread_lips():
    phonemes = timings(("u", 0.2), ("t", 0.2), ("i", 0.2))
    shape = lip_shape_from_phonemes(phonemes, frame(0.6), FPS)
    assert shape[frame(0.1)] == -1.0 and shape[frame(0.3)] == 0.0 and shape[frame(0.5)] == 0.6


def test_a_track_with_phonemes_closes_the_lips_on_m_even_when_the_audio_is_loud():
    rate = 16000
    voiced = 0.5 * np.sin(2 * np.pi * 180 * np.arange(rate) / rate)  # loud through all three sounds
    audio = np.concatenate([voiced, np.zeros(rate // 2)]).astype(np.float32)
    phonemes = timings(("a", 0.3), ("m", 0.2), ("a", 0.5))
    track = build_track(Speech(audio, rate, phonemes), AvatarDirectives(expression=CoarseEmotion.NEUTRAL, intensity=0.5), FPS)
    assert track.mouth_source == "phonemes+loudness"
    assert track.mouth_open[frame(0.4)] == 0.0 and track.mouth_open[frame(0.15)] > 0.7
