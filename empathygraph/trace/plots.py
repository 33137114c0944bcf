"""Plots of a trace as inline SVG: the emotion trajectory and the latency timeline."""

from __future__ import annotations

import io
from datetime import datetime

import matplotlib

matplotlib.use("Agg")  # files only; never a window
import matplotlib.pyplot as plt
from matplotlib.figure import Figure

from empathygraph.turn import TurnResult

KIND_COLOURS = {"tool": "#6c8ebf", "agent": "#d79b00", "router": "#999999", "generator": "#82b366", "protocol": "#b85450"}


def _svg(figure: Figure, element_id: str) -> str:
    """The figure as an inline ``<svg>`` element (text kept as text, ids stable)."""
    buffer = io.StringIO()
    with plt.rc_context({"svg.fonttype": "none", "svg.hashsalt": element_id}):
        figure.savefig(buffer, format="svg", bbox_inches="tight")
    plt.close(figure)
    svg = buffer.getvalue()
    svg = svg[svg.index("<svg"):]
    return svg.replace("<svg", f'<svg id="{element_id}" role="img"', 1)


def emotion_trajectory_svg(turns: list[TurnResult]) -> str | None:
    """Valence and arousal per turn, each point labelled with the emotion (None: no emotion step)."""
    points = [(turn.turn_index + 1, turn.emotion) for turn in turns if turn.emotion is not None]
    if not points:
        return None
    xs = [x for x, _ in points]
    figure, axes = plt.subplots(figsize=(max(4.5, 1.3 * len(xs) + 2), 3.2))
    axes.axhline(0, color="#cccccc", linewidth=0.8)
    axes.plot(xs, [emotion.valence for _, emotion in points], "o-", color="#3b6ea8", label="valence")
    axes.plot(xs, [emotion.arousal for _, emotion in points], "s--", color="#c0504d", label="arousal")
    for x, emotion in points:
        axes.annotate(emotion.emotion.value, (x, emotion.valence), textcoords="offset points",
                      xytext=(0, 9), ha="center", fontsize=9)
    axes.set(xlabel="turn", ylim=(-1.15, 1.25), xticks=xs, title="Emotion trajectory")
    axes.legend(loc="lower right", fontsize=8)
    return _svg(figure, "emotion-trajectory")


def step_starts(turn: TurnResult) -> list[float]:
    """Seconds from the turn's start to each step's start.

    Unreadable (hand-edited) time stamps lay the steps end to end.
    """
    try:
        begins = [datetime.fromisoformat(s.started_at).timestamp() for s in turn.steps]
    except ValueError:
        begins = [sum(s.latency_s for s in turn.steps[:row]) for row in range(len(turn.steps))]
    first = min(begins, default=0.0)
    return [begin - first for begin in begins]


def latency_timeline_svg(turn: TurnResult) -> str:
    """When each step of a turn ran and for how long, as a Gantt chart."""
    steps = turn.steps
    figure, axes = plt.subplots(figsize=(7.5, 0.32 * len(steps) + 1.0))
    for row, (step, start) in enumerate(zip(steps, step_starts(turn), strict=True)):
        axes.barh(row, max(step.latency_s, 0.002), left=start, color=KIND_COLOURS.get(step.kind, "#999999"))
        axes.text(start + step.latency_s, row, f" {step.latency_s:.2f}s", va="center", fontsize=8)
    axes.set_yticks(range(len(steps)), [step.step for step in steps], fontsize=8)
    axes.invert_yaxis()
    axes.set(xlabel="seconds into the turn", title=f"Turn {turn.turn_index + 1}: step latencies")
    return _svg(figure, f"timeline-{turn.turn_index + 1}")
