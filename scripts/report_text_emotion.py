"""Report the shipped text-emotion top on data it never trained on: the dev conversations held out of
ED train and ED valid (first utterances). Prints JSON lines:

- its scores, and how sure it is: the share below each confidence and its accuracy there (the
  graph's emotion fusion asks the LLM below ``agents.classifier_min_confidence``);
- the coarse emotion from the summed probabilities against the coarse emotion of the top label;
- a mix with a linear head on the frozen embedding trained on the top's own training texts,
  its weight chosen on dev (a lever: is there anything the linear head knows that the top does not?).

    PYTHONPATH=. python scripts/report_text_emotion.py   # ~8 min on 2 busy cores (states cached)
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from emotion_states import CHUNK, load_states
from train_text_emotion import LABELS, Rows, corpus_texts, load_ed, predict, rows_of, scores, split_dev

from empathygraph.tools.encoder_top import LoadedTop
from empathygraph.tools.text_emotion import EMOTION_TOP_PATH, MPNET, SentenceEncoder, coarse_distribution, fit_head


def confidence_bands(probs: np.ndarray, y: np.ndarray, thresholds: tuple[float, ...] = (0.25, 0.35, 0.5)) -> list[dict]:
    """Per threshold: the share of rows the top is less sure of, and its top-1 / top-3 on them and on the rest."""
    sure = probs.max(axis=1)
    out = []
    for t in thresholds:
        low = sure < t
        out.append(
            {
                "below": t,
                "share": round(float(low.mean()), 3),
                "top1_below": scores(probs[low], y[low])["top1"],
                "top3_below": scores(probs[low], y[low])["top3"],
                "top1_above": scores(probs[~low], y[~low])["top1"],
            }
        )
    return out


def coarse_readings(probs: np.ndarray, y: np.ndarray) -> dict:
    """Coarse accuracy of the summed reading and of the top label's coarse emotion, overall and where the label is wrong."""
    gold = coarse_distribution(np.eye(len(LABELS))[y], LABELS).argmax(axis=1)
    summed = coarse_distribution(probs, LABELS).argmax(axis=1) == gold
    of_label = coarse_distribution(np.eye(len(LABELS))[probs.argmax(axis=1)], LABELS).argmax(axis=1) == gold
    wrong = probs.argmax(axis=1) != y
    return {
        "summed": round(float(summed.mean()), 4),
        "of_top_label": round(float(of_label.mean()), 4),
        "summed_where_label_wrong": round(float(summed[wrong].mean()), 4),
        "of_top_label_where_label_wrong": round(float(of_label[wrong].mean()), 4),
    }


def mixed(top: np.ndarray, linear: np.ndarray, w: float) -> np.ndarray:
    return (1 - w) * top + w * linear


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    parser.add_argument("--top", type=Path, default=EMOTION_TOP_PATH)
    args = parser.parse_args()
    top = LoadedTop(args.top, SentenceEncoder(MPNET).transformer)
    trained = top.info.meta["trained_on"]
    if top.info.labels != LABELS:
        raise SystemExit(f"{args.top}: labels are not in the order train_text_emotion.py writes")
    ed = args.data / "empathetic_dialogues"
    train, valid = load_ed(ed / "ed_train.jsonl"), load_ed(ed / "ed_valid.jsonl")
    texts = corpus_texts(train, valid)
    where = {t: i for i, t in enumerate(texts)}
    fit_convs, dev_convs = split_dev(train, 1500)
    if trained["conversations"] != len(fit_convs):
        raise SystemExit(
            f"{args.top} was trained on {trained['conversations']} conversations, not the dev split's rest"
        )
    fit = rows_of(fit_convs, where, trained["texts"])
    checks: dict[str, Rows] = {"dev": rows_of(dev_convs, where, "first"), "ed_valid": rows_of(valid, where, "first")}
    needed = max(fit.index.max(), checks["ed_valid"].index.max()) + 1
    states = load_states(texts[: -(-needed // CHUNK) * CHUNK], layer=top.info.start)
    linear = fit_head(states.embedding[fit.index], fit.y, LABELS, 0.001, MPNET)
    probs = {name: predict(top.top, states, rows) for name, rows in checks.items()}
    lin = {name: linear.probabilities(states.embedding[rows.index]) for name, rows in checks.items()}
    for name, rows in checks.items():
        print(
            json.dumps(
                {
                    "data": name,
                    "top": scores(probs[name], rows.y),
                    "linear_same_texts": scores(lin[name], rows.y),
                    "confidence": confidence_bands(probs[name], rows.y),
                    "coarse": coarse_readings(probs[name], rows.y),
                }
            ),
            flush=True,
        )
    dev = checks["dev"]
    w = max((0.0, 0.1, 0.2, 0.3, 0.4, 0.5), key=lambda w: scores(mixed(probs["dev"], lin["dev"], w), dev.y)["top1"])
    valid_rows = checks["ed_valid"]
    print(
        json.dumps(
            {
                "mix_weight_on_dev": w,
                "dev": scores(mixed(probs["dev"], lin["dev"], w), dev.y),
                "ed_valid": scores(mixed(probs["ed_valid"], lin["ed_valid"], w), valid_rows.y),
            }
        )
    )


if __name__ == "__main__":
    main()
