"""One self-contained HTML report of a trace: plots inline, media as data URIs."""

from __future__ import annotations

import base64
import json
import mimetypes
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from jinja2 import Environment
from markupsafe import Markup

from empathygraph.graphs.registry import senses
from empathygraph.trace.plots import emotion_trajectory_svg, latency_timeline_svg
from empathygraph.trace.records import StepRecord
from empathygraph.trace.replay import decisions, group_turns
from empathygraph.trace.report_page import PAGE
from empathygraph.turn import TurnResult

MAX_EMBED_BYTES = 25 * 1024 * 1024
# (the state field whose step decided it, the decision, its title)
CHAIN_OF_EMPATHY = [
    ("emotion", "scenario", "Event scenario"),
    ("emotion", "emotion", "Emotion"),
    ("emotion", "intensity", "Intensity"),
    ("emotion", "cause", "Emotion cause"),
    ("empathy", "goal", "Goal to response"),
    ("empathy", "strategy", "Strategy"),
    ("empathy", "why", "Rationale"),
]


@dataclass
class Media:
    """One media file of a turn, embedded or explained."""

    role: str
    path: str
    tag: str  # "audio", "video" or "img"
    data_uri: str | None
    problem: str | None = None


def _locate(path: str, roots: list[Path]) -> Path | None:
    candidate = Path(path)
    if candidate.is_absolute():
        return candidate if candidate.is_file() else None
    return next((root / candidate for root in roots if (root / candidate).is_file()), None)


def embed_media(role: str, path: str, roots: list[Path]) -> Media:
    """A media file as a data URI (relative paths are looked up under ``roots``)."""
    mime = mimetypes.guess_type(path)[0] or "application/octet-stream"
    tag = mime.split("/")[0] if mime.split("/")[0] in ("audio", "video") else "img"
    found = _locate(path, roots)
    if found is None:
        return Media(role, path, tag, None, "file not found (moved or deleted since the run)")
    size = found.stat().st_size
    if size > MAX_EMBED_BYTES:
        return Media(role, path, tag, None, f"{size / 1e6:.0f} MB is too large to embed")
    return Media(role, path, tag, f"data:{mime};base64,{base64.b64encode(found.read_bytes()).decode('ascii')}")


def _chain(turn: TurnResult) -> list[tuple[str, str]]:
    found = []
    for field, label, title in CHAIN_OF_EMPATHY:
        records = turn.writing(field)
        value = dict(decisions(records[-1])).get(label) if records else None
        if value:
            found.append((title, value))
    for record in turn.writing("critique"):
        said = dict(decisions(record))
        issues = record.output.get("issues")
        found.append((f"Reflection (round {record.round})", said.get("verdict", "") +
                      (f" — {'; '.join(issues)}" if issues else "")))
    if turn.reply:
        found.append(("Response", turn.reply))
    return found


def _cues(turn: TurnResult) -> list[tuple[str, list[tuple[str, str]]]]:
    """Perception cues side by side: one column per sense, then the fused reading."""
    columns = [(sense.name.title(), decisions(record)) for sense in senses() if (record := turn.last(sense.name))]
    if fused := turn.writing("perception"):
        columns.append(("Perception (fused)", decisions(fused[-1])))
    return columns


def _pretty(data: object) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False)


def _environment() -> Environment:
    env = Environment(autoescape=True)
    env.filters["pretty"] = _pretty
    env.filters["decisions"] = decisions
    return env


def render_report(records: list[StepRecord], *, source: Path, problems: list[str] | None = None) -> str:
    """The HTML report of a trace.

    Args:
        records: the trace's step records.
        source: the trace file (relative media paths are looked up beside it and its parents).
        problems: lines of the trace that could not be read, shown at the top.
    """
    turns = group_turns(records)
    roots = [Path.cwd(), source.parent, *source.parent.parents][:6]
    views = []
    for turn in turns:
        media = [embed_media(f"input {role}", path, roots) for role, path in turn.inputs.items()]
        media += [embed_media(f"reply {role}", path, roots) for role, path in turn.media.items()]
        views.append({
            "turn": turn,
            "chain": _chain(turn),
            "cues": _cues(turn),
            "timeline": Markup(latency_timeline_svg(turn)),
            "media": media,
        })
    trajectory = emotion_trajectory_svg(turns)
    return _environment().from_string(PAGE).render(
        title=f"empathygraph trace · {source.parent.name or source.name}",
        source=str(source),
        created=datetime.now().isoformat(timespec="seconds"),
        sessions=sorted({turn.session_id for turn in turns}),
        turns=views,
        trajectory=Markup(trajectory) if trajectory else None,
        problems=problems or [],
        total_s=sum(turn.latency_s for turn in turns),
        total_tokens=sum(turn.tokens.total for turn in turns),
    )


def write_report(records: list[StepRecord], out: Path, *, source: Path, problems: list[str] | None = None) -> Path:
    """Write the HTML report of a trace to ``out``."""
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(render_report(records, source=source, problems=problems), encoding="utf-8")
    return out
