"""Who has the CPU first when the embedded model and a voice want it at once.

On a small CPU the embedded model's decode threads and the voice's threads slow each other
down: on 2 cores a first sentence took Kokoro about twice as long to speak while the model
wrote the next one as alone. A person who hears nothing yet is waiting on that first
sentence, not on the next words, so while it is spoken the embedded model waits between
tokens (``DECODE_YIELD``). The cores are the process's, so the yield is too.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

# The longest the model waits for a voice at one token: a voice that hangs costs the reply this
# much, not the turn.
MAX_WAIT_S = 4.0


class DecodeYield:
    """Lets urgent speech have the CPU: the model waits between tokens while any is being spoken."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._speaking = 0
        self._clear = threading.Event()
        self._clear.set()

    @contextmanager
    def urgent(self) -> Iterator[None]:
        """Hold the model's decoding while the block runs (nested and concurrent holds count)."""
        with self._lock:
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
        """Wait until no urgent speech is being made, at most ``limit_s``; False if it still is."""
        return self._clear.wait(limit_s)


DECODE_YIELD = DecodeYield()
