"""Terminal views of a turn: live progress while agents work, the reasoning tree, trace replay."""

from __future__ import annotations

import math
import time
from collections.abc import Iterable

from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.markup import escape
from rich.spinner import Spinner
from rich.text import Text
from rich.tree import Tree

from empathygraph.agents.emotion_fusion import FusedEmotion
from empathygraph.graphs.registry import reply_fields, view
from empathygraph.trace.events import (
    MediaReady,
    ReplyToken,
    StepFinished,
    StepStarted,
    TurnEvent,
    TurnFinished,
    Verdict,
)
from empathygraph.trace.records import StepRecord
from empathygraph.trace.replay import decisions, headline
from empathygraph.turn import TurnResult


def _label(node: str) -> str:
    found = view(node)
    return found.label if found is not None else node


def reasoning_tree(result: TurnResult) -> Tree:
    """The chain of empathy of one turn, compactly."""
    tree = Tree(f"[bold]turn {result.turn_index + 1}[/bold] · {result.seconds:.1f}s · "
                f"{result.llm_calls} LLM calls · {result.tokens.total} tokens · {result.backbone}")
    p = result.perception
    node = tree.add(f"[cyan]perception[/cyan] ({', '.join(p.modalities)}): {p.reading}")
    for conflict in p.conflicts:
        node.add(f"[yellow]conflict:[/yellow] {conflict}")
    for skipped in p.skipped:
        node.add(f"[yellow]skipped:[/yellow] {skipped}")
    safety = result.safety
    if safety is not None and (safety.at_risk or safety.careful):
        found = ", ".join(c.value for c in safety.categories) or "none this turn"
        risk = tree.add(f"[red]risk[/red]: {found}{' · careful session' if safety.careful else ''}")
        for signal in safety.signals:
            if signal.fired or signal.score > 0:
                mark = "[red]fired[/red]" if signal.fired else f"below {signal.threshold:.2f}"
                risk.add(f"{signal.source} {signal.score:.2f} {mark}: {signal.detail[:100]}")
    e = result.emotion
    node = tree.add(f"[cyan]emotion[/cyan]: {e.emotion.value} ({e.coarse.value}, {e.label_source}) "
                    f"intensity {e.intensity:.1f} · valence {e.valence:+.1f} · arousal {e.arousal:+.1f}")
    node.add(f"scenario: {e.event_scenario}")
    node.add("cause: " + "; ".join(f'"{c}"' for c in e.causes))
    fusion = result.output(FusedEmotion)
    if fusion is not None:
        node.add("weighed: " + ", ".join(
            f"{c.label} (classifier {c.classifier:.2f}, LLM {math.exp(c.llm_logprob):.2f})" for c in fusion.candidates[:3]))
    s = result.empathy
    node = tree.add(f"[cyan]strategy[/cyan]: {s.strategy.value}")
    node.add(f"goal: {s.goal}")
    node.add(f"why: {s.rationale}")
    for index, critique in enumerate(result.critiques, start=1):
        detail = f": {'; '.join(critique.issues)}" if critique.issues else ""
        tree.add(f"[cyan]reflection {index}[/cyan]: {critique.verdict}{detail}")
    plan = result.plan
    tree.add(f"[cyan]voice[/cyan]: {plan.speech.emotion.value}, rate {plan.speech.rate:.2f}, "
             f"pitch {plan.speech.pitch:+.1f} st · [cyan]face[/cyan]: {plan.avatar.expression.value} "
             f"{plan.avatar.intensity:.1f}, {plan.avatar.head_motion} · "
             f"[cyan]avatar[/cyan]: {plan.profile.age.value} {plan.profile.gender.value}, {plan.profile.timbre.value} timbre")
    if result.media:
        tree.add("[cyan]media[/cyan]: " + ", ".join(f"{k}: {v}" for k, v in result.media.items()))
    for step in result.steps:
        if step.fallback or step.error:
            tree.add(f"[yellow]{step.step}[/yellow]: {step.fallback or step.error}")
    return tree


class _RunningSteps:
    """What is in flight: a spinner per running step with its elapsed time, and the reply so far."""

    def __init__(self) -> None:
        self.started: dict[str, float] = {}
        self.reply = ""

    def __rich__(self) -> RenderableType:
        now = time.perf_counter()
        rows: list[RenderableType] = [
            Spinner("dots", text=Text.from_markup(f"{_label(node)} [dim]{now - t0:.1f}s[/dim]"))
            for node, t0 in self.started.items()
        ]
        if self.reply:
            rows.append(Text.assemble(("listener: ", "bold magenta"), self.reply))
        return Group(*rows)


def _finished_line(event: StepFinished) -> str | None:
    found = view(event.node)
    live = found.live if found is not None else "headline"
    if live == "hidden" or (live == "if-recorded" and not event.records):
        return None
    line = f"  [green]✓[/green] {_label(event.node)} [dim]{event.latency_s:.1f}s[/dim]"
    records = [r for r in event.records if r.step.split(":")[0] == event.node]
    said = headline(records[-1]) if records else ""
    problems = [r.fallback or r.error for r in event.records if r.fallback or r.error]
    if said and live == "headline":
        line += f" · {escape(said[:100])}"
    if problems:
        line += f" [yellow]({escape('; '.join(p for p in problems if p)[:100])})[/yellow]"
    return line


def show_live(console: Console, events: Iterable[TurnEvent]) -> TurnResult:
    """Show a turn's events as they come; return its result.

    Finished steps print one line each with their main decision; running steps
    spin with their elapsed time; the reply appears as the LLM writes it.
    """
    running = _RunningSteps()
    result: TurnResult | None = None
    with Live(running, console=console, refresh_per_second=8, transient=True) as live:
        for event in events:
            match event:
                case StepStarted(node=node):
                    running.started[node] = time.perf_counter()
                    if node in reply_fields():
                        running.reply = ""
                case StepFinished(node=node):
                    running.started.pop(node, None)
                    line = _finished_line(event)
                    if line:
                        live.console.print(line, highlight=False)
                case Verdict(critique=critique, round=round_):
                    colour = "green" if critique.verdict == "accept" else "yellow"
                    issues = f": {escape('; '.join(critique.issues))}" if critique.issues else ""
                    after = f" [dim](after revision {round_})[/dim]" if round_ else ""
                    live.console.print(f"    [{colour}]reflection: {critique.verdict}[/{colour}]{issues}{after}",
                                       highlight=False)
                case ReplyToken(text=text):
                    running.reply += text
                case MediaReady(kind=kind, path=path):
                    live.console.print(f"    [cyan]{kind} ready:[/cyan] {escape(path)}", highlight=False)
                case TurnFinished(result=finished):
                    result = finished
    if result is None:  # pragma: no cover - turn_events always ends with TurnFinished
        raise RuntimeError("the turn's event stream ended without a result")
    return result


def _step_label(step: StepRecord) -> str:
    parts = [f"{step.latency_s:.2f}s"]
    if step.tokens.total:
        parts.append(f"{step.tokens.prompt}+{step.tokens.completion} tok")
    if step.retries:
        parts.append(f"[yellow]{step.retries} retr{'y' if step.retries == 1 else 'ies'}[/yellow]")
    if step.round:
        parts.append(f"round {step.round}")
    colour = "red" if step.error else "yellow" if step.fallback else "cyan"
    return f"[{colour}]{escape(step.step)}[/{colour}] [dim]{step.kind}[/dim] · " + " · ".join(parts)


def trace_tree(turn: TurnResult, *, steps: list[StepRecord] | None = None, detail: bool = False) -> Tree:
    """One turn of a trace: its steps with latency, tokens and retries, and what each decided.

    Args:
        turn: the turn to draw.
        steps: the steps to show (default: all of the turn's).
        detail: also show each step's prompt messages and raw LLM output.
    """
    tokens = turn.tokens
    tree = Tree(f"[bold]turn {turn.turn_index + 1}[/bold] · session {escape(turn.session_id)} · "
                f"{turn.latency_s:.1f}s · {tokens.total} tokens · {turn.retries} retries")
    if turn.user_text:
        tree.add(f"[bold]person:[/bold] {escape(turn.user_text)}")
    for step in steps if steps is not None else turn.steps:
        node = tree.add(_step_label(step))
        for label, value in decisions(step):
            node.add(f"[dim]{escape(label)}:[/dim] {escape(value)}")
        if detail:
            for message in step.prompt:
                node.add(f"[magenta]{escape(message.get('role', '?'))}[/magenta] {escape(message.get('content', ''))}")
            for index, attempt in enumerate(step.attempts, start=1):
                verdict = f" [red]{escape(attempt.error)}[/red]" if attempt.error else ""
                node.add(f"[magenta]raw {index}[/magenta] {escape(attempt.raw)}{verdict}")
    if turn.reply:
        tree.add(f"[bold magenta]listener:[/bold magenta] {escape(turn.reply)}")
    return tree
