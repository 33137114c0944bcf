"""Face: find the face in each frame and read its expression over the 7 coarse emotions.

Detection is OpenCV's Haar cascade (shipped with OpenCV); the expression classifier is the
int8 mini-Xception model from the ``fer`` project (64×64 grey, FER2013 classes), run with
LiteRT. Both are small enough to run well above 15 frames per second on one core.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from empathygraph.errors import BackendError
from empathygraph.schemas import CoarseEmotion

MODEL_PATH = Path(__file__).parent / "data" / "fer_mini_xception.tflite"
# The model's output order (FER2013), mapped onto the project's coarse labels.
MODEL_LABELS: tuple[CoarseEmotion, ...] = (
    CoarseEmotion.ANGER,
    CoarseEmotion.DISGUST,
    CoarseEmotion.FEAR,
    CoarseEmotion.JOY,
    CoarseEmotion.SADNESS,
    CoarseEmotion.SURPRISE,
    CoarseEmotion.NEUTRAL,
)


@dataclass(frozen=True)
class Box:
    """A face's bounding box in pixels of the original frame."""

    x: int
    y: int
    w: int
    h: int


class FaceDetector:
    """The largest frontal face in a frame, found on a shrunken grey copy.

    Args:
        detect_width: frames wider than this are shrunk to it before the search.
        min_face: smallest face searched for, as a fraction of the frame's shorter side; the
            user's own face fills much of a selfie frame, and skipping small scales keeps the
            search at a few milliseconds per frame.
    """

    def __init__(self, detect_width: int, min_face: float = 0.25) -> None:
        import cv2

        cascade = Path(cv2.data.haarcascades) / "haarcascade_frontalface_default.xml"
        self._cascade = cv2.CascadeClassifier(str(cascade))
        if self._cascade.empty():
            raise BackendError(f"cannot load OpenCV's face cascade from {cascade}")
        self._width = detect_width
        self._min_face = min_face

    def largest(self, grey: np.ndarray) -> Box | None:
        """Return the biggest face in ``grey`` or None."""
        import cv2

        scale = min(1.0, self._width / grey.shape[1])
        small = cv2.resize(grey, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) if scale < 1 else grey
        min_side = max(24, int(min(small.shape[:2]) * self._min_face))
        found = self._cascade.detectMultiScale(small, scaleFactor=1.25, minNeighbors=5, minSize=(min_side, min_side))
        if len(found) == 0:
            return None
        x, y, w, h = max(found, key=lambda r: r[2] * r[3])
        return Box(int(x / scale), int(y / scale), int(w / scale), int(h / scale))


class ExpressionClassifier:
    """7-way facial expression probabilities for a grey face crop."""

    def __init__(self, model_path: Path = MODEL_PATH, threads: int = 1) -> None:
        try:
            from ai_edge_litert.interpreter import Interpreter
        except ImportError as exc:
            raise BackendError("face expression needs the 'ai-edge-litert' package") from exc
        self._interp = Interpreter(model_path=str(model_path), num_threads=threads)
        self._interp.allocate_tensors()
        self._in = self._interp.get_input_details()[0]["index"]
        self._out = self._interp.get_output_details()[0]["index"]

    def probabilities(self, face_grey: np.ndarray) -> np.ndarray:
        """Return probabilities in ``MODEL_LABELS`` order for one grey crop (any size)."""
        import cv2

        x = cv2.resize(face_grey, (64, 64)).astype(np.float32)  # bilinear, as the fer package feeds it
        x = (x / 255.0 - 0.5) * 2.0
        self._interp.set_tensor(self._in, x[None, :, :, None])
        self._interp.invoke()
        p = self._interp.get_tensor(self._out).reshape(-1).astype(np.float64)
        return p / max(p.sum(), 1e-9)


def crop(grey: np.ndarray, box: Box, margin: float = 0.1) -> np.ndarray:
    """Cut the face out with a small margin (the classifier was trained on loose crops)."""
    mx, my = int(box.w * margin), int(box.h * margin)
    y0, y1 = max(0, box.y - my), min(grey.shape[0], box.y + box.h + my)
    x0, x1 = max(0, box.x - mx), min(grey.shape[1], box.x + box.w + mx)
    return grey[y0:y1, x0:x1]
