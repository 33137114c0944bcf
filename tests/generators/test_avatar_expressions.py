"""The procedural head's expressions: action units, speech riding on them, and what a face reader sees."""

from __future__ import annotations

import numpy as np
import pytest

from empathygraph.eval.consistency import EXPECTED_GEOMETRY, geometry_agreement
from empathygraph.generators.avatar.motion import EXPRESSIONS, Expression, FaceTrack
from empathygraph.generators.avatar.procedural import ProceduralHead, mouth_area, mouth_shape
from empathygraph.schemas import AgeGroup, AvatarProfile, CoarseEmotion, Gender

SCALE = 0.35 + 0.65 * 0.8  # intensity 0.8, as build_track scales it
PROFILES = [AvatarProfile(age=a, gender=g) for a in AgeGroup for g in Gender]


def still(expression: Expression, mouth: float = 0.0, blink: float = 0.0) -> FaceTrack:
    zero = np.zeros(1)
    return FaceTrack(25, np.full(1, mouth), np.full(1, blink), zero, zero, zero, zero, zero, expression, "test")


@pytest.fixture(scope="module")
def head() -> ProceduralHead:
    return ProceduralHead(AvatarProfile())


def test_speech_opens_the_mouth_without_undoing_the_expression(head):
    smile = EXPRESSIONS[CoarseEmotion.JOY].scaled(SCALE)
    frown = EXPRESSIONS[CoarseEmotion.SADNESS].scaled(SCALE)
    for expression, sign in ((smile, 1), (frown, -1)):
        shapes = [mouth_shape(head.look, expression, opening) for opening in (0.0, 0.5, 1.0)]
        assert all(np.sign(s.corner_lift) == sign for s in shapes)  # corners stay up (joy) or down (sadness)
        gaps = [s.gap_up + s.gap_down for s in shapes]
        assert gaps[0] < gaps[1] < gaps[2]
    # Pressed angry lips open less for the same speech than relaxed neutral ones.
    anger = mouth_shape(head.look, EXPRESSIONS[CoarseEmotion.ANGER].scaled(SCALE), 1.0)
    neutral = mouth_shape(head.look, Expression(), 1.0)
    assert anger.gap_up + anger.gap_down < neutral.gap_up + neutral.gap_down
    assert anger.upper_lip < neutral.upper_lip


@pytest.mark.parametrize("emotion", list(CoarseEmotion))
def test_the_visible_mouth_opening_grows_with_speech_for_every_expression(head, emotion):
    expression = EXPRESSIONS[emotion].scaled(SCALE)
    areas = [mouth_area(head.frame(still(expression, opening), 0)) for opening in (0.0, 0.5, 1.0)]
    assert areas[0] <= areas[1] < areas[2], areas


def test_mouth_area_counts_the_mouth_not_dark_hair_or_brows(head):
    closed = head.frame(still(Expression()), 0)
    assert mouth_area(closed) == 0  # dark-brown hair, brows and lashes are near the colour but not as red
    assert mouth_area(head.frame(still(Expression(), 1.0), 0)) > 300


def test_each_expression_is_painted_once_and_differs_from_neutral(head):
    layers = {e: head.layer(EXPRESSIONS[e].scaled(SCALE))[0] for e in CoarseEmotion}
    assert head.layer(EXPRESSIONS[CoarseEmotion.JOY].scaled(SCALE))[0] is layers[CoarseEmotion.JOY]
    neutral = layers[CoarseEmotion.NEUTRAL].astype(np.int16)
    for emotion, layer in layers.items():
        if emotion is not CoarseEmotion.NEUTRAL:
            assert np.abs(layer.astype(np.int16) - neutral).max() > 40, emotion


def test_blink_closes_the_eyes(head):
    def white_of_the_eyes(frame: np.ndarray) -> int:
        return int((frame.min(axis=2) > 200).sum())

    assert white_of_the_eyes(head.frame(still(Expression()), 0)) > 40
    assert white_of_the_eyes(head.frame(still(Expression(), blink=1.0), 0)) == 0


def test_every_profile_and_expression_shows_a_detectable_face():
    """Grey hair on a pale backdrop once hid the elderly faces from the Haar detector."""
    import cv2

    from empathygraph.tools.face import FaceDetector

    detector = FaceDetector(160)
    missed = []
    for profile in PROFILES:
        face = ProceduralHead(profile)
        for emotion in CoarseEmotion:
            frame = face.frame(still(EXPRESSIONS[emotion].scaled(SCALE), 0.5), 0)
            if detector.largest(cv2.cvtColor(frame, cv2.COLOR_RGB2GRAY)) is None:
                missed.append((profile.age.value, profile.gender.value, emotion.value))
    assert not missed


def test_the_face_classifier_reads_the_default_avatars_expressions(head):
    """Still and talking frames of the default avatar read as intended (disgust reads as anger: a known gap)."""
    pytest.importorskip("ai_edge_litert")
    import cv2

    from empathygraph.tools.face import MODEL_LABELS, ExpressionClassifier, FaceDetector, crop

    detector, classifier = FaceDetector(160), ExpressionClassifier()
    hits = {}
    for emotion in CoarseEmotion:
        reads = []
        for opening in (0.0, 0.4, 0.8):
            grey = cv2.cvtColor(head.frame(still(EXPRESSIONS[emotion].scaled(SCALE), opening), 0), cv2.COLOR_RGB2GRAY)
            box = detector.largest(grey)
            reads.append(None if box is None else MODEL_LABELS[int(np.argmax(classifier.probabilities(crop(grey, box))))])
        hits[emotion] = sum(r is emotion for r in reads)
    readable = [e for e in CoarseEmotion if e is not CoarseEmotion.DISGUST]
    assert sum(hits[e] for e in readable) >= 0.8 * 3 * len(readable), hits
    assert all(hits[e] >= 1 for e in readable), hits


def test_geometry_agreement_compares_each_expression_with_neutral():
    neutral = {"smile": 0.0, "mouth_width": 0.3, "eye_open": 0.05, "brow_raise": 0.1, "mouth_open": 0.02}
    rows = [{"intended": "neutral", "geometry": neutral}]
    for emotion, expected in EXPECTED_GEOMETRY.items():
        moved = dict(neutral)
        for name, sign in expected.items():
            moved[name] += 0.01 * sign
        rows.append({"intended": emotion.value, "geometry": moved})
    share, checks = geometry_agreement(rows)
    assert share == 1.0 and all(all(c.values()) for c in checks.values())
    rows[1]["geometry"] = neutral  # joy that does not move the mouth
    assert geometry_agreement(rows)[0] == pytest.approx(5 / 6)
