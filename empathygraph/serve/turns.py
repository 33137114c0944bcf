"""Run a turn beside the event loop: the graph works in a thread, its events arrive as SSE messages.

A turn waits in the gate (``queued`` events while its place changes), runs in a thread
of its own (the graph is synchronous), and streams every event as it happens. A client
that goes away while waiting leaves the line; one that goes away while its turn runs
does not stop it: the turn finishes, and its session keeps it.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path

from empathygraph.errors import EmpathyGraphError
from empathygraph.serve.files import SessionFiles
from empathygraph.serve.gate import TurnGate
from empathygraph.serve.problems import ApiError
from empathygraph.serve.wire import ErrorData, Queued, Started, frame, to_wire
from empathygraph.session import Empathizer
from empathygraph.state import TurnInput
from empathygraph.trace.events import TurnEvent, TurnFinished


@dataclass(frozen=True)
class _Failed:
    error: BaseException


_END = object()


class TurnRunner:
    """Turns of any session, through one gate, answered by one ``Empathizer``."""

    def __init__(self, empathizer: Empathizer, gate: TurnGate, files: SessionFiles) -> None:
        self.empathizer = empathizer
        self.gate = gate
        self.files = files

    def stream(self, session_id: str, turn: TurnInput, *, media: bool, received: float) -> AsyncIterator[dict[str, str]]:
        """The turn's SSE messages (409 or 429 are raised here, before streaming).

        The turn joins the gate when its stream starts, so a response that never starts
        (its client gone at once) holds no place.
        """
        self.gate.check(session_id)
        return self._messages(session_id, turn, media, received)

    async def _messages(self, session_id: str, turn: TurnInput, media: bool,
                        received: float) -> AsyncIterator[dict[str, str]]:
        def since() -> float:
            return time.perf_counter() - received

        try:
            ticket = self.gate.join(session_id)
        except ApiError as refused:  # another request of the session got in between
            yield frame("error", ErrorData(code=refused.code, message=refused.message), since())
            return
        running = False
        try:
            while ticket.position > 0:
                yield frame("queued", Queued(position=ticket.position), since())
                await ticket.moved()
            running = True
            loop = asyncio.get_running_loop()
            inbox: asyncio.Queue[object] = asyncio.Queue()
            self._start(session_id, turn, media, lambda item: _post(loop, inbox, item),
                        lambda: _call(loop, self.gate.leave, ticket))
            while (item := await inbox.get()) is not _END:
                if isinstance(item, TurnFinished | _Failed):
                    # The session may take its next turn the moment its client hears this one is over.
                    self.gate.leave(ticket)
                if isinstance(item, int):  # the turn's index, known once it starts
                    yield frame("started", Started(session_id=session_id, turn_index=item), since())
                elif isinstance(item, _Failed):
                    yield frame("error", _error(item.error), since())
                elif (wire := to_wire(item, session_id, self.files)) is not None:  # type: ignore[arg-type]
                    yield frame(*wire, since())
        finally:
            if not running:  # gave up waiting; a running turn leaves the gate when it ends (its thread, if not here)
                self.gate.leave(ticket)

    def _start(self, session_id: str, turn: TurnInput, media: bool, post: Callable[[object], None],
               done: Callable[[], None]) -> None:
        def work() -> None:
            try:
                index = len(self.empathizer.history(session_id))
                post(index)
                out_dir: Path | None = self.files.turn_dir(session_id, index) if media else None
                event: TurnEvent
                for event in self.empathizer.events(turn, session_id=session_id, out_dir=out_dir):
                    if isinstance(event, TurnFinished):  # its trace, in the session's folder before the client hears
                        keep = self.files.turn_dir(session_id, index)
                        keep.mkdir(parents=True, exist_ok=True)
                        event.result.write(keep)
                    post(event)
            except BaseException as exc:  # noqa: BLE001 - reported to the client as an error event
                post(_Failed(exc))
            finally:
                post(_END)
                done()

        threading.Thread(target=work, name=f"turn-{session_id}", daemon=True).start()


def _post(loop: asyncio.AbstractEventLoop, inbox: asyncio.Queue[object], item: object) -> None:
    """Hand ``item`` to the event loop."""
    _call(loop, inbox.put_nowait, item)


def _call(loop: asyncio.AbstractEventLoop, function: Callable[..., object], *args: object) -> None:
    """Run ``function(*args)`` on the event loop's thread (nothing once the server has shut down)."""
    try:
        loop.call_soon_threadsafe(function, *args)
    except RuntimeError:  # the loop is closed
        pass


def _error(exc: BaseException) -> ErrorData:
    if isinstance(exc, EmpathyGraphError):
        return ErrorData(code=type(exc).__name__, message=str(exc))
    return ErrorData(code="internal", message=f"the turn failed: {type(exc).__name__}: {exc}")
