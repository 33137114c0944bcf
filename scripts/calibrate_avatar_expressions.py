"""Calibrate the procedural avatar's per-emotion action-unit intensities against the face classifier.

The avatar's expressions are FACS prototypes (``empathygraph.generators.avatar.motion.EXPRESSIONS``):
each emotion raises a fixed set of action units. This script tunes *how strongly* each of those
action units is drawn, so that the perception tools' face classifier (Haar face box + the FER2013
mini-Xception, exactly as ``ToolBox.see`` runs them) reads the intended emotion on still and
talking frames of several avatar profiles. It never adds or removes an action unit and never flips
a sign: each intensity stays within [LOW, HIGH] times its sign, so the result is still the same
FACS prototype, drawn at a strength this classifier recognises.

Because the numbers are fitted to one classifier, check them against other readers too (held-out
profiles, talking frames, the face mesh's geometry in ``benchmarks/generators.py``).

    python scripts/calibrate_avatar_expressions.py [--iterations 60] [--emotions fear,disgust]

Prints, per emotion, the classifier's mean probability of the intended label and the share of
frames it reads as intended, before and after, on the tuning profiles and on held-out profiles,
then the tuned prototypes as Python to paste into ``face_motion.EXPRESSIONS``.
"""

from __future__ import annotations

import argparse
import dataclasses

import cv2
import numpy as np

from empathygraph.generators.avatar.motion import EXPRESSIONS, Expression, FaceTrack
from empathygraph.generators.avatar.procedural import ProceduralHead
from empathygraph.schemas import AgeGroup, AvatarProfile, CoarseEmotion, Gender
from empathygraph.tools.face import MODEL_LABELS, ExpressionClassifier, FaceDetector, crop

LOW, HIGH = 0.2, 1.5  # bounds on each action unit's intensity (times its sign)
SCALE = 0.35 + 0.65 * 0.8  # the expression scale of intensity 0.8, as build_track applies it
# (speech opening, eyelid closure): silent and talking frames, and one mid-blink
FRAMES = ((0.0, 0.0), (0.35, 0.0), (0.7, 0.0), (1.0, 0.0), (0.5, 0.45))
TUNE = [
    AvatarProfile(age=AgeGroup.YOUNG, gender=Gender.FEMALE),
    AvatarProfile(age=AgeGroup.MIDDLE_AGED, gender=Gender.MALE),
    AvatarProfile(age=AgeGroup.CHILD, gender=Gender.MALE),
    AvatarProfile(age=AgeGroup.ELDERLY, gender=Gender.FEMALE),
]
HELD_OUT = [
    AvatarProfile(age=AgeGroup.YOUNG, gender=Gender.MALE),
    AvatarProfile(age=AgeGroup.MIDDLE_AGED, gender=Gender.FEMALE),
    AvatarProfile(age=AgeGroup.CHILD, gender=Gender.FEMALE),
    AvatarProfile(age=AgeGroup.ELDERLY, gender=Gender.MALE),
]


class Reader:
    """The perception tools' face pipeline on one RGB frame: probabilities in MODEL_LABELS order."""

    def __init__(self) -> None:
        self.detector = FaceDetector(160)
        self.classifier = ExpressionClassifier()

    def __call__(self, rgb: np.ndarray) -> np.ndarray | None:
        grey = cv2.cvtColor(rgb, cv2.COLOR_RGB2GRAY)
        box = self.detector.largest(grey)
        return None if box is None else self.classifier.probabilities(crop(grey, box))


def still_track(expression: Expression, mouth: float, blink: float = 0.0) -> FaceTrack:
    zero = np.zeros(1)
    return FaceTrack(25, np.full(1, mouth), np.full(1, blink), zero, zero, zero, zero, zero, expression, "calibration")


def probabilities(heads: list[ProceduralHead], read: Reader, expression: Expression) -> np.ndarray:
    """Classifier output for every (profile, frame) of ``expression`` (rows; zeros: no face)."""
    rows = []
    for head in heads:
        for mouth, blink in FRAMES:
            p = read(head.frame(still_track(expression, mouth, blink), 0))
            rows.append(np.zeros(len(MODEL_LABELS)) if p is None else p)
    return np.array(rows)


def score(probs: np.ndarray, target: int) -> float:
    """How clearly the intended label wins each frame, averaged (higher is better).

    Per frame: log p(intended) minus log of the strongest other label, capped at 1 so that
    frames already read clearly do not outweigh frames still read as something else.
    """
    p = np.clip(probs, 1e-4, 1.0)
    others = np.delete(p, target, axis=1).max(axis=1)
    return float(np.minimum(np.log(p[:, target]) - np.log(others), 1.0).mean())


def summary(probs: np.ndarray, target: int) -> str:
    hits = float((probs.argmax(axis=1) == target).mean())
    return f"p={probs[:, target].mean():.2f} (min {probs[:, target].min():.2f}) read as intended {hits:.0%}"


def calibrate(emotion: CoarseEmotion, iterations: int, rng: np.random.Generator, read: Reader,
              tune: list[ProceduralHead]) -> Expression:  # fmt: skip
    """(1+1) random local search over the prototype's own action units, signs fixed, within bounds."""
    target = MODEL_LABELS.index(emotion)
    base = EXPRESSIONS[emotion]
    names = [name for name, value in dataclasses.asdict(base).items() if value != 0.0]
    signs = np.array([np.sign(getattr(base, n)) for n in names])
    x = np.clip(np.array([abs(getattr(base, n)) for n in names]), LOW, HIGH)

    def build(v: np.ndarray) -> Expression:
        return dataclasses.replace(base, **{n: round(float(s * a), 2) for n, s, a in zip(names, signs, v)})

    best = score(probabilities(tune, read, build(x).scaled(SCALE)), target)
    step = 0.3
    for i in range(iterations):
        candidate = x.copy()
        chosen = rng.random(len(x)) < max(0.25, 2.0 / len(x))
        candidate[chosen] += rng.normal(0.0, step, chosen.sum())
        candidate = np.clip(candidate, LOW, HIGH)
        value = score(probabilities(tune, read, build(candidate).scaled(SCALE)), target)
        if value > best:
            x, best = candidate, value
        step = 0.3 * (1 - i / max(1, iterations)) + 0.06
    return build(x)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--iterations", type=int, default=60)
    parser.add_argument("--emotions", default=",".join(e.value for e in CoarseEmotion if e is not CoarseEmotion.NEUTRAL))
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    read = Reader()
    tune = [ProceduralHead(p) for p in TUNE]
    held = [ProceduralHead(p) for p in HELD_OUT]
    tuned: dict[CoarseEmotion, Expression] = {}
    for emotion in CoarseEmotion:
        target = MODEL_LABELS.index(emotion)
        before = EXPRESSIONS[emotion]
        if emotion.value in args.emotions.split(","):
            tuned[emotion] = calibrate(emotion, args.iterations, rng, read, tune)
        after = tuned.get(emotion, before)
        for name, heads in (("tuning", tune), ("held-out", held)):
            old = probabilities(heads, read, before.scaled(SCALE))
            new = probabilities(heads, read, after.scaled(SCALE))
            print(f"{emotion.value:9s} {name:8s} before: {summary(old, target)}  after: {summary(new, target)}", flush=True)
    print("\n# tuned prototypes (intensities of each prototype's own action units)")
    for emotion, expression in tuned.items():
        fields = ", ".join(f"{k}={v}" for k, v in dataclasses.asdict(expression).items() if v != 0.0)
        print(f"CoarseEmotion.{emotion.name}: Expression({fields}),")


if __name__ == "__main__":
    main()
