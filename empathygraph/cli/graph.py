"""``empathygraph graph``: draw the agent graph as Mermaid, PNG or GraphML."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from empathygraph.cli.common import ConfigOption, SetOption, console, fail, run_config
from empathygraph.errors import EmpathyGraphError


class GraphFormat(StrEnum):
    MERMAID = "mermaid"
    PNG = "png"
    GRAPHML = "graphml"


def graph(
    format: Annotated[GraphFormat, typer.Option("--format", "-f", help="mermaid text, png picture or graphml")] = GraphFormat.MERMAID,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="file to write (mermaid: default stdout)")] = None,
    config: ConfigOption = None,
    overrides: SetOption = None,
) -> None:
    """Draw the agent graph: which agents run, in which order, and where it branches."""
    from langgraph.checkpoint.memory import InMemorySaver

    from empathygraph.graphs.drawing import agent_network, write_png
    from empathygraph.graphs.merg import build_graph

    try:
        compiled = build_graph(run_config(config, overrides), checkpointer=InMemorySaver())
        if format is GraphFormat.MERMAID:
            text = compiled.get_graph().draw_mermaid()
            if out is None:
                typer.echo(text)
                return
            out.write_text(text, encoding="utf-8")
        else:
            out = out or Path(f"empathygraph.{format.value}")
            network = agent_network(compiled)
            if format is GraphFormat.PNG:
                write_png(network, out)
            else:
                import networkx as nx

                nx.write_graphml(network, out)
        console.print(f"wrote {out}")
    except (EmpathyGraphError, OSError) as exc:
        fail(str(exc))
