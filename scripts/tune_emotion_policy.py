"""Choose the emotion-label policy on ED valid: when the classifier is unsure, who should decide?

On a tuning slice of ED valid that is disjoint from the quality benchmark's slice (and with a
text-emotion head refitted without both), compare on the items whose classifier confidence is
below ``--threshold``: the classifier's top-1, the LLM choosing among all 32 emotions, and the
LLM choosing among the classifier's top 3 or top 5. Prints one JSON object.

    python scripts/tune_emotion_policy.py --tune 300 --max-llm 30
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Literal

from langchain_core.messages import HumanMessage, SystemMessage
from pydantic import create_model

from empathygraph.agents.prompting import SYSTEM_PROMPT
from empathygraph.agents.structured import ask
from empathygraph.backbones import make_backbone
from empathygraph.config import load_config
from empathygraph.eval.harness import spread
from empathygraph.eval.heldout import HeldOutToolBox
from empathygraph.eval.loaders import load_dataset
from empathygraph.schemas import EDEmotion


def llm_label(backbone, text: str, cue_line: str, choices: list[str]) -> tuple[str | None, float]:
    schema = create_model("EmotionChoice", emotion=(Literal[tuple(choices)], ...))
    messages = [SystemMessage(content=SYSTEM_PROMPT), HumanMessage(content=(
        f'The person now says: "{text}"\nCues:\n- their words suggest: {cue_line}\n\n'
        f'Step: the emotion. JSON: "emotion" (one of: {", ".join(choices)}).'))]
    started = time.perf_counter()
    answer = ask(backbone, messages, schema, repair_attempts=1)
    return (answer.parsed.emotion if answer.parsed else None), time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    parser.add_argument("--bench", type=int, default=200, help="the quality benchmark's ED slice (excluded)")
    parser.add_argument("--tune", type=int, default=300, help="tuning conversations")
    parser.add_argument("--threshold", type=float, default=0.25)
    parser.add_argument("--max-llm", type=int, default=30, help="low-confidence items sent to the LLM")
    args = parser.parse_args()
    ed_path = args.data / "empathetic_dialogues" / "ed_valid.jsonl"
    samples = load_dataset("ed", ed_path).samples
    bench = {s.id for s in spread(samples, args.bench)}
    tune = spread([s for s in samples if s.id not in bench], args.tune)
    config = load_config(None, ["perception.text_emotion_top_k=32"])
    toolbox = HeldOutToolBox(config.perception, ed_path, bench | {s.id for s in tune})
    ranked = [(s, toolbox.text_emotion(s.text).top) for s in tune]
    hits = sum(top[0].label == s.emotion.value for s, top in ranked)
    low = [(s, top) for s, top in ranked if top[0].score < args.threshold]
    out: dict = {"tune_n": len(tune), "classifier_acc": round(hits / len(tune), 4), "threshold": args.threshold,
                 "low_confidence_share": round(len(low) / len(tune), 4)}
    probe = spread(low, args.max_llm)
    backbone = make_backbone(config.backbone)
    rows = {"classifier": 0, "llm_all32": 0, "llm_top3": 0, "llm_top5": 0}
    seconds = []
    for s, top in probe:
        cue_line = ", ".join(f"{t.label} {t.score:.2f}" for t in top[:3])
        rows["classifier"] += top[0].label == s.emotion.value
        label, sec = llm_label(backbone, s.text, cue_line, [e.value for e in EDEmotion])
        rows["llm_all32"] += label == s.emotion.value
        seconds.append(sec)
        for k in (3, 5):
            label, sec = llm_label(backbone, s.text, cue_line, [t.label for t in top[:k]])
            rows[f"llm_top{k}"] += label == s.emotion.value
            seconds.append(sec)
    out["low_confidence_probe_n"] = len(probe)
    out["low_confidence_acc"] = {k: round(v / max(len(probe), 1), 4) for k, v in rows.items()}
    out["llm_seconds_per_call"] = round(sum(seconds) / max(len(seconds), 1), 2)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
