"""A judge with a two-term vocabulary and hand-set heads, for tests that must not depend on the shipped one."""

from __future__ import annotations

import numpy as np

from empathygraph.eval.judge import LEVELS, EmpathyJudge, JudgeHeads, WordFeatures, word_head


def _head(column: int) -> object:
    weight = np.zeros((len(LEVELS), 2), np.float32)
    weight[0, column], weight[2, column] = -5, 5  # the term present: level 2
    return word_head(weight, np.array([2.5, 0, -2.5], np.float32), 1.0)  # absent: level 0


def toy_judge() -> EmpathyJudge:
    """Reactions and interpretations follow "sorry", explorations follow a question mark."""
    words = WordFeatures(["sorry", "?"], np.ones(2, np.float32))
    return EmpathyJudge(JudgeHeads(words, {"emotional_reactions": _head(0), "interpretations": _head(0),
                                           "explorations": _head(1)}, {}))
