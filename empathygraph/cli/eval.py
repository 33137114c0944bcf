"""``empathygraph eval``: score the graph and its baselines on a public dataset file."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from empathygraph.cli.common import ConfigOption, SetOption, console, fail, run_config
from empathygraph.errors import EmpathyGraphError
from empathygraph.eval.systems import Prediction


@contextmanager
def progress_bars() -> Iterator[Callable[[str, int], Callable[[Prediction], None]]]:
    """A rich progress bar per system; yields a factory of per-sample callbacks."""
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[errors]} errors"),
                  TimeElapsedColumn(), TimeRemainingColumn(), console=console) as bars:

        def factory(name: str, total: int) -> Callable[[Prediction], None]:
            task = bars.add_task(name, total=total, errors=0)
            errors = 0

            def advance(prediction: Prediction) -> None:
                nonlocal errors
                errors += prediction.error is not None
                bars.update(task, advance=1, errors=errors)

            return advance

        yield factory


def eval_command(
    dataset: Annotated[str, typer.Option("--dataset", "-d", help="ed, esconv, avamerg, meld or reccon")],
    path: Annotated[Path, typer.Option("--path", "-p", help="the dataset file (any split of that format)")],
    limit: Annotated[int | None, typer.Option("--limit", "-n", help="evaluate N samples spread over the file")] = None,
    concurrency: Annotated[int, typer.Option("--concurrency", "-k", min=1, help="samples in flight (server backbones)")] = 1,
    config: ConfigOption = None,
    overrides: SetOption = None,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="output folder (default: runs/eval-<dataset>)")] = None,
    media: Annotated[bool, typer.Option("--media/--no-media", help="render speech and avatar for the graph's replies")] = True,
    systems: Annotated[str, typer.Option("--systems", help="comma-separated: graph, single_prompt, classifier")] = "graph,single_prompt,classifier",
    heldout_head: Annotated[bool, typer.Option(
        "--heldout-head/--shipped-head",
        help="ED: check the text-emotion top never saw this file and leave the evaluated conversations "
        "out of the emotion fusion's example bank")] = False,
) -> None:
    """Score the graph and the baselines; write metrics.json, report.md and plots; resume from the cache."""
    from empathygraph.eval.harness import Harness, evaluate, spread
    from empathygraph.eval.heldout import HeldOutToolBox
    from empathygraph.eval.judge import EmpathyJudge
    from empathygraph.eval.loaders import load_dataset

    try:
        cfg = run_config(config, overrides)
        toolbox = None
        if heldout_head:
            if dataset != "ed":
                raise ValueError("--heldout-head applies to --dataset ed")
            ids = [s.id for s in spread(load_dataset(dataset, path).samples, limit)]
            toolbox = HeldOutToolBox(cfg.perception, path, ids)
        harness = Harness(cfg, toolbox=toolbox)
        out_dir = out or Path("runs") / f"eval-{dataset}"
        with progress_bars() as factory:
            result = evaluate(harness, dataset, path, out_dir, systems=[s.strip() for s in systems.split(",") if s.strip()],
                              limit=limit, concurrency=concurrency, media=media, progress=factory,
                              judge=EmpathyJudge())
    except EmpathyGraphError as exc:
        fail(str(exc))
    except ValueError as exc:
        fail(str(exc))
    except KeyboardInterrupt:
        fail("interrupted; finished samples are cached and a rerun resumes")
    console.print(f"[bold]{dataset}[/bold] n={result['slice']['n']} · wrote {out_dir / 'report.md'}")
    from empathygraph.eval.report import columns, headline_rows

    for title, values in headline_rows(columns(result)):
        console.print(f"  {title:28s} " + "  ".join(f"{n}={v}" for n, v in zip(columns(result), values)))
