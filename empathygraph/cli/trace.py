"""``empathygraph trace show|diff|report|graph|otel``: inspect a run after the fact."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from empathygraph.cli.common import console, err_console, fail
from empathygraph.errors import EmpathyGraphError
from empathygraph.trace.records import StepRecord
from empathygraph.trace.replay import group_turns, headline, matches_agent
from empathygraph.trace.store import read_trace, resolve_trace
from empathygraph.turn import TurnResult

trace_app = typer.Typer(no_args_is_help=True, help="Inspect a run's trace: show, diff, report, graph, otel.")

TraceArg = Annotated[Path, typer.Argument(help="trace.jsonl, or a run folder holding one")]


def _warn(problems: list[str]) -> None:
    for problem in problems:
        err_console.print(f"[bold yellow]warning:[/bold yellow] {escape(problem)}", highlight=False)


def _load(path: Path) -> tuple[list[StepRecord], list[str]]:
    """Read a trace; print each unreadable line as a warning."""
    records, problems = read_trace(path)
    _warn(problems)
    return records, problems


def _turn(turns: list[TurnResult], number: int | None) -> list[TurnResult]:
    if number is None:
        return turns
    chosen = [turn for turn in turns if turn.turn_index + 1 == number]
    if not chosen:
        raise EmpathyGraphError(f"no turn {number} in the trace (it has turns {[t.turn_index + 1 for t in turns]})")
    return chosen


@trace_app.command()
def show(
    path: TraceArg,
    agent: Annotated[str | None, typer.Option("--agent", "-a", help="only this step (e.g. emotion_cause) or kind")] = None,
    turn: Annotated[int | None, typer.Option("--turn", "-t", help="only this turn (1-based)")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the records as JSON lines")] = False,
    detail: Annotated[bool, typer.Option("--detail", "-d", help="also print prompts and raw LLM output")] = False,
) -> None:
    """Print a run as a tree: turn → steps → their decisions, with latency, tokens and retries.

    A truncated or hand-edited trace prints what could be read, warns about each bad
    line, and exits with code 2.
    """
    try:
        from empathygraph.cli.display import trace_tree

        records, problems = _load(path)
        turns = _turn(group_turns(records), turn)
        shown = 0
        for one in turns:
            steps = [s for s in one.steps if agent is None or matches_agent(s, agent)]
            shown += len(steps)
            if as_json:
                for step in steps:
                    typer.echo(step.model_dump_json())
            elif steps:
                console.print(trace_tree(one, steps=steps, detail=detail))
        if agent is not None and shown == 0:
            names = sorted({s.step for s in records})
            raise EmpathyGraphError(f"no step matches --agent {agent!r} (steps in this trace: {', '.join(names)})")
        if problems:
            raise typer.Exit(code=2)
    except EmpathyGraphError as exc:
        fail(str(exc))


@trace_app.command()
def diff(
    a: Annotated[Path, typer.Argument(help="first trace (or run folder)")],
    b: Annotated[Path, typer.Argument(help="second trace (or run folder)")],
    all_steps: Annotated[bool, typer.Option("--all", help="also list steps that decided the same")] = False,
) -> None:
    """Compare two runs of the same scenario step by step: decisions, latency, tokens."""
    try:
        from empathygraph.trace.diff import diff_traces

        turns_a, turns_b = (group_turns(_load(path)[0]) for path in (a, b))
        differing = 0
        for turn in diff_traces(turns_a, turns_b):
            table = Table(title=f"turn {turn.index + 1}", title_justify="left", show_lines=True)
            table.add_column("step")
            table.add_column(f"A: {a}", overflow="fold")
            table.add_column(f"B: {b}", overflow="fold")
            table.add_column("Δ latency", justify="right")
            for step in turn.steps:
                if step.same and not all_steps:
                    continue
                differing += not step.same
                if step.a is None or step.b is None:
                    ran = f"(ran) {escape(headline(step.a or step.b))}"
                    cells = ("—", ran) if step.a is None else (ran, "—")
                elif step.changed:
                    cells = tuple("\n".join(f"{label}: {escape(pair[i] or '—')}" for label, *pair in step.changed)
                                  for i in (0, 1))
                else:
                    cells = ("same", "same")
                table.add_row(escape(step.step), *cells, f"{step.latency_delta_s:+.2f}s")
            a_s = turn.a.latency_s if turn.a else 0.0
            b_s = turn.b.latency_s if turn.b else 0.0
            table.caption = f"A {a_s:.1f}s, {turn.a.tokens.total if turn.a else 0} tokens · " \
                            f"B {b_s:.1f}s, {turn.b.tokens.total if turn.b else 0} tokens"
            console.print(table)
        console.print(f"{differing} step(s) differ")
    except EmpathyGraphError as exc:
        fail(str(exc))


@trace_app.command()
def report(
    path: TraceArg,
    out: Annotated[Path, typer.Option("--out", "-o", help="HTML file to write")] = Path("report.html"),
) -> None:
    """Write one self-contained HTML report: chain of empathy, latencies, emotion trajectory, cues, media."""
    try:
        from empathygraph.trace.report import write_report

        records, problems = _load(path)
        written = write_report(records, out, source=resolve_trace(path), problems=problems)
        console.print(f"wrote {written} ({written.stat().st_size / 1024:.0f} KiB)")
    except EmpathyGraphError as exc:
        fail(str(exc))


@trace_app.command("graph")
def reasoning(
    path: TraceArg,
    out: Annotated[Path, typer.Option("--out", "-o", help=".graphml, or .json for node-link JSON")],
    turn: Annotated[int | None, typer.Option("--turn", "-t", help="turn (1-based; default: the last)")] = None,
) -> None:
    """Export a turn's reasoning (cues, emotion, cause, goal, strategy, reply) as a networkx graph."""
    try:
        from empathygraph.trace.reasoning import reasoning_graph, write_graph

        turns = _turn(group_turns(_load(path)[0]), turn)
        graph = reasoning_graph(turns[-1])
        write_graph(graph, out)
        console.print(f"wrote {out}: {graph.number_of_nodes()} nodes, {graph.number_of_edges()} edges")
    except EmpathyGraphError as exc:
        fail(str(exc))


@trace_app.command()
def otel(
    path: TraceArg,
    endpoint: Annotated[str | None, typer.Option(help="OTLP/HTTP traces endpoint, e.g. http://localhost:6006/v1/traces")] = None,
) -> None:
    """Send a trace as OpenTelemetry GenAI spans (to Phoenix, Jaeger, Langfuse…); needs the 'otel' extra."""
    try:
        from empathygraph.trace.otel import export_trace

        records, _ = _load(path)
        count = export_trace(records, endpoint=endpoint)
        console.print(f"exported {count} spans" + (f" to {endpoint}" if endpoint else ""))
    except EmpathyGraphError as exc:
        fail(str(exc))

