"""Choose the emotion-label policy on ED valid: when the classifier is unsure, should the LLM overrule it?

On a tuning slice of ED valid that is disjoint from the quality benchmark's slice (the shipped
text-emotion top never saw ED valid; the example bank leaves out both slices), every item gets the classifier's ranking and the
embedded LLM's log-likelihood of each of the classifier's top ``--top-k`` labels, read in the
graph's own prompt (``emotion_fusion``). Items the classifier is sure of keep its label; below a
confidence threshold the fused label ``log p_classifier + w * log p_llm`` replaces it. For
each (threshold, weight) it reports accuracy and, where fusion changed the label, how often
that fixed an error (win) or broke a right answer (loss). ``--named N`` also asks the LLM to
name the emotion (the ``auto`` policy) on N low-confidence items. Prints one JSON object.

    python scripts/tune_emotion_policy.py --tune 225 --named 40
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from empathygraph.agents.emotion_cause import ANY_EMOTION, QUOTE_FREE, TASK_WITH_LABEL, LabelledCauseDraft
from empathygraph.agents.emotion_fusion import fuse, fusion_task
from empathygraph.agents.prompting import build_messages
from empathygraph.agents.structured import ask
from empathygraph.backbones import make_backbone
from empathygraph.config import load_config
from empathygraph.eval.harness import spread
from empathygraph.eval.heldout import HeldOutToolBox
from empathygraph.eval.loaders import load_dataset
from empathygraph.eval.probe_states import ProbeStates
from empathygraph.schemas import Cues
from empathygraph.state import TurnInput
from empathygraph.tools.emotion_probe import EmotionProbe

THRESHOLDS = (0.25, 0.35, 0.5, 1.01)
WEIGHTS = (0.3, 0.5, 1.0, 1.5, 3.0)


def grid(rows: list[dict]) -> list[dict]:
    """Accuracy, wins and losses of fusion for every threshold and weight."""
    results = []
    for threshold in THRESHOLDS:
        for weight in WEIGHTS:
            right = wins = losses = 0
            for row in rows:
                cue, gold, first = row["cue"], row["gold"], row["cue"].top[0].label
                label = first
                if cue.top[0].score < threshold:  # fuse() weighs as many labels as the LLM scored
                    label = fuse(cue, row["llm"], weight)[0].label
                right += label == gold
                wins += label != first and label == gold
                losses += label != first and first == gold
            results.append({"threshold": threshold, "weight": weight, "accuracy": round(right / len(rows), 4),
                            "wins": wins, "losses": losses})
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    parser.add_argument("--bench", type=int, default=120, help="the quality benchmark's ED slice (excluded)")
    parser.add_argument("--tune", type=int, default=225, help="tuning conversations")
    parser.add_argument("--top-k", type=int, default=3)
    parser.add_argument("--named", type=int, default=0, help="low-confidence items the LLM also names (auto policy)")
    parser.add_argument("--named-threshold", type=float, default=0.25)
    parser.add_argument("--config", type=Path, default=None, help="e.g. configs/fast.yaml (default: built-in)")
    parser.add_argument("--emotion-probe", action="store_true",
                        help="blend the shipped emotion probe into the classifier's ranking, as a turn on the default "
                             "backbone does (each message's hidden state read once, cached under probe-states)")
    parser.add_argument("--examples", action="store_true",
                        help="show the LLM the labelled ED messages most like each one (tune and bench items left out)")
    args = parser.parse_args()
    ed_path = args.data / "empathetic_dialogues" / "ed_valid.jsonl"
    samples = load_dataset("ed", ed_path).samples
    bench = {s.id for s in spread(samples, args.bench)}
    tune = spread([s for s in samples if s.id not in bench], args.tune)
    bank = [f"perception.emotion_examples={ed_path}"] if args.examples else []
    config = load_config(args.config, ["perception.text_emotion_top_k=32", *bank])
    toolbox = HeldOutToolBox(config.perception, ed_path, bench | {s.id for s in tune})
    backbone = make_backbone(config.backbone)
    rows, seconds = [], []
    states = ProbeStates(backbone, layer=EmotionProbe.load().layer) if args.emotion_probe else None
    for sample in tune:
        cue = toolbox.text_emotion(sample.text, llm_state=states.matrix([sample.text])[0] if states else None)
        state = {"turn": TurnInput(text=sample.text), "cues": Cues(words=sample.text, text_emotion=cue), "chat": []}
        options = [item.label for item in cue.top[: args.top_k]]
        messages = build_messages(state, fusion_task(options, toolbox.emotion_examples(sample.text)),
                                  history_turns=config.agents.history_turns)
        started = time.perf_counter()
        scores = backbone.scorer(messages, options)
        seconds.append(time.perf_counter() - started)
        rows.append({"gold": sample.emotion.value, "cue": cue, "llm": scores.logprobs, "state": state})
    classifier_hits = sum(r["cue"].top[0].label == r["gold"] for r in rows)
    out: dict = {"backbone": backbone.name, "emotion_probe": args.emotion_probe, "tune_n": len(rows), "top_k": args.top_k, "classifier_acc": round(classifier_hits / len(rows), 4),
                 "llm_alone_acc": round(sum(fuse(r["cue"], r["llm"], 1e6)[0].label == r["gold"] for r in rows)
                                        / len(rows), 4),
                 "scoring_seconds_median": round(sorted(seconds)[len(seconds) // 2], 3),
                 "fusion": grid(rows)}
    low = [r for r in rows if r["cue"].top[0].score < args.named_threshold][: args.named]
    if low:
        named = classifier = 0
        for row in low:
            task = TASK_WITH_LABEL.format(choices=ANY_EMOTION, quote=QUOTE_FREE)
            messages = build_messages(row["state"], task, history_turns=config.agents.history_turns)
            answer = ask(backbone, messages, LabelledCauseDraft, repair_attempts=1, max_tokens=96)
            draft = answer.parsed or answer.unchecked
            named += draft is not None and draft.emotion.value == row["gold"]
            classifier += row["cue"].top[0].label == row["gold"]
        out["llm_named_on_low_confidence"] = {"n": len(low), "threshold": args.named_threshold,
                                              "llm_acc": round(named / len(low), 4),
                                              "classifier_acc": round(classifier / len(low), 4)}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
