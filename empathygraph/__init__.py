"""empathygraph: multimodal empathetic responses from an inspectable LangGraph agent graph."""

import os

# llama.cpp and torch (the perception models) each bring an OpenMP runtime. With the
# default spin-waiting, idle torch threads starve llama.cpp's: decoding measured 13x
# slower (0.3 vs 3.9 tokens/s) once the text classifier had run in the same process,
# and 7.2 tokens/s with passive waiting. It must be set before either library loads.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

# The package's own imports come after that setting, on purpose.
from empathygraph.config import Config, load_config
from empathygraph.context import RunContext
from empathygraph.graphs.merg import AGENTS, build_graph
from empathygraph.session import Empathizer
from empathygraph.state import MergState, TurnInput
from empathygraph.turn import TurnResult

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
