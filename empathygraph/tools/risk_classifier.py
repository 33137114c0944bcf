"""Risk classifier: the text encoder's top layers tuned to read danger, with one output per question.

Output 0 says whether a text discloses any risk; outputs 1.. say which category. It is the
mean of a few tuned tops (``tools/encoder_top.py``, trained alike from different seeds) over
the same all-mpnet-base-v2 encoder the text-emotion tool runs: the frozen lower layers are
shared, the copied top layers carry low-rank deltas trained by
``scripts/train_risk_classifier.py`` and shipped as ~1 MB ``.npz`` files. A linear head over
the frozen sentence embedding, trained on the same data, confused topic with danger (pills, bridges, a partner: half the hard negatives flagged at
the recall this one keeps). Long messages are also scored sentence by sentence, so a
disclosure in one clause of a long message is not diluted by the rest.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from empathygraph.errors import BackendError
from empathygraph.schemas import RiskCategory

RISK_TOP_PATH = Path(__file__).parent / "data" / "risk_top.npz"
CATEGORIES = (RiskCategory.SELF_HARM, RiskCategory.ABUSE, RiskCategory.MEDICAL_EMERGENCY, RiskCategory.HARM_TO_OTHERS)
LABELS = ["any", *(c.value for c in CATEGORIES)]
_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+|\n+")
MIN_SENTENCE_WORDS = 3
# A message this long is also scored sentence by sentence. In shorter ones a clause is most of the message, and
# scoring their sentences too only added false alarms: on the held-out split, with the probe, 18 of 570 harmless
# messages (all under 62 words, most under 30) against one disclosure kept (54 words).
LONG_MESSAGE_WORDS = 30
BATCH = 64  # texts per encoder pass when many are scored at once (training scripts, benchmarks)

Probabilities = Callable[[list[str]], np.ndarray]  # texts -> n x (1 + categories)


def sentences(text: str, max_sentences: int = 8) -> list[str]:
    """The sentences of ``text`` worth scoring on their own (none when it is one sentence)."""
    parts = [p.strip() for p in _SENTENCE_END.split(text) if len(p.split()) >= MIN_SENTENCE_WORDS]
    return parts[:max_sentences] if len(parts) > 1 else []


def pieces(text: str) -> list[str]:
    """What the classifier scores for one message: the whole text, then its sentences when it is long."""
    return [text, *sentences(text)] if len(text.split()) >= LONG_MESSAGE_WORDS else [text]


@dataclass(frozen=True)
class RiskScores:
    """The classifier's probabilities for one message: any risk, per category, and where it was highest."""

    any_risk: float
    categories: dict[RiskCategory, float]
    where: str  # the sentence (or the whole text) that scored highest


@dataclass(frozen=True)
class RiskThresholds:
    """Where the classifier's any-risk probability means something, calibrated on held-back training data.

    Attributes:
        threshold: at or above it the classifier alone routes to the protocol.
        gray: above it a message is unsure enough for a second opinion (the LLM's reading), and
            in a session that disclosed risk before the classifier fires from here.
        category: a category counts at or above this probability ...
        category_share: ... and at or above this share of the likeliest category's probability.
            With the floor alone the shipped classifier attached about one wrong category to each
            disclosure (a threatened partner also got the steps for someone who might hurt others);
            0.6, chosen on the train split, cut that to 0.44 and kept 0.974 of the right ones.
        plain: at or above it a disclosure reads as plainly said; one that fires below it is unsure,
            and the protocol's words do not presume the danger (0: every disclosure reads as plain).
    """

    threshold: float = 0.5
    gray: float = 0.1
    category: float = 0.3
    category_share: float = 0.6
    plain: float = 0.0


def scores_of(texts: list[str], probs: np.ndarray) -> RiskScores:
    """Scores for one message from the probabilities of its pieces (whole text first, then sentences)."""
    best = int(np.argmax(probs[:, 0]))
    top = probs.max(axis=0)
    return RiskScores(any_risk=float(top[0]), categories={c: float(top[i + 1]) for i, c in enumerate(CATEGORIES)},
                      where=texts[best])


class RiskModel:
    """The shipped tuned tops with their calibrated thresholds, over a loaded encoder.

    The file at ``path`` holds the first top and the thresholds; its ``members`` (files beside
    it) are tops trained the same way from other seeds, and the model's probabilities are the
    mean of all of them: one top alone flagged harmless messages at 0.99 that another scored low.

    Raises:
        BackendError: a file is missing, answers other questions than ``LABELS``, or reads
            another encoder layer than the first.
    """

    def __init__(self, encoder: object, path: Path = RISK_TOP_PATH) -> None:
        from empathygraph.tools.encoder_top import LoadedTop

        self.encoder = encoder  # a SentenceEncoder of the encoder the tops were trained on
        first = LoadedTop(path, encoder.transformer)  # type: ignore[attr-defined]
        meta = first.info.meta
        members = meta.get("members", [])
        self.tops = [first, *(LoadedTop(path.parent / name, encoder.transformer)  # type: ignore[attr-defined]
                              for name in members)]
        for top, where in zip(self.tops, [path.name, *members], strict=True):
            info = top.info
            if info.labels != LABELS or info.activation != "sigmoid" or info.start != first.info.start:
                raise BackendError(f"{where} answers {info.labels} ({info.activation}) from layer {info.start}, "
                                   f"not {LABELS} (sigmoid) from layer {first.info.start}")
        self.thresholds = RiskThresholds(meta["threshold"], meta["gray"], meta["category_threshold"],
                                         plain=meta.get("plain", 0.0))
        self.trained_on: str = meta.get("trained_on", "")

    def probabilities(self, texts: list[str]) -> np.ndarray:
        """n x (1 + categories) probabilities: one encoder pass for a turn's few texts, one per ``BATCH``
        texts for more (a pass keeps every layer's states of all its texts)."""
        return np.concatenate([self._batch(texts[k : k + BATCH]) for k in range(0, len(texts), BATCH)] or
                              [np.zeros((0, len(LABELS)))])

    def _batch(self, texts: list[str]) -> np.ndarray:
        states = self.encoder.states(texts)  # type: ignore[attr-defined]
        hidden = states.hidden[self.tops[0].info.start]
        return np.mean([top.probabilities(hidden, states.mask) for top in self.tops], axis=0)
