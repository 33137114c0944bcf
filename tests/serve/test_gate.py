"""The gate: turns at once, places in line, and a session free again the moment its turn is over."""

from __future__ import annotations

import asyncio
import time

import pytest

from empathygraph.serve.files import SessionFiles
from empathygraph.serve.gate import TurnGate
from empathygraph.serve.problems import ApiError
from empathygraph.serve.turns import TurnRunner
from empathygraph.state import TurnInput
from empathygraph.trace.events import StepStarted, TurnFinished
from empathygraph.turn import TurnResult


def test_places_in_line_move_up_as_turns_end():
    async def run() -> None:
        gate = TurnGate(capacity=1, max_queue=2)
        first, second, third = gate.join("a"), gate.join("b"), gate.join("c")
        assert [first.position, second.position, third.position] == [0, 1, 2]
        with pytest.raises(ApiError) as full:
            gate.join("d")
        assert full.value.status == 429
        with pytest.raises(ApiError) as again:
            gate.join("b")
        assert again.value.status == 409
        gate.leave(second)  # gave up waiting
        assert third.position == 1 and await asyncio.wait_for(third.moved(), 1) == 1
        gate.leave(first)
        assert await asyncio.wait_for(third.moved(), 1) == 0 and gate.running == 1 and gate.waiting == 0
        gate.leave(first)  # leaving twice changes nothing
        assert gate.running == 1

    asyncio.run(run())


class SlowToLetGo:
    """A listener whose turn ends (``TurnFinished``) a while before its thread returns."""

    def history(self, session_id: str) -> list:
        return []

    def events(self, turn, *, session_id, out_dir):
        yield StepStarted("begin_turn")
        yield TurnFinished(TurnResult(session_id=session_id, turn_index=0))
        time.sleep(0.5)


def test_a_session_is_free_again_when_its_client_hears_the_turn_is_over(tmp_path):
    async def run() -> None:
        gate = TurnGate(capacity=1, max_queue=4)
        runner = TurnRunner(SlowToLetGo(), gate, SessionFiles(tmp_path))  # type: ignore[arg-type]
        async for message in runner.stream("s", TurnInput(text="hi"), media=False, received=time.perf_counter()):
            if message["event"] == "turn":
                gate.check("s")  # the client may send its next turn now: no 409
                assert gate.running == 0

    asyncio.run(run())
