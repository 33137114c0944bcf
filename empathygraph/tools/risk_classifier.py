"""Risk classifier: logistic heads over the sentence embedding the text-emotion tool computes.

One head says whether a text discloses any risk; one head per category says which.
The heads are trained by ``scripts/train_risk_classifier.py`` and shipped as a small
``.npz`` (a few KB) beside the text-emotion head; the encoder is the text-emotion
tool's, so scoring a message costs one matrix product on an embedding already made.
Long messages are also scored sentence by sentence, so a disclosure in one clause of
a long message is not diluted by the rest.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from empathygraph.errors import BackendError
from empathygraph.schemas import RiskCategory

RISK_HEAD_PATH = Path(__file__).parent / "data" / "risk_head.npz"
CATEGORIES = (RiskCategory.SELF_HARM, RiskCategory.ABUSE, RiskCategory.MEDICAL_EMERGENCY, RiskCategory.HARM_TO_OTHERS)
_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+|\n+")
MIN_SENTENCE_WORDS = 3


def sentences(text: str, max_sentences: int = 8) -> list[str]:
    """The sentences of ``text`` worth scoring on their own (none when it is one sentence)."""
    parts = [p.strip() for p in _SENTENCE_END.split(text) if len(p.split()) >= MIN_SENTENCE_WORDS]
    return parts[:max_sentences] if len(parts) > 1 else []


@dataclass
class RiskScores:
    """The heads' probabilities for one text: any risk, per category, and where it was highest."""

    any_risk: float
    categories: dict[RiskCategory, float]
    where: str  # the sentence (or the whole text) that scored highest


@dataclass
class RiskHead:
    """Logistic heads: row 0 is any risk, rows 1.. the categories in ``CATEGORIES`` order.

    Attributes:
        weights: (1 + categories) x dim.
        bias: (1 + categories,).
        encoder: the sentence encoder the heads were trained on (must match at run time).
        threshold: any-risk probability at or above which the classifier alone routes to the protocol.
        gray: probability above which an uncertain message is worth a second opinion (the LLM read).
        category_threshold: a category counts at or above this probability.
        trained_on: what data the head saw, for the trace and the README.
    """

    weights: np.ndarray
    bias: np.ndarray
    encoder: str
    threshold: float = 0.5
    gray: float = 0.2
    category_threshold: float = 0.3
    trained_on: str = ""
    _normalize: bool = field(default=True, repr=False)

    def probabilities(self, embeddings: np.ndarray) -> np.ndarray:
        """Per row of ``embeddings``: (any risk, categories...) probabilities."""
        x = np.atleast_2d(embeddings).astype(np.float32)
        if self._normalize:
            x = x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-8)
        return 1.0 / (1.0 + np.exp(-(x @ self.weights.T + self.bias)))

    def score(self, texts: list[str], embeddings: np.ndarray) -> RiskScores:
        """Scores for one message given the embeddings of its pieces (whole text first, then sentences)."""
        probs = self.probabilities(embeddings)
        best = int(np.argmax(probs[:, 0]))
        top = probs.max(axis=0)
        return RiskScores(
            any_risk=float(top[0]),
            categories={c: float(top[i + 1]) for i, c in enumerate(CATEGORIES)},
            where=texts[best],
        )

    def save(self, path: Path) -> None:
        np.savez_compressed(
            path, weights=self.weights.astype(np.float32), bias=self.bias.astype(np.float32),
            encoder=np.array(self.encoder), trained_on=np.array(self.trained_on),
            thresholds=np.array([self.threshold, self.gray, self.category_threshold], dtype=np.float32),
            categories=np.array([c.value for c in CATEGORIES]),
        )

    @classmethod
    def load(cls, path: Path = RISK_HEAD_PATH) -> RiskHead:
        """Load shipped heads.

        Raises:
            BackendError: the file is missing or was written for other categories.
        """
        if not path.is_file():
            raise BackendError(f"risk classifier head not found at {path} (run scripts/train_risk_classifier.py)")
        data = np.load(path, allow_pickle=False)
        if [str(c) for c in data["categories"]] != [c.value for c in CATEGORIES]:
            raise BackendError(f"risk head {path} was trained for other categories: {list(data['categories'])}")
        threshold, gray, category_threshold = (float(v) for v in data["thresholds"])
        return cls(weights=data["weights"], bias=data["bias"], encoder=str(data["encoder"]),
                   threshold=threshold, gray=gray, category_threshold=category_threshold,
                   trained_on=str(data["trained_on"]))
