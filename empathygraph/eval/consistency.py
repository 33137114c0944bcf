"""Measure whether voice and face agree with the plan.

- Lip sync: Pearson r between the audio's loudness and the mouth opening measured
  on the rendered video's own frames (procedural head: area of the mouth's inside colour;
  any face, the portrait included: the face mesh's lip gap over the face's height).
- Expression: the perception tools' face classifier reads the rendered video; agreement
  is the share of videos whose peak expression is the intended coarse emotion.
- Geometry: a second, independent reader, the face mesh's landmarks, checks that each
  expression moves the face the way its action units should (brows up for surprise, mouth
  corners up for joy, ...) compared with the neutral video.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from empathygraph.generators.audio import loudness_envelope, read_wav
from empathygraph.generators.avatar.procedural import mouth_area
from empathygraph.generators.avatar.video import read_frames
from empathygraph.schemas import CoarseEmotion, FaceCue


def mouth_track(video: Path) -> np.ndarray:
    """Return the open-mouth area (pixels) of every frame of a procedural-head video."""
    return np.array([mouth_area(frame) for frame in read_frames(video)], dtype=np.float64)


def mesh_mouth_track(video: Path) -> np.ndarray:
    """Return the face mesh's lip gap over face height for every frame of any talking-face video (NaN: no face)."""
    from empathygraph.generators.avatar.face_points import mesh_points
    from empathygraph.generators.base import GeneratorError

    gaps = []
    for frame in read_frames(video):
        try:
            p = mesh_points(frame)
        except GeneratorError:
            gaps.append(np.nan)
            continue
        gaps.append(float(np.linalg.norm(p[13] - p[14]) / np.linalg.norm(p[10] - p[152])))
    track = np.array(gaps, dtype=np.float64)
    return np.where(np.isnan(track), np.nanmedian(track) if np.isfinite(track).any() else 0.0, track)


def lipsync_r(video: Path, audio: Path, fps: int, reader: str = "colour") -> float:
    """Pearson r between per-frame loudness (dB) of ``audio`` and the mouth opening in ``video``.

    Args:
        reader: ``"colour"`` (the procedural head's mouth-inside area) or ``"mesh"`` (the face mesh's
            lip gap: any face).
    """
    mouth = mesh_mouth_track(video) if reader == "mesh" else mouth_track(video)
    samples, rate = read_wav(audio)
    loud = loudness_envelope(samples, rate, fps)
    n = min(len(mouth), len(loud))
    if n < 3 or np.std(mouth[:n]) == 0 or np.std(loud[:n]) == 0:
        return float("nan")
    return float(np.corrcoef(mouth[:n], loud[:n])[0, 1])


def expression_agreement(
    videos: Sequence[tuple[Path, CoarseEmotion]], see: Callable[[Path], FaceCue]
) -> tuple[float, list[dict[str, object]]]:
    """Share of ``videos`` whose classified peak expression equals the intended one.

    Args:
        videos: (rendered video, intended coarse emotion) pairs.
        see: the perception tools' face reader, e.g. ``ToolBox().see``.

    Returns:
        The agreement rate and, per video, what was intended and what was read
        (a video where no face was found counts as a disagreement).
    """
    rows: list[dict[str, object]] = []
    for path, intended in videos:
        row: dict[str, object] = {"video": f"{path.parent.name}/{path.name}", "intended": intended.value}
        try:
            cue = see(path)
            row["read"] = cue.peak.value if cue.peak else None
            row["mean"] = {s.label: s.score for s in cue.distribution[:3]}
            row["geometry"] = cue.features
        except Exception as exc:  # noqa: BLE001 - an unreadable face is a miss, not a crash
            row["read"] = f"error: {exc}"
        rows.append(row)
    hits = sum(1 for r in rows if r["read"] == r["intended"])
    return (hits / len(rows) if rows else float("nan")), rows


# How each expression's action units should move the face mesh's geometry, relative to neutral
# (feature name -> +1: larger, -1: smaller); see ``empathygraph.tools.landmarks.geometry``.
EXPECTED_GEOMETRY: dict[CoarseEmotion, dict[str, int]] = {
    CoarseEmotion.JOY: {"smile": +1, "mouth_width": +1},  # AU12 pulls the corners up and out
    CoarseEmotion.SADNESS: {"smile": -1, "eye_open": -1},  # AU15 corners down, drooping lids
    CoarseEmotion.ANGER: {"brow_raise": -1, "eye_open": -1},  # AU4 lowers the brows, AU7 narrows the eyes
    CoarseEmotion.FEAR: {"brow_raise": +1, "eye_open": +1, "mouth_width": +1},  # AU1+2, AU5, AU20
    CoarseEmotion.DISGUST: {"brow_raise": -1, "eye_open": -1},  # AU9 pulls the brows down, lids narrow
    CoarseEmotion.SURPRISE: {"brow_raise": +1, "eye_open": +1, "mouth_open": +1},  # AU1+2, AU5, AU26
}


def geometry_agreement(rows: Sequence[dict[str, object]]) -> tuple[float, dict[str, dict[str, bool]]]:
    """Share of expressions whose face-mesh geometry moves as their action units should.

    Args:
        rows: ``expression_agreement``'s rows (with ``geometry``), one of them neutral.

    Returns:
        The share of non-neutral expressions meeting every expectation in ``EXPECTED_GEOMETRY``,
        and per expression which expectations held.
    """
    by_label = {r["intended"]: r.get("geometry") or {} for r in rows}
    neutral = by_label.get(CoarseEmotion.NEUTRAL.value) or {}
    checks: dict[str, dict[str, bool]] = {}
    for emotion, expected in EXPECTED_GEOMETRY.items():
        shown = by_label.get(emotion.value) or {}
        if not neutral or not shown:
            checks[emotion.value] = {name: False for name in expected}
            continue
        checks[emotion.value] = {
            name: bool(np.sign(shown[name] - neutral[name]) == sign) for name, sign in expected.items()
        }
    met = [all(c.values()) for c in checks.values()]
    return (sum(met) / len(met) if met else float("nan")), checks
