"""Dense warps of a portrait from moved landmarks: precomputed displacement fields, mixed per frame.

Each movement (an expression, the jaw, a blink, the gaze) moves the face-mesh points
(plus a still ring around the head, and a point in each eye). Its dense field is a
normalised-Gaussian interpolation of those moves, solved so it passes through them,
computed once on a coarse grid. The lips and the lower lids are cuts: a point above the
mouth line never drags the lower lip, so the lips part instead of stretching, and an
eyelid slides over the eye. A frame mixes the fields by the face track's weights, adds
the head's motion, inverts the result by fixed-point iteration (fields are forward:
where each source pixel goes) and resamples the photo once with ``cv2.remap``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from empathygraph.generators.avatar.face_points import (
    INNER_LIP_LOWER,
    INNER_LIP_UPPER,
    LOWER_LIDS,
    MOUTH_CORNERS,
    OUTER_LIP_LOWER,
    OUTER_LIP_UPPER,
    UPPER_LIDS,
    FaceFrame,
)

_SIGMA = 0.06  # kernel width of a mesh point, in face units (outer-eye-corner distance)
_RING_SIGMA = 0.25  # kernel width of the still ring around the head
_RING_OUT = 0.45  # how far outside the face outline the ring sits, in face units
_REGULARISE = 1e-3
FACE_OVAL = (10, 338, 297, 332, 284, 251, 389, 356, 454, 323, 361, 288, 397, 365, 379, 378, 400, 377, 152, 148,
             176, 149, 150, 136, 172, 58, 132, 93, 234, 127, 162, 21, 54, 103, 67, 109)  # fmt: skip


@dataclass(frozen=True)
class Cut:
    """A line the warp does not smooth across (between the lips, along a lower lid).

    Attributes:
        xs, ys: the line's points, left to right, in pixels.
        reach: how far (pixels) from the line the cut holds, across and beyond its ends.
        above, below: control-point indices on either side.
    """

    xs: np.ndarray
    ys: np.ndarray
    reach: float
    above: frozenset[int]
    below: frozenset[int]

    def masks(self, points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(activity, below-ness) of each (x, y) in ``points``: how much the cut holds there, which side it is."""
        x, y = points[:, 0], points[:, 1]
        line = np.interp(x, self.xs, self.ys)
        outside = np.maximum(self.xs[0] - x, 0) + np.maximum(x - self.xs[-1], 0)
        # Beyond its ends the cut lets go within a few pixels: the cheek stretches there instead of tearing.
        activity = np.exp(-((outside / 3.0) ** 2)) * np.exp(-(((y - line) / self.reach) ** 2))
        below = 1.0 / (1.0 + np.exp(-np.clip((y - line) / 0.5, -30, 30)))
        return activity, below


def _mouth_cut(points: np.ndarray) -> Cut:
    upper, lower = points[list(INNER_LIP_UPPER)], points[list(INNER_LIP_LOWER)]
    middle = (upper + lower) / 2
    width = float(np.linalg.norm(points[MOUTH_CORNERS[1]] - points[MOUTH_CORNERS[0]]))
    below = set(INNER_LIP_LOWER[1:-1]) | set(OUTER_LIP_LOWER[1:-1])
    above = set(INNER_LIP_UPPER[1:-1]) | set(OUTER_LIP_UPPER[1:-1])
    return Cut(middle[:, 0], middle[:, 1], 0.6 * width, frozenset(above), frozenset(below))


def _lid_cut(points: np.ndarray, upper: tuple[int, ...], lower: tuple[int, ...], centre: int) -> Cut:
    line = points[list(lower)]
    order = np.argsort(line[:, 0])
    width = float(np.ptp(line[:, 0]))
    return Cut(line[order, 0], line[order, 1], 0.45 * width, frozenset([*upper[1:-1], centre]), frozenset(lower[1:-1]))


class Rig:
    """The control points of one portrait and the interpolation that turns their moves into fields.

    Args:
        points: the portrait's 468 mesh points, in pixels.
        size: the square image's side, in pixels.
        step: grid spacing of the fields, in pixels.
    """

    def __init__(self, points: np.ndarray, size: int, step: int = 2) -> None:
        self.frame = FaceFrame.of(points)
        self.mesh = points[:, :2].astype(np.float64)
        unit = self.frame.scale
        self.eye_centres = [self.mesh[list(u) + list(lo)].mean(0) for u, lo in zip(UPPER_LIDS, LOWER_LIDS)]
        centre = self.mesh[list(FACE_OVAL)].mean(0)
        oval = self.mesh[list(FACE_OVAL)]
        outward = (oval - centre) / np.linalg.norm(oval - centre, axis=1, keepdims=True)
        self.ring = oval + outward * _RING_OUT * unit
        self.controls = np.vstack([self.mesh, self.eye_centres, self.ring])
        n_mesh = len(self.mesh)
        self.eye_index = (n_mesh, n_mesh + 1)
        self.sigmas = np.concatenate([np.full(n_mesh + 2, _SIGMA * unit), np.full(len(self.ring), _RING_SIGMA * unit)])
        self.cuts = [_mouth_cut(self.mesh)] + [
            _lid_cut(self.mesh, u, lo, self.eye_index[i]) for i, (u, lo) in enumerate(zip(UPPER_LIDS, LOWER_LIDS))
        ]
        self.size, self.step = size, step
        self.grid_n = size // step
        ys, xs = np.mgrid[0 : self.grid_n, 0 : self.grid_n].astype(np.float64) * step + (step - 1) / 2
        self.grid = np.stack([xs.ravel(), ys.ravel()], axis=1)
        weights = self._weights(self.controls)
        gram = weights.T @ weights
        self._solve = np.linalg.inv(gram + _REGULARISE * np.eye(len(gram))) @ weights.T
        self._mix = np.linalg.inv(gram + _REGULARISE * np.eye(len(gram))) * _REGULARISE

    def _weights(self, at: np.ndarray) -> np.ndarray:
        """Normalised, cut-aware kernel weights of every control point at each position (rows)."""
        d2 = ((at[:, None, :] - self.controls[None, :, :]) ** 2).sum(-1)
        w = np.exp(-d2 / (2 * self.sigmas[None, :] ** 2))
        for cut in self.cuts:
            activity, below = cut.masks(at)
            for index in cut.above:
                w[:, index] *= 1 - activity * below
            for index in cut.below:
                w[:, index] *= 1 - activity * (1 - below)
        return w / (w.sum(1, keepdims=True) + 1e-4)

    def coefficients(self, moves: np.ndarray) -> np.ndarray:
        """Kernel coefficients whose interpolation passes (nearly) through ``moves`` at the control points."""
        return self._solve @ moves + self._mix @ moves

    def fields(self, moves: list[np.ndarray], chunk: int = 8192) -> np.ndarray:
        """Dense forward fields on the grid, one per move set: (len(moves), grid_n, grid_n, 2) float32."""
        coeffs = np.concatenate([self.coefficients(m) for m in moves], axis=1)
        out = np.empty((len(self.grid), coeffs.shape[1]), np.float32)
        for start in range(0, len(self.grid), chunk):
            out[start : start + chunk] = self._weights(self.grid[start : start + chunk]) @ coeffs
        return out.reshape(self.grid_n, self.grid_n, len(moves), 2).transpose(2, 0, 1, 3).copy()

    def pad(self, mesh_moves: np.ndarray, eye_moves: np.ndarray | None = None) -> np.ndarray:
        """Moves of every control point from the mesh's (468, 2) and the eye centres' (2, 2); the ring is still."""
        eyes = np.zeros((2, 2)) if eye_moves is None else eye_moves
        return np.vstack([mesh_moves, eyes, np.zeros((len(self.ring), 2))])


def invert(forward: np.ndarray, step: int, iterations: int = 3) -> np.ndarray:
    """Backward map (where each output pixel samples the source) of a forward field on the grid, in pixels."""
    import cv2

    n = forward.shape[0]
    ys, xs = np.mgrid[0:n, 0:n].astype(np.float32)
    target = np.stack([xs, ys], axis=-1) * step + (step - 1) / 2
    source = target - forward
    for _ in range(iterations - 1):
        grid = (source - (step - 1) / 2) / step
        moved = cv2.remap(forward, grid[..., 0], grid[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        source = target - moved
    return source
