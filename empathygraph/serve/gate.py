"""How many turns run at once, who waits, and where each waiting turn stands in line.

One event loop owns the gate (no locks): ``join`` a ticket, ``await ticket.moved()`` to
learn its new place, ``leave`` when its turn is over or its client gave up waiting.
A session has at most one turn in the gate, so its turns cannot overtake each other.
"""

from __future__ import annotations

import asyncio
from collections import deque
from dataclasses import dataclass, field

from empathygraph.serve.problems import ApiError


@dataclass(eq=False)
class Ticket:
    """One turn's place: ``position`` 0 runs, 1 is next, and so on."""

    session_id: str
    position: int = 0
    _moved: asyncio.Event = field(default_factory=asyncio.Event)

    async def moved(self) -> int:
        """Wait until the ticket's place changes; return the new one."""
        await self._moved.wait()
        self._moved.clear()
        return self.position


class TurnGate:
    """At most ``capacity`` turns at once, at most ``max_queue`` waiting, first come first served."""

    def __init__(self, capacity: int, max_queue: int) -> None:
        self.capacity = capacity
        self.max_queue = max_queue
        self._running: set[Ticket] = set()
        self._waiting: deque[Ticket] = deque()
        self._sessions: set[str] = set()

    @property
    def running(self) -> int:
        return len(self._running)

    @property
    def waiting(self) -> int:
        return len(self._waiting)

    def check(self, session_id: str) -> None:
        """Raise what ``join`` would refuse now (409: the session has a turn in already; 429: line full)."""
        if session_id in self._sessions:
            raise ApiError(409, "turn_in_progress", f"session {session_id} is answering a turn already; "
                           "send the next one when it has finished")
        if (len(self._running) >= self.capacity or self._waiting) and len(self._waiting) >= self.max_queue:
            raise ApiError(429, "busy", f"{len(self._waiting)} turns are waiting already; try again shortly",
                           headers={"Retry-After": "5"})

    def join(self, session_id: str) -> Ticket:
        """A ticket that runs now or waits in line (raises as ``check`` does)."""
        self.check(session_id)
        ticket = Ticket(session_id)
        if len(self._running) < self.capacity and not self._waiting:
            self._running.add(ticket)
        else:
            self._waiting.append(ticket)
            ticket.position = len(self._waiting)
        self._sessions.add(session_id)
        return ticket

    def leave(self, ticket: Ticket) -> None:
        """The ticket's turn is over, or it stopped waiting: the line moves up."""
        if ticket in self._running:
            self._running.discard(ticket)
        elif ticket in self._waiting:
            self._waiting.remove(ticket)
        else:
            return
        self._sessions.discard(ticket.session_id)
        while self._waiting and len(self._running) < self.capacity:
            self._running.add(self._waiting.popleft())
        for place, waiting in enumerate([*self._running, *self._waiting]):
            new = 0 if waiting in self._running else place - len(self._running) + 1
            if new != waiting.position:
                waiting.position = new
                waiting._moved.set()
