"""Calibrate the portrait's expression gains (upper face, lower face, shading) on the bundled face classifier.

Run: .venv/bin/python scripts/calibrate_portrait_expressions.py [--check]

Each emotion's movement is the packaged person's own, learned from their expression sheet;
this script only chooses how strongly it is drawn and how much of the packaged people's
mean movement joins it (``expression_gains``): for every emotion a coordinate search over
those four numbers, from the person's own movement as learned, scored on still and talking
frames of the tuning people by the perception tools' classifier (``tools/face.py``: Haar
box, FER2013 mini-Xception, as ``ToolBox.see`` runs them). A gain moves only when the score
rises by more than ``MIN_GAIN``, so a gain stays as low as the classifier allows. The
second classifier (``eval/face_readers.py``) is never run here: it stays held out for
``benchmarks/generators.py``. The held-out people are read by the bundled classifier too,
to show whether the gains carry to faces they were not chosen on.

Writes ``empathygraph/generators/avatar/data/portrait_expression_gains.json`` (``--check``: print only).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import time

import cv2
import numpy as np

from empathygraph.generators.avatar.expression_gains import AS_LEARNED, GAINS, ExpressionGain
from empathygraph.generators.avatar.motion import EXPRESSIONS, FaceTrack
from empathygraph.generators.avatar.people import person
from empathygraph.generators.avatar.portrait import PortraitRig, load_portrait
from empathygraph.schemas import CoarseEmotion
from empathygraph.tools.config import PerceptionConfig
from empathygraph.tools.face import MODEL_LABELS, ExpressionClassifier, FaceDetector, crop

TUNE = ("P001", "P003", "P005", "P007", "P009", "P010")
HELD_OUT = ("P002", "P004", "P006", "P008")
MOUTHS = (0.0, 0.35, 0.7)  # speech opening: silent and talking frames
STRENGTH = 0.35 + 0.65 * 0.8  # the expression strength of intensity 0.8, as PortraitAvatar applies it
VALUES = {
    "upper": (0.75, 1.0, 1.25, 1.5, 2.0, 2.5),
    "lower": (0.75, 1.0, 1.25, 1.5, 2.0, 2.5),
    "shading": (0.5, 1.0, 1.5, 2.0, 2.5),
    "mean_share": (0.0, 0.5, 1.0),
}
# The rig's action units each emotion's EMFACS prototype has, and the amounts tried.
ACTION_UNITS = {CoarseEmotion.FEAR: ("eyes_wide", "lip_stretch", "jaw"), CoarseEmotion.SURPRISE: ("eyes_wide", "jaw")}
UNIT_VALUES = {"eyes_wide": (0.0, 0.25, 0.5), "lip_stretch": (0.0, 0.75, 1.5, 2.0), "jaw": (0.0, 0.15, 0.3)}
_STRONGER = ("upper", "lower", "shading", *UNIT_VALUES)  # raising these draws the face further from the photo
PASSES = 2
MIN_GAIN = 0.05  # score rise a stronger drawing must bring to be taken
SIZE = 512
CAP = 1.0  # a frame read this clearly (log-odds over the next label) counts no more


class Reader:
    """The perception tools' face pipeline on one RGB frame: probabilities in MODEL_LABELS order."""

    def __init__(self) -> None:
        config = PerceptionConfig()
        self.detector = FaceDetector(config.face_detect_width, config.face_min_size)
        self.classifier = ExpressionClassifier()

    def __call__(self, rgb: np.ndarray) -> np.ndarray:
        grey = cv2.cvtColor(rgb, cv2.COLOR_RGB2GRAY)
        box = self.detector.largest(grey)
        return np.zeros(len(MODEL_LABELS)) if box is None else self.classifier.probabilities(crop(grey, box))


def still(mouth: float) -> FaceTrack:
    zero = np.zeros(1)
    return FaceTrack(
        25, np.full(1, mouth), zero, zero, zero, zero, zero, zero, EXPRESSIONS[CoarseEmotion.NEUTRAL], "still"
    )


def probabilities(rigs: list[PortraitRig], read: Reader, emotion: CoarseEmotion, gain: ExpressionGain) -> np.ndarray:
    """Classifier output for every (person, mouth opening) of ``emotion`` drawn at ``gain`` (rows)."""
    rows = []
    for rig in rigs:
        rig.gains = {emotion: gain}
        rows.extend(read(rig.frame(still(m), 0, emotion, STRENGTH)) for m in MOUTHS)
    return np.array(rows)


def score(probs: np.ndarray, target: int) -> float:
    """Mean over frames of log p(intended) minus log p(strongest other label), capped at ``CAP`` per frame."""
    p = np.clip(probs, 1e-4, 1.0)
    others = np.delete(p, target, axis=1).max(axis=1)
    return float(np.minimum(np.log(p[:, target]) - np.log(others), CAP).mean())


def summary(probs: np.ndarray, target: int) -> dict[str, float]:
    return {
        "p_intended": round(float(probs[:, target].mean()), 3),
        "read_as_intended": round(float((probs.argmax(1) == target).mean()), 3),
    }


def calibrate(emotion: CoarseEmotion, rigs: list[PortraitRig], read: Reader) -> tuple[ExpressionGain, float]:
    """Coordinate search from 'as learned' over the gains and the emotion's action units; each pass tries every value."""
    target = MODEL_LABELS.index(emotion)
    current = dataclasses.asdict(AS_LEARNED)
    # The prototype's action units first: once the gains have grown, a greedy search no longer tries them.
    searched = {unit: UNIT_VALUES[unit] for unit in ACTION_UNITS.get(emotion, ())} | VALUES
    best = score(probabilities(rigs, read, emotion, ExpressionGain(**current)), target)
    for _ in range(PASSES):
        for name, values in searched.items():
            for value in values:
                if value == current[name]:
                    continue
                trial = current | {name: value}
                value_score = score(probabilities(rigs, read, emotion, ExpressionGain(**trial)), target)
                larger = sum(trial[k] for k in _STRONGER) > sum(current[k] for k in _STRONGER)
                if value_score > best + (MIN_GAIN if larger else 0.0):
                    current, best = trial, value_score
    return ExpressionGain(**current), best


def rigs_of(people: tuple[str, ...]) -> list[PortraitRig]:
    return [PortraitRig(load_portrait(person(p).portrait, SIZE), p, p, gains={}) for p in people]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="print the gains instead of writing them")
    args = parser.parse_args()
    start = time.time()
    read, tune, held = Reader(), rigs_of(TUNE), rigs_of(HELD_OUT)
    gains, report = {}, {}
    for emotion in CoarseEmotion:
        if emotion is CoarseEmotion.NEUTRAL:
            continue
        target = MODEL_LABELS.index(emotion)
        gain, best = calibrate(emotion, tune, read)
        gains[emotion.value] = dataclasses.asdict(gain)
        report[emotion.value] = {
            "gain": gains[emotion.value],
            "score": round(best, 3),
            **{f"{name}_{when}": summary(probabilities(rigs, read, emotion, g), target)
               for name, rigs in (("tuning", tune), ("held_out", held)) for when, g in (("before", AS_LEARNED), ("after", gain))},
        }  # fmt: skip
        print(json.dumps({emotion.value: report[emotion.value]}), flush=True)
    stored = {
        "classifier": "bundled (tools/face.py); the second classifier is not used",
        "tuning_people": list(TUNE),
        "held_out_people": list(HELD_OUT),
        "mouth_openings": list(MOUTHS),
        "strength": STRENGTH,
        "gains": gains,
    }
    if not args.check:
        GAINS.write_text(json.dumps(stored, indent=1) + "\n")
    print(json.dumps({"wrote": None if args.check else str(GAINS), "seconds": round(time.time() - start)}))


if __name__ == "__main__":
    main()
