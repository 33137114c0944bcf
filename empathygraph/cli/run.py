"""``empathygraph run``: a scenario end to end, with the reply, its reasoning and the files it wrote."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Annotated

import typer

from empathygraph.cli.common import (
    ConfigOption,
    SessionOption,
    SetOption,
    console,
    drop_live_sentences,
    fail,
    run_config,
    slug,
)
from empathygraph.errors import EmpathyGraphError


def run(
    scenario: Annotated[Path, typer.Argument(help="scenario YAML (see examples/scenarios)")],
    config: ConfigOption = None,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="output folder (default: runs/<scenario>)")] = None,
    session: SessionOption = None,
    overrides: SetOption = None,
    media: Annotated[bool, typer.Option("--media/--no-media", help="render speech and avatar video")] = True,
    portrait: Annotated[
        Path | None, typer.Option("--portrait", help="a frontal portrait photo for the avatar to animate")
    ] = None,
) -> None:
    """Run a scenario end to end; print the reply and its reasoning; write reply.json and trace.jsonl."""
    from empathygraph.cli.display import reasoning_tree, show_live
    from empathygraph.cli.scenarios import load_scenario
    from empathygraph.session import Empathizer

    try:
        cfg = run_config(config, overrides)
        spec, turns = load_scenario(scenario, cfg.perception)
        photo = portrait or spec.portrait_path(scenario.parent)
        if photo:
            cfg = run_config(config, [*(overrides or []), f"generators.portrait={photo}"])
        out_dir = out or Path("runs") / slug(spec.name)
        session_id = session or f"{slug(spec.name)}-{datetime.now():%Y%m%d-%H%M%S}"
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
            drop_live_sentences(turn_dir)
            if turn_dir != out_dir:  # a multi-turn run also keeps one trace of the whole session
                result.write(out_dir, append_trace=True)
            console.print(f"[bold magenta]listener:[/bold magenta] {result.reply}")
            console.print(reasoning_tree(result))
            console.print(f"[dim]wrote {written['reply']} and {out_dir / 'trace.jsonl'}[/dim]")
    except EmpathyGraphError as exc:
        fail(str(exc))
    except KeyboardInterrupt:
        fail("interrupted; finished turns are saved in the session")
