"""Streaming: typed events arrive in the order the graph works, and add up to the result."""

from __future__ import annotations

from empathygraph.trace.events import (
    ReplyToken,
    ReplyWatcher,
    StepFinished,
    StepStarted,
    TurnFinished,
    Verdict,
)
from tests.conftest import make_empathizer, scripted
from tests.observe.conftest import ACCEPT, REVISE


def test_events_start_and_finish_every_step_and_end_with_the_result():
    events = list(make_empathizer().events("Yesterday my dog died and the house is empty."))
    assert isinstance(events[-1], TurnFinished)
    started = [e.node for e in events if isinstance(e, StepStarted)]
    finished = [e.node for e in events if isinstance(e, StepFinished)]
    assert started == finished
    assert finished[:2] == ["begin_turn", "read"] and finished[-2:] == ["render", "remember"]
    for node in finished:  # each step is announced before it reports
        first_start = next(i for i, e in enumerate(events) if isinstance(e, StepStarted) and e.node == node)
        first_end = next(i for i, e in enumerate(events) if isinstance(e, StepFinished) and e.node == node)
        assert first_start < first_end
    emotion = next(e for e in events if isinstance(e, StepFinished) and e.node == "emotion_cause")
    assert emotion.records[0].output["emotion"] == "sad" and emotion.latency_s > 0


def test_reply_tokens_spell_the_reply_as_it_is_written():
    events = list(make_empathizer().events("Yesterday my dog died and the house is empty."))
    tokens = [e for e in events if isinstance(e, ReplyToken)]
    result = events[-1].result
    assert len(tokens) > 3, "the reply should arrive in pieces, not at once"
    assert "".join(t.text for t in tokens) == result.reply
    assert {t.node for t in tokens} == {"response"}
    last_token = max(i for i, e in enumerate(events) if isinstance(e, ReplyToken))
    response_done = next(i for i, e in enumerate(events) if isinstance(e, StepFinished) and e.node == "response")
    assert last_token < response_done, "tokens must stream before the response step finishes"


def test_a_revision_restarts_the_reply_and_each_verdict_is_an_event():
    model = scripted(ReflectionDraft=[REVISE, ACCEPT])
    events = list(make_empathizer(model).events("Yesterday my dog died and the house is empty."))
    verdicts = [e for e in events if isinstance(e, Verdict)]
    assert [(v.critique.verdict, v.round) for v in verdicts] == [("revise", 0), ("accept", 1)]
    starts = [i for i, e in enumerate(events) if isinstance(e, StepStarted) and e.node == "response"]
    assert len(starts) == 2
    second_draft = "".join(e.text for e in events[starts[1]:] if isinstance(e, ReplyToken))
    assert second_draft == events[-1].result.reply


def test_reply_watcher_reads_escapes_and_ignores_other_fields():
    watcher = ReplyWatcher()
    pieces = ['{"reply": "She said \\"', 'hi\\" and', ' left\\n', 'again', '", "other": "x"}']
    assert "".join(watcher.feed("response", p) for p in pieces) == 'She said "hi" and left\nagain'
    assert watcher.feed("emotion_cause", '{"reply": "not a reply"}') == ""
    watcher.restart("response")
    assert watcher.feed("response", '{"reply": "again"}') == "again"


def test_reply_watcher_joins_a_reply_declared_in_two_fields():
    watcher = ReplyWatcher({"response": ("acknowledgment", "question")})
    pieces = ['{"acknowledg', 'ment": "That', ' hurts.", "question": "', 'What', ' happened?"}']
    assert "".join(watcher.feed("response", p) for p in pieces) == "That hurts. What happened?"


def test_reply_watcher_ends_an_acknowledgment_without_a_full_stop_as_the_reply_does():
    watcher = ReplyWatcher({"response": ("acknowledgment", "question")})
    pieces = ['{"acknowledgment": "That', ' hurts ', '", "question": "', 'What', ' happened?"}']
    streamed = [watcher.feed("response", p) for p in pieces]
    # the trailing space waits for what follows it; the acknowledgment is a sentence once the question begins
    assert streamed == ["That", " hurts", "", ". What", " happened?"]
    assert "".join(streamed) == "That hurts. What happened?"
