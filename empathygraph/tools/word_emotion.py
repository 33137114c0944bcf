"""Emotion read from the words themselves, blended into the encoder's reading.

A softmax over the 32 EmpatheticDialogues emotions on TF-IDF features of the message's words
and word pairs (``tools/term_weights.py``), trained by ``scripts/train_word_emotion.py`` on the
same ED training texts as the text-emotion top. Alone it reads worse than the tuned encoder
top, but it errs on other messages (it keeps every word, where the encoder pools them into
one vector), so the two are combined as a product of experts: the encoder's probabilities
times the word reader's raised to ``share``, renormalised. ``share`` is chosen on training
conversations neither model was fitted on. Reading a message costs well under a millisecond.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from empathygraph.errors import BackendError
from empathygraph.tools.term_weights import TermWeights

WORD_EMOTION_PATH = Path(__file__).parent / "data" / "word_emotion.npz"


@dataclass(frozen=True)
class WordEmotionReader:
    """TF-IDF terms, a linear softmax layer over them (``weight``: terms x labels), and the blend's ``share``."""

    words: TermWeights
    labels: list[str]
    weight: np.ndarray
    bias: np.ndarray
    share: float
    info: dict  # what it was trained on and what training measured

    def probabilities(self, text: str) -> np.ndarray:
        """The probability of each of ``labels`` for ``text`` (the bias alone when no term is known)."""
        columns, values = self.words.sparse(text)
        logits = values @ self.weight[columns].astype(np.float32) + self.bias
        probs = np.exp(logits - logits.max())
        return probs / probs.sum()

    def blend(self, encoder: np.ndarray, encoder_labels: Sequence[str], text: str) -> np.ndarray:
        """``encoder`` (a distribution over ``encoder_labels``) times this reader's distribution for ``text``
        raised to ``share``, renormalised, over ``encoder_labels``."""
        mine = self.probabilities(text)
        order = [self.labels.index(label) for label in encoder_labels]
        product = np.asarray(encoder, np.float64) * np.power(mine[order].astype(np.float64), self.share)
        return product / product.sum()

    def save(self, path: Path) -> None:
        """One compressed npz; the layer's weights as float16."""
        np.savez_compressed(path, terms=self.words.terms_in_order(), idf=self.words.idf.astype(np.float32),
                            labels=np.array(self.labels), weight=self.weight.astype(np.float16),
                            bias=self.bias.astype(np.float32), share=np.array(self.share),
                            info=np.array(json.dumps(self.info)))

    @classmethod
    def load(cls, path: Path = WORD_EMOTION_PATH) -> WordEmotionReader:
        """Read a file written by :meth:`save`.

        Raises:
            BackendError: the file is missing or its arrays do not fit together.
        """
        if not Path(path).is_file():
            raise BackendError(f"word emotion reader not found at {path}: run scripts/train_word_emotion.py")
        data = np.load(path)
        words = TermWeights.from_arrays(data["terms"], data["idf"])
        reader = cls(words, [str(label) for label in data["labels"]], data["weight"], data["bias"].astype(np.float32),
                     float(data["share"]), json.loads(str(data["info"])))
        if reader.weight.shape != (len(words.vocabulary), len(reader.labels)) or reader.bias.shape != (len(reader.labels),):
            raise BackendError(f"{path}: {reader.weight.shape} weights do not fit {len(words.vocabulary)} terms and "
                               f"{len(reader.labels)} labels")
        return reader
