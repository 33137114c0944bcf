"""Text preparation, voice character and the DSP that gives one voice many speakers."""

from __future__ import annotations

import numpy as np
import pytest

from empathygraph.generators.base import GeneratorError
from empathygraph.generators.speech.text import clean, sentences
from empathygraph.generators.speech.voice_character import character
from empathygraph.generators.speech.voice_dsp import shift_voice, time_stretch
from empathygraph.schemas import AvatarProfile, SpeechStyle

STYLE = SpeechStyle(emotion="neutral", rate=1.0, pitch=0.0, energy=0.5)


def test_unsayable_characters_are_dropped_or_spelled_out():
    assert clean("So sorry 😢💔 → 50% & more") == "So sorry 50 percent and more"


@pytest.mark.parametrize("text", ["", "   ", "😢😢", "→ ★"])
def test_empty_text_is_a_clear_error(text):
    with pytest.raises(GeneratorError, match="empty"):
        sentences(text)


def test_long_text_is_chunked_into_bounded_sentences():
    text = "One. " + ", ".join(["a longer clause with words"] * 60) + ". Last!"
    parts = sentences(text, max_chars=120)
    assert parts[0] == "One." and parts[-1] == "Last!"
    assert all(len(p) <= 120 for p in parts)


def test_too_long_text_is_refused_by_name():
    with pytest.raises(GeneratorError, match="limit"):
        sentences("word " * 100, max_text_chars=50)


def test_child_elderly_woman_and_young_man_get_different_voices():
    child = character(AvatarProfile(age="child", gender="female"), STYLE)
    grandma = character(AvatarProfile(age="elderly", gender="female"), STYLE)
    man = character(AvatarProfile(age="young", gender="male"), STYLE)
    assert child.pitch_ratio > grandma.pitch_ratio > man.pitch_ratio
    assert child.formant_ratio > grandma.formant_ratio > man.formant_ratio
    assert grandma.rate < man.rate


def test_unknown_profile_value_is_rejected_by_the_schema():
    with pytest.raises(ValueError):
        AvatarProfile(age="teenager")


def _f0(audio: np.ndarray, rate: int) -> float:
    """Autocorrelation pitch of a steady tone."""
    frame = audio[rate // 4 : rate // 4 + 2048]
    ac = np.correlate(frame, frame, "full")[2047:]
    lo, hi = rate // 500, rate // 60
    return rate / (lo + int(np.argmax(ac[lo:hi])))


def test_pitch_shift_moves_f0_and_keeps_length():
    rate = 22050
    t = np.arange(rate) / rate
    voice = sum(np.sin(2 * np.pi * 110 * k * t) / k for k in range(1, 8)).astype(np.float32) * 0.2
    shifted = shift_voice(voice, rate, pitch_ratio=1.8, formant_ratio=1.15)
    assert len(shifted) == len(voice)
    assert _f0(shifted, rate) == pytest.approx(198, rel=0.06)


def test_time_stretch_changes_length_not_pitch():
    rate = 22050
    tone = np.sin(2 * np.pi * 150 * np.arange(rate) / rate).astype(np.float32)
    longer = time_stretch(tone, 1.5)
    assert len(longer) == int(rate * 1.5)
    assert _f0(longer, rate) == pytest.approx(150, rel=0.05)
