"""Independent readers of a rendered face: a second expression classifier, and a face-identity embedding.

- ``SecondExpressionClassifier``: the CNN of the ``facial-emotion-recognition`` package (MIT,
  FER2013 classes, 48x48 grey), run with torch. The avatar was never tuned against it, so it
  checks the calibrated classifier (``tools/face.py``). Its package declares torch,
  torchvision, facenet-pytorch and opencv-python; only its network file and weights are
  used here, so install it with ``--no-deps``.
- ``IdentityEmbedder``: dlib's ResNet face descriptor (``face_recognition_models``, CC0) on
  dlib's HOG detector and 5-point alignment; ``identity_similarity`` compares a source photo
  with a video's frames (cosine similarity; dlib's own rule: distance < 0.6 is the same person).

Both readers are for benchmarks; their packages are optional (``pip install --no-deps
facial-emotion-recognition dlib-bin face_recognition_models``).
"""

from __future__ import annotations

import importlib.util
from collections import Counter
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

import numpy as np

from empathygraph.errors import BackendError
from empathygraph.schemas import CoarseEmotion
from empathygraph.tools.face import MODEL_LABELS

Classifier = Callable[[np.ndarray], np.ndarray]  # grey face crop -> probabilities in MODEL_LABELS order

# The labelled face sets of ``../shared`` as coarse emotions: FER2013's folder names and MEAD's file-name labels
# (MEAD's contempt has no coarse emotion).
FER2013_TO_COARSE = {"angry": "anger", "disgust": "disgust", "fear": "fear", "happy": "joy", "neutral": "neutral",
                     "sad": "sadness", "surprise": "surprise"}  # fmt: skip
MEAD_TO_COARSE = {"angry": "anger", "disgusted": "disgust", "fear": "fear", "happy": "joy", "neutral": "neutral",
                  "sad": "sadness", "surprised": "surprise"}  # fmt: skip


def _package_dir(name: str) -> Path:
    """A package's folder, found without importing it (its __init__ may import what is not installed)."""
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise BackendError(f"the '{name}' package is not installed (pip install --no-deps {name.replace('_', '-')})")
    return Path(next(iter(spec.submodule_search_locations)))


class SecondExpressionClassifier:
    """The ``facial-emotion-recognition`` CNN: 7 FER2013 classes, in the same order as ``tools.face``."""

    def __init__(self) -> None:
        import torch

        folder = _package_dir("facial_emotion_recognition")
        spec = importlib.util.spec_from_file_location("_fer_networks", folder / "networks.py")
        if spec is None or spec.loader is None:
            raise BackendError(f"cannot load {folder / 'networks.py'}")
        networks = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(networks)
        self._network = networks.NetworkV2(in_c=1, nl=32, out_f=7)
        state = torch.load(folder / "model" / "model.pkl", map_location="cpu", weights_only=True)
        self._network.load_state_dict(state["network"])
        self._network.eval()
        self._torch = torch

    def __call__(self, face_grey: np.ndarray) -> np.ndarray:
        """Probabilities in ``MODEL_LABELS`` order for one grey crop (any size)."""
        import cv2

        x = cv2.resize(face_grey, (48, 48), interpolation=cv2.INTER_LINEAR).astype(np.float32) / 255.0
        with self._torch.no_grad():
            out = self._network(self._torch.from_numpy((x - 0.5) / 0.5)[None, None]).numpy().ravel()
        return out / max(float(out.sum()), 1e-9)


class ExpressionRead(NamedTuple):
    """What one classifier read over a video's frames."""

    peak: CoarseEmotion | None  # as ``ToolBox.see`` summarises the clip
    mean: dict[str, float]  # the three likeliest labels, mean probability over the frames
    frames: dict[str, int]  # how many frames each label won (a row of the confusion matrix)


def read_expression(frames: list[np.ndarray], classify: Classifier, margin: float = 0.1) -> ExpressionRead:
    """The peak expression over BGR ``frames``, the mean distribution and each frame's winning label.

    Args:
        margin: crop margin around the Haar box (``tools.face.crop``): 0.1 for the bundled classifier,
            0 for the second one, whose package feeds it MTCNN's tight face box.
    """
    import cv2

    from empathygraph.tools.expression_trend import summarize
    from empathygraph.tools.face import crop

    detector = _detector()
    rows = []
    for frame in frames:
        grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        box = detector.largest(grey)
        if box is not None:
            rows.append(classify(crop(grey, box, margin)))
    if not rows:
        return ExpressionRead(None, {}, {})
    probs = np.stack(rows)
    summary = summarize(MODEL_LABELS, probs, video=len(rows) > 1)
    won = Counter(MODEL_LABELS[i].value for i in probs.argmax(axis=1))
    return ExpressionRead(summary.peak, {s.label: s.score for s in summary.distribution[:3]}, dict(won.most_common()))


@lru_cache(maxsize=1)
def _detector():
    from empathygraph.tools.config import PerceptionConfig
    from empathygraph.tools.face import FaceDetector

    config = PerceptionConfig()
    return FaceDetector(config.face_detect_width, config.face_min_size)


class IdentityEmbedder:
    """dlib's 128-d face descriptor of the largest face in an RGB image."""

    def __init__(self) -> None:
        try:
            import dlib
        except ImportError as exc:
            raise BackendError("identity needs dlib: pip install --no-deps dlib-bin") from exc
        models = _package_dir("face_recognition_models") / "models"
        self._detect = dlib.get_frontal_face_detector()
        self._shape = dlib.shape_predictor(str(models / "shape_predictor_5_face_landmarks.dat"))
        self._describe = dlib.face_recognition_model_v1(str(models / "dlib_face_recognition_resnet_model_v1.dat"))

    def __call__(self, rgb: np.ndarray) -> np.ndarray | None:
        faces = self._detect(rgb, 0)
        if not faces:
            return None
        face = max(faces, key=lambda r: r.width() * r.height())
        return np.array(self._describe.compute_face_descriptor(rgb, self._shape(rgb, face)))


def identity_similarity(source: np.ndarray, frames: list[np.ndarray], embed: IdentityEmbedder) -> dict[str, float]:
    """Cosine similarity and distance of each RGB frame's face descriptor to the source photo's (medians, worst).

    Raises:
        BackendError: no face in the source photo.
    """
    reference = embed(source)
    if reference is None:
        raise BackendError("identity: no face in the source portrait")
    vectors = [v for v in (embed(f) for f in frames) if v is not None]
    if not vectors:
        return {"frames_with_face": 0.0}
    stack = np.stack(vectors)
    cosine = stack @ reference / (np.linalg.norm(stack, axis=1) * np.linalg.norm(reference))
    distance = np.linalg.norm(stack - reference, axis=1)
    return {
        "cosine_median": round(float(np.median(cosine)), 4),
        "cosine_min": round(float(cosine.min()), 4),
        "distance_median": round(float(np.median(distance)), 4),
        "distance_max": round(float(distance.max()), 4),
        "frames_with_face": round(len(vectors) / len(frames), 3),
    }
