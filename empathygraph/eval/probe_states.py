"""The backbone's hidden states over texts, read as a turn reads them, kept on disk for training and benchmarks.

``agents.risk.read_probe`` reads the mean of the embedded model's last hidden states over the
person's words at the start of the turn's first prompt (~0.5 s a message on 2 cores). Training
the risk probe and benchmarking the screen read thousands of messages; this cache keeps each
text's state (no conversation before it) under ``~/.cache/empathygraph/probe-states/``, saved
every ``SAVE_EVERY`` new texts so an interrupted run resumes. A later turn of a conversation is
read as a session reads it, after the conversation so far (``ensure_in_conversation``), with one
fixed stand-in for the listener's replies (the data has none); it is kept under its prompt's
words block, which no message alone has.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from empathygraph.agents.config import AgentsConfig
from empathygraph.agents.prompting import recent_history_of, words_block, words_messages
from empathygraph.backbones.base import Backbone
from empathygraph.paths import default_home
from empathygraph.schemas import ED_TO_COARSE, EDEmotion, Strategy
from empathygraph.state import HistoryEntry

SAVE_EVERY = 100
STAND_IN_REPLY = "I'm listening. Tell me more."
HISTORY_TURNS = AgentsConfig().history_turns  # the turns a session's prompts show, by default


def stand_in_history(earlier: Sequence[str]) -> list[HistoryEntry]:
    """The person's earlier messages as a session's history, each answered by the stand-in reply."""
    return [HistoryEntry(turn_index=i, user=text, reply=STAND_IN_REPLY, emotion=EDEmotion.SAD,
                         coarse=ED_TO_COARSE[EDEmotion.SAD], valence=-0.5, arousal=0.0, strategy=Strategy.QUESTION)
            for i, text in enumerate(earlier)]


class ProbeStates:
    """Hidden states by text for one backbone and layer (None: the final states; each text read alone,
    as a session's first turn)."""

    def __init__(self, backbone: Backbone, folder: Path | None = None, layer: int | None = None) -> None:
        if backbone.hidden_state is None:
            raise ValueError(f"{backbone.name} gives no hidden states")
        self.backbone, self.layer = backbone, layer
        name = backbone.name.replace(":", "_") + ("" if layer is None else f"_layer{layer}")
        self.path = (folder or default_home() / "probe-states") / f"{name}.npz"
        self.states: dict[str, np.ndarray] = {}
        if self.path.is_file():
            with np.load(self.path, allow_pickle=False) as data:
                self.states = dict(zip(data["texts"].tolist(), data["states"], strict=True))

    def ensure(self, texts: Sequence[str]) -> None:
        """Read the texts not in the cache yet (printing progress) and save."""
        self._read({text: (text, []) for text in texts}, "states")

    def ensure_in_conversation(self, reads: Sequence[tuple[str, Sequence[str]]]) -> None:
        """Read each (text, earlier messages) pair not in the cache yet as a session's later turn reads it."""
        pending: dict[str, tuple[str, list[HistoryEntry]]] = {}
        for text, earlier in reads:
            if earlier:
                history = self._history(earlier)
                pending[words_block(text, history)] = (text, history)
        self._read(pending, "states in conversation")

    def _read(self, pending: dict[str, tuple[str, list[HistoryEntry]]], what: str) -> None:
        """Read each (text, history) under its key unless the cache has it, saving every ``SAVE_EVERY`` reads."""
        missing = [key for key in pending if key not in self.states]
        started = time.monotonic()
        for k, key in enumerate(missing, 1):
            messages, span = words_messages(*pending[key])
            self.states[key] = np.asarray(self.backbone.hidden_state(messages, span, self.layer),  # type: ignore[misc]
                                          dtype=np.float32)
            if k % SAVE_EVERY == 0 or k == len(missing):
                self._save()
                print(f"{what}: {k}/{len(missing)} in {time.monotonic() - started:.0f} s", file=sys.stderr, flush=True)

    def in_conversation(self, text: str, earlier: Sequence[str]) -> np.ndarray:
        """The state of ``text`` read after ``earlier`` (alone when there is none), read first when missing."""
        if not earlier:
            return self.matrix([text])[0]
        key = words_block(text, self._history(earlier))
        if key not in self.states:
            self.ensure_in_conversation([(text, earlier)])
        return self.states[key]

    @staticmethod
    def _history(earlier: Sequence[str]) -> list[HistoryEntry]:
        return recent_history_of(stand_in_history(earlier), HISTORY_TURNS)

    def matrix(self, texts: Sequence[str]) -> np.ndarray:
        """The states of ``texts`` (read first when missing), one row each."""
        self.ensure(texts)
        return np.stack([self.states[t] for t in texts])

    def _save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        texts = list(self.states)
        partial = self.path.with_name(self.path.stem + ".partial.npz")
        np.savez(partial, texts=np.array(texts), states=np.stack([self.states[t] for t in texts]))
        partial.replace(self.path)
