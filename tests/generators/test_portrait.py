"""The photo-real portrait: learned expressions, a warp that parts the lips, a painted mouth, a real render."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from empathygraph.eval.consistency import lipsync_r
from empathygraph.generators import GeneratorsConfig, build_renderer
from empathygraph.generators.avatar.expression_sheet import _grid_bins, canonical_neutral, movements
from empathygraph.generators.avatar.face_points import (
    INNER_LIP_LOWER,
    INNER_LIP_UPPER,
    MOUTH_CORNERS,
    OUTER_LIP_LOWER,
    OUTER_LIP_UPPER,
    FaceFrame,
)
from empathygraph.generators.avatar.mouth import paint_mouth
from empathygraph.generators.avatar.portrait_moves import speech_moves
from empathygraph.generators.avatar.video import probe, read_frames
from empathygraph.generators.avatar.warp import Rig, invert
from empathygraph.schemas import AgeGroup, AvatarProfile, CoarseEmotion, Gender

needs_people = pytest.mark.skipif(importlib.util.find_spec("openpeople") is None, reason="openpeople is not installed")


def face_on_canvas(size: int = 256) -> np.ndarray:
    """The packaged people's mean neutral face, placed on a ``size`` square (pixels)."""
    return canonical_neutral().astype(np.float64) * (0.3 * size) + [size / 2, 0.4 * size]


def test_learned_expressions_move_each_face_as_its_action_units_should():
    """For every packaged person: joy lifts the mouth corners, surprise drops the jaw and raises the brows."""
    from empathygraph.generators.avatar.expression_sheet import _stored

    people = sorted({key.split("/")[0] for key in _stored()} - {"mean"})
    assert len(people) == 10
    for person in [*people, None]:
        moves = movements(person)
        joy, surprise = moves[CoarseEmotion.JOY], moves[CoarseEmotion.SURPRISE]
        assert joy[list(MOUTH_CORNERS[:2]), 1].mean() < -0.02, person  # corners up (y grows downward)
        assert surprise[14, 1] - surprise[13, 1] > 0.08, person  # lips part
        assert surprise[[105, 334], 1].mean() < -0.01, person  # brows up
        assert np.allclose(moves[CoarseEmotion.NEUTRAL], 0)


def test_sheet_tiles_are_binned_into_rows_and_columns_by_their_gaps():
    xs = np.array([100, 98, 405, 410, 702, 699, 1003, 1010], float)
    assert list(_grid_bins(xs, 1200)) == [0, 0, 1, 1, 2, 2, 3, 3]


def test_the_jaw_parts_the_lips_instead_of_stretching_them():
    points = face_on_canvas()
    rig = Rig(points, 256, step=2)
    jaw = speech_moves(rig)["jaw"]
    (field,) = rig.fields([jaw])

    def at(point: np.ndarray) -> np.ndarray:
        x, y = (point / 2).astype(int)
        return field[y, x]

    lower = INNER_LIP_LOWER[5]
    lower_lip = (points[lower] + points[OUTER_LIP_LOWER[5]]) / 2
    upper_lip = (points[INNER_LIP_UPPER[5]] + points[OUTER_LIP_UPPER[5]]) / 2
    assert at(lower_lip)[1] > 0.8 * jaw[lower, 1] > 2.0  # the lower lip goes (nearly) where it was moved
    assert at(upper_lip)[1] < 0.1 * jaw[lower, 1]  # the upper lip, a few pixels away, is not dragged along
    assert np.abs(field[:10]).max() < 0.05 and np.abs(field[:, :10]).max() < 0.05  # the border stays still


def test_inverting_a_smooth_field_undoes_it():
    n, step = 64, 2
    ys, xs = np.mgrid[0:n, 0:n].astype(np.float32) * step + 0.5
    forward = np.stack([3 * np.sin(ys / 20), 2 * np.cos(xs / 25)], axis=-1).astype(np.float32)
    source = invert(forward, step, iterations=4)
    there = source + forward[(source[..., 1] // step).astype(int).clip(0, n - 1), (source[..., 0] // step).astype(int).clip(0, n - 1)]
    assert np.abs(there - np.stack([xs, ys], axis=-1))[8:-8, 8:-8].mean() < 0.3


def test_the_painted_mouth_is_dark_inside_with_teeth_under_the_upper_lip():
    skin = np.full((120, 160, 3), (200, 150, 130), np.uint8)
    xs = np.linspace(40, 120, 11)
    upper = np.stack([xs, 60 - 4 * np.sin(np.linspace(0, np.pi, 11))], axis=1)
    lower = np.stack([xs, 60 + 22 * np.sin(np.linspace(0, np.pi, 11))], axis=1)
    frame = skin.copy()
    assert paint_mouth(frame, upper, lower) == pytest.approx(26, abs=1)
    assert frame[61, 80].mean() > 150  # a front tooth a little under the upper lip
    assert frame[70, 80].mean() < 90  # the dark inside
    assert frame[70, 80, 0] > frame[70, 80, 1]  # reddish, not grey
    assert (frame[:40] == skin[:40]).all() and (frame[90:] == skin[90:]).all()  # nothing outside the lips
    closed = skin.copy()
    assert paint_mouth(closed, upper, upper) == 0 and (closed == skin).all()


def test_face_frame_round_trips_points():
    points = face_on_canvas()
    frame = FaceFrame.of(points)
    back = frame.to_face(points) @ frame.axes + frame.origin
    assert np.allclose(back, points, atol=1e-6)


@needs_people
def test_each_profile_gets_a_packaged_person_of_its_gender_and_a_child_a_young_woman():
    from empathygraph.generators.avatar.people import people, person_for

    for age in AgeGroup:
        for gender in Gender:
            chosen = person_for(AvatarProfile(age=age, gender=gender))
            expected = "female" if gender is Gender.FEMALE or age is AgeGroup.CHILD else "male"
            assert chosen.sex == expected
    assert person_for(AvatarProfile(age=AgeGroup.CHILD)).age == min(p.age for p in people())


@needs_people
def test_the_default_portrait_talks_blinks_and_keeps_its_size(tmp_path, plan_for):
    config = GeneratorsConfig(speech="piper", avatar="portrait", size=256)
    speech, video = build_renderer(config).render(plan_for("Oh, that is wonderful news!", CoarseEmotion.JOY), tmp_path)
    assert video.error is None, video.error
    assert video.settings["person"] and video.settings["expressions"] == "own expression sheet"
    info = probe(video.files["video"])
    assert (info["width"], info["height"], info["video_codec"]) == (256, 256, "h264")
    # The lips the face mesh sees on the frames part and close with the loudness heard.
    assert lipsync_r(video.files["video"], speech.files["audio"], 25, reader="mesh") > 0.5
    frames = np.stack(list(read_frames(video.files["video"]))).astype(np.float32)
    assert np.abs(frames[:, :20, :20] - frames[:1, :20, :20]).max() < 12  # the background corner holds still


def test_the_upper_and_lower_face_parts_add_up_to_the_movement():
    from empathygraph.generators.avatar.portrait_moves import split_face

    rig = Rig(face_on_canvas(), 256, step=4)
    moves = rig.pad(np.random.default_rng(0).normal(size=(468, 2)))
    upper, lower = split_face(rig, moves)
    assert np.allclose(upper + lower, moves)
    assert np.allclose(lower[105], 0) and np.allclose(upper[152], 0)  # a brow is upper face, the chin lower


def test_expression_gains_out_of_range_or_unknown_are_named():
    from empathygraph.generators.avatar.expression_gains import ExpressionGain, stored_gains
    from empathygraph.generators.base import GeneratorError

    with pytest.raises(GeneratorError, match="mean_share"):
        ExpressionGain(mean_share=1.5)
    with pytest.raises(GeneratorError, match="upper"):
        ExpressionGain(upper=-1)
    gains = stored_gains()
    assert set(gains) == set(CoarseEmotion) - {CoarseEmotion.NEUTRAL}


@needs_people
def test_added_action_units_widen_the_eyes_and_drop_the_jaw_but_still_blink():
    from empathygraph.generators.avatar.expression_gains import ExpressionGain
    from empathygraph.generators.avatar.motion import EXPRESSIONS, FaceTrack
    from empathygraph.generators.avatar.people import person
    from empathygraph.generators.avatar.portrait import PortraitRig, load_portrait

    rig = PortraitRig(load_portrait(person("P001").portrait, 256), "P001", "P001", gains={})

    def still(blink: float) -> FaceTrack:
        z = np.zeros(1)
        return FaceTrack(25, z, np.full(1, blink), z, z, z, z, z, EXPRESSIONS[CoarseEmotion.NEUTRAL], "still")

    plain = rig.weights(still(0.0), 0, CoarseEmotion.FEAR, 1.0)
    rig.gains = {CoarseEmotion.FEAR: ExpressionGain(eyes_wide=0.5, lip_stretch=1.0, jaw=0.2)}
    wide = rig.weights(still(0.0), 0, CoarseEmotion.FEAR, 1.0)
    assert wide[3] == wide[4] == -0.5 and plain[3] == 0  # the upper lids rise
    assert wide[0] == pytest.approx(0.2) and wide[2] == pytest.approx(1.0)  # the jaw drops, the lips stretch
    assert rig.weights(still(1.0), 0, CoarseEmotion.FEAR, 1.0)[3] == 1.0  # and a blink still closes the eye


def test_a_broken_gains_file_is_named(tmp_path):
    from empathygraph.generators.avatar.expression_gains import stored_gains
    from empathygraph.generators.base import GeneratorError

    bad = tmp_path / "gains.json"
    bad.write_text('{"gains": {"joy": {"upper": 1.0, "bogus": 2}}}')
    with pytest.raises(GeneratorError, match="gains.json"):
        stored_gains(bad)
    assert stored_gains(tmp_path / "absent.json") == {}
