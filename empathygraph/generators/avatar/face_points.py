"""Where a face's parts are in a photo: MediaPipe's 468-point mesh, and a frame to compare faces in.

The mesh is the perception tools' (``tools.landmarks.FaceMesh``), run twice: once on the
Haar face box, then on the box its own points span, which centres the crop as the model
expects. ``FaceFrame`` maps points to a face-normalised space (origin between the eyes,
x along the eye line, unit = the distance between the outer eye corners), so a movement
learned on one face can be replayed on another.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from empathygraph.generators.base import GeneratorError

# Mesh indices (MediaPipe face-mesh topology).
OUTER_EYE_CORNERS = (33, 263)
INNER_LIP_UPPER = (78, 191, 80, 81, 82, 13, 312, 311, 310, 415, 308)
INNER_LIP_LOWER = (78, 95, 88, 178, 87, 14, 317, 402, 318, 324, 308)
OUTER_LIP_UPPER = (61, 185, 40, 39, 37, 0, 267, 269, 270, 409, 291)
OUTER_LIP_LOWER = (61, 146, 91, 181, 84, 17, 314, 405, 321, 375, 291)
MOUTH_CORNERS = (61, 291, 78, 308)
# Upper and lower lid of each eye, corner to corner, paired point by point.
UPPER_LIDS = ((33, 246, 161, 160, 159, 158, 157, 173, 133), (263, 466, 388, 387, 386, 385, 384, 398, 362))
LOWER_LIDS = ((33, 7, 163, 144, 145, 153, 154, 155, 133), (263, 249, 390, 373, 374, 380, 381, 382, 362))
CHIN = 152
FOREHEAD = 10
JAW_LINE = (172, 136, 150, 149, 176, 148, 152, 377, 400, 378, 379, 365, 397)
# Points that barely move with expression: the nose bridge and ridge, the eye corners, the temples.
STABLE = (6, 168, 197, 195, 5, 4, 1, 33, 133, 263, 362, 127, 356, 234, 454)


@dataclass(frozen=True)
class FaceFrame:
    """A similarity frame on a face: ``to_face`` and ``from_face`` map pixels and face units."""

    origin: np.ndarray
    axes: np.ndarray  # rows: x and y unit vectors in pixels per face unit

    @classmethod
    def of(cls, points: np.ndarray) -> FaceFrame:
        left, right = points[OUTER_EYE_CORNERS[0], :2], points[OUTER_EYE_CORNERS[1], :2]
        x_axis = right - left
        y_axis = np.array([-x_axis[1], x_axis[0]])  # image y points down
        return cls((left + right) / 2, np.stack([x_axis, y_axis]))

    @property
    def scale(self) -> float:
        """Pixels per face unit."""
        return float(np.linalg.norm(self.axes[0]))

    def to_face(self, points: np.ndarray) -> np.ndarray:
        return (points[..., :2] - self.origin) @ np.linalg.inv(self.axes)

    def vectors_from_face(self, vectors: np.ndarray) -> np.ndarray:
        """Displacements in face units -> pixels (rotation and scale only)."""
        return vectors @ self.axes


def align(points: np.ndarray, onto: np.ndarray, anchors: tuple[int, ...] = STABLE) -> np.ndarray:
    """Move ``points`` by the similarity that best lays their ``anchors`` onto ``onto``'s (Procrustes)."""
    a, b = points[anchors, :2], onto[anchors, :2]
    ca, cb = a.mean(0), b.mean(0)
    u, s, vt = np.linalg.svd((a - ca).T @ (b - cb))
    d = np.sign(np.linalg.det(u @ vt))
    rotation = u @ np.diag([1.0, d]) @ vt
    scale = (s * [1.0, d]).sum() / ((a - ca) ** 2).sum()
    return (points[:, :2] - ca) @ rotation * scale + cb


@lru_cache(maxsize=1)
def face_models():
    from empathygraph.tools.face import FaceDetector
    from empathygraph.tools.landmarks import FaceMesh

    return FaceDetector(detect_width=640, min_face=0.15), FaceMesh()


def mesh_points(rgb: np.ndarray, box: tuple[int, int, int, int] | None = None) -> np.ndarray:
    """Return the 468 mesh points (x, y in pixels) of the largest face in ``rgb``.

    Args:
        box: the face's (x, y, w, h) when already known; found with the Haar cascade otherwise.

    Raises:
        GeneratorError: no face is found, or the mesh model is not confident there is one.
    """
    import cv2

    from empathygraph.tools.face import Box

    detector, mesh = face_models()
    bgr = cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR)
    if box is None:
        found = detector.largest(cv2.cvtColor(rgb, cv2.COLOR_RGB2GRAY))
        if found is None:
            raise GeneratorError("no face found")
        face = found
    else:
        face = Box(*box)
    points, presence = mesh.landmarks(bgr, face)
    for _ in range(2):  # re-centre the crop on the face the mesh found
        lo, hi = points[:, :2].min(0), points[:, :2].max(0)
        side = float((hi - lo).max()) * 0.9
        centre = (lo + hi) / 2
        face = Box(int(centre[0] - side / 2), int(centre[1] - side / 2), int(side), int(side))
        points, presence = mesh.landmarks(bgr, face)
    if presence < 0.5:
        raise GeneratorError(f"no clear face (mesh confidence {presence:.2f})")
    return points[:, :2]


def mirror_index(face: np.ndarray) -> np.ndarray:
    """For each point of a frontal ``face`` (face units), its left-right counterpart (itself on the midline)."""
    mirrored = face * np.array([-1.0, 1.0])
    distances = np.linalg.norm(face[:, None, :] - mirrored[None, :, :], axis=2)
    return np.argmin(distances, axis=1)


def symmetrise(deltas: np.ndarray, mirror: np.ndarray) -> np.ndarray:
    """Average face-unit displacements with their mirror image (removes a turned head and noise)."""
    return (deltas + deltas[..., mirror, :] * np.array([-1.0, 1.0])) / 2
