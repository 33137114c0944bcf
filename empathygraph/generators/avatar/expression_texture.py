"""What an expression does to the skin: the sheet's shading change, carried onto a portrait.

Moving landmarks bends a face but draws no crease: a frown, raised inner brows, a wrinkled
nose are mostly shading. The expression photo is warped onto the neutral photo's shape
(by the face mesh), and their ratio, expression over neutral, is that shading change
(an expression ratio image, Liu, Shan and Zhang 2001), kept in face units. On a portrait
it is warped to the portrait's own mesh and multiplies the photo's brightness before the
expression's warp. The lips and the eye openings are left out: the warp and the mouth
painter draw those. A packaged person gets their own sheet's change; any other face the
change of the packaged person who fits its profile.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from empathygraph.generators.avatar.expression_sheet import SHEET_EMOTION, sheet_faces
from empathygraph.generators.avatar.face_points import (
    INNER_LIP_LOWER,
    INNER_LIP_UPPER,
    LOWER_LIDS,
    OUTER_LIP_LOWER,
    OUTER_LIP_UPPER,
    UPPER_LIDS,
    FaceFrame,
    mesh_points,
)
from empathygraph.generators.avatar.people import person
from empathygraph.generators.avatar.warp import FACE_OVAL
from empathygraph.schemas import CoarseEmotion

PIXELS_PER_UNIT = 100  # resolution of the stored change, per face unit (outer-eye-corner distance)
_EXTENT = ((-1.0, 1.0), (-0.8, 1.35))  # face-unit box kept: x and y ranges around the eyes' midpoint
_CLIP = (0.55, 1.5)
_BROAD = 0.3  # face units: shading that changes over larger distances than this is lighting, not expression


def _grid() -> np.ndarray:
    (x0, x1), (y0, y1) = _EXTENT
    ys, xs = np.mgrid[y0 : y1 : 1 / PIXELS_PER_UNIT, x0 : x1 : 1 / PIXELS_PER_UNIT]
    return np.stack([xs, ys], axis=-1).astype(np.float32)


def _interpolate(at: np.ndarray, points: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Piecewise-linear map over the mesh's triangles from ``points`` to ``values``; NaN outside the face."""
    from scipy.interpolate import LinearNDInterpolator

    return LinearNDInterpolator(points, values)(at.reshape(-1, 2)).reshape(*at.shape[:-1], values.shape[1])


def _sample(grey: np.ndarray, where: np.ndarray) -> np.ndarray:
    import cv2

    where = np.nan_to_num(where, nan=-1.0).astype(np.float32)
    return cv2.remap(grey, where[..., 0], where[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def _skin_mask(face_units: np.ndarray, shape: np.ndarray) -> np.ndarray:
    """1 on the face's skin (inside the outline), 0 on the lips and eye openings, feathered; on ``face_units`` grid."""
    import cv2

    (x0, _), (y0, _) = _EXTENT
    h, w = face_units.shape[:2]

    def poly(indices: list[int]) -> np.ndarray:
        return np.round((shape[indices] - [x0, y0]) * PIXELS_PER_UNIT * 16).astype(np.int32)

    mask = np.zeros((h, w), np.uint8)
    cv2.fillPoly(mask, [poly(list(FACE_OVAL))], 255, cv2.LINE_AA, shift=4)
    mask = cv2.erode(mask, np.ones((5, 5), np.uint8))
    holes = np.zeros_like(mask)
    cv2.fillPoly(holes, [poly(list(OUTER_LIP_UPPER) + list(OUTER_LIP_LOWER[::-1]))], 255, cv2.LINE_AA, shift=4)
    cv2.fillPoly(holes, [poly(list(INNER_LIP_UPPER) + list(INNER_LIP_LOWER[::-1]))], 255, cv2.LINE_AA, shift=4)
    for upper, lower in zip(UPPER_LIDS, LOWER_LIDS):
        cv2.fillPoly(holes, [poly(list(upper) + list(lower[::-1]))], 255, cv2.LINE_AA, shift=4)
    holes = cv2.dilate(holes, np.ones((5, 5), np.uint8))
    kept = mask.astype(np.float32) / 255 * (1 - holes.astype(np.float32) / 255)
    return cv2.GaussianBlur(kept, (0, 0), 0.04 * PIXELS_PER_UNIT)


@lru_cache(maxsize=64)
def shading_change(person_id: str, emotion: CoarseEmotion) -> tuple[np.ndarray, np.ndarray] | None:
    """The person's expression-over-neutral brightness ratio on the face-unit grid, and their neutral shape.

    None for neutral. The ratio is 1 off the skin, clipped to a plausible range elsewhere.
    """
    import cv2

    if emotion is CoarseEmotion.NEUTRAL:
        return None
    sheet = cv2.imread(str(person(person_id).expression_sheet), cv2.IMREAD_COLOR)
    rgb = cv2.cvtColor(sheet, cv2.COLOR_BGR2RGB)
    grey = cv2.cvtColor(sheet, cv2.COLOR_BGR2GRAY).astype(np.float32)
    faces = sheet_faces(rgb)
    neutral = mesh_points(rgb, faces["neutral"])
    shown = mesh_points(rgb, faces[SHEET_EMOTION[emotion]])
    frame = FaceFrame.of(neutral)
    shape = frame.to_face(neutral)
    grid = _grid()
    in_neutral = grid @ frame.axes + frame.origin  # face units -> pixels of the neutral photo
    in_shown = _interpolate(grid, shape, shown)  # the same skin point on the expression photo
    smooth = cv2.GaussianBlur(grey, (0, 0), 0.8)
    ratio = (_sample(smooth, in_shown) + 12.0) / (_sample(smooth, in_neutral) + 12.0)
    ratio = np.where(np.isnan(in_shown[..., 0]), 1.0, ratio).astype(np.float32)
    # Lighting differs a little photo to photo: keep creases and folds, not a broad brightening.
    # A median, not a mean: the dark creases themselves must not count as a broad darkening.
    encoded = np.clip(128 + 100 * np.log(np.clip(ratio, 0.2, 5.0)), 0, 255).astype(np.uint8)
    broad = cv2.medianBlur(encoded, int(_BROAD * PIXELS_PER_UNIT) | 1).astype(np.float32)
    ratio = ratio / np.exp((broad - 128) / 100)
    ratio = 1.0 + _skin_mask(grid, shape) * (np.clip(ratio, *_CLIP) - 1.0)
    return ratio.astype(np.float32), shape.astype(np.float32)


def portrait_shading(points: np.ndarray, size: int, person_id: str, emotion: CoarseEmotion) -> np.ndarray | None:
    """The person's shading change for ``emotion`` on a portrait whose mesh is ``points`` (size x size), or None."""
    change = shading_change(person_id, emotion)
    if change is None:
        return None
    ratio, shape = change
    lo, hi = np.floor(points.min(0)).astype(int), np.ceil(points.max(0)).astype(int)
    lo, hi = np.clip(lo, 0, size - 1), np.clip(hi, 0, size - 1)
    ys, xs = np.mgrid[lo[1] : hi[1] + 1, lo[0] : hi[0] + 1].astype(np.float32)
    face_units = _interpolate(np.stack([xs, ys], axis=-1), points.astype(np.float64), shape.astype(np.float64))
    (x0, _), (y0, _) = _EXTENT
    where = (face_units - [x0, y0]) * PIXELS_PER_UNIT
    out = np.ones((size, size), np.float32)
    region = _sample(ratio, where)
    out[lo[1] : hi[1] + 1, lo[0] : hi[0] + 1] = np.where(np.isnan(face_units[..., 0]), 1.0, region)
    return out
