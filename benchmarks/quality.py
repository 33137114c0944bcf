"""Quality benchmark: the graph and both baselines on fixed slices of the shared validation data.

Prints one JSON object: per system ``ed_emotion_acc``, ``esconv_strategy_acc``, ``dist2``,
``bleu2``, ``rougeL``, ``seconds_per_sample``, and the slice sizes. ED replies are scored
against the listener's first turn, ESConv replies against the supporter's reply. The shipped
text-emotion top is trained on ED train only, so ED valid is unseen by it (``HeldOutToolBox``
refuses a file it was trained on), and the fusion's example bank leaves out the evaluated
conversations. Predictions are cached under ``--out``, so a rerun resumes.

``replies`` holds, per dataset, the figures of each system's replies and of the human
replies to the same items (``human``): the EPITOME judge's 0-6 score and its three
mechanisms, the style figures (``eval/style.py``) and the harm heuristic's flag count.

    python benchmarks/quality.py --ed-limit 200 --esconv-limit 100
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from empathygraph.config import load_config
from empathygraph.eval.harness import SYSTEMS, Harness, evaluate, spread
from empathygraph.eval.heldout import HeldOutToolBox
from empathygraph.eval.judge import EmpathyJudge
from empathygraph.eval.loaders import load_dataset
from empathygraph.eval.report import HUMAN, columns

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def pick(result: dict, system: str, section: str, key: str) -> float | None:
    return result["systems"].get(system, {}).get(section, {}).get(key)


REPLY_FIGURES = {
    "empathy": ("score", "expected", "emotional_reactions", "interpretations", "explorations"),
    "style": ("understand_opening", "top_opening_share", "top_opening", "label_parroting", "names_a_label",
              "what_do_you_think_about", "generic_question", "specificity", "mean_words"),
    "harm": ("flagged",),
}


def reply_summary(result: dict) -> dict:
    """Per system and for the human replies: the judge's, style and harm figures (``n`` replies)."""
    out = {}
    for name, metrics in columns(result).items():
        if not metrics.get("style", {}).get("n"):
            continue
        row: dict = {"n": metrics["style"]["n"]}
        for section, keys in REPLY_FIGURES.items():
            row |= {key: metrics.get(section, {}).get(key) for key in keys}
        out[name] = row
    return out


def at_least_one(text: str) -> int:
    """A slice size: a whole number of samples, at least 1 (both datasets are always scored)."""
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=SHARED)
    parser.add_argument("--ed-limit", type=at_least_one, default=200, help="ED conversations (first speaker turn each)")
    parser.add_argument("--esconv-limit", type=at_least_one, default=100, help="ESConv supporter replies")
    parser.add_argument("--systems", default=",".join(SYSTEMS))
    parser.add_argument("--config", type=Path, default=None)
    parser.add_argument("--out", type=Path, default=Path("runs/quality"))
    parser.add_argument("--emotion-examples", default="ed",
                        help="labelled messages the graph's emotion fusion shows the LLM: 'ed' (the shared ED valid "
                        "file; on ED the evaluated conversations are left out), "
                        "an ED-format file, or 'none'")
    parser.add_argument("--only-cached", action="store_true",
                        help="predict nothing; score the samples every system already finished (interrupted run)")
    args = parser.parse_args()
    if not args.data.is_dir():
        sys.exit(f"shared data not found at {args.data}")
    systems = [s for s in args.systems.split(",") if s]
    ed_path = args.data / "empathetic_dialogues" / "ed_valid.jsonl"
    bank = {"none": None, "ed": ed_path}.get(args.emotion_examples, Path(args.emotion_examples))
    config = load_config(args.config, [f"perception.emotion_examples={bank}"] if bank else [])
    ed_ids = [s.id for s in spread(load_dataset("ed", ed_path).samples, args.ed_limit)]
    ed_harness = Harness(config, toolbox=HeldOutToolBox(config.perception, ed_path, ed_ids))
    judge = EmpathyJudge()
    ed = evaluate(ed_harness, "ed", ed_path, args.out / "ed", systems=systems, limit=args.ed_limit, media=False,
                  only_cached=args.only_cached, judge=judge)
    esconv_harness = Harness(config, backbone=ed_harness.backbone)
    esconv = evaluate(esconv_harness, "esconv", args.data / "esconv" / "valid.jsonl", args.out / "esconv",
                      systems=systems, limit=args.esconv_limit, media=False, only_cached=args.only_cached, judge=judge)

    report: dict = {"slices": {"ed_conversations": ed["slice"]["n"], "esconv_supporter_turns": esconv["slice"]["n"]},
                    "backbone": ed["backbone"], "commit": ed["commit"], "emotion_examples": str(bank) if bank else None}
    for name in systems:
        ed_n = ed["systems"][name]["n"]
        es_n = esconv["systems"][name]["n"]
        seconds = [r["systems"][name].get("cost", {}).get("seconds_per_sample") for r in (ed, esconv)]
        report[name] = {
            "ed_emotion_acc": pick(ed, name, "emotion", "accuracy"),
            "ed_emotion_macro_f1": pick(ed, name, "emotion", "macro_f1"),
            "esconv_strategy_acc": pick(esconv, name, "strategy", "accuracy"),
            "dist2": pick(ed, name, "generation", "dist2"),
            "bleu2": pick(ed, name, "generation", "bleu2"),
            "rougeL": pick(ed, name, "generation", "rougeL"),
            "esconv_bleu2": pick(esconv, name, "generation", "bleu2"),
            "esconv_rougeL": pick(esconv, name, "generation", "rougeL"),
            "esconv_dist2": pick(esconv, name, "generation", "dist2"),
            "seconds_per_sample": round(sum(s * n for s, n in zip(seconds, (ed_n, es_n)) if s) / (ed_n + es_n), 3)
            if any(seconds) else None,
            "seconds_median": {r["dataset"]: r["systems"][name].get("cost", {}).get("seconds_median") for r in (ed, esconv)},
            "errors": ed["systems"][name]["errors"] + esconv["systems"][name]["errors"],
        }
    report["replies"] = {r["dataset"]: reply_summary(r) for r in (ed, esconv)}
    report["replies_note"] = (f"'{HUMAN}': the dataset's own listener replies to the same items; label parroting "
                              "uses each system's predicted emotion and, for humans, ED's gold label (none on ESConv)")
    print(json.dumps(report))


if __name__ == "__main__":
    main()
