"""The ``empathygraph`` command: every command, registered here and nowhere else."""

from __future__ import annotations

import os

import typer

from empathygraph.cli.chat import chat
from empathygraph.cli.eval import eval_command
from empathygraph.cli.graph import graph
from empathygraph.cli.models import models_app
from empathygraph.cli.run import run
from empathygraph.cli.serve import serve
from empathygraph.cli.trace import trace_app

# Model loaders' download-style progress bars would tear the live view; nothing is downloaded.
os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")

app = typer.Typer(add_completion=False, no_args_is_help=True, help="Empathetic replies from an inspectable agent graph.")


@app.callback()
def _root() -> None:
    """Empathetic replies from an inspectable agent graph."""


app.command()(run)
app.command()(chat)
app.command()(graph)
app.command()(serve)
app.command("eval")(eval_command)
app.add_typer(trace_app, name="trace")
app.add_typer(models_app, name="models")


def main() -> None:  # pragma: no cover - console entry
    app()
