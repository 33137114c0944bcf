"""The risk assessment combines its signals recall-first and keeps every score for the trace."""

from __future__ import annotations

import numpy as np
import pytest

from empathygraph.schemas import RiskCategory
from empathygraph.tools import safety
from empathygraph.tools.risk import RiskScreen, classifier_signal, combine, llm_signal, pattern_signal
from empathygraph.tools.risk_classifier import CATEGORIES, RiskHead, RiskScores, sentences


def toy_head(threshold: float = 0.5, gray: float = 0.2) -> RiskHead:
    """Heads over 2-d 'embeddings': x[0] is risk, x[1] is safety; category weights pick self-harm."""
    weights = np.array([[8.0, -8.0], [8.0, -8.0], [0.0, 0.0], [0.0, 0.0], [-8.0, 0.0]], np.float32)
    bias = np.array([0.0, 0.0, -4.0, -4.0, -4.0], np.float32)
    return RiskHead(weights, bias, encoder="toy", threshold=threshold, gray=gray, category_threshold=0.3)


def toy_encode(texts: list[str]) -> np.ndarray:
    """'danger' in a text points the toy embedding at risk; anything else at safety."""
    return np.array([[1.0, 0.0] if "danger" in t else [0.0, 1.0] for t in texts], np.float32)


def test_patterns_name_the_phrase_and_how_risk_was_said():
    hits = safety.find("I've been stockpiling my sleeping pills for weeks.")
    signal = pattern_signal(hits)
    assert signal.fired and signal.categories == [RiskCategory.SELF_HARM]
    assert "stockpiling my sleeping pills" in signal.detail and "plan_or_means" in signal.detail


@pytest.mark.parametrize("text", [
    "Three years ago I used to cut myself; therapy got me through it.",
    "Back when I was 16 I self-harmed, but I've been clean for two years.",
])
def test_a_past_told_as_past_does_not_fire(text):
    assert safety.find(text) == []


def test_a_past_that_is_back_fires():
    assert safety.find("I used to cut myself and I started again last night.")


def test_one_message_can_carry_several_categories_most_urgent_first():
    result = safety.screen("He beat me up again and I swallowed a handful of my pills an hour ago")
    assert result.categories[0] is RiskCategory.MEDICAL_EMERGENCY
    assert set(result.categories) >= {RiskCategory.MEDICAL_EMERGENCY, RiskCategory.ABUSE}


def test_any_fired_signal_routes_and_unfired_ones_stay_in_the_trace():
    head = toy_head()
    quiet = classifier_signal(RiskScores(0.1, dict.fromkeys(CATEGORIES, 0.1), "x"), head)
    loud = classifier_signal(RiskScores(0.9, {**dict.fromkeys(CATEGORIES, 0.0), RiskCategory.ABUSE: 0.8}, "y"), head)
    assert not combine([pattern_signal([]), quiet]).at_risk
    result = combine([pattern_signal([]), quiet, loud])
    assert result.at_risk and result.category is RiskCategory.ABUSE
    assert len(result.signals) == 3 and [s.fired for s in result.signals] == [False, False, True]


def test_a_classifier_without_a_confident_category_names_its_likeliest():
    signal = classifier_signal(RiskScores(0.9, {**dict.fromkeys(CATEGORIES, 0.05), RiskCategory.HARM_TO_OTHERS: 0.2},
                                          "z"), toy_head())
    assert signal.categories == [RiskCategory.HARM_TO_OTHERS]


def test_the_llm_may_only_tip_a_case_the_classifier_finds_at_least_unsure():
    head = toy_head()
    unsure = classifier_signal(RiskScores(0.3, dict.fromkeys(CATEGORIES, 0.3), "u"), head)
    calm = classifier_signal(RiskScores(0.05, dict.fromkeys(CATEGORIES, 0.05), "c"), head)
    assert llm_signal(0.9, 0.5, unsure, head.gray, "q").fired
    assert not llm_signal(0.9, 0.5, calm, head.gray, "q").fired
    assert not llm_signal(0.3, 0.5, unsure, head.gray, "q").fired


def test_the_screen_reads_sentences_and_earlier_turns():
    screen = RiskScreen(toy_head(), toy_encode)
    long = "Work was fine today. The garden needs weeding. There is danger in what I plan tonight."
    assert sentences(long)
    assert screen.assess(long).at_risk  # the one risky sentence is scored on its own
    assert not screen.assess("all calm here").at_risk
    context = screen.assess("all calm here", earlier=["danger earlier"])
    assert context.at_risk and [s.source for s in context.signals if s.fired] == ["context"]


def test_a_careful_session_lowers_the_classifier_threshold():
    head = toy_head(threshold=0.99, gray=0.2)
    screen = RiskScreen(head, lambda texts: np.ones((len(texts), 2), np.float32))
    assert not screen.assess("hmm").at_risk
    careful = screen.assess("hmm", careful=True)
    assert careful.at_risk and careful.careful


def test_a_head_round_trips_through_its_file(tmp_path):
    head = toy_head(threshold=0.42, gray=0.11)
    head.trained_on = "toy data"
    head.save(tmp_path / "h.npz")
    loaded = RiskHead.load(tmp_path / "h.npz")
    assert (loaded.threshold, loaded.gray, loaded.trained_on) == (pytest.approx(0.42), pytest.approx(0.11), "toy data")
    np.testing.assert_allclose(loaded.probabilities(np.eye(2)), head.probabilities(np.eye(2)), rtol=1e-6)
