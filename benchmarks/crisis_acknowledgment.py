"""The crisis reply's first sentence, fixed or written by the LLM: how often the LLM's passes its rules, and what
it costs. Prints one JSON object.

    .venv/bin/python benchmarks/crisis_acknowledgment.py [--items 10] [--offset 5] [--every 97]

Disclosures of the safety dev set's train split (every ``--every``-th from ``--offset``), each answered in one
process by the default configuration twice: with ``safety.acknowledgment: llm`` and with ``fixed`` (one model
loaded, shared; which mode goes first alternates). Per item: whether the LLM's sentence stood (else the fixed one
did, and the trace says why), the crisis step's seconds and the whole turn's. Medians, and the median of each
item's fixed/llm turn ratio (the same machine, the same minute).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from empathygraph.config import load_config
from empathygraph.eval.safety_set import load_messages
from empathygraph.session import Empathizer

MODES = ("llm", "fixed")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=10)
    parser.add_argument("--offset", type=int, default=5)
    parser.add_argument("--every", type=int, default=97)
    args = parser.parse_args()
    items = [m for m in load_messages(splits={"train"}) if m.risk][args.offset :: args.every][: args.items]
    llm = Empathizer(load_config(overrides=["safety.acknowledgment=llm", "generators.speech=none",
                                            "generators.avatar=none"]))
    fixed = Empathizer(load_config(overrides=["safety.acknowledgment=fixed", "generators.speech=none",
                                              "generators.avatar=none"]), backbone=llm.backbone, toolbox=llm.toolbox)
    empathizers = {"llm": llm, "fixed": fixed}
    rows = []
    for i, message in enumerate(items):
        row: dict = {"id": message.id}
        for mode in MODES if i % 2 == 0 else MODES[::-1]:
            result = empathizers[mode].respond(message.text, session_id=f"ack-{mode}-{i}")
            step = result.last("crisis_protocol")
            row[mode] = {"protocol": step is not None, "turn_s": round(result.seconds, 2),
                         "crisis_step_s": round(step.latency_s, 2) if step else None,
                         "opening": result.reply.split(". ")[0], "notes": step.notes if step else []}
        row["llm_sentence_stood"] = row["llm"]["opening"] != row["fixed"]["opening"]
        rows.append(row)
        print(json.dumps(row), file=sys.stderr, flush=True)
    both = [r for r in rows if r["llm"]["protocol"] and r["fixed"]["protocol"]]
    print(json.dumps({
        "items": len(rows), "routed_to_protocol_both_ways": len(both),
        "llm_sentence_stood": sum(r["llm_sentence_stood"] for r in both),
        "crisis_step_s_median": {m: statistics.median(r[m]["crisis_step_s"] for r in both) for m in MODES},
        "turn_s_median": {m: statistics.median(r[m]["turn_s"] for r in both) for m in MODES},
        "fixed_over_llm_turn_median": round(statistics.median(r["fixed"]["turn_s"] / r["llm"]["turn_s"]
                                                              for r in both), 3),
        "llm_sentences_that_stood": [r["llm"]["opening"] for r in both if r["llm_sentence_stood"]],
    }, indent=2))


if __name__ == "__main__":
    main()
