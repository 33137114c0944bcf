"""Map an avatar profile and a speech style to voice settings any TTS backend can apply.

One base voice (Piper's Joe is a young man) becomes a child, an elderly woman or a
middle-aged man by shifting its pitch (the voice's F0) and its formants (the size of
the vocal tract) separately. Typical adult F0: men ~120 Hz, women ~210 Hz, children
~270 Hz; women's formants sit ~15-18 % above men's, children's ~25-35 %.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from empathygraph.schemas import AgeGroup, AvatarProfile, CoarseEmotion, Gender, SpeechStyle, Timbre

# Typical speaking F0 (Hz) and formant scale (relative to an adult man) per age and gender.
F0_HZ: dict[tuple[AgeGroup, Gender], float] = {
    (AgeGroup.CHILD, Gender.FEMALE): 275.0,
    (AgeGroup.CHILD, Gender.MALE): 260.0,
    (AgeGroup.YOUNG, Gender.FEMALE): 215.0,
    (AgeGroup.YOUNG, Gender.MALE): 120.0,
    (AgeGroup.MIDDLE_AGED, Gender.FEMALE): 195.0,
    (AgeGroup.MIDDLE_AGED, Gender.MALE): 112.0,
    (AgeGroup.ELDERLY, Gender.FEMALE): 180.0,
    (AgeGroup.ELDERLY, Gender.MALE): 125.0,
}
_FORMANT_SCALE: dict[tuple[AgeGroup, Gender], float] = {
    (AgeGroup.CHILD, Gender.FEMALE): 1.30,
    (AgeGroup.CHILD, Gender.MALE): 1.27,
    (AgeGroup.YOUNG, Gender.FEMALE): 1.17,
    (AgeGroup.YOUNG, Gender.MALE): 1.00,
    (AgeGroup.MIDDLE_AGED, Gender.FEMALE): 1.14,
    (AgeGroup.MIDDLE_AGED, Gender.MALE): 0.97,
    (AgeGroup.ELDERLY, Gender.FEMALE): 1.10,
    (AgeGroup.ELDERLY, Gender.MALE): 0.95,
}
# Older speakers talk more slowly; children a little faster.
AGE_RATE: dict[AgeGroup, float] = {
    AgeGroup.CHILD: 1.05,
    AgeGroup.YOUNG: 1.0,
    AgeGroup.MIDDLE_AGED: 0.97,
    AgeGroup.ELDERLY: 0.88,
}
_TIMBRE_SEMITONES: dict[Timbre, float] = {Timbre.HIGH: 2.0, Timbre.MID: 0.0, Timbre.LOW: -2.0}
_TIMBRE_FORMANT: dict[Timbre, float] = {Timbre.HIGH: 1.03, Timbre.MID: 1.0, Timbre.LOW: 0.97}
# How lively each emotion sounds, in [-1, 1]; drives the TTS's variability (expressiveness).
EMOTION_AROUSAL: dict[CoarseEmotion, float] = {
    CoarseEmotion.NEUTRAL: 0.0,
    CoarseEmotion.JOY: 0.6,
    CoarseEmotion.SADNESS: -0.5,
    CoarseEmotion.ANGER: 0.8,
    CoarseEmotion.FEAR: 0.7,
    CoarseEmotion.DISGUST: 0.2,
    CoarseEmotion.SURPRISE: 0.8,
}


@dataclass(frozen=True)
class BaseVoice:
    """Who a TTS voice sounds like before any shift."""

    f0_hz: float = 120.0
    formant_scale: float = 1.0


@dataclass(frozen=True)
class VoiceCharacter:
    """Settings that make a base voice fit a profile and a style.

    Attributes:
        pitch_ratio: multiply the voice's F0 by this.
        formant_ratio: multiply the voice's formant frequencies by this.
        rate: speaking-rate multiplier (style rate x age).
        expressiveness: 0..2, scales the TTS's prosodic variability (1 = the voice's own).
        volume: output gain in (0, 1].
    """

    pitch_ratio: float
    formant_ratio: float
    rate: float
    expressiveness: float
    volume: float

    def as_dict(self) -> dict[str, float]:
        return {k: round(v, 3) for k, v in asdict(self).items()}


def expected_f0_range(profile: AvatarProfile, spread_semitones: float = 4.0) -> tuple[float, float]:
    """Return the median-F0 range (Hz) a voice for ``profile`` should fall in.

    The age and gender's typical F0, moved by the timbre, plus or minus ``spread_semitones``:
    speakers of one age and gender differ by about that much.
    """
    centre = F0_HZ[(profile.age, profile.gender)] * 2.0 ** (_TIMBRE_SEMITONES[profile.timbre] / 12.0)
    factor = 2.0 ** (spread_semitones / 12.0)
    return centre / factor, centre * factor


def character(profile: AvatarProfile, style: SpeechStyle, base: BaseVoice = BaseVoice()) -> VoiceCharacter:
    """Return how to shift ``base`` so it sounds like ``profile`` speaking in ``style``."""
    key = (profile.age, profile.gender)
    semitones = _TIMBRE_SEMITONES[profile.timbre] + style.pitch
    pitch_ratio = F0_HZ[key] / base.f0_hz * 2.0 ** (semitones / 12.0)
    formant_ratio = _FORMANT_SCALE[key] * _TIMBRE_FORMANT[profile.timbre] / base.formant_scale
    arousal = EMOTION_AROUSAL[style.emotion]
    return VoiceCharacter(
        pitch_ratio=pitch_ratio,
        formant_ratio=formant_ratio,
        rate=max(0.5, min(1.6, style.rate * AGE_RATE[profile.age])),
        expressiveness=max(0.3, min(1.8, 1.0 + 0.5 * arousal + 0.3 * (style.energy - 0.5))),
        volume=0.55 + 0.45 * style.energy,
    )
