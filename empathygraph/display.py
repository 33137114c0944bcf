"""Terminal views of a turn: live progress while agents work, and the reasoning tree."""

from __future__ import annotations

from contextlib import contextmanager
from collections.abc import Iterator
from typing import Any

from rich.console import Console
from rich.tree import Tree

from empathygraph.session import TurnResult, UpdateHandler

STEP_LABELS = {
    "begin_turn": "turn opened",
    "listen": "listened to the voice",
    "look": "looked at the face",
    "read": "read the words",
    "perception": "perception agent",
    "emotion_cause": "emotion-cause agent",
    "empathy_strategy": "empathy-strategy agent",
    "response": "response agent",
    "reflection": "reflection agent",
    "crisis_protocol": "crisis protocol",
    "render": "voice and avatar",
    "remember": "remembered the turn",
}


@contextmanager
def live_progress(console: Console) -> Iterator[UpdateHandler]:
    """Show a spinner and one line per finished step; yields the update handler."""
    with console.status("[bold]listening…", spinner="dots") as status:

        def on_update(node: str, change: dict[str, Any]) -> None:
            steps = change.get("steps") or []
            timing = f" [dim]{steps[-1].latency_s:.1f}s[/dim]" if steps else ""
            if node != "begin_turn":
                console.print(f"  [green]✓[/green] {STEP_LABELS.get(node, node)}{timing}")
            status.update(f"[bold]thinking… [dim](after {STEP_LABELS.get(node, node)})")

        yield on_update


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
    if p.safety.at_risk:
        node.add(f"[red]safety: {p.safety.category.value}[/red] ({', '.join(p.safety.matched)})")
    e = result.emotion
    node = tree.add(f"[cyan]emotion[/cyan]: {e.emotion.value} ({e.coarse.value}, {e.label_source}) "
                    f"intensity {e.intensity:.1f} · valence {e.valence:+.1f} · arousal {e.arousal:+.1f}")
    node.add(f"scenario: {e.event_scenario}")
    node.add("cause: " + "; ".join(f'"{c}"' for c in e.causes))
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
