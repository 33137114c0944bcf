"""Greetings, thanks and goodbyes: read by rule, answered as what they are."""

from __future__ import annotations

import pytest

from empathygraph.agents.small_talk import pleasantry
from tests.conftest import make_empathizer, scripted


@pytest.mark.parametrize(("words", "kind"), [
    ("hello", "greeting"),
    ("Hi there!", "greeting"),
    ("hey, how are you?", "greeting"),
    ("good morning!! how are you doing today?", "greeting"),
    ("Thanks so much!", "thanks"),
    ("Thank you. That helped.", "thanks"),
    ("thanks, bye", "farewell"),
    ("Good night", "farewell"),
    ("ok thanks", "thanks"),
    ("okay, bye!", "farewell"),
])
def test_pleasantries_are_told_apart(words, kind):
    assert pleasantry(words) == kind


@pytest.mark.parametrize("words", ["hello, my dog died", "I said hello to my ex", "ok", "great", "okay cool", "thanks for nothing, it got worse",
                                   "bye forever everyone"])
def test_a_message_with_anything_else_in_it_is_not_small_talk(words):
    assert pleasantry(words) is None


def test_a_greeting_is_read_without_the_llm_and_answered_as_a_greeting():
    result = make_empathizer(scripted(ResponseDraft={"reply": "Hi! How are you doing tonight?"})).respond("hello")
    (cause,) = [s for s in result.steps if s.step == "emotion_cause"]
    assert cause.attempts == [] and cause.output["label_source"] == "small talk"
    assert cause.output["emotion"] == "content" and cause.output["causes"] == ["hello"]
    (response,) = [s for s in result.steps if s.step == "response"]
    task = response.prompt[-1]["content"]
    assert "They only greeted you" in task and "No greeting" not in task
    assert "How caring listeners answered" not in task  # the retrieved examples are about something
    assert result.plan.text == "Hi! How are you doing tonight?"
