"""What every node of a run can use: the configuration, the backbone, tools and generators.

It travels in LangGraph's ``context_schema``/``Runtime``, not in the state, so it is
never checkpointed and a test can swap any part of it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from empathygraph.backbones.base import Backbone
from empathygraph.config import Config
from empathygraph.generators.base import MediaRenderer
from empathygraph.tools.toolbox import ToolBox


@dataclass
class RunContext:
    """Run-scoped dependencies of the graph's nodes.

    Attributes:
        config: the run configuration.
        backbone: the LLM every agent asks.
        toolbox: perception tools (models load on first use).
        renderer: speech and avatar generators; None renders no media.
        out_dir: where a turn's media files go; None renders no media.
    """

    config: Config
    backbone: Backbone
    toolbox: ToolBox = field(default_factory=ToolBox)
    renderer: MediaRenderer | None = None
    out_dir: Path | None = None
