"""Per-frame face parameters: expression from the directives, mouth from the speech, blinks, head motion.

Every avatar backend draws or warps a face from the same ``FaceTrack``, so the
procedural head and the animated portrait move alike. Expression shapes follow
FACS action units (AU1/2 brow raise, AU4 brow lowerer, AU5 upper lid raise, AU6/12
smile, AU15 lip-corner depressor, AU9/10 nose wrinkle and upper-lip raise, AU17 chin raise,
AU20 lip stretch, AU23/24 lip press, AU25/26 lips part and jaw drop).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from empathygraph.generators.audio import loudness_envelope
from empathygraph.generators.base import PhonemeTiming, Speech
from empathygraph.schemas import AvatarDirectives, CoarseEmotion


@dataclass(frozen=True)
class Expression:
    """A static facial expression at full intensity; each field is roughly in [-1, 1].

    Attributes:
        smile: lip-corner pull up (+, AU12) or down (-, AU15).
        brow_raise: whole-brow raise (+, AU1+2) or lowering (-, AU4).
        brow_inner: inner-brow raise (+, sad/fearful, AU1) or knit (-, angry, AU4).
        eye_open: upper-lid raise (+, AU5) or squint/droop (-, AU6/AU7).
        jaw: resting jaw drop (AU26/27).
        mouth_width: lip stretch (+, AU20) or narrowing (-).
        lip_raise: upper-lip raise (AU10, disgust): shows the upper teeth.
        brow_knit: brows drawn together without lowering them (the AU4 part of fear's AU1+2+4).
        cheek_raise: cheek raise (AU6): lower lids pushed up, crow's feet, round cheeks.
        lid_tighten: lid tightener (AU7): straight, raised lower lids.
        nose_wrinkle: nose wrinkler (AU9).
        lip_press: lip press / tightener (AU23/24): thin lips.
        chin_raise: chin raiser (AU17): lower lip pushed up, chin boss.
        lips_part: lips parted at rest (AU25), showing the teeth.
    """

    smile: float = 0.0
    brow_raise: float = 0.0
    brow_inner: float = 0.0
    eye_open: float = 0.0
    jaw: float = 0.0
    mouth_width: float = 0.0
    lip_raise: float = 0.0
    brow_knit: float = 0.0
    cheek_raise: float = 0.0
    lid_tighten: float = 0.0
    nose_wrinkle: float = 0.0
    lip_press: float = 0.0
    chin_raise: float = 0.0
    lips_part: float = 0.0

    def scaled(self, k: float) -> Expression:
        return Expression(**{name: value * k for name, value in self.__dict__.items()})


# Prototypes after EMFACS: joy AU6+12(+25), sadness AU1+4+15(+17), anger AU4+5+7+23/24,
# fear AU1+2+4+5+7+20+26, disgust AU9+10+15(+17), surprise AU1+2+5+26.
EXPRESSIONS: dict[CoarseEmotion, Expression] = {
    CoarseEmotion.NEUTRAL: Expression(),
    CoarseEmotion.JOY: Expression(smile=1.01, brow_raise=0.27, mouth_width=0.2, cheek_raise=1.16, lips_part=1.0),
    CoarseEmotion.SADNESS: Expression(
        smile=-1.12, brow_raise=-0.87, brow_inner=1.5, eye_open=-1.5, mouth_width=-0.4, chin_raise=0.62
    ),
    CoarseEmotion.ANGER: Expression(
        smile=-0.98, brow_raise=-1.3, brow_inner=-1.42, mouth_width=-0.92, lid_tighten=1.5, lip_press=0.65, chin_raise=0.2
    ),
    CoarseEmotion.FEAR: Expression(
        smile=-0.98, brow_raise=0.2, brow_inner=1.5, brow_knit=1.5, eye_open=1.14, mouth_width=1.27, lips_part=0.23
    ),
    CoarseEmotion.DISGUST: Expression(
        smile=-0.5, brow_raise=-0.6, brow_inner=-0.15, lid_tighten=0.5, cheek_raise=0.4, nose_wrinkle=1.0,
        lip_raise=1.0, chin_raise=0.3, mouth_width=-0.1,
    ),
    CoarseEmotion.SURPRISE: Expression(brow_raise=1.5, brow_inner=0.39, eye_open=1.5, jaw=0.2, mouth_width=-0.38),
}

# How far the jaw opens for each vowel-like phoneme (IPA); consonants close it.
_OPEN_VOWELS = {"a": 1.0, "ɑ": 1.0, "æ": 0.9, "ɐ": 0.8, "ʌ": 0.75, "ɔ": 0.8, "ɒ": 0.9, "e": 0.6, "ɛ": 0.7}
_MID_VOWELS = {"ə": 0.45, "ɜ": 0.5, "o": 0.55, "ɪ": 0.4, "i": 0.35, "u": 0.3, "ʊ": 0.35, "ɚ": 0.45, "ɝ": 0.5}
_CLOSED = set("pbmfv")
_STRESS = set("ˈˌ")
_LENGTH = set("ː")
_ROUNDED = set("uoʊɔɒw")
_SPREAD = set("iɪeɛæjsz")


@dataclass
class FaceTrack:
    """Per-frame face parameters for a whole video (arrays of length ``frames``)."""

    fps: int
    mouth_open: np.ndarray
    blink: np.ndarray
    head_x: np.ndarray
    head_y: np.ndarray
    head_angle: np.ndarray
    gaze_x: np.ndarray
    gaze_y: np.ndarray
    expression: Expression
    mouth_source: str
    lip_shape: np.ndarray | None = None  # -1 rounded (o, u, w) .. +1 spread (i, e), from phonemes

    @property
    def frames(self) -> int:
        return len(self.mouth_open)


def build_track(speech: Speech, directives: AvatarDirectives, fps: int, seed: int = 0) -> FaceTrack:
    """Plan every frame of the face for ``speech`` under ``directives``."""
    frames = max(1, round(speech.duration * fps))
    rng = np.random.default_rng(seed)
    expression = EXPRESSIONS[directives.expression].scaled(0.35 + 0.65 * directives.intensity)
    lip_shape = None
    if speech.phonemes:
        # Visemes give the shape (open vowels wide, lips shut on p/b/m); loudness keeps the timing honest.
        visemes = mouth_from_phonemes(speech.phonemes, frames, fps)
        loudness = mouth_from_loudness(speech.audio, speech.sample_rate, fps, frames)
        shut = bilabial_closure(speech.phonemes, frames, fps)
        mouth, source = np.clip(0.5 * visemes + 0.5 * loudness, 0.0, 1.0) * (1.0 - shut), "phonemes+loudness"
        lip_shape = lip_shape_from_phonemes(speech.phonemes, frames, fps)
    else:
        mouth, source = mouth_from_loudness(speech.audio, speech.sample_rate, fps, frames), "loudness"
    t = np.arange(frames) / fps
    head_x, head_y, angle = _head_motion(directives.head_motion, t, mouth, rng)
    gaze_x, gaze_y = _gaze(directives.gaze, t, fps, rng)
    blink_rate = 0.45 if directives.expression in (CoarseEmotion.FEAR, CoarseEmotion.ANGER) else 0.3
    return FaceTrack(
        fps=fps,
        mouth_open=mouth,
        blink=_blinks(frames, fps, blink_rate, rng),
        head_x=head_x,
        head_y=head_y,
        head_angle=angle,
        gaze_x=gaze_x,
        gaze_y=gaze_y,
        expression=expression,
        mouth_source=source,
        lip_shape=lip_shape,
    )


def mouth_from_loudness(audio: np.ndarray, sample_rate: int, fps: int, frames: int) -> np.ndarray:
    """Map the loudness envelope to jaw opening in [0, 1] (silence closed, loud speech open)."""
    envelope = loudness_envelope(audio, sample_rate, fps)[:frames]
    envelope = np.pad(envelope, (0, frames - len(envelope)), constant_values=envelope.min(initial=-100.0))
    peak = np.percentile(envelope, 98) if len(envelope) else 0.0
    floor = max(peak - 35.0, float(np.percentile(envelope, 5)))
    level = np.clip((envelope - floor) / max(peak - floor, 1e-6), 0.0, 1.0)
    # Quiet hiss stays shut; the jaw follows speech with a little easing.
    return np.clip((level - 0.15) / 0.85, 0.0, 1.0) ** 0.8


def _spans(phonemes: list[PhonemeTiming], fps: int) -> list[tuple[str, int, int]]:
    """(sound, first frame, end frame) of each phoneme; stress marks join the next sound, length marks the last."""
    spans: list[tuple[str, int, int]] = []
    carry = None
    for item in phonemes:
        symbol = item.phoneme[:1]
        start, end = int(item.start * fps), max(int(item.start * fps) + 1, int(item.end * fps))
        if symbol in _STRESS:
            carry = carry if carry is not None else start
            continue
        if symbol in _LENGTH and spans:
            sound, first, _ = spans[-1]
            spans[-1] = (sound, first, end)
            continue
        spans.append((symbol, start if carry is None else carry, end))
        carry = None
    return spans


def mouth_from_phonemes(phonemes: list[PhonemeTiming], frames: int, fps: int) -> np.ndarray:
    """Map phoneme timings to jaw opening: open vowels wide, bilabials shut, pauses and punctuation closed."""
    mouth = np.zeros(frames)
    for symbol, start, end in _spans(phonemes, fps):
        if not symbol.strip() or not (symbol.isalpha() or symbol in _OPEN_VOWELS or symbol in _MID_VOWELS):
            continue  # a pause, a space or punctuation: the mouth rests
        opening = _OPEN_VOWELS.get(symbol, _MID_VOWELS.get(symbol, 0.0 if symbol in _CLOSED else 0.2))
        mouth[start:end] = np.maximum(mouth[start:end], opening)
    kernel = np.array([0.25, 0.5, 0.25])
    return np.convolve(mouth, kernel, mode="same")


def bilabial_closure(phonemes: list[PhonemeTiming], frames: int, fps: int) -> np.ndarray:
    """1 where the lips must meet (p, b, m), easing in and out over a frame."""
    shut = np.zeros(frames)
    for symbol, start, end in _spans(phonemes, fps):
        if symbol in "pbm":
            shut[start:end] = 1.0
    return np.clip(np.convolve(shut, np.array([0.5, 1.0, 0.5]), mode="same"), 0.0, 1.0)


def lip_shape_from_phonemes(phonemes: list[PhonemeTiming], frames: int, fps: int) -> np.ndarray:
    """Map phoneme timings to lip shape per frame: -1 rounded (o, u, w), +1 spread (i, e, s), eased."""
    shape = np.zeros(frames)
    for symbol, start, end in _spans(phonemes, fps):
        shape[start:end] = -1.0 if symbol in _ROUNDED else 0.6 if symbol in _SPREAD else 0.0
    return np.convolve(shape, np.array([0.25, 0.5, 0.25]), mode="same")


def _blinks(frames: int, fps: int, rate_hz: float, rng: np.random.Generator) -> np.ndarray:
    """Eyelid closure per frame in [0, 1]: ~120 ms blinks (at 25 fps) at random intervals."""
    closure = np.zeros(frames)
    shape = np.array([0.45, 1.0, 0.45])
    t = rng.uniform(0.5, 1.5) * fps
    while t < frames:
        start = int(t)
        end = min(frames, start + len(shape))
        closure[start:end] = np.maximum(closure[start:end], shape[: end - start])
        t += rng.exponential(1.0 / rate_hz) * fps + fps * 0.8
    return closure


def _head_motion(
    kind: str, t: np.ndarray, mouth: np.ndarray, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Head offset (fraction of face size) and roll angle (degrees) per frame."""
    phase = rng.uniform(0, 2 * np.pi, size=3)
    sway = 0.006 * np.sin(2 * np.pi * 0.23 * t + phase[0])  # breathing-like idle drift
    x = sway.copy()
    y = 0.004 * np.sin(2 * np.pi * 0.31 * t + phase[1])
    angle = 1.0 * np.sin(2 * np.pi * 0.17 * t + phase[2])
    speaking = np.convolve(mouth, np.ones(12) / 12, mode="same")
    if kind == "nod":
        y += 0.018 * np.sin(2 * np.pi * 0.9 * t) * (0.4 + speaking)
    elif kind == "tilt":
        angle += 7.0 * (1 - np.exp(-t / 0.6))
    elif kind == "shake":
        x += 0.02 * np.sin(2 * np.pi * 1.1 * t) * (0.4 + speaking)
    elif kind == "still":
        x *= 0.3
        y *= 0.3
        angle *= 0.3
    return x, y, angle


def _gaze(kind: str, t: np.ndarray, fps: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Iris offset per frame in [-1, 1] of the eye's free travel, with small saccades."""
    base = {"at_user": (0.0, 0.0), "down": (0.0, 0.6), "away": (0.65, 0.1)}[kind]
    gx = np.full(len(t), base[0])
    gy = np.full(len(t), base[1])
    hold = 0
    jitter = (0.0, 0.0)
    for i in range(len(t)):
        if hold <= 0:
            jitter = (rng.normal(0, 0.08), rng.normal(0, 0.05))
            hold = int(rng.uniform(0.6, 2.0) * fps)
        hold -= 1
        gx[i] += jitter[0]
        gy[i] += jitter[1]
    return np.clip(gx, -1, 1), np.clip(gy, -1, 1)
