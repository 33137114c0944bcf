"""An empathy judge that runs on a CPU: EPITOME's three mechanisms read from a reply's words.

EPITOME (Sharma et al., EMNLP 2020) rates a reply to a help-seeking post for three
communication mechanisms, each 0 (none), 1 (weak) or 2 (strong): emotional reactions
(warmth, compassion), interpretations (understanding of what the person feels or lives
through) and explorations (asking about what the person has not said). The judge is one
linear softmax head per mechanism over TF-IDF features of the reply's words and bigrams,
with "?" and "!" kept as words. ``scripts/train_empathy_judge.py`` trains it on the shared
EPITOME annotations (and can compare it with sentence-embedding heads, ``--compare-embeddings``;
not rerun for the shipped heads) and writes it with its held-out scores to
``empathygraph/eval/data/empathy_judge.npz`` (see the README beside it). Scoring needs
numpy alone: no encoder, a few milliseconds for a hundred replies.

Limits: the heads read the reply only, so
a warm reply to the wrong problem scores as warm. The annotations are Reddit mental-health
threads with replies of 46 words on average; short listener replies (ED: 11 words) are outside what the judge saw, so
compare systems on the same items rather than reading its levels as absolute.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from empathygraph.errors import BackendError
from empathygraph.phrasing import normalize
from empathygraph.tools.term_weights import TermWeights, with_pairs

JUDGE_PATH = Path(__file__).parent / "data" / "empathy_judge.npz"
MECHANISMS = ("emotional_reactions", "interpretations", "explorations")
LEVELS = ("0", "1", "2")
TOKEN_PATTERN = r"[a-z']+|[?!]"  # words (with their apostrophes) and the marks that ask or exclaim
_TOKEN = re.compile(TOKEN_PATTERN)


def judge_terms(text: str) -> list[str]:
    """The judge's terms: words (with their apostrophes), "?" and "!" of the ``normalize``d text, and word pairs,
    as ``TfidfVectorizer(ngram_range=(1, 2), token_pattern=TOKEN_PATTERN)`` forms them."""
    return with_pairs(_TOKEN.findall(normalize(text)))


class WordFeatures(TermWeights):
    """TF-IDF of the judge's terms (``judge_terms``), sublinear tf, as the training script's vectorizer."""

    def __init__(self, terms: Sequence[str], idf: np.ndarray) -> None:
        super().__init__({str(t): i for i, t in enumerate(terms)}, np.asarray(idf, np.float32), judge_terms)

    @property
    def terms(self) -> list[str]:
        """The terms in column order."""
        return self.terms_in_order().tolist()

    def transform(self, texts: Sequence[str]) -> np.ndarray:
        """One l2-normalised row per text; terms not in the vocabulary are dropped."""
        return self.matrix(list(texts))


@dataclass(frozen=True)
class JudgeHeads:
    """The word features, one 3-level softmax head per mechanism over them, and what training measured."""

    words: WordFeatures
    heads: dict[str, LevelHead]
    info: dict  # data, split, held-out accuracy and macro-F1 per mechanism

    def save(self, path: Path) -> None:
        """Write everything into one compressed npz (head weights as float16)."""
        arrays: dict[str, np.ndarray] = {"terms": np.array(self.words.terms), "idf": self.words.idf.astype(np.float32),
                                         "info": np.array(json.dumps(self.info))}
        for name, head in self.heads.items():
            arrays |= {f"{name}.weight": head.weight.astype(np.float16), f"{name}.bias": head.bias.astype(np.float32),
                       f"{name}.c": np.array(head.c)}
        np.savez_compressed(path, **arrays)

    @classmethod
    def load(cls, path: Path = JUDGE_PATH) -> JudgeHeads:
        """Read heads written by :meth:`save`; all three mechanisms must be there."""
        if not Path(path).is_file():
            raise BackendError(f"empathy judge not found at {path}: run scripts/train_empathy_judge.py")
        data = np.load(path)
        missing = [m for m in MECHANISMS if f"{m}.weight" not in data]
        if missing:
            raise BackendError(f"{path}: no head for {', '.join(missing)}")
        words = WordFeatures([str(t) for t in data["terms"]], data["idf"])
        heads = {m: word_head(data[f"{m}.weight"].astype(np.float32), data[f"{m}.bias"], float(data[f"{m}.c"]))
                 for m in MECHANISMS}
        return cls(words, heads, json.loads(str(data["info"])))


@dataclass(frozen=True)
class LevelHead:
    """A linear softmax over the word features: one row of ``weight`` per level."""

    weight: np.ndarray  # levels x terms
    bias: np.ndarray
    c: float  # the logistic regression's regularisation it was fitted with

    def probabilities(self, x: np.ndarray) -> np.ndarray:
        """Level probabilities for each row of ``x``."""
        logits = x @ self.weight.T + self.bias
        logits -= logits.max(axis=1, keepdims=True)
        p = np.exp(logits)
        return p / p.sum(axis=1, keepdims=True)


def word_head(weight: np.ndarray, bias: np.ndarray, c: float) -> LevelHead:
    """A level head over word features, checked to have one row per level."""
    if weight.shape[0] != len(LEVELS) or bias.shape != (len(LEVELS),):
        raise ValueError(f"a level head needs {len(LEVELS)} rows of weights and biases, got {weight.shape}")
    return LevelHead(weight, bias, c)


@dataclass(frozen=True)
class EmpathyScore:
    """The judge's reading of one reply: a level per mechanism and the expected level (sum of level x probability)."""

    levels: dict[str, int]
    expected: dict[str, float]

    @property
    def total(self) -> int:
        """The combined 0-6 score: the sum of the three levels."""
        return sum(self.levels.values())

    @property
    def expected_total(self) -> float:
        """The combined score from the expected levels (smoother than ``total`` for averaging)."""
        return float(sum(self.expected.values()))


class EmpathyJudge:
    """Score replies for EPITOME's emotional reactions, interpretations and explorations."""

    def __init__(self, heads: JudgeHeads | Path = JUDGE_PATH) -> None:
        self.heads = heads if isinstance(heads, JudgeHeads) else JudgeHeads.load(heads)

    def probabilities(self, replies: Sequence[str]) -> dict[str, np.ndarray]:
        """Per mechanism, an n x 3 array of level probabilities."""
        x = self.heads.words.transform(replies)
        return {m: head.probabilities(x) for m, head in self.heads.heads.items()}

    def score_many(self, pairs: Sequence[tuple[str, str]]) -> list[EmpathyScore]:
        """Score each (person's words, reply) pair; the shipped heads read the reply alone (see the module)."""
        if not pairs:
            return []
        probs = self.probabilities([reply for _, reply in pairs])
        levels = np.arange(len(LEVELS))
        return [EmpathyScore(levels={m: int(p[i].argmax()) for m, p in probs.items()},
                             expected={m: round(float(p[i] @ levels), 4) for m, p in probs.items()})
                for i in range(len(pairs))]

    def score(self, context: str, reply: str) -> EmpathyScore:
        """Score one reply to the person's words ``context``."""
        return self.score_many([(context, reply)])[0]


def empathy_figures(scores: Sequence[EmpathyScore]) -> dict:
    """Means over replies: the 0-6 score, its expected-level version, and each mechanism's level."""
    if not scores:
        return {"n": 0}
    result: dict = {"n": len(scores), "score": round(float(np.mean([s.total for s in scores])), 3),
                    "expected": round(float(np.mean([s.expected_total for s in scores])), 3)}
    for m in MECHANISMS:
        result[m] = round(float(np.mean([s.levels[m] for s in scores])), 3)
    return result
