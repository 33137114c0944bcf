"""Face landmarks: MediaPipe's 468-point face mesh, and the facial geometry read from it.

The mesh model (``data/face_landmark.tflite``, from MediaPipe) runs with LiteRT on a
192×192 crop around the detected face; a few ratios of landmark distances then say how
open the mouth and eyes are, how far the mouth corners are pulled up and the brows raised.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from empathygraph.errors import BackendError
from empathygraph.tools.face import Box

MODEL_PATH = Path(__file__).parent / "data" / "face_landmark.tflite"
_SIZE = 192
_MARGIN = 0.25  # the mesh model expects the whole head with some room around the face box

# Mesh indices (MediaPipe face mesh topology).
_FOREHEAD, _CHIN, _LEFT_CHEEK, _RIGHT_CHEEK = 10, 152, 234, 454
_UPPER_LIP, _LOWER_LIP, _MOUTH_LEFT, _MOUTH_RIGHT = 13, 14, 61, 291
_EYES = ((159, 145), (386, 374))  # upper and lower lid, left and right eye
_BROWS_OVER_EYES = ((105, 159), (334, 386))


class FaceMesh:
    """468 face landmarks (x, y in frame pixels, z relative depth) for a face box."""

    def __init__(self, model_path: Path = MODEL_PATH, threads: int = 1) -> None:
        try:
            from ai_edge_litert.interpreter import Interpreter
        except ImportError as exc:
            raise BackendError("face landmarks need the 'ai-edge-litert' package") from exc
        self._interp = Interpreter(model_path=str(model_path), num_threads=threads)
        self._interp.allocate_tensors()
        self._in = self._interp.get_input_details()[0]["index"]
        out = self._interp.get_output_details()
        self._points, self._presence = out[0]["index"], out[1]["index"]

    def landmarks(self, bgr: np.ndarray, box: Box) -> tuple[np.ndarray, float]:
        """Return (468 × 3 landmarks in frame pixels, probability that a face is there)."""
        import cv2

        m = int(_MARGIN * max(box.w, box.h))
        x0, y0 = max(0, box.x - m), max(0, box.y - m)
        x1, y1 = min(bgr.shape[1], box.x + box.w + m), min(bgr.shape[0], box.y + box.h + m)
        crop = cv2.cvtColor(bgr[y0:y1, x0:x1], cv2.COLOR_BGR2RGB)
        x = cv2.resize(crop, (_SIZE, _SIZE)).astype(np.float32) / 255.0
        self._interp.set_tensor(self._in, x[None])
        self._interp.invoke()
        pts = self._interp.get_tensor(self._points).reshape(468, 3).astype(np.float64)
        presence = float(1 / (1 + np.exp(-self._interp.get_tensor(self._presence).item())))
        scale = np.array([(x1 - x0) / _SIZE, (y1 - y0) / _SIZE, (x1 - x0) / _SIZE])
        return pts * scale + np.array([x0, y0, 0.0]), presence


def geometry(points: np.ndarray) -> dict[str, float]:
    """Facial geometry from mesh landmarks, each as a fraction of face height or width.

    Returns:
        mouth_open: lip gap / face height; smile: mouth-corner lift above the lip centre /
        face height (negative: corners pulled down); mouth_width: corner distance / face width;
        eye_open: mean lid gap / face height; brow_raise: mean brow-to-lid distance / face height.
    """
    p = points[:, :2]

    def dist(a: int, b: int) -> float:
        return float(np.linalg.norm(p[a] - p[b]))

    height, width = dist(_FOREHEAD, _CHIN), dist(_LEFT_CHEEK, _RIGHT_CHEEK)
    lip_centre_y = (p[_UPPER_LIP, 1] + p[_LOWER_LIP, 1]) / 2
    corners_y = (p[_MOUTH_LEFT, 1] + p[_MOUTH_RIGHT, 1]) / 2
    return {
        "mouth_open": dist(_UPPER_LIP, _LOWER_LIP) / height,
        "smile": float(lip_centre_y - corners_y) / height,
        "mouth_width": dist(_MOUTH_LEFT, _MOUTH_RIGHT) / width,
        "eye_open": float(np.mean([dist(a, b) for a, b in _EYES])) / height,
        "brow_raise": float(np.mean([dist(a, b) for a, b in _BROWS_OVER_EYES])) / height,
    }
