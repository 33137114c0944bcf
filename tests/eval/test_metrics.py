"""Metrics agree with hand-computed values on tiny inputs."""

from __future__ import annotations

from empathygraph.eval import metrics


def test_classification_counts_missing_predictions_as_wrong():
    result = metrics.classification(["sad", "sad", "joyful"], ["sad", None, "joyful"], ["joyful", "sad"])
    assert result["accuracy"] == round(2 / 3, 4)
    assert result["labels"][-1] == "(none)" and result["confusion"][1] == [0, 1, 1]


def test_distinct_and_length():
    assert metrics.distinct(["a b a b"], 1) == 0.5
    assert metrics.distinct(["a b a b"], 2) == round(2 / 3, 4)
    gen = metrics.generation(["i am so sorry"], ["i am so sorry"])
    assert gen["bleu4"] == 1.0 and gen["rougeL"] == 1.0 and gen["avg_length"] == 4


def test_cause_span_overlap_uses_best_gold_span():
    result = metrics.cause_spans([["my dog died", "the rain"]], [["yesterday my dog died"]])
    assert result["precision"] == 0.75 and result["recall"] == 1.0 and result["exact_match"] == 0.0
    assert metrics.cause_spans([["x"]], [[]])["f1"] == 0.0


def test_cost_means():
    assert metrics.cost([1.0, 3.0], [2, 4], [10, 30])["seconds_per_sample"] == 2.0


def test_word_errors_count_edits_over_the_reference_ignoring_case_and_punctuation():
    assert metrics.word_errors("I’m here, with you.", "i'm here with you") == (0, 4)
    assert metrics.word_errors("one step at a time", "one stop at time") == (2, 5)  # a substitution, a deletion
    assert metrics.word_errors("so tired", "so so tired today") == (2, 2)  # insertions count too
