"""What a media generator offers the graph: render a response plan to files."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from empathygraph.schemas import ResponsePlan


@dataclass
class RenderedMedia:
    """Files one generator wrote, and what the trace should know about it."""

    files: dict[str, Path] = field(default_factory=dict)
    backend: str = ""
    settings: dict[str, object] = field(default_factory=dict)
    error: str | None = None


class MediaRenderer(Protocol):
    """Turns a response plan into speech and video files in ``out_dir``."""

    def render(self, plan: ResponsePlan, out_dir: Path) -> list[RenderedMedia]:
        """Render every configured medium; a failed one reports ``error`` instead of raising."""
        ...
