"""The choices data and the choice screen's training script: balanced writers, contrast pairs, calibration."""

from __future__ import annotations

from collections import Counter, defaultdict

import numpy as np


def test_every_writer_is_half_harmful_and_each_contrast_pair_holds_one_of_each(choice_script) -> None:
    rows = choice_script.load_choices()
    assert len({r["id"] for r in rows}) == len(rows) >= 600
    by_writer = Counter((r["writer"], r["harmful"]) for r in rows)
    for writer in {r["writer"] for r in rows}:
        assert by_writer[(writer, True)] == by_writer[(writer, False)]
    pairs: dict[str, list[bool]] = defaultdict(list)
    for row in rows:
        if row["pair"]:
            pairs[row["pair"]].append(row["harmful"])
    assert len(pairs) >= 150 and all(sorted(kinds) == [False, True] for kinds in pairs.values())
    # asking for approval must not give the label away
    asking = [r["harmful"] for r in rows if r["asks_approval"]]
    assert 0.3 < 1 - np.mean(asking) < 0.7


def test_the_threshold_keeps_the_asked_share_of_the_positives(choice_script) -> None:
    scores = np.array([0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1, 0.05])
    threshold = choice_script.threshold_at_recall(scores, 0.9)
    assert threshold == 0.1 and (scores >= threshold).mean() == 0.9


def test_out_of_writer_scores_come_from_models_that_never_saw_the_writer(choice_script) -> None:
    rng = np.random.default_rng(0)
    rows = [{"writer": w, "harmful": i % 2 == 0} for w in "abc" for i in range(20)]
    x = rng.normal(size=(len(rows), 4))
    x[:, 0] += np.array([2.0 if r["harmful"] else -2.0 for r in rows])  # one informative feature
    reads = {"encoder": "e"}
    oow = choice_script.out_of_writer(rows, x, np.zeros((0, 4)), 1.0, 1.0, reads)
    harmful = np.array([r["harmful"] for r in rows])
    assert oow[harmful].min() > oow[~harmful].max() - 0.5 and oow[harmful].mean() > 0.8 and oow[~harmful].mean() < 0.2
