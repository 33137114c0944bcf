"""empathygraph: multimodal empathetic responses from an inspectable LangGraph agent graph."""

from empathygraph.config import Config, load_config
from empathygraph.context import RunContext
from empathygraph.graphs.merg import AGENTS, build_graph
from empathygraph.session import Empathizer, TurnResult
from empathygraph.state import MergState, TurnInput

__all__ = [
    "AGENTS",
    "Config",
    "Empathizer",
    "MergState",
    "RunContext",
    "TurnInput",
    "TurnResult",
    "build_graph",
    "load_config",
]
