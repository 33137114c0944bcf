"""What the serve benchmarks share: start ``empathygraph serve`` as a process, wait until ready, time a turn.

Not a benchmark itself (``serve_latency.py`` and ``serve_load.py`` import it).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # this checkout's package, not an installed one

from empathygraph.generators.speech.text import complete_sentences


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def served(command: Sequence[str], port: int, *, ready_timeout_s: float = 900.0, log: Path | None = None) -> Iterator[str]:
    """Run a server ``command`` (it listens on ``port``) until the block ends; yields its URL once /readyz says ready."""
    url = f"http://127.0.0.1:{port}"
    out = log.open("w") if log else subprocess.DEVNULL
    process = subprocess.Popen(list(command), cwd=REPO, stdout=out, stderr=subprocess.STDOUT,
                               env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        deadline = time.monotonic() + ready_timeout_s
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"the server exited ({process.returncode}); see {log}")
            try:
                if httpx.get(f"{url}/readyz", timeout=5).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"the server was not ready after {ready_timeout_s:.0f} s; see {log}")
            time.sleep(0.5)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
        if log:
            out.close()


def serve_command(port: int, *overrides: str, config: Path | None = None) -> list[str]:
    """``empathygraph serve`` on ``port`` with this repository's code (``-m``, not the installed script)."""
    command = [sys.executable, "-m", "empathygraph.cli", "serve", "--port", str(port)]
    if config is not None:
        command += ["--config", str(config)]
    for override in overrides:
        command += ["--set", override]
    return command


@dataclass
class TimedTurn:
    """When each thing of one turn arrived, in seconds from sending the request."""

    session: str
    first_token: float | None = None
    first_sentence: float | None = None  # the reply's first sentence complete (the text after it has begun)
    first_speech_event: float | None = None  # the server announced the first sentence's audio
    first_audio: float | None = None  # the first sentence's WAV fully downloaded: playable
    reply_audio: float | None = None  # the whole reply's WAV (where a player without sentence streaming starts)
    video: float | None = None
    seconds: float | None = None  # the finished turn
    error: str | None = None
    events: list[str] = field(default_factory=list)
    # Silence inside the spoken reply: a player that starts each sentence as soon as it arrives (after
    # the one before it) waits this long, in all, between the first sentence and the last.
    stall: float = 0.0
    _playing_until: float | None = None

    def heard(self, at: float, duration: float) -> None:
        """A sentence's audio arrived ``at`` seconds into the turn; play it after the one before."""
        if self._playing_until is not None:
            self.stall += max(0.0, at - self._playing_until)
        self._playing_until = max(at, self._playing_until or 0.0) + duration


def timed_turn(client: httpx.Client, session: str, text: str, *, media: bool = True) -> TimedTurn:
    """Send one turn and time its events (and fetch the first sentence's audio, as a player must)."""
    timed = TimedTurn(session)
    started = time.perf_counter()
    name, reply = "", ""
    try:
        with client.stream("POST", f"/v1/sessions/{session}/turns", json={"text": text, "media": media},
                           timeout=900) as response:
            if response.status_code != 200:
                timed.error = f"{response.status_code}: {response.read().decode()[:200]}"
                return timed
            for line in response.iter_lines():
                if line.startswith("event:"):
                    name = line[6:].strip()
                    timed.events.append(name)
                elif line.startswith("data:"):
                    data = json.loads(line[5:])
                    now = time.perf_counter() - started
                    if name == "reply_token":
                        timed.first_token = timed.first_token or now
                        reply += data["text"]
                        if timed.first_sentence is None and complete_sentences(reply):
                            timed.first_sentence = now
                    elif name == "reply_started":
                        reply = ""
                    elif name == "speech" and timed.first_audio is None:
                        timed.first_speech_event = now
                        audio = client.get(data["url"], timeout=60)
                        audio.raise_for_status()
                        timed.first_audio = time.perf_counter() - started
                        timed.heard(timed.first_audio, data["duration_s"])
                    elif name == "speech":
                        timed.heard(now, data["duration_s"])
                    elif name == "media" and data["kind"] == "video":
                        timed.video = now
                    elif name == "media" and data["kind"] == "audio":
                        timed.reply_audio = now
                    elif name == "turn":
                        timed.seconds = now
                    elif name == "error":
                        timed.error = data["message"]
    except httpx.HTTPError as exc:
        timed.error = f"{type(exc).__name__}: {exc}"
    if timed.seconds is None and timed.error is None:
        timed.error = "the stream ended without the finished turn"
    return timed
