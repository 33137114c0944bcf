"""Where empathygraph keeps its files: one home folder for model caches, embeddings and sessions.

A leaf module (it imports nothing of the package), so every package may ask it.
"""

from __future__ import annotations

import os
from pathlib import Path


def default_home() -> Path:
    """Folder for caches and session databases (``EMPATHYGRAPH_HOME`` or ~/.cache/empathygraph)."""
    return Path(os.environ.get("EMPATHYGRAPH_HOME", Path.home() / ".cache" / "empathygraph"))
