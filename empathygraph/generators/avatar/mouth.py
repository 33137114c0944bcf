"""Paint the inside of a parted mouth: dark cavity, upper and lower teeth, tongue, with soft shading.

A warp can part the lips but has nothing to show between them. The opening is the polygon
between the inner lip lines; inside it, the upper teeth hang from the upper lip (their
top in the lip's shadow), the lower teeth show above the lower lip when the jaw is well
open, and the tongue lies low at the back. Everything darkens toward the corners, as a
mouth's inside does, and the opening's edge is anti-aliased.
"""

from __future__ import annotations

import numpy as np

_CAVITY = np.array([52.0, 18.0, 24.0])
_CAVITY_DEEP = np.array([24.0, 7.0, 11.0])
_TEETH = np.array([214.0, 204.0, 190.0])
_TONGUE = np.array([168.0, 78.0, 84.0])
_SUB = 16  # sub-pixel precision of the polygons (cv2 shift of 4 bits)


def _fill(shape: tuple[int, int], polygon: np.ndarray) -> np.ndarray:
    import cv2

    mask = np.zeros(shape, np.uint8)
    cv2.fillPoly(mask, [np.round(polygon * _SUB).astype(np.int32)], 255, cv2.LINE_AA, shift=4)
    return mask.astype(np.float32) / 255.0


def _smooth(line: np.ndarray, points: int = 31) -> np.ndarray:
    """A lip line through its landmarks as a smooth curve (cubic spline), corner to corner."""
    from scipy.interpolate import CubicSpline

    t = np.arange(len(line))
    return CubicSpline(t, line, axis=0)(np.linspace(0, len(line) - 1, points))


def _taper(up: np.ndarray, low: np.ndarray, reach: float = 0.22) -> tuple[np.ndarray, np.ndarray]:
    """Close the opening gradually over the outer ``reach`` of each side, so the corners come to a point.

    A spline through the inner-lip points leaves the opening's ends blunt (a dark square at each
    corner, past the lips' own corners); lips meet at a corner in a narrowing wedge.
    """
    t = np.linspace(0.0, 1.0, len(up))
    keep = (np.clip(np.minimum(t, 1.0 - t) / reach, 0.0, 1.0) ** 0.6)[:, None]
    middle = (up + low) / 2
    return middle + (up - middle) * keep, middle + (low - middle) * keep


def paint_mouth(frame: np.ndarray, upper: np.ndarray, lower: np.ndarray) -> float:
    """Paint the mouth's inside into ``frame`` (RGB uint8, in place); return the opening in pixels.

    Args:
        upper: the upper inner lip line, corner to corner (pixels of ``frame``).
        lower: the lower inner lip line, the same corners, same number of points.
    """
    width = float(np.linalg.norm(upper[-1] - upper[0]))
    gaps = lower[:, 1] - upper[:, 1]
    opening = float(gaps.max(initial=0.0))
    if opening < 0.8 or width < 4:
        return max(0.0, opening)
    pad = 3
    x0, y0 = np.floor(np.minimum(upper.min(0), lower.min(0))).astype(int) - pad
    x1, y1 = np.ceil(np.maximum(upper.max(0), lower.max(0))).astype(int) + pad
    x0, y0 = max(0, x0), max(0, y0)
    x1, y1 = min(frame.shape[1], x1), min(frame.shape[0], y1)
    if x1 - x0 < 3 or y1 - y0 < 2:
        return opening
    shape = (y1 - y0, x1 - x0)
    origin = np.array([x0, y0], np.float64)
    up, low = _smooth(upper - origin), _smooth(lower - origin)
    low[:, 1] = np.maximum(low[:, 1], up[:, 1])  # the lines may cross at the corners: no negative opening
    up, low = _taper(up, low)
    inside = _fill(shape, np.vstack([up, low[::-1]]))

    ys, xs = np.mgrid[0 : shape[0], 0 : shape[1]].astype(np.float32)
    centre_x = float((up[0, 0] + up[-1, 0]) / 2)
    across = np.clip(np.abs(xs - centre_x) / (width / 2), 0.0, 1.0)
    top = np.interp(xs[0], up[:, 0], up[:, 1])[None, :]
    bottom = np.interp(xs[0], low[:, 0], low[:, 1])[None, :]
    depth = np.clip((ys - top) / np.maximum(bottom - top, 1.0), 0.0, 1.0)
    # The cavity: darkest in the middle of the opening, a little redder at the lips.
    middle = 1.0 - np.abs(depth - 0.55) * 1.6
    layer = _CAVITY + (_CAVITY_DEEP - _CAVITY) * np.clip(middle, 0, 1)[..., None]

    # Tongue: low, at the back, only when the jaw is well open.
    if opening > 0.16 * width:
        tongue = np.clip(1.0 - ((xs - centre_x) / (0.36 * width)) ** 2 - ((ys - bottom) / (0.45 * opening)) ** 2, 0, 1)
        tongue = np.clip(tongue * 3, 0, 1) * (1 - 0.4 * across)
        layer += (_TONGUE * (0.55 + 0.45 * depth[..., None]) - layer) * tongue[..., None]

    # Upper teeth hang from the upper lip across the front of the mouth; the lower teeth show
    # above the lower lip only when the jaw is well open, and in shadow.
    front = np.clip((0.78 - across) / 0.15, 0.0, 1.0)
    upper_teeth = min(0.12 * width, 0.6 * opening)
    teeth = np.clip((top + upper_teeth - ys) / 1.5, 0, 1) * (ys >= top - 1) * front
    if opening > 0.3 * width:
        lower_teeth = min(0.05 * width, 0.18 * opening)
        lower = np.clip((ys - (bottom - lower_teeth)) / 1.5, 0, 1) * np.clip((0.55 - across) / 0.15, 0, 1)
        teeth = np.maximum(teeth, 0.7 * lower)
    seams = np.abs(((xs - centre_x) / (0.09 * width) + 0.5) % 1.0 - 0.5)  # gaps between teeth
    seam = np.clip(0.9 + seams * 0.4, 0.9, 1.0)
    lip_shadow = 0.55 + 0.45 * np.clip((ys - top) / max(1.0, 0.5 * upper_teeth), 0, 1)
    shade = (1.0 - 0.5 * across**1.5) * seam * lip_shadow
    layer += (_TEETH * shade[..., None] - layer) * teeth[..., None]

    # The corners of the opening fall into shadow.
    layer *= (1.0 - 0.45 * across**2)[..., None]
    region = frame[y0:y1, x0:x1].astype(np.float32)
    alpha = inside[..., None]
    frame[y0:y1, x0:x1] = np.clip(region * (1 - alpha) + layer * alpha, 0, 255).astype(np.uint8)
    return opening
