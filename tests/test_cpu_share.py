"""The embedded model yields the CPU while a reply's first sentence is spoken."""

from __future__ import annotations

import threading
import time

from langchain_core.messages import HumanMessage

from empathygraph.backbones.embedded import ChatLlamaCpp
from empathygraph.cpu_share import DECODE_YIELD, DecodeYield


def test_wait_returns_at_once_when_nothing_is_urgent():
    gate = DecodeYield()
    started = time.perf_counter()
    assert gate.wait(limit_s=1.0)
    assert time.perf_counter() - started < 0.1
    assert not gate.held


def test_a_waiter_resumes_only_when_every_urgent_block_has_ended():
    gate = DecodeYield()
    resumed = threading.Event()
    with gate.urgent():
        with gate.urgent():
            waiter = threading.Thread(target=lambda: gate.wait(limit_s=5.0) and resumed.set())
            waiter.start()
        assert not resumed.wait(0.2), "one urgent block still runs"
        assert gate.held
    waiter.join(2.0)
    assert resumed.is_set()
    assert not gate.held


def test_a_voice_that_hangs_holds_the_model_only_so_long():
    gate = DecodeYield()
    with gate.urgent():
        started = time.perf_counter()
        assert gate.wait(limit_s=0.2) is False
        assert 0.15 < time.perf_counter() - started < 1.0


def test_a_hung_voice_costs_the_model_the_limit_once_not_at_every_token():
    gate = DecodeYield()
    with gate.urgent():
        started = time.perf_counter()
        for _token in range(5):
            gate.wait(limit_s=0.2)
        assert time.perf_counter() - started < 0.5


def test_an_urgent_block_that_fails_releases_the_model():
    gate = DecodeYield()
    try:
        with gate.urgent():
            raise RuntimeError("the voice failed")
    except RuntimeError:
        pass
    assert not gate.held


class _StreamingLlama:
    """Stands in for llama.cpp: yields three tokens, noting whether speech held it before each."""

    def __init__(self) -> None:
        self.held_before: list[bool] = []
        self.n_tokens = 0

    def create_chat_completion(self, **kwargs):
        for word in ("Oh ", "no", "."):
            self.held_before.append(DECODE_YIELD.held)
            self.n_tokens += 1
            yield {"choices": [{"delta": {"content": word}}]}


def test_the_embedded_model_waits_between_tokens_while_a_first_sentence_is_spoken():
    model = ChatLlamaCpp(model_path="unused.gguf")
    llama = _StreamingLlama()
    model._llama = llama
    stream = model.stream([HumanMessage("hi")])
    assert next(stream).content == "Oh "
    urgent = DECODE_YIELD.urgent()
    urgent.__enter__()
    releaser = threading.Timer(0.3, urgent.__exit__, args=(None, None, None))
    releaser.start()
    started = time.perf_counter()
    assert next(stream).content == "no"  # drawn only once the urgent speech ended
    assert time.perf_counter() - started >= 0.25
    assert llama.held_before == [False, False]
    assert "".join(chunk.content for chunk in stream) == "."
    releaser.join()
