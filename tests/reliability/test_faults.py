"""Backbone faults: the injecting wrapper, bounded retries, and a server that restarts."""

from __future__ import annotations

import threading
import time

import httpx
import pytest
from langchain_core.messages import HumanMessage

from empathygraph.agents.reply_drafts import ResponseDraft
from empathygraph.agents.structured import ask
from empathygraph.backbones import make_backbone, wrap_chat_model
from empathygraph.backbones.config import BackboneConfig
from empathygraph.backbones.faults import FAULTS, FaultPlan, FaultyChatModel, InjectedFault, with_faults
from empathygraph.backbones.retry import RetryPolicy, is_transient
from empathygraph.backbones.yes_no import ServerYesNoReader
from empathygraph.errors import BackendError
from tests.conftest import DEFAULT_SCRIPT, scripted
from tests.reliability.fake_server import FakeServer

ASK = [HumanMessage(content="reply")]
ANY = {"*": {"reply": "I'm here with you."}}
NO_WAIT = RetryPolicy(retries=2, backoff_s=0.0)


def faulty(kind: str, *, once: bool = False):
    plan = FaultPlan(rate=1.0, kinds=(kind,), timeout_s=0.01, slow_s=0.01, sequence=(kind,) if once else ())
    return with_faults(wrap_chat_model(scripted(**ANY)), plan)


def test_the_same_seed_draws_the_same_faults():
    logs = []
    for _ in range(2):
        model = FaultyChatModel(inner=scripted(**ANY), plan=FaultPlan(rate=0.3, seed=7))
        for _ in range(60):
            try:
                model.invoke(ASK)
            except InjectedFault:
                pass
        logs.append(model.log)
    assert logs[0] == logs[1]
    assert 8 <= sum(fault is not None for fault in logs[0]) <= 30  # about 30% of 60
    assert set(FAULTS) >= {fault for fault in logs[0] if fault}


@pytest.mark.parametrize("kind", ["malformed", "truncated", "empty"])
def test_a_broken_answer_is_repaired_by_asking_again(kind):
    backbone = faulty(kind, once=True)
    answer = ask(backbone, ASK, ResponseDraft, repair_attempts=1)
    assert backbone.chat_model.log[0] == kind
    assert answer.attempts[0].error and answer.parsed is not None


@pytest.mark.parametrize("kind", ["error", "timeout", "stream_cut"])
def test_a_transport_fault_is_retried_then_fails_as_one_typed_error(kind):
    backbone = faulty(kind)
    backbone.retry = NO_WAIT
    with pytest.raises(BackendError, match="after 3 tries"):
        ask(backbone, ASK, ResponseDraft)
    assert backbone.chat_model.log == [kind] * 3


def test_a_stream_cut_mid_reply_has_streamed_part_of_it_first():
    model = FaultyChatModel(inner=scripted(**ANY), plan=FaultPlan(rate=1.0, kinds=("stream_cut",)))
    pieces = []
    with pytest.raises(InjectedFault, match="stream closed"):
        for chunk in model.stream([HumanMessage(content="x")], response_format=None):
            pieces.append(chunk.content)
    assert pieces and is_transient(InjectedFault.__subclasses__()[0]("x"))


def test_a_slow_answer_still_answers():
    backbone = faulty("slow")
    started = time.perf_counter()
    assert ask(backbone, ASK, ResponseDraft).parsed is not None
    assert time.perf_counter() - started >= 0.01


def test_the_server_backbone_reconnects_after_the_server_restarts():
    server = FakeServer().start()
    try:
        config = BackboneConfig(kind="openai", base_url=server.url, model="fake", retries=2, retry_backoff_s=0.05)
        backbone = make_backbone(config)
        assert ask(backbone, ASK, ResponseDraft).parsed is not None  # a pooled keep-alive connection now
        server.stop()
        with pytest.raises(BackendError, match=f"{server.url}.*after 3 tries"):
            ask(backbone, ASK, ResponseDraft)
        server.start()  # same port, a new process as far as the client can tell
        assert ask(backbone, ASK, ResponseDraft).parsed is not None
        server.stop()
        threading.Timer(0.08, server.start).start()  # back while the client is still retrying
        assert ask(backbone, ASK, ResponseDraft).parsed is not None
    finally:
        server.stop()


LOGPROBS = {"choices": [{"logprobs": {"content": [{"token": "no", "top_logprobs": [
    {"token": "yes", "logprob": -2.0}, {"token": "no", "logprob": -0.2}]}]}}], "usage": {"prompt_tokens": 9}}


def yes_no_server(*answers: httpx.Response | Exception, retries: int = 2) -> tuple[ServerYesNoReader, list[int]]:
    """A yes/no reader whose server gives ``answers`` in turn (the last one from then on)."""
    asked: list[int] = []

    def handler(request: httpx.Request) -> httpx.Response:
        asked.append(1)
        answer = answers[min(len(asked), len(answers)) - 1]
        if isinstance(answer, Exception):
            raise answer
        return answer

    client = httpx.Client(transport=httpx.MockTransport(handler))
    reader = ServerYesNoReader("http://llm.test/v1", "m", client=client, retry=RetryPolicy(retries, backoff_s=0.0))
    return reader, asked


@pytest.mark.parametrize("fault", [httpx.Response(503), httpx.ConnectError("connection refused"),
                                   httpx.ReadTimeout("timed out")])
def test_a_yes_no_read_is_retried_through_a_restart_like_a_chat_call(fault):
    reader, asked = yes_no_server(fault, httpx.Response(200, json=LOGPROBS))
    reading = reader(ASK)
    assert len(asked) == 2 and reading.method == "logprobs" and abs(reading.p_yes - 0.1419) < 1e-3


@pytest.mark.parametrize(("answer", "problem"), [
    (httpx.Response(200, text="<html>502 Bad Gateway</html>"), "failed: JSONDecodeError"),
    (httpx.Response(200, json=["yes"]), "with list, not a JSON object"),
    (httpx.Response(200, json={"choices": ["yes"]}), "unreadable yes/no answer: AttributeError"),
    (httpx.Response(200, json={"choices": [{"logprobs": {"content": [{"top_logprobs": [
        {"token": "yes", "logprob": "high"}]}]}}]}), "unreadable yes/no answer: ValueError"),
    (httpx.Response(400, json={"error": "bad request"}), "failed: HTTPStatusError"),
    (httpx.Response(503), "after 3 tries: HTTPStatusError"),
])
def test_a_yes_no_read_that_stays_broken_is_one_backend_error_naming_the_server(answer, problem):
    reader, asked = yes_no_server(answer)
    with pytest.raises(BackendError, match=problem) as failed:
        reader(ASK)
    assert "http://llm.test/v1/chat/completions" in str(failed.value)
    assert len(asked) == (3 if answer.status_code == 503 else 1)  # only a transient failure is asked again


def test_a_turn_whose_yes_no_read_fails_still_answers_and_says_why():
    from empathygraph.session import Empathizer
    from tests.conftest import test_config
    from tests.safety.test_risk_route import ScreeningToolBox

    reader, _ = yes_no_server(httpx.Response(200, text="<html>upstream gone</html>"))
    backbone = wrap_chat_model(scripted())
    backbone.yes_no = reader
    config = test_config(safety={"classifier": True, "llm_read": "gray"})
    empathizer = Empathizer(config, backbone=backbone, toolbox=ScreeningToolBox(config.perception))
    result = empathizer.respond("I feel uneasy about tonight.")  # unsure: the LLM's reading is asked for
    assert result.reply and any("LLM reading failed" in note and "JSONDecodeError" in note
                                for note in result.last("assess_risk").notes)


def test_a_streamed_reply_cut_then_malformed_still_streams_the_reply_that_came_in_the_end():
    # Found by the benchmark: the reply watcher glued the cut answer and the malformed retry into
    # one text, and the partial-JSON parser raised JSONDecodeError out of the event stream.
    from empathygraph.session import Empathizer
    from empathygraph.trace.events import ReplyToken, TurnFinished
    from tests.conftest import test_config

    plan = FaultPlan(sequence=(None, None, "stream_cut", "malformed"))  # cause, strategy, then the reply twice
    backbone = with_faults(wrap_chat_model(scripted()), plan)
    backbone.retry = NO_WAIT
    empathizer = Empathizer(test_config(), backbone=backbone)
    events = list(empathizer.events("My dog died.", session_id="s"))
    result = next(event.result for event in events if isinstance(event, TurnFinished))
    streamed = "".join(event.text for event in events if isinstance(event, ReplyToken))
    assert backbone.chat_model.log[:5] == [None, None, "stream_cut", "malformed", None]
    assert result.last("response").attempts[0].error  # the malformed answer was repaired
    assert streamed == result.reply == DEFAULT_SCRIPT["ResponseDraft"]["reply"]


def test_the_reply_watcher_starts_over_when_a_node_asks_again_and_ignores_broken_json():
    from empathygraph.trace.events import ReplyWatcher

    watcher = ReplyWatcher({"response": ("reply",)})
    shown = [watcher.feed("response", piece, "call-1") for piece in ('{"reply": "I am', ' so')]
    shown += [watcher.feed("response", piece, "call-2") for piece in ('{reply": "x",,', '}')]  # malformed
    shown += [watcher.feed("response", piece, "call-3") for piece in ('{"reply": "I am so', ' sorry."}')]
    assert "".join(shown) == "I am so sorry."
