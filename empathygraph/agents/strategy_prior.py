"""A trained prior over the next ESConv strategy: seeker words, previous strategy and position.

TF-IDF over the seeker's words (unigrams and bigrams) plus the previous strategy and the
reply's position feed a multinomial logistic regression trained on ESConv train by
``scripts/train_strategy_prior.py``. Inference is plain numpy over the shipped weights
(``agents/data/strategy_prior.npz``), about a millisecond per message.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Protocol

import numpy as np

from empathygraph.schemas import Strategy
from empathygraph.tools.term_weights import TermWeights

PRIOR_PATH = Path(__file__).parent / "data" / "strategy_prior.npz"
STRATEGIES: list[Strategy] = list(Strategy)
POSITION_BUCKETS = (0, 1, 2, 4, 8, 16)


def context_features(previous: Strategy | None, position: int) -> np.ndarray:
    """One-hot previous strategy (or none) and one-hot position bucket."""
    prev = np.zeros(len(STRATEGIES) + 1, np.float32)
    prev[STRATEGIES.index(previous) if previous is not None else len(STRATEGIES)] = 1.0
    pos = np.zeros(len(POSITION_BUCKETS), np.float32)
    pos[max(i for i, b in enumerate(POSITION_BUCKETS) if position >= b)] = 1.0
    return np.concatenate([prev, pos])


class StrategyPredictor(Protocol):
    """Anything that ranks the next strategy for a turn (``StrategyPrior`` is one)."""

    def predict(self, seeker_text: str, previous: Strategy | None, position: int) -> list[tuple[Strategy, float]]: ...


@dataclass(frozen=True)
class StrategyPrior:
    """TF-IDF vocabulary and a softmax layer over [tfidf, previous strategy, position]."""

    words: TermWeights
    weight: np.ndarray  # strategies × features
    bias: np.ndarray

    def features(self, text: str, previous: Strategy | None, position: int) -> np.ndarray:
        return np.concatenate([self.words.vector(text), context_features(previous, position)])

    def predict(self, seeker_text: str, previous: Strategy | None, position: int) -> list[tuple[Strategy, float]]:
        """Strategies ranked by probability, most likely first."""
        logits = self.weight @ self.features(seeker_text, previous, position) + self.bias
        probs = np.exp(logits - logits.max())
        probs /= probs.sum()
        return [(STRATEGIES[i], round(float(probs[i]), 4)) for i in np.argsort(-probs)]

    def save(self, path: Path) -> None:
        np.savez_compressed(path, terms=self.words.terms_in_order(), idf=self.words.idf.astype(np.float32),
                            weight=self.weight.astype(np.float32), bias=self.bias.astype(np.float32))

    @classmethod
    def load(cls, path: Path = PRIOR_PATH) -> StrategyPrior:
        data = np.load(path)
        return cls(TermWeights.from_arrays(data["terms"], data["idf"]), data["weight"], data["bias"])


@lru_cache(maxsize=1)
def default_prior() -> StrategyPrior | None:
    """The shipped prior, or None when its weights are not installed."""
    return StrategyPrior.load() if PRIOR_PATH.is_file() else None
