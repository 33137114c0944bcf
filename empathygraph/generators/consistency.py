"""Measure whether voice and face agree with the plan.

- Lip sync: Pearson r between the audio's loudness and the mouth opening measured
  on the rendered video's own frames (procedural head: area of the mouth's inside colour).
- Expression: the perception tools' face classifier reads the rendered video; agreement
  is the share of videos whose peak expression is the intended coarse emotion.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from empathygraph.generators.audio import loudness_envelope, read_wav
from empathygraph.generators.avatar_procedural import mouth_area
from empathygraph.generators.video import read_frames
from empathygraph.schemas import CoarseEmotion, FaceCue


def mouth_track(video: Path) -> np.ndarray:
    """Return the open-mouth area (pixels) of every frame of a procedural-head video."""
    return np.array([mouth_area(frame) for frame in read_frames(video)], dtype=np.float64)


def lipsync_r(video: Path, audio: Path, fps: int) -> float:
    """Pearson r between per-frame loudness (dB) of ``audio`` and mouth area in ``video``."""
    mouth = mouth_track(video)
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
        try:
            cue = see(path)
            read = cue.peak.value if cue.peak else None
        except Exception as exc:  # an unreadable face is a miss, not a crash
            read = f"error: {exc}"
        rows.append({"video": path.name, "intended": intended.value, "read": read})
    hits = sum(1 for r in rows if r["read"] == r["intended"])
    return (hits / len(rows) if rows else float("nan")), rows
