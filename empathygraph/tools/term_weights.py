"""TF-IDF over words and word pairs, read with plain numpy from weights scikit-learn fitted.

The trained word readers (the ESConv strategy prior, the word-level emotion reader) are a
``TfidfVectorizer(analyzer=terms, sublinear_tf=True)`` and a linear layer. Shipping the
vocabulary and idf instead of a pickled vectorizer keeps the files plain arrays, and a message
is read in well under a millisecond.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import pairwise

import numpy as np

_WORD = re.compile(r"(?u)\b\w\w+\b")  # scikit-learn's default token pattern


def plain_words(text: str) -> list[str]:
    """Lower-cased words of two letters or more: scikit-learn's default tokens."""
    return _WORD.findall(text.lower())


def with_pairs(words: list[str]) -> list[str]:
    """The words, then each pair of neighbours: TfidfVectorizer's ngram_range=(1, 2)."""
    return words + [f"{a} {b}" for a, b in pairwise(words)]


def terms(text: str) -> list[str]:
    """Lower-cased unigrams and bigrams, as scikit-learn's TfidfVectorizer(ngram_range=(1, 2)) forms them."""
    return with_pairs(plain_words(text))


@dataclass(frozen=True)
class TermWeights:
    """A fitted TF-IDF vocabulary: term -> column, each column's idf, and how a text splits into terms
    (``split``: the vectorizer's analyzer; words and word pairs by default)."""

    vocabulary: dict[str, int]
    idf: np.ndarray
    split: Callable[[str], list[str]] = field(default=terms, compare=False)

    @classmethod
    def from_arrays(cls, terms_in_order: np.ndarray, idf: np.ndarray) -> TermWeights:
        """The vocabulary saved as its terms in column order (``terms_in_order``) and their idf."""
        return cls({str(t): i for i, t in enumerate(terms_in_order)}, np.asarray(idf, np.float32))

    def terms_in_order(self) -> np.ndarray:
        """The terms in column order (what ``from_arrays`` reads back)."""
        return np.array(sorted(self.vocabulary, key=self.vocabulary.__getitem__))

    def sparse(self, text: str) -> tuple[np.ndarray, np.ndarray]:
        """(columns, values) of ``text``'s sublinear-tf TF-IDF vector, l2-normalised (TfidfVectorizer's
        defaults with sublinear_tf); empty arrays when none of its terms is in the vocabulary."""
        counts: dict[int, int] = {}
        for term in self.split(text):
            if (index := self.vocabulary.get(term)) is not None:
                counts[index] = counts.get(index, 0) + 1
        columns = np.fromiter(counts, dtype=np.int64, count=len(counts))
        values = np.array([(1.0 + math.log(c)) for c in counts.values()], np.float32) * self.idf[columns]
        norm = float(np.linalg.norm(values))
        return columns, values / norm if norm else values

    def vector(self, text: str) -> np.ndarray:
        """``text``'s TF-IDF vector over the whole vocabulary (dense)."""
        return self.matrix([text])[0]

    def matrix(self, texts: list[str]) -> np.ndarray:
        """One dense TF-IDF row per text."""
        rows = np.zeros((len(texts), len(self.vocabulary)), np.float32)
        for row, text in enumerate(texts):
            columns, values = self.sparse(text)
            rows[row, columns] = values
        return rows
