"""How the listener's replies read: style, harm and empathy figures over message sets. Prints one JSON object.

    .venv/bin/python benchmarks/replies.py run --variant NAME [--system graph|single_prompt]
                                               [--sets everyday tricky ed] [--split heldout] [--limit N]
                                               [--set KEY=VALUE ...] [--shard 0/3]
    .venv/bin/python benchmarks/replies.py report --variant NAME [--split heldout]

Message sets: ``everyday`` and ``tricky`` (``benchmarks/data/replies/``, the project's own
writing: 56 everyday messages and 111 jokes, hyperbole, anger, losses, brags, venting and
requests to approve something harmful; each marked ``dev`` or ``heldout``), and ``ed``: 40
first speaker turns of the shared ED valid split (evenly spaced, alternately dev and heldout;
the human listener's first reply is the reference). Each message is one fresh session on the
default embedded model, no media, answered by the graph or by the single-prompt baseline
(``eval/systems.py``: one LLM call writes the labels and the reply). ``--limit N`` keeps N
messages of each set, evenly spaced. ``run`` appends each finished reply to
``<home>/eval/replies/<variant>.jsonl`` and skips those already there, so runs resume and
shards (``--shard i/n``, message i, i+n, ...) can run side by side. ``report`` reads that file:
the style figures and harm screen of ``empathygraph.eval.style``/``harm``, the replies that praise
what a message asking approval for harm told of (``praised_harm``), the EPITOME judge's
score (``eval/judge.py``) of every set's replies, the human listeners' replies to the same ED
items scored the same way, and the turn seconds.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from empathygraph.agents.crisis import SPEC as CRISIS
from empathygraph.agents.follow_up import VIEW as FOLLOW_UP
from empathygraph.agents.reply_checks import endorsed_harm, praises_choice
from empathygraph.config import Config, load_config
from empathygraph.eval.harm import harm_figures
from empathygraph.eval.harness import Harness, spread
from empathygraph.eval.judge import EmpathyJudge, empathy_figures
from empathygraph.eval.loaders import load_ed
from empathygraph.eval.samples import Sample
from empathygraph.eval.style import style_figures
from empathygraph.jsonl import iter_jsonl
from empathygraph.paths import default_home
from empathygraph.session import Empathizer

DATA = Path(__file__).resolve().parent / "data" / "replies"
SHARED_ED = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "empathetic_dialogues" / "ed_valid.jsonl"
ED_ITEMS = 40
SETS = ("everyday", "tricky", "ed")
SYSTEMS = ("graph", "single_prompt")


def messages(name: str) -> list[dict]:
    """The items of one message set: id, text, split, and (ED) the human reference and label."""
    if name == "ed":
        if not SHARED_ED.is_file():
            sys.exit(f"shared data not found at {SHARED_ED}")
        samples = spread(load_ed(SHARED_ED).samples, ED_ITEMS)
        return [{"id": f"ed-{s.id}", "text": s.text, "split": "dev" if i % 2 == 0 else "heldout",
                 "kind": "ed", "reference": s.reference, "label": s.emotion.value if s.emotion else None}
                for i, s in enumerate(samples)]
    return [record for _, record, error in iter_jsonl(DATA / f"{name}.jsonl") if not error]


def results_path(variant: str) -> Path:
    return default_home() / "eval" / "replies" / f"{variant}.jsonl"


def done(variant: str) -> dict[str, dict]:
    path = results_path(variant)
    return {r["id"]: r for _, r, e in iter_jsonl(path) if not e} if path.is_file() else {}


def graph_answer(empathizer: Empathizer, item: dict, session: str) -> dict:
    """The graph's reply to one message, with its labels, route, reflection issues and cost."""
    result = empathizer.respond(item["text"], session_id=session)
    critiques = [s for s in result.steps if s.step == "reflection"]
    return {"reply": result.reply, "strategy": result.empathy.strategy.value if result.empathy else None,
            "emotion": result.emotion.emotion.value if result.emotion else None,
            "route": "crisis" if any(s.step == CRISIS.name for s in result.steps) else "listen",
            "issues": [i for s in critiques for i in s.output.get("issues", [])],
            "rewrites": sum(s.step == "response" for s in result.steps) - 1,
            "follow_ups": sum(s.step == FOLLOW_UP.name for s in result.steps),
            "llm_calls": result.llm_calls, "tokens": result.tokens.total}


def single_prompt_answer(harness: Harness, item: dict) -> dict:
    """The single-prompt baseline's reply (one LLM call writes the labels and the reply)."""
    prediction = harness.system("single_prompt").predict(Sample(id=item["id"], dataset="replies", text=item["text"]))
    return {"reply": prediction.reply or "", "strategy": prediction.strategy.value if prediction.strategy else None,
            "emotion": prediction.emotion.value if prediction.emotion else None, "route": "listen", "issues": [],
            "rewrites": 0, "llm_calls": prediction.llm_calls, "tokens": prediction.tokens, "error": prediction.error}


def selection(sets: list[str], split: str, limit: int | None) -> list[dict]:
    """The chosen split of each set, ``limit`` evenly spaced messages of each."""
    items = []
    for name in sets:
        chosen = [m | {"set": name} for m in messages(name) if split in ("all", m["split"])]
        items += spread(chosen, limit)
    return items


def run(args: argparse.Namespace) -> None:
    items = selection(args.sets, args.split, args.limit)
    index, count = (int(x) for x in args.shard.split("/"))
    finished = done(args.variant)
    todo = [m for i, m in enumerate(items) if i % count == index and m["id"] not in finished]
    db = default_home() / "eval" / "replies" / f"{args.variant}-{index}.sqlite"
    config: Config = load_config(args.config, ["generators.speech=none", "generators.avatar=none",
                                               f"sessions.db={db}", *args.set])
    if args.system == "graph":
        empathizer = Empathizer(config)
        answer = lambda item: graph_answer(empathizer, item, f"{args.variant}:{item['id']}:{time.time_ns()}")
    else:
        harness = Harness(config)
        answer = lambda item: single_prompt_answer(harness, item)
    out = results_path(args.variant)
    out.parent.mkdir(parents=True, exist_ok=True)
    for item in todo:
        started = time.perf_counter()
        record = {**item, "variant": args.variant, "system": args.system, "overrides": args.set, **answer(item),
                  "seconds": round(time.perf_counter() - started, 2)}
        with out.open("a") as handle:
            handle.write(json.dumps(record) + "\n")
        print(json.dumps({k: record[k] for k in ("id", "seconds", "strategy", "reply")}), flush=True)


def reply_block(items: list[tuple[str, str, str | None]], judge: EmpathyJudge) -> dict:
    """Style figures, harm flags and the judge's EPITOME figures of (message, reply, label) items."""
    return {"style": style_figures(items), "harm": harm_figures([reply for _, reply, _ in items]),
            "epitome": empathy_figures(judge.score_many([(text, reply) for text, reply, _ in items]))}


def praised_harm(rows: list[dict]) -> dict:
    """Replies that praise or approve what a message asking approval for harm (``careless: endorse``) told of:
    ``reply_checks.praises_choice`` or ``endorsed_harm`` over the reply, whatever the choice screen read."""
    bait = [r for r in rows if r.get("careless") == "endorse" and r["reply"]]
    praised = [r for r in bait if praises_choice(r["reply"]) or endorsed_harm(r["reply"], r["text"])]
    return {"n": len(bait), "praised": len(praised),
            "replies": [f'{r["text"][:60]} -> {r["reply"]}' for r in praised]}


def report(args: argparse.Namespace) -> None:
    judge = EmpathyJudge()
    records = [r for r in done(args.variant).values() if args.split in ("all", r["split"])]
    out: dict = {"variant": args.variant, "split": args.split, "n": len(records),
                 "system": sorted({r.get("system", "graph") for r in records})}
    for name in SETS:
        rows = [r for r in records if r["set"] == name]
        if not rows:
            continue
        answered = [r for r in rows if r["route"] == "listen" and r["reply"]]
        out[name] = {"n": len(rows), "crisis_routed": sum(r["route"] == "crisis" for r in rows),
                     "failed": sum(not r["reply"] for r in rows),
                     **reply_block([(r["text"], r["reply"], r["emotion"]) for r in answered], judge),
                     "harm_all_routes": harm_figures([r["reply"] for r in rows if r["reply"]]),
                     "praised_harm": praised_harm(rows),
                     "strategies": dict(Counter(r["strategy"] for r in rows).most_common()),
                     "rewritten": sum(r["rewrites"] > 0 for r in rows),
                     "followed_up": sum(r.get("follow_ups", 0) > 0 for r in rows),
                     "seconds_median": round(statistics.median(r["seconds"] for r in rows), 2)}
        humans = [(r["text"], r["reference"], r["label"]) for r in rows if r.get("reference")]
        if humans:
            out[name]["human"] = reply_block(humans, judge)
    print(json.dumps(out, indent=1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    go = sub.add_parser("run")
    go.add_argument("--variant", required=True, help="name of the results file (one per system and configuration)")
    go.add_argument("--system", default="graph", choices=SYSTEMS)
    go.add_argument("--sets", nargs="+", default=list(SETS), choices=SETS)
    go.add_argument("--split", default="heldout", choices=["dev", "heldout", "all"])
    go.add_argument("--limit", type=int, default=None, help="messages of each set (evenly spaced); default all")
    go.add_argument("--config", type=Path, default=None)
    go.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    go.add_argument("--shard", default="0/1", help="i/n: run message i, i+n, ... of the selection")
    show = sub.add_parser("report")
    show.add_argument("--variant", required=True)
    show.add_argument("--split", default="heldout", choices=["dev", "heldout", "all"])
    args = parser.parse_args()
    run(args) if args.command == "run" else report(args)


if __name__ == "__main__":
    main()
