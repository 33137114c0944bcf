"""Who has the CPU first when the embedded model and a voice want it at once.

On a small CPU the embedded model's decode threads and the voice's threads slow each other
down: on 2 cores a first sentence took Kokoro about twice as long to speak while the model
wrote the next one as alone. A person who hears nothing yet is waiting on that first
sentence, not on the next words, so while it is spoken (and a later one, when the audio ready
ahead runs short: ``generators/live.py``) the embedded model waits between tokens
(``DECODE_YIELD``). The cores are the process's, so the yield is too.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

# The longest the model waits for urgent speech, over all its tokens: a voice that hangs costs the
# reply this much, not the turn.
MAX_WAIT_S = 4.0


class DecodeYield:
    """Lets urgent speech have the CPU: the model waits between tokens while any is being spoken."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._speaking = 0
        self._since = 0.0  # when the current run of urgent speech began (monotonic seconds)
        self._clear = threading.Event()
        self._clear.set()

    @contextmanager
    def urgent(self) -> Iterator[None]:
        """Hold the model's decoding while the block runs (nested and concurrent holds count)."""
        with self._lock:
            if self._speaking == 0:
                self._since = time.monotonic()
            self._speaking += 1
            self._clear.clear()
        try:
            yield
        finally:
            with self._lock:
                self._speaking -= 1
                if self._speaking == 0:
                    self._clear.set()

    @property
    def held(self) -> bool:
        """Whether urgent speech is being made now."""
        return not self._clear.is_set()

    def wait(self, limit_s: float = MAX_WAIT_S) -> bool:
        """Wait until no urgent speech is being made; False if it still is once it has lasted ``limit_s``.

        The limit counts from when the urgent speech began, not from this call, so a voice that hangs
        holds a model that asks after every token only ``limit_s`` in all.
        """
        if self._clear.is_set():
            return True
        with self._lock:
            left = self._since + limit_s - time.monotonic()
        return self._clear.wait(max(left, 0.0))


DECODE_YIELD = DecodeYield()
