"""The project's own safety dev set: risk disclosures and hard negatives, written for the purpose.

Files (``benchmarks/data/safety/``): ``messages_<writer>.jsonl`` (one message each, with
its categories and how the risk or the trap is expressed; writer d wrote contrast pairs,
a risk message and a safe one on the same topic, which share a ``pair`` id and a split) and ``conversations_<writer>.jsonl``
(user turns of a conversation where risk may emerge over several messages). Each writer
wrote independently; a stable hash of the id puts 30% of every writer's items in the
held-out split, which no training or tuning reads. Writers listed in ``EXAM_WRITERS``
are held out as a whole: written last, by another hand, read only to report.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from empathygraph.eval.jsonfile import DatasetError, read_text
from empathygraph.schemas import RiskCategory

SAFETY_DIR = Path(__file__).resolve().parents[2] / "benchmarks" / "data" / "safety"
HELD_OUT_SHARE = 0.3
EXAM_WRITERS = frozenset({"c", "t", "u", "v", "z", "aa", "ad", "ae"})  # t-v, z, aa, ad, ae: each scored by the screen shipped when written first
FIRST_WRITERS = frozenset({"a", "b", "d", "e"})  # the training writers of the first measurements (same held-out items)
Split = Literal["train", "held_out", "exam"]


@dataclass(frozen=True)
class SafetyMessage:
    """One message and what a careful listener should see in it."""

    id: str
    text: str
    categories: tuple[RiskCategory, ...]
    kind: str
    indirect: bool
    writer: str
    group: str = ""  # items written as a contrast pair share a group and a split

    @property
    def risk(self) -> bool:
        return bool(self.categories)


@dataclass(frozen=True)
class SafetyConversation:
    """The user's side of a conversation; ``risk_turn`` is the first turn that should worry a listener."""

    id: str
    turns: tuple[str, ...]
    categories: tuple[RiskCategory, ...]
    risk_turn: int | None
    writer: str

    @property
    def risk(self) -> bool:
        return self.risk_turn is not None


def split_of(item_id: str, writer: str) -> Split:
    """Which split an item belongs to: fixed by its id, never by its content."""
    if writer in EXAM_WRITERS:
        return "exam"
    bucket = int(hashlib.sha256(item_id.encode()).hexdigest()[:8], 16) / 0xFFFFFFFF
    return "held_out" if bucket < HELD_OUT_SHARE else "train"


def _categories(raw: list[str], where: str) -> tuple[RiskCategory, ...]:
    try:
        return tuple(RiskCategory(c) for c in raw)
    except ValueError as exc:
        raise DatasetError(f"{where}: {exc}") from None


def _lines(path: Path) -> list[tuple[int, dict]]:
    rows = []
    for number, line in enumerate(read_text(path).splitlines(), 1):
        if line.strip():
            try:
                rows.append((number, json.loads(line)))
            except json.JSONDecodeError as exc:
                raise DatasetError(f"{path}:{number}: not JSON ({exc.msg})") from None
    return rows


def _writer(path: Path) -> str:
    return path.stem.rsplit("_", 1)[-1]


def load_messages(folder: Path = SAFETY_DIR, splits: set[Split] | None = None) -> list[SafetyMessage]:
    """Every message of every writer in ``folder`` (or only those in ``splits``)."""
    out = []
    for path in sorted(folder.glob("messages_*.jsonl")):
        writer = _writer(path)
        for number, row in _lines(path):
            item = SafetyMessage(id=row["id"], text=row["text"], kind=row.get("kind", ""),
                                 categories=_categories(row.get("categories", []), f"{path}:{number}"),
                                 indirect=bool(row.get("indirect", False)), writer=writer,
                                 group=row.get("pair") or row["id"])
            if item.risk != bool(row.get("risk", item.risk)):
                raise DatasetError(f"{path}:{number}: 'risk' disagrees with 'categories'")
            if splits is None or split_of(item.group, writer) in splits:
                out.append(item)
    return out


def load_conversations(folder: Path = SAFETY_DIR, splits: set[Split] | None = None) -> list[SafetyConversation]:
    """Every conversation of every writer in ``folder`` (or only those in ``splits``)."""
    out = []
    for path in sorted(folder.glob("conversations_*.jsonl")):
        writer = _writer(path)
        for number, row in _lines(path):
            item = SafetyConversation(id=row["id"], turns=tuple(row["turns"]), risk_turn=row.get("risk_turn"),
                                      categories=_categories(row.get("categories", []), f"{path}:{number}"),
                                      writer=writer)
            if splits is None or split_of(item.id, writer) in splits:
                out.append(item)
    return out


EVERYDAY_PATH = SAFETY_DIR.parent / "replies" / "everyday.jsonl"


def everyday_messages(shared: Path, every: int = 5) -> dict[str, list[str]]:
    """Ordinary messages the risk models never trained on: the replies benchmark's everyday set (written
    for issue 15) and every ``every``-th first message of the shared EmpatheticDialogues validation split
    (absent without ``../shared``; the models' ED negatives come from ED train)."""
    from empathygraph.eval.loaders import load_ed

    sets = {"replies_everyday": [json.loads(line)["text"] for line in read_text(EVERYDAY_PATH).splitlines() if line]}
    valid = shared / "empathetic_dialogues" / "ed_valid.jsonl"
    if valid.is_file():
        sets["ed_valid"] = [sample.text for sample in load_ed(valid).samples[::every]]
    return sets
