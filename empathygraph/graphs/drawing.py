"""Draw the agent graph: Mermaid text, a PNG (networkx + matplotlib, offline) or GraphML."""

from __future__ import annotations

from pathlib import Path

import networkx as nx
from langgraph.graph.state import CompiledStateGraph


def agent_network(graph: CompiledStateGraph) -> nx.DiGraph:
    """The compiled graph's nodes and edges; conditional edges carry ``conditional=True``."""
    drawable = graph.get_graph()
    network = nx.DiGraph()
    for node_id, node in drawable.nodes.items():
        network.add_node(node_id, label=node.name)
    for edge in drawable.edges:
        network.add_edge(edge.source, edge.target, conditional=bool(edge.conditional), label=str(edge.data or ""))
    return network


def _layers(network: nx.DiGraph, start: str = "__start__") -> dict[str, int]:
    """Longest-path depth from the start, after dropping loop-closing edges (revise → response)."""
    depth = nx.single_source_shortest_path_length(network, start) if start in network else {}
    dag = network.copy()
    while True:
        try:
            cycle = nx.find_cycle(dag)
        except nx.NetworkXNoCycle:
            break
        # the edge into the node nearest the start closes the loop
        dag.remove_edge(*min(cycle, key=lambda edge: depth.get(edge[1], 0))[:2])
    layers: dict[str, int] = {}
    for node in nx.topological_sort(dag):
        layers[node] = max((layers[parent] + 1 for parent in dag.predecessors(node)), default=0)
    return layers


def write_png(network: nx.DiGraph, path: Path) -> Path:
    """Draw the graph top to bottom; dashed edges are routed by a condition."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    nx.set_node_attributes(network, _layers(network), "layer")
    positions = nx.multipartite_layout(network, subset_key="layer", align="horizontal", scale=4)
    positions = {node: (x, -y) for node, (x, y) in positions.items()}  # start at the top
    height = max(nx.get_node_attributes(network, "layer").values(), default=1) + 1
    figure, axes = plt.subplots(figsize=(9, 0.9 * height + 1))
    for conditional, style in ((False, "solid"), (True, "dashed")):
        edges = [(a, b) for a, b, data in network.edges(data=True) if data["conditional"] is conditional]
        nx.draw_networkx_edges(network, positions, edgelist=edges, style=style, ax=axes, arrows=True,
                               arrowsize=14, node_size=2600, connectionstyle="arc3,rad=0.08", edge_color="#555555")
    nx.draw_networkx_labels(network, positions, labels=nx.get_node_attributes(network, "label"), font_size=9, ax=axes,
                            bbox={"boxstyle": "round,pad=0.4", "fc": "#fdf1d6", "ec": "#d79b00"})
    axes.set_axis_off()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=130, bbox_inches="tight")
    plt.close(figure)
    return path
