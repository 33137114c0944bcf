"""Replay a trace: group its steps into turns and read each step's decisions.

Works from ``StepRecord`` data alone, so a trace written by any run (or another
machine) can be inspected without the models that produced it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from empathygraph.trace.records import StepRecord, TokenUsage

Decisions = list[tuple[str, str]]


@dataclass
class TraceTurn:
    """The steps of one turn of one session, in the order they finished."""

    session_id: str
    turn_index: int
    steps: list[StepRecord] = field(default_factory=list)

    @property
    def key(self) -> tuple[str, int]:
        return self.session_id, self.turn_index

    @property
    def latency_s(self) -> float:
        return sum(step.latency_s for step in self.steps)

    @property
    def tokens(self) -> TokenUsage:
        return TokenUsage.sum(step.tokens for step in self.steps)

    @property
    def retries(self) -> int:
        return sum(step.retries for step in self.steps)

    def last(self, step: str) -> StepRecord | None:
        """The last record of ``step`` (a revised reply replaces the first draft)."""
        found = [record for record in self.steps if record.step == step]
        return found[-1] if found else None

    @property
    def user_text(self) -> str:
        perception = self.last("perception")
        return str(perception.output.get("text", "")) if perception else ""

    @property
    def reply(self) -> str:
        final = self.last("crisis_protocol") or self.last("response")
        return str(final.output.get("text", "")) if final else ""

    @property
    def media(self) -> dict[str, str]:
        files: dict[str, str] = {}
        for step in self.steps:
            if step.kind == "generator":
                files.update(step.output.get("files") or {})
        return files

    @property
    def inputs(self) -> dict[str, str]:
        """The media the person gave this turn (modality → path)."""
        found = {"listen": "audio", "look": "face"}
        return {found[s.step]: str(s.input["path"]) for s in self.steps if s.step in found and "path" in s.input}


def group_turns(records: Iterable[StepRecord]) -> list[TraceTurn]:
    """Group records by (session, turn), in order of first appearance."""
    turns: dict[tuple[str, int], TraceTurn] = {}
    for record in records:
        key = (record.session_id, record.turn_index)
        turns.setdefault(key, TraceTurn(*key)).steps.append(record)
    return list(turns.values())


def matches_agent(record: StepRecord, name: str) -> bool:
    """Whether ``name`` picks this step: its node name (``render`` also picks ``render:piper``) or kind."""
    name = name.lower().replace("-", "_")
    return record.step == name or record.step.split(":")[0] == name or record.kind == name


def _short(value: Any, limit: int = 160) -> str:
    text = value if isinstance(value, str) else str(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _num(value: Any) -> str:
    return f"{value:+.2f}" if isinstance(value, int | float) else "?"


def _top(scores: list[dict[str, Any]], n: int = 3) -> str:
    return ", ".join(f"{s.get('label')} {s.get('score', 0):.2f}" for s in scores[:n])


def _perception(out: dict[str, Any]) -> Decisions:
    found = [("reading", out.get("reading", ""))]
    found += [(key, out[key]) for key in ("voice", "face") if out.get(key)]
    if out.get("text_emotions"):
        found.append(("text emotion", _top(out["text_emotions"])))
    found += [("conflict", c) for c in out.get("conflicts", [])]
    safety = out.get("safety") or {}
    if safety.get("category", "none") != "none":
        found.append(("safety", f"{safety['category']} ({', '.join(safety.get('matched', []))})"))
    return found


def _emotion(out: dict[str, Any]) -> Decisions:
    return [
        ("emotion", f"{out.get('emotion')} ({out.get('coarse')}, from {out.get('label_source')})"),
        ("intensity", (f"{out.get('intensity', 0):.2f} · valence {_num(out.get('valence'))} "
                       f"· arousal {_num(out.get('arousal'))}")),
        ("scenario", out.get("event_scenario", "")),
        ("cause", "; ".join(f'"{c}"' for c in out.get("causes", []))),
    ]


def _strategy(out: dict[str, Any]) -> Decisions:
    return [("strategy", out.get("strategy", "")), ("goal", out.get("goal", "")), ("why", out.get("rationale", ""))]


def _reply(out: dict[str, Any]) -> Decisions:
    found = [("reply", out.get("text", ""))]
    speech, avatar = out.get("speech") or {}, out.get("avatar") or {}
    if speech:
        found.append(("voice", (f"{speech.get('emotion')}, rate {speech.get('rate', 1):.2f}, "
                                f"pitch {speech.get('pitch', 0):+.1f} st")))
    if avatar:
        found.append(("face", f"{avatar.get('expression')} {avatar.get('intensity', 0):.1f}, {avatar.get('head_motion')}"))
    return found


def _critique(out: dict[str, Any]) -> Decisions:
    found = [("verdict", f"{out.get('verdict')} (by {out.get('source')})")]
    found += [("issue", issue) for issue in out.get("issues", [])]
    if out.get("advice"):
        found.append(("advice", out["advice"]))
    return found


def _cues(out: dict[str, Any]) -> Decisions:
    found: Decisions = []
    for name, cue in out.items():
        if not isinstance(cue, dict):
            continue
        if "transcript" in cue:
            found += [("transcript", cue["transcript"]), ("voice", cue.get("description", ""))]
        elif "distribution" in cue or "frames" in cue:
            found.append(("face", f"{cue.get('description', '')} (peak {cue.get('peak')})"))
        elif "top" in cue:
            found.append(("text emotion", _top(cue["top"])))
        elif name == "safety" and cue.get("category", "none") != "none":
            found.append(("safety", f"{cue['category']} ({', '.join(cue.get('matched', []))})"))
    return found


def _media(out: dict[str, Any]) -> Decisions:
    return [(kind, path) for kind, path in (out.get("files") or {}).items()]


def _listen_or_look(out: dict[str, Any]) -> Decisions:
    return _cues({"cue": out})


_READERS: dict[str, Callable[[dict[str, Any]], Decisions]] = {
    "perception": _perception,
    "emotion_cause": _emotion,
    "empathy_strategy": _strategy,
    "response": _reply,
    "crisis_protocol": _reply,
    "reflection": _critique,
    "read": _cues,
    "listen": _listen_or_look,
    "look": _listen_or_look,
    "render": _media,
}


def decisions(record: StepRecord) -> Decisions:
    """What a step decided, as (label, value) pairs for people to read."""
    reader = _READERS.get(record.step.split(":")[0])
    found = reader(record.output) if reader else [(k, v) for k, v in record.output.items() if isinstance(v, str | int | float)]
    found = [(label, _short(value)) for label, value in found if value not in ("", None)]
    if record.fallback:
        found.append(("fallback", _short(record.fallback)))
    if record.error:
        found.append(("error", _short(record.error)))
    found += [("note", _short(note)) for note in record.notes]
    return found


def headline(record: StepRecord) -> str:
    """The one decision that names a step in a live view (e.g. 'sad · "my dog died"')."""
    out = record.output
    match record.step.split(":")[0]:
        case "emotion_cause":
            causes = "; ".join(f'"{c}"' for c in out.get("causes", []))
            return f"{out.get('emotion')} ({out.get('coarse')}) · {causes}"
        case "empathy_strategy":
            return str(out.get("strategy", ""))
        case "reflection":
            issues = out.get("issues") or []
            return f"{out.get('verdict')}" + (f": {'; '.join(issues)}" if issues else "")
        case "render":
            return ", ".join(out.get("files") or {}) or (record.error or "")
        case _:
            first = decisions(record)
            return first[0][1] if first else ""
