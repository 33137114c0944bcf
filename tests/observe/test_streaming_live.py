"""Streaming with the real embedded model: the reply arrives token by token, well before the turn ends."""

from __future__ import annotations

import time

import pytest

from empathygraph import Config, Empathizer
from empathygraph.trace.events import ReplyToken, StepFinished, TurnFinished

pytestmark = pytest.mark.integration


def test_embedded_model_streams_reply_tokens_before_the_turn_ends():
    config = Config.model_validate({"sessions": {"db": ":memory:"}, "generators": {"speech": "none", "avatar": "none"}})
    started = time.perf_counter()
    first_token_s, tokens, finished = None, [], []
    for event in Empathizer(config).events("I failed my driving test for the third time today and my dad laughed."):
        if isinstance(event, ReplyToken):
            first_token_s = first_token_s or time.perf_counter() - started
            tokens.append(event.text)
        elif isinstance(event, StepFinished):
            finished.append(event.node)
        elif isinstance(event, TurnFinished):
            result = event.result
    total_s = time.perf_counter() - started
    print(f"first reply token after {first_token_s:.1f}s of a {total_s:.1f}s turn; {len(tokens)} reply pieces")
    assert len(tokens) > 3
    assert "".join(tokens).endswith(result.reply) or result.critiques[-1].verdict == "accept"
    assert first_token_s < total_s
    assert finished[-1] == "remember"
