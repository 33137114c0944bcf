"""The risk assessment combines its signals recall-first and keeps every score for the trace."""

from __future__ import annotations

import numpy as np
import pytest

from empathygraph.schemas import RiskCategory
from empathygraph.tools import safety
from empathygraph.tools.risk import HARMLESS_FLOOR, RiskScreen, classifier_signal, combine, llm_signal, pattern_signal
from empathygraph.tools.risk_classifier import (
    CATEGORIES,
    LONG_MESSAGE_WORDS,
    RiskScores,
    RiskThresholds,
    pieces,
    sentences,
)

THRESHOLDS = RiskThresholds(threshold=0.5, gray=0.2, category=0.3)


def toy_probabilities(texts: list[str]) -> np.ndarray:
    """'danger' in a short text means risk (self-harm; a long text dilutes it); 'maybe' is unsure; 'homework'
    reads as plainly harmless; the rest calm."""
    def row(text: str) -> list[float]:
        if "danger" in text and len(text.split()) < 12:
            return [0.95, 0.9, 0.05, 0.05, 0.05]
        if "homework" in text:
            return [0.001] * 5
        return [0.3, 0.2, 0.1, 0.1, 0.1] if "maybe" in text else [0.02, 0.01, 0.01, 0.01, 0.01]
    return np.array([row(t) for t in texts])


def test_patterns_name_the_phrase_and_how_risk_was_said():
    hits = safety.find("I've been stockpiling my sleeping pills for weeks.")
    signal = pattern_signal(hits)
    assert signal.fired and signal.categories == [RiskCategory.SELF_HARM]
    assert "stockpiling my sleeping pills" in signal.detail and "plan_or_means" in signal.detail


@pytest.mark.parametrize("text", [
    "Three years ago I used to cut myself; therapy got me through it.",
    "Back when I was 16 I self-harmed, but I've been clean for two years.",
    "three years since my overdose today. went for a long walk and called my mum",
    "1 yr clean from self harm today. proud of me",
    "a year ago today i was in hospital after trying to end my life",
])
def test_a_past_told_as_past_does_not_fire(text):
    assert safety.find(text) == []


@pytest.mark.parametrize("text", [
    "I used to cut myself and I started again last night.",
    "two years clean from self harm but the urges are back tonight",
    "three days since I took the overdose and my skin has gone yellow",  # days: it can still be an emergency
    "a year ago today i tried to end my life and tonight i want to again",
])
def test_a_past_that_is_back_fires(text):
    assert safety.find(text)


@pytest.mark.parametrize("text", [
    "sometimes when the baby won't stop crying I picture shaking her. I haven't. I'm scared I will",
    "i keep getting urges to squeeze the babies too hard when they cry",
    "I keep having the thought of pushing my wife in her wheelchair into the canal.",
])
def test_an_intrusive_thought_of_harming_someone_is_harm_to_others(text):
    assert [h.kind for h in safety.find(text)] == ["intrusive_harm_thoughts"]


@pytest.mark.parametrize("text", [
    "I thought I was going to hit him with the door, he came round the corner so fast.",
    "I keep picturing hitting the gym every morning this year.",
    "Any thoughts on pushing the release to Friday?",
])
def test_a_thought_or_picture_without_harm_to_a_person_is_not_one(text):
    assert safety.find(text) == []


def test_one_message_can_carry_several_categories_most_urgent_first():
    result = safety.screen("He beat me up again and I swallowed a handful of my pills an hour ago")
    assert result.categories[0] is RiskCategory.MEDICAL_EMERGENCY
    assert set(result.categories) >= {RiskCategory.MEDICAL_EMERGENCY, RiskCategory.ABUSE}


def test_any_fired_signal_routes_and_unfired_ones_stay_in_the_trace():
    quiet = classifier_signal(RiskScores(0.1, dict.fromkeys(CATEGORIES, 0.1), "x"), THRESHOLDS)
    loud = classifier_signal(RiskScores(0.9, {**dict.fromkeys(CATEGORIES, 0.0), RiskCategory.ABUSE: 0.8}, "y"),
                             THRESHOLDS)
    assert not combine([pattern_signal([]), quiet]).at_risk
    result = combine([pattern_signal([]), quiet, loud])
    assert result.at_risk and result.category is RiskCategory.ABUSE
    assert len(result.signals) == 3 and [s.fired for s in result.signals] == [False, False, True]


def test_a_classifier_without_a_confident_category_names_its_likeliest():
    signal = classifier_signal(RiskScores(0.9, {**dict.fromkeys(CATEGORIES, 0.05), RiskCategory.HARM_TO_OTHERS: 0.2},
                                          "z"), THRESHOLDS)
    assert signal.categories == [RiskCategory.HARM_TO_OTHERS]


def test_a_category_far_below_the_likeliest_is_left_out_and_one_close_to_it_kept():
    # A threatened partner: abuse 0.92; harm to others 0.49 would give the victim steps for someone who might hurt.
    threatened = classifier_signal(RiskScores(0.88, {**dict.fromkeys(CATEGORIES, 0.05), RiskCategory.ABUSE: 0.92,
                                                     RiskCategory.HARM_TO_OTHERS: 0.49}, "t"), THRESHOLDS)
    assert threatened.categories == [RiskCategory.ABUSE]
    overdose = classifier_signal(RiskScores(0.95, {**dict.fromkeys(CATEGORIES, 0.05), RiskCategory.SELF_HARM: 0.8,
                                                   RiskCategory.MEDICAL_EMERGENCY: 0.7}, "o"), THRESHOLDS)
    assert overdose.categories == [RiskCategory.MEDICAL_EMERGENCY, RiskCategory.SELF_HARM]


def test_the_llm_may_only_tip_a_case_the_classifier_finds_at_least_unsure():
    unsure = classifier_signal(RiskScores(0.3, dict.fromkeys(CATEGORIES, 0.3), "u"), THRESHOLDS)
    calm = classifier_signal(RiskScores(0.05, dict.fromkeys(CATEGORIES, 0.05), "c"), THRESHOLDS)
    assert llm_signal(0.9, 0.5, unsure, THRESHOLDS.gray, "q").fired
    assert not llm_signal(0.9, 0.5, calm, THRESHOLDS.gray, "q").fired
    assert not llm_signal(0.3, 0.5, unsure, THRESHOLDS.gray, "q").fired


def test_a_reading_is_tentative_only_when_every_fired_signal_is_below_its_plain_level():
    levels = RiskThresholds(threshold=0.5, gray=0.2, category=0.3, plain=0.8)

    def classifier(score: float):
        return classifier_signal(RiskScores(score, dict.fromkeys(CATEGORIES, 0.5), "x"), levels)

    assert combine([pattern_signal([]), classifier(0.6)]).tentative
    assert not combine([pattern_signal([]), classifier(0.85)]).tentative
    assert not combine([pattern_signal(safety.find("I want to kill myself")), classifier(0.6)]).tentative
    assert combine([classifier(0.3), llm_signal(0.9, 0.5, classifier(0.3), levels.gray, "q")]).tentative
    assert not combine([classifier(0.1)]).tentative  # nothing fired: not at risk, nothing to be unsure of
    without_level = classifier_signal(RiskScores(0.6, dict.fromkeys(CATEGORIES, 0.5), "x"), THRESHOLDS)
    assert without_level.fired and not combine([without_level]).tentative  # a file without a plain level: all plain


def test_a_phrase_reads_as_plain_only_where_the_classifier_also_finds_danger():
    screen = RiskScreen(toy_probabilities, RiskThresholds(threshold=0.5, gray=0.2, category=0.3, plain=0.8))
    alone = screen.assess("Our school project is on why people say I want to kill myself.")
    assert alone.at_risk and alone.tentative and not alone.signals[0].plain
    backed = screen.assess("I want to kill myself, danger.")
    assert backed.at_risk and not backed.tentative and backed.signals[0].plain
    assert not RiskScreen().assess("I want to kill myself.").tentative  # no classifier: the phrase stands as said


def test_the_screen_reads_a_long_message_sentence_by_sentence_and_earlier_turns():
    screen = RiskScreen(toy_probabilities, THRESHOLDS)
    long = ("Work was fine today, though the meeting ran over and the printer jammed twice again. The garden needs "
            "weeding before the rain comes back on the weekend. There is danger in what I plan tonight.")
    assert sentences(long) and len(long.split()) >= LONG_MESSAGE_WORDS
    verdict = screen.assess(long)
    assert verdict.at_risk and verdict.signals[1].detail == "There is danger in what I plan tonight."
    short = "The garden needs weeding before the rain comes back. There is danger in what I plan tonight."
    assert sentences(short) and pieces(short) == [short]  # under 30 words: read whole (here diluted)
    assert not screen.assess(short).at_risk
    assert not screen.assess("all calm here").at_risk
    context = screen.assess("all calm here", earlier=["danger earlier"])
    assert context.at_risk and [s.source for s in context.signals if s.fired] == ["context"]


def test_a_careful_session_lowers_the_classifier_threshold():
    screen = RiskScreen(toy_probabilities, THRESHOLDS)
    assert not screen.assess("maybe so").at_risk
    careful = screen.assess("maybe so", careful=True)
    assert careful.at_risk and careful.careful


def test_a_phrase_does_not_fire_where_the_classifier_reads_the_message_as_harmless():
    screen = RiskScreen(toy_probabilities, THRESHOLDS)
    text = "My homework is an essay on why people say I want to kill myself."
    assert toy_probabilities([text])[0, 0] < HARMLESS_FLOOR and safety.find(text)
    verdict = screen.assess(text)
    assert not verdict.at_risk and not verdict.signals[0].fired and "not fired" in verdict.signals[0].detail
    assert screen.assess(text, careful=True).signals[0].fired  # a session that disclosed risk before: it fires
    calm = "I want to kill myself."  # scored 0.02 by the toy classifier: at the floor, the phrase fires
    assert screen.assess(calm).at_risk and screen.assess(calm).signals[0].fired


def test_without_a_classifier_the_patterns_screen_alone():
    verdict = RiskScreen().assess("I have been stockpiling my pills")
    assert verdict.at_risk and [s.source for s in verdict.signals] == ["patterns"]


@pytest.mark.parametrize("text", [
    "I took the whole bottle an hour ago and now I feel really sleepy",
    "took a full strip of my meds about ten minutes ago",
    "I've taken the entire box, I think",
])
def test_an_overdose_of_a_whole_pack_is_a_medical_emergency(text):
    hits = safety.find(text)
    assert [h.kind for h in hits] == ["overdose_taken"] and hits[0].category is RiskCategory.MEDICAL_EMERGENCY
