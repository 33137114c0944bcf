"""Learn how a face moves for each emotion from a sheet of the same person's labelled expressions.

A packaged person's sheet is a 4 x 4 grid of photos of that person (neutral, happy, sad,
angry / surprised, disgusted, scared, ...). The face mesh reads each; every expression's
points are aligned on the neutral ones by the points that do not move (nose, eye corners,
temples), and the difference, in face units (``FaceFrame``) and made left-right symmetric,
is that person's movement for the emotion. ``scripts/learn_portrait_expressions.py`` stores
them for every packaged person in ``data/portrait_expressions.npz``; their mean moves a
face that has no sheet.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np

from empathygraph.generators.avatar.face_points import FaceFrame, align, mesh_points, symmetrise
from empathygraph.generators.base import GeneratorError
from empathygraph.schemas import CoarseEmotion

DATA = Path(__file__).parent / "data" / "portrait_expressions.npz"
# The sheet's tiles in reading order.
SHEET_LABELS = (
    "neutral", "happy", "sad", "angry", "surprised", "disgusted", "scared", "confused",
    "smug", "flirty", "thoughtful", "pensive", "exhausted", "shocked", "playful", "determined",
)  # fmt: skip
SHEET_EMOTION: dict[CoarseEmotion, str] = {
    CoarseEmotion.NEUTRAL: "neutral",
    CoarseEmotion.JOY: "happy",
    CoarseEmotion.SADNESS: "sad",
    CoarseEmotion.ANGER: "angry",
    CoarseEmotion.SURPRISE: "surprised",
    CoarseEmotion.DISGUST: "disgusted",
    CoarseEmotion.FEAR: "scared",
}
EMOTIONS = tuple(SHEET_EMOTION)


def sheet_faces(rgb: np.ndarray) -> dict[str, tuple[int, int, int, int]]:
    """Find the sheet's faces and name each by its place in the 4 x 4 grid.

    Raises:
        GeneratorError: the faces do not form the expected grid.
    """
    import cv2

    grey = cv2.equalizeHist(cv2.cvtColor(rgb, cv2.COLOR_RGB2GRAY))
    cascade = cv2.CascadeClassifier(str(Path(cv2.data.haarcascades) / "haarcascade_frontalface_default.xml"))
    side = min(grey.shape) // 14
    boxes = cascade.detectMultiScale(grey, scaleFactor=1.08, minNeighbors=6, minSize=(side, side))
    if len(boxes) < 8:
        raise GeneratorError(f"expression sheet: found {len(boxes)} faces, expected a 4 x 4 grid")
    centres = np.array([(x + w / 2, y + h / 2) for x, y, w, h in boxes])
    rows, cols = _grid_bins(centres[:, 1], grey.shape[0]), _grid_bins(centres[:, 0], grey.shape[1])
    named: dict[str, tuple[int, int, int, int]] = {}
    for (x, y, w, h), row, col in zip(boxes, rows, cols):
        label = SHEET_LABELS[4 * row + col]
        if label not in named or w * h > named[label][2] * named[label][3]:
            named[label] = (int(x), int(y), int(w), int(h))
    return named


def _grid_bins(values: np.ndarray, extent: int) -> np.ndarray:
    """Assign coordinates to 4 evenly filled bins: cut at the 3 widest gaps between sorted values."""
    order = np.sort(values)
    gaps = np.diff(order)
    cuts = np.sort(order[np.argsort(gaps)[-3:]] + gaps[np.argsort(gaps)[-3:]] / 2)
    return np.searchsorted(cuts, values)


def learn_sheet(sheet: Path) -> dict[str, np.ndarray]:
    """Return the neutral face (face units) and each emotion's symmetric movement from ``sheet``.

    Returns:
        ``{"neutral_shape": (468, 2), "<emotion>": (468, 2) displacement, ...}`` in face units.
    """
    import cv2

    image = cv2.imread(str(sheet), cv2.IMREAD_COLOR)
    if image is None:
        raise GeneratorError(f"expression sheet: not a readable image: {sheet}")
    rgb = cv2.cvtColor(image, cv2.COLOR_BGR2RGB)
    faces = sheet_faces(rgb)
    missing = [label for label in SHEET_EMOTION.values() if label not in faces]
    if missing:
        raise GeneratorError(f"expression sheet {sheet}: no face found for {', '.join(missing)}")
    neutral = mesh_points(rgb, faces["neutral"])
    frame = FaceFrame.of(neutral)
    learned = {"neutral_shape": frame.to_face(neutral)}
    for emotion, label in SHEET_EMOTION.items():
        if emotion is CoarseEmotion.NEUTRAL:
            continue
        shown = align(mesh_points(rgb, faces[label]), neutral)
        learned[emotion.value] = frame.to_face(shown) - learned["neutral_shape"]
    return learned


def symmetric(learned: dict[str, np.ndarray], mirror: np.ndarray) -> dict[str, np.ndarray]:
    """``learned`` with every movement made left-right symmetric (``mirror``: ``face_points.mirror_index``)."""
    return {k: v if k == "neutral_shape" else symmetrise(v, mirror) for k, v in learned.items()}


@lru_cache(maxsize=1)
def _stored() -> dict[str, np.ndarray]:
    if not DATA.is_file():
        raise GeneratorError(f"portrait: {DATA.name} is missing; run scripts/learn_portrait_expressions.py")
    with np.load(DATA) as data:
        return {key: data[key].astype(np.float32) for key in data.files}


def canonical_neutral() -> np.ndarray:
    """The mean neutral face of the packaged people, in face units (468, 2)."""
    return _stored()["mean/neutral_shape"]


def movements(person_id: str | None) -> dict[CoarseEmotion, np.ndarray]:
    """Each emotion's movement (468, 2, face units): the person's own, or the packaged people's mean."""
    stored = _stored()
    prefix = person_id if person_id and f"{person_id}/joy" in stored else "mean"
    return {e: stored[f"{prefix}/{e.value}"] if e is not CoarseEmotion.NEUTRAL else np.zeros((468, 2), np.float32)
            for e in EMOTIONS}  # fmt: skip
