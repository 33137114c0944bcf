"""The backbone's hidden states over texts, read as a turn reads them, kept on disk for training and benchmarks.

``agents.risk.read_probe`` reads the mean of the embedded model's last hidden states over the
person's words at the start of the turn's first prompt (~0.5 s a message on 2 cores). Training
the risk probe and benchmarking the screen read thousands of messages; this cache keeps each
text's state (no conversation before it) under ``~/.cache/empathygraph/probe-states/``, saved
every ``SAVE_EVERY`` new texts so an interrupted run resumes.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from empathygraph.agents.prompting import words_messages
from empathygraph.backbones.base import Backbone
from empathygraph.paths import default_home

SAVE_EVERY = 100


class ProbeStates:
    """Hidden states by text for one backbone (each text read alone, as a session's first turn)."""

    def __init__(self, backbone: Backbone, folder: Path | None = None) -> None:
        if backbone.final_state is None:
            raise ValueError(f"{backbone.name} gives no hidden states")
        self.backbone = backbone
        self.path = (folder or default_home() / "probe-states") / f"{backbone.name.replace(':', '_')}.npz"
        self.states: dict[str, np.ndarray] = {}
        if self.path.is_file():
            with np.load(self.path, allow_pickle=False) as data:
                self.states = dict(zip(data["texts"].tolist(), data["states"], strict=True))

    def ensure(self, texts: Sequence[str]) -> None:
        """Read the texts not in the cache yet (printing progress) and save."""
        missing = [t for t in dict.fromkeys(texts) if t not in self.states]
        started = time.monotonic()
        for k, text in enumerate(missing, 1):
            messages, span = words_messages(text)
            self.states[text] = np.asarray(self.backbone.final_state(messages, span), dtype=np.float32)  # type: ignore[misc]
            if k % SAVE_EVERY == 0 or k == len(missing):
                self._save()
                print(f"states: {k}/{len(missing)} in {time.monotonic() - started:.0f} s", file=sys.stderr, flush=True)

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
