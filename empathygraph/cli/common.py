"""What every command shares: the consoles, the common options, one-line errors, the configuration."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, NoReturn

import typer
from rich.console import Console

from empathygraph.config import Config, load_config

console = Console()
err_console = Console(stderr=True)

ConfigOption = Annotated[Path | None, typer.Option("--config", "-c", help="YAML run configuration (see configs/)")]
SetOption = Annotated[list[str] | None, typer.Option("--set", help="override a config key, e.g. backbone.model=fast")]
SessionOption = Annotated[str | None, typer.Option("--session", help="session id: continue this conversation")]


def fail(message: str) -> NoReturn:
    """Print one clear error line and exit non-zero."""
    err_console.print(f"[bold red]error:[/bold red] {message}", highlight=False)
    raise typer.Exit(code=2)


def run_config(path: Path | None, overrides: list[str] | None) -> Config:
    """The run configuration a command's ``--config`` and ``--set`` options describe."""
    return load_config(path, overrides or [])


def slug(text: str) -> str:
    """``text`` as a folder or session name."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "session"


def drop_live_sentences(turn_dir: Path) -> None:
    """Remove the audio of each sentence spoken while the reply was written (withdrawn drafts' included) once
    ``reply.wav`` holds the reply whole; without it they are the turn's only audio and stay."""
    from empathygraph.generators.live import SENTENCE_FILES

    if (turn_dir / "reply.wav").is_file():
        for path in turn_dir.glob(SENTENCE_FILES):
            path.unlink(missing_ok=True)
