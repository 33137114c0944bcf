"""Perception tools for scoring on an ED file the text classifier never saw.

The shipped text-emotion top records the data files it was trained on (by sha256); it is
trained on EmpatheticDialogues train only, so ED valid is held out from it whole. This toolbox
refuses an ED file the top was trained on (a score there would measure memory, not skill),
and leaves the evaluated conversations out of the emotion fusion's example bank.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Collection
from pathlib import Path

from empathygraph.errors import ConfigError
from empathygraph.tools.config import PerceptionConfig
from empathygraph.tools.text_emotion import EMOTION_TOP_PATH, trained_on
from empathygraph.tools.toolbox import ToolBox


def top_saw(ed_path: Path, top_path: Path = EMOTION_TOP_PATH) -> bool:
    """Whether the text-emotion top at ``top_path`` was trained on the file ``ed_path`` (same contents)."""
    digest = hashlib.sha256(Path(ed_path).read_bytes()).hexdigest()
    return digest in trained_on(top_path).get("files", {}).values()


class HeldOutToolBox(ToolBox):
    """Perception tools whose text classifier never saw ``ed_path`` and whose example bank leaves out ``exclude``.

    Raises:
        ConfigError: the shipped text-emotion top was trained on ``ed_path``.
    """

    def __init__(self, config: PerceptionConfig | None, ed_path: Path, exclude: Collection[str]) -> None:
        super().__init__(config)
        if EMOTION_TOP_PATH.is_file() and top_saw(ed_path, EMOTION_TOP_PATH):
            raise ConfigError(
                f"the shipped text-emotion top was trained on {ed_path}: scores there measure memory; "
                "evaluate on a file it never saw, or retrain it without this one (scripts/train_text_emotion.py)"
            )
        self._ed_path, self.held_out = ed_path, frozenset(exclude)
        # The base key names the shipped top; the bank's exclusions change the fusion's prompts.
        digest = hashlib.sha256(json.dumps([str(ed_path), sorted(self.held_out), self.cache_key]).encode()).hexdigest()[:10]
        self.cache_key = f"heldout-{digest}"
