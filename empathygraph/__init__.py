"""empathygraph: multimodal empathetic responses from an inspectable LangGraph agent graph."""

import os

# llama.cpp and torch (the perception models) each bring an OpenMP runtime. With the
# default spin-waiting, idle torch threads starve llama.cpp's: decoding measured 13x
# slower (0.3 vs 3.9 tokens/s) once the text classifier had run in the same process,
# and 7.2 tokens/s with passive waiting. It must be set before either library loads.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from empathygraph.config import Config, load_config  # noqa: E402 - after the OpenMP setting
from empathygraph.context import RunContext  # noqa: E402 - after the OpenMP setting
from empathygraph.graphs.merg import AGENTS, build_graph  # noqa: E402 - after the OpenMP setting
from empathygraph.session import Empathizer  # noqa: E402 - after the OpenMP setting
from empathygraph.state import MergState, TurnInput  # noqa: E402 - after the OpenMP setting
from empathygraph.turn import TurnResult  # noqa: E402 - after the OpenMP setting

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
