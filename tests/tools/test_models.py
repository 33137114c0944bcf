"""The real models behind the ToolBox, on small inputs made here (integration: loads models)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from empathygraph.errors import InputError
from empathygraph.schemas import CoarseEmotion, EDEmotion
from empathygraph.tools.expression_trend import summarize
from empathygraph.tools.face import MODEL_LABELS

pytestmark = pytest.mark.integration


def _wer(ref: str, hyp: str) -> float:
    import importlib.util
    import sys

    spec = importlib.util.spec_from_file_location("bench", Path(__file__).parents[2] / "benchmarks" / "perception.py")
    bench = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("bench", bench)
    spec.loader.exec_module(bench)
    errors, words = bench.word_error_rate(ref, hyp)
    return errors / words


def test_hear_transcribes_with_timings_and_describes_the_voice(toolbox, spoken) -> None:
    path, text = spoken
    cue = toolbox.hear(path)
    assert _wer(text, cue.transcript) <= 0.25, cue.transcript
    assert 2.0 < cue.duration_s < 8.0
    assert cue.description.startswith("speaks")
    assert -1 <= cue.valence <= 1 and -1 <= cue.arousal <= 1
    assert cue.features["rate_wps"] > 1.0


def test_text_emotion_ranks_ed_labels(toolbox) -> None:
    cue = toolbox.text_emotion("My grandmother died last night and I cannot stop crying.")
    labels = [s.label for s in cue.top]
    assert len(labels) == 3 and all(label in EDEmotion.__members__.values() for label in labels)
    assert set(labels) & {"sad", "devastated", "lonely"}
    assert cue.top[0].score >= cue.top[1].score >= cue.top[2].score
    assert toolbox.text_emotion("   ") is None


def test_image_without_a_face_is_refused(toolbox, tmp_path: Path) -> None:
    import cv2

    path = tmp_path / "wall.png"
    cv2.imwrite(str(path), np.full((240, 320, 3), 128, np.uint8))
    with pytest.raises(InputError, match="no face"):
        toolbox.see(path)


def test_summary_finds_peak_and_trend() -> None:
    joy, sad = MODEL_LABELS.index(CoarseEmotion.JOY), MODEL_LABELS.index(CoarseEmotion.SADNESS)
    probs = np.full((9, 7), 0.01)
    probs[:, sad] = np.linspace(0.1, 0.9, 9)
    probs[:, joy] = np.linspace(0.8, 0.05, 9)
    probs /= probs.sum(axis=1, keepdims=True)
    summary = summarize(MODEL_LABELS, probs, video=True)
    assert summary.peak is CoarseEmotion.SADNESS
    assert "sad grows" in summary.trend and "happy fades" in summary.trend


def test_see_reads_mead_faces(toolbox, shared: Path) -> None:
    cue = toolbox.see(shared / "media/faces/mead_clips/M030_front_happy_level3_001.mp4")
    assert cue.frames >= 10
    assert cue.distribution[0].label == "joy" and cue.trend is not None


def test_see_reads_a_portrait(toolbox, shared: Path) -> None:
    cue = toolbox.see(shared / "media/portraits/age25_001.jpg")
    assert cue.frames == 1 and abs(sum(s.score for s in cue.distribution) - 1) < 0.01


def test_landmarks_follow_the_face_and_read_a_smile(toolbox) -> None:
    media = Path(__file__).parents[2] / "examples" / "scenarios" / "media"
    happy, sad = toolbox.see(media / "happy_face.jpg"), toolbox.see(media / "sad_face.jpg")
    assert set(happy.features) == {"mouth_open", "smile", "mouth_width", "eye_open", "brow_raise"}
    assert happy.features["smile"] > sad.features["smile"]


def test_mesh_points_land_inside_the_face_box(shared: Path) -> None:
    import cv2

    from empathygraph.tools.face import FaceDetector
    from empathygraph.tools.landmarks import FaceMesh

    image = cv2.imread(str(shared / "media/portraits/age40_002.jpg"))
    box = FaceDetector(160).largest(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY))
    points, presence = FaceMesh().landmarks(image, box)
    assert points.shape == (468, 3) and presence > 0.9
    inside = (points[:, 0] > box.x - 0.2 * box.w) & (points[:, 0] < box.x + 1.2 * box.w)
    assert inside.mean() > 0.95


def test_warm_up_loads_each_model_once(toolbox) -> None:
    spent = toolbox.warm_up()
    assert set(spent) == {"text", "asr", "face"}
    again = toolbox.warm_up()
    assert all(seconds < 0.05 for seconds in again.values())
