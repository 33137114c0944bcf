"""What every node of a run can use: the configuration, the backbone, tools, priors and a renderer.

It travels in LangGraph's ``context_schema``/``Runtime``, not in the state, so it is
never checkpointed and a test can swap any part of it. The renderer is seen here only
through the small ``MediaRenderer`` protocol, so nothing that reads the context (every
agent) depends on the generators.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from empathygraph.agents.strategy_prior import StrategyPredictor, default_prior
from empathygraph.backbones.base import Backbone
from empathygraph.config import Config
from empathygraph.schemas import ResponsePlan
from empathygraph.tools.toolbox import ToolBox


class RenderedMedium(Protocol):
    """What the render step records of one medium a generator wrote (``generators.RenderedMedia``)."""

    @property
    def files(self) -> Mapping[str, Path]: ...
    @property
    def backend(self) -> str: ...
    @property
    def settings(self) -> Mapping[str, object]: ...
    @property
    def error(self) -> str | None: ...
    @property
    def seconds(self) -> float: ...
    @property
    def first_chunk_seconds(self) -> float | None: ...
    @property
    def media_seconds(self) -> float | None: ...


class MediaRenderer(Protocol):
    """Turns a response plan into speech and video files (``generators.PlanRenderer`` is one)."""

    def render(self, plan: ResponsePlan, out_dir: Path) -> Sequence[RenderedMedium]:
        """Render every configured medium; a failed one reports ``error`` instead of raising."""
        ...


@dataclass
class RunContext:
    """Run-scoped dependencies of the graph's nodes.

    Attributes:
        config: the run configuration.
        backbone: the LLM every agent asks.
        toolbox: perception tools and the example bank (models load on first use).
        strategy_prior: ranks the ESConv strategies for a turn (default: the shipped prior;
            None when it is not installed).
        renderer: speech and avatar generators; None renders no media.
        out_dir: where a turn's media files go; None renders no media.
    """

    config: Config
    backbone: Backbone
    toolbox: ToolBox = field(default_factory=ToolBox)
    strategy_prior: StrategyPredictor | None = field(default_factory=default_prior)
    renderer: MediaRenderer | None = None
    out_dir: Path | None = None
