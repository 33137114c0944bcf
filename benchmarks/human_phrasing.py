"""How often ED's human listeners say something in their first reply, by the speaker's emotion label.

A reply check that leaves a phrase out should fight the human references as little as possible:
this counts, over the first (speaker, listener) exchange of every conversation of ED train and
valid, the listener replies that a regular expression matches (``--pattern``) or that a reply
check taking ``(reply, labels)`` flags with the conversation's label and its coarse group as the
read labels (``--check``, e.g. ``calls_it_sad``). Prints one JSON object: per label and per coarse
group the conversations, the matches and their share, and a few matched exchanges.

    .venv/bin/python benchmarks/human_phrasing.py --check calls_it_sad
    .venv/bin/python benchmarks/human_phrasing.py --pattern "\\bwhy\\s+did\\s+you\\b"
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from empathygraph.agents import reply_checks
from empathygraph.eval.loaders import ed_first_exchanges
from empathygraph.phrasing import normalize
from empathygraph.schemas import ED_TO_COARSE, EDEmotion

SHARED_ED = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "empathetic_dialogues"
SHOWN = 8


def matcher(pattern: str | None, check: str | None) -> Callable[[str, str], bool]:
    """Whether a reply to a speaker with this label says the thing counted."""
    if pattern is not None:
        compiled = re.compile(pattern, re.IGNORECASE)
        return lambda reply, _label: bool(compiled.search(normalize(reply)))
    found = getattr(reply_checks, check or "", None)
    if not callable(found):
        raise SystemExit(f"no reply check named {check!r} in empathygraph.agents.reply_checks")
    return lambda reply, label: found(reply, {label, ED_TO_COARSE[EDEmotion(label)].value}) is not None


def shares(rows: list[tuple[str, str, str]], said: list[bool], group: Callable[[str], str]) -> dict[str, dict]:
    """Conversations, matches and share per group, the highest share first."""
    total, matched = Counter(), Counter()
    for (_, _, label), hit in zip(rows, said, strict=True):
        total[group(label)] += 1
        matched[group(label)] += hit
    table = {key: {"conversations": total[key], "matched": matched[key], "share": round(matched[key] / total[key], 4)}
             for key in total}
    return dict(sorted(table.items(), key=lambda item: -item[1]["share"]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("--pattern", help="a regular expression over the listener's first reply (case-insensitive)")
    what.add_argument("--check", help="a reply check of agents/reply_checks.py called as check(reply, labels)")
    parser.add_argument("--splits", nargs="+", default=["train", "valid"], choices=["train", "valid"])
    parser.add_argument("--data", type=Path, default=SHARED_ED)
    args = parser.parse_args()

    paths = [args.data / f"ed_{split}.jsonl" for split in args.splits]
    if missing := [str(p) for p in paths if not p.is_file()]:
        raise SystemExit(f"missing ED data: {', '.join(missing)} (see ../shared/README.md)")
    rows = ed_first_exchanges(paths)
    says = matcher(args.pattern, args.check)
    said = [says(reply, label) for _, reply, label in rows]
    print(json.dumps({
        "counted": args.pattern or args.check, "splits": args.splits, "conversations": len(rows),
        "matched": sum(said),
        "by_coarse": shares(rows, said, lambda label: ED_TO_COARSE[EDEmotion(label)].value),
        "by_label": shares(rows, said, lambda label: label),
        "examples": [{"label": label, "speaker": message, "listener": reply}
                     for (message, reply, label), hit in zip(rows, said, strict=True) if hit][:SHOWN],
    }, indent=1))


if __name__ == "__main__":
    main()
