"""The reply is spoken sentence by sentence while it is written, and the render step reuses that speech."""

from __future__ import annotations

import threading
import time
from typing import Any

import numpy as np
import pytest

from empathygraph.cpu_share import DECODE_YIELD
from empathygraph.generators import GeneratorsConfig, build_renderer
from empathygraph.generators.audio import read_wav
from empathygraph.generators.renderer import SpeechMemo
from empathygraph.generators.speech.text import complete_sentences, sentences
from empathygraph.trace.events import (
    ReplyStarted,
    SpeechReady,
    SpeechWithdrawn,
    StepFinished,
    TurnEvent,
    TurnFinished,
)
from tests.conftest import DEFAULT_SCRIPT, SlowWriter, make_empathizer, test_config
from tests.observe.conftest import ACCEPT, REVISE

TWO_SENTENCES = "I'm so sorry your dog died. The house must feel so quiet without him."


def speaking_empathizer(first_sentence_first: bool = True, audio_ahead_s: float = 0.0, **script: Any):
    model = SlowWriter(seconds_per_word=0.1, script={**DEFAULT_SCRIPT, "ResponseDraft": {"reply": TWO_SENTENCES}, **script})
    config = test_config(generators={"speech": "piper", "avatar": "none", "first_sentence_first": first_sentence_first,
                                     "audio_ahead_s": audio_ahead_s})
    empathizer = make_empathizer(model, config)
    empathizer.renderer.prepare()  # the voice loads before the turn, as a server's does
    return empathizer


def count_synthesis(empathizer, started: dict[str, float] | None = None) -> list[str]:
    """Record every sentence the voice backend is asked to speak (and in ``started``, when)."""
    spoken: list[str] = []
    voice = empathizer.renderer.speech
    original = voice.stream

    def counted(text, style, profile):
        spoken.append(text)
        if started is not None:
            started.setdefault(text, time.perf_counter())
        return original(text, style, profile)

    voice.stream = counted
    return spoken


def note_held(empathizer) -> dict[str, bool]:
    """Record, for every sentence the voice is asked to speak, whether the model was told to wait meanwhile."""
    voice = empathizer.renderer.speech
    original, held = voice.stream, {}

    def noting(text, style, profile):
        held[text] = DECODE_YIELD.held
        return original(text, style, profile)

    voice.stream = noting
    return held


def heard(events: list[TurnEvent]) -> list[str]:
    """What a listener ends up with: sentences in order, withdrawn ones dropped."""
    kept: list[str] = []
    for event in events:
        if isinstance(event, SpeechWithdrawn):
            del kept[event.keep:]
        elif isinstance(event, SpeechReady):
            assert event.index == len(kept), "sentences arrive in order"
            kept.append(event.text)
    return kept


def timed_events(empathizer, out_dir) -> tuple[list[TurnEvent], list[float]]:
    """The events of one turn about a dog that died, and when each arrived."""
    events, at = [], []
    for event in empathizer.events("Yesterday my dog died and the house is empty.", out_dir=out_dir):
        events.append(event)
        at.append(time.perf_counter())
    return events, at


def finished_at(events: list[TurnEvent], node: str) -> int:
    return next(i for i, e in enumerate(events) if isinstance(e, StepFinished) and e.node == node)


def test_first_sentence_is_spoken_before_the_reply_is_finished_and_render_reuses_it(tmp_path):
    empathizer = speaking_empathizer()
    began: dict[str, float] = {}
    asked = count_synthesis(empathizer, began)
    events, at = timed_events(empathizer, tmp_path)
    result = events[-1].result
    assert isinstance(events[-1], TurnFinished)
    ready = [e for e in events if isinstance(e, SpeechReady)]
    response_done, render_done = finished_at(events, "response"), finished_at(events, "render")
    # The first sentence is being spoken while the reply's second is still being written (whatever
    # else the machine is doing), and its audio is out before the reply's whole WAV.
    assert began[ready[0].text] < at[response_done]
    assert events.index(ready[0]) < render_done
    assert [e.text for e in ready] == sentences(result.reply) == heard(events)
    assert asked == sentences(result.reply), "each sentence is synthesised once: the render step reused them"
    # The reply's WAV is the sentences' audio, one after the other.
    joined = np.concatenate([read_wav(e.path)[0] for e in ready])
    whole, _ = read_wav(result.media["audio"])
    assert np.array_equal(joined, whole)
    assert sum(e.duration_s for e in ready) == pytest.approx(len(whole) / read_wav(result.media["audio"])[1], abs=0.01)


CLAUSE_FIRST = "Losing a dog after twelve years, that is so hard. The house must feel so quiet without him."


@pytest.mark.parametrize(("reply", "first_sentence_first"), [(TWO_SENTENCES, True), (TWO_SENTENCES, False),
                                                              (CLAUSE_FIRST, True)])
def test_the_first_sentence_has_the_cpu_while_it_is_spoken(tmp_path, reply, first_sentence_first):
    # (audio_ahead_s 0: later sentences never count as the listener running out of audio)
    empathizer = speaking_empathizer(first_sentence_first, ResponseDraft={"reply": reply})
    held = note_held(empathizer)
    events = list(empathizer.events("Yesterday my dog died and the house is empty.", out_dir=tmp_path))
    spoken = sentences(events[-1].result.reply, first_clause_words=4)
    # The first sentence (both its pieces when its first clause is spoken alone) has the CPU; later ones share it.
    opening = 2 if reply == CLAUSE_FIRST else 1
    assert len(spoken) == opening + 1
    assert held == {text: first_sentence_first and i < opening for i, text in enumerate(spoken)}
    assert not DECODE_YIELD.held


def test_a_later_sentence_has_the_cpu_while_the_listener_would_run_out_of_audio(tmp_path):
    # More audio ahead is wanted than any sentence lasts, so every sentence is spoken with the model waiting.
    empathizer = speaking_empathizer(audio_ahead_s=60.0)
    held = note_held(empathizer)
    events = list(empathizer.events("Yesterday my dog died and the house is empty.", out_dir=tmp_path))
    assert held == dict.fromkeys(sentences(events[-1].result.reply), True)
    assert not DECODE_YIELD.held


def test_a_rewrite_withdraws_only_the_sentences_it_changed(tmp_path):
    rewritten = "I'm so sorry your dog died. You must miss him every single day."
    empathizer = speaking_empathizer(ResponseDraft=[{"reply": TWO_SENTENCES}, {"reply": rewritten}],
                                     ReflectionDraft=[REVISE, ACCEPT])
    events = list(empathizer.events("Yesterday my dog died and the house is empty.", out_dir=tmp_path))
    withdrawn = [e.keep for e in events if isinstance(e, SpeechWithdrawn)]
    assert withdrawn == [1], "the shared first sentence stays; the second is replaced"
    assert sum(isinstance(e, ReplyStarted) for e in events) == 2
    assert heard(events) == sentences(rewritten) == sentences(events[-1].result.reply)


def test_a_reply_trimmed_at_a_sentence_end_withdraws_the_cut_sentence(tmp_path):
    long_reply = ("I'm so sorry your dog died. The house must feel so quiet without him now. "
                  "Losing a friend who waited for you at the door every evening leaves a hole in each day.")
    empathizer = speaking_empathizer(ResponseDraft={"reply": long_reply})
    events = list(empathizer.events("Yesterday my dog died and the house is empty.", out_dir=tmp_path))
    result = events[-1].result
    assert len(sentences(result.reply)) < len(sentences(long_reply))  # the response agent trimmed it
    assert heard(events) == sentences(result.reply)


def test_a_sentence_with_words_of_violence_is_never_spoken_from_the_draft(tmp_path):
    """A draft sentence handing back a word of violence is skipped, as the settled reply leaves it out: it
    is not spoken and then withdrawn (a listener would already have heard it), and the sentences around it
    are spoken as usual."""
    harmful = "Killing that vet would not bring him back."
    for draft in (f"I'm so sorry your dog died. {harmful} The house must feel so quiet now.",
                  f"{harmful} I'm so sorry your dog died. The house must feel so quiet now."):
        empathizer = speaking_empathizer(ResponseDraft={"reply": draft})
        began: dict[str, float] = {}
        asked = count_synthesis(empathizer, began)
        events, at = timed_events(empathizer, tmp_path)
        result = events[-1].result
        assert "Killing" not in result.reply and len(sentences(result.reply)) == 2
        assert not [e for e in events if isinstance(e, SpeechWithdrawn)]
        assert asked == sentences(result.reply) == heard(events)
        # The sentence after a skipped one is not held back: it is spoken while the reply is still written.
        assert began["I'm so sorry your dog died."] < at[finished_at(events, "response")]


def test_no_live_speech_without_media_or_a_voice(tmp_path):
    silent = make_empathizer(config=test_config(generators={"speech": "none", "avatar": "none"}))
    assert not [e for e in silent.events("My dog died.", out_dir=tmp_path) if isinstance(e, SpeechReady)]
    no_media = speaking_empathizer()
    assert not [e for e in no_media.events("My dog died.") if isinstance(e, SpeechReady)]


def test_complete_sentences_are_those_more_text_follows():
    assert complete_sentences("I'm so sorry") == []
    assert complete_sentences("I'm so sorry. The house") == ["I'm so sorry."]
    assert complete_sentences("I'm so sorry. The house is quiet.") == ["I'm so sorry."]  # no text after it yet
    whole = "Oh no! Are you okay? I hear you… It hurts."
    assert complete_sentences(whole + " ") == sentences(whole)


def test_the_first_clause_is_spoken_as_soon_as_it_is_written():
    reply = "Fourteen viewings and you finally have it, that's brilliant! When do you get the keys?"
    whole = sentences(reply, first_clause_words=4)
    assert whole == ["Fourteen viewings and you finally have it,", "that's brilliant!", "When do you get the keys?"]
    assert complete_sentences("Fourteen viewings and you finally", first_clause_words=4) == []
    assert complete_sentences("Fourteen viewings and you finally have it, th", first_clause_words=4) == whole[:1]
    for cut in range(len(reply)):  # every draft's complete pieces are the whole reply's first ones
        drafted = complete_sentences(reply[:cut], first_clause_words=4)
        assert drafted == whole[: len(drafted)]
    # A short opening ("Oh,") is not a clause of its own; later sentences are never cut.
    assert sentences("Oh, that's so hard. Losing him, after all those years, hurts.", first_clause_words=4) == [
        "Oh, that's so hard.", "Losing him, after all those years, hurts."]
    assert sentences(reply) == ["Fourteen viewings and you finally have it, that's brilliant!", "When do you get the keys?"]


def test_the_memo_speaks_a_sentence_once_for_every_thread_and_forgets_failures():
    memo = SpeechMemo(size=2)
    made: list[str] = []
    gate = threading.Event()

    def make():
        made.append("x")
        gate.wait(5)
        return ["chunk"]

    threads = [threading.Thread(target=lambda: memo.get(("a",), make)) for _ in range(4)]
    for thread in threads:
        thread.start()
    time.sleep(0.1)
    gate.set()
    for thread in threads:
        thread.join()
    assert made == ["x"]

    def broken():
        raise RuntimeError("voice down")

    with pytest.raises(RuntimeError):
        memo.get(("b",), broken)
    assert memo.get(("b",), lambda: ["fixed"]) == ["fixed"]
    memo.get(("c",), lambda: ["c"])
    memo.get(("d",), lambda: ["d"])
    assert memo.get(("a",), lambda: ["again"]) == ["again"], "the oldest sentence was forgotten"


def test_a_turn_renders_the_same_speech_as_before(tmp_path):
    """Sentence by sentence through the memo, the reply's WAV is what the voice makes of the whole text
    (Piper samples its prosody noise, so lengths agree within a few per cent, not to the sample)."""
    renderer = build_renderer(GeneratorsConfig(avatar="none"))
    from tests.generators.conftest import make_plan

    plan = make_plan("First sentence here. Second one follows.")
    (media,) = renderer.render(plan, tmp_path)
    direct = np.concatenate([c.audio for c in renderer.speech.stream(plan.text, plan.speech, plan.profile)])
    audio, _ = read_wav(media.files["audio"])
    assert media.settings["sentences"] == 2 and len(audio) == pytest.approx(len(direct), rel=0.15)


def test_the_cli_drops_the_live_sentences_once_the_whole_reply_is_written(tmp_path):
    from empathygraph.cli.common import drop_live_sentences

    for name in ("sentence-000.wav", "sentence-001.wav", "avatar.mp4"):
        (tmp_path / name).write_bytes(b"x")
    drop_live_sentences(tmp_path)  # no reply.wav: the sentences are the turn's only audio
    assert (tmp_path / "sentence-000.wav").is_file()
    (tmp_path / "reply.wav").write_bytes(b"x")
    drop_live_sentences(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["avatar.mp4", "reply.wav"]


def test_a_sentence_whose_maker_was_interrupted_is_not_waited_for_forever():
    """An interrupt (say, a test's timeout) in the thread speaking a sentence reaches the others waiting on it."""
    memo = SpeechMemo()
    started, waiter_result = threading.Event(), []

    def interrupted():
        started.set()
        time.sleep(0.2)
        raise KeyboardInterrupt

    def wait_for_it():
        started.wait(5)
        try:
            memo.get(("a",), lambda: ["never made"])
        except BaseException as exc:  # noqa: BLE001 - what the waiter got
            waiter_result.append(type(exc).__name__)

    waiter = threading.Thread(target=wait_for_it, daemon=True)
    waiter.start()
    with pytest.raises(KeyboardInterrupt):
        memo.get(("a",), interrupted)
    waiter.join(5)
    assert waiter_result == ["KeyboardInterrupt"]
    assert memo.get(("a",), lambda: ["made again"]) == ["made again"]
