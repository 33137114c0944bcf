"""Graph assembly: the default MERG graph and the API to change it."""

from empathygraph.graphs.merg import AGENTS, build_graph, open_checkpointer

__all__ = ["AGENTS", "build_graph", "open_checkpointer"]
