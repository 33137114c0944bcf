"""Train the choice screen: does a message tell of a choice of the person's own that could hurt them or others?

Data: ``benchmarks/data/choices/choices_<writer>.jsonl`` (the project's own writing: half harmful
or seriously risky choices, done or planned, often asking for approval; half fine choices on the
same topics and good news, a third of them asking for approval too), plus ``--ed`` first messages
of the shared EmpatheticDialogues training split as everyday negatives. Features (``--reader``):
``probe``, the embedded backbone's mean hidden state at ``--layer`` over the words, read as a turn
reads it for the risk and emotion probes (cached under ``~/.cache/empathygraph/probe-states/``,
~0.5 s a text on 2 cores); or ``encoder``, the frozen sentence embedding the text-emotion tool
computes (``SentenceEncoder.encode``), the reader for backbones without hidden states. Model: a
standardised logistic regression, C chosen out of writer among ``--c``.

Calibration is out of writer: each writer's messages are scored by a model fitted without them,
and the threshold keeps ``--recall`` of the harmful choices there. Reported at that threshold, on
data none of the models trained on: the replies benchmark's sets (``benchmarks/data/replies``:
its requests to approve something harmful, its everyday messages and the rest of its tricky ones)
and ED validation first messages.

    .venv/bin/python scripts/train_choice_screen.py --reader probe --out empathygraph/tools/data/choice_probe.npz
    .venv/bin/python scripts/train_choice_screen.py --reader encoder --out empathygraph/tools/data/choice_screen.npz

Measured 2026-12-02 (writers u, v, w; 1,000 ED negatives): false flags out of writer at 0.9 / 0.95
recall of the harmful choices 0.123 / 0.167 for the probe (C 0.1) against 0.407 / 0.583 for the
encoder (C 0.1): the sentence embedding barely tells a contrast pair's two choices apart.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from empathygraph.eval.loaders import load_ed
from empathygraph.jsonl import iter_jsonl
from empathygraph.tools.choice_screen import ChoiceProbe, ChoiceReadout, ChoiceScreen
from empathygraph.tools.text_emotion import DEFAULT_ENCODER, cached_embeddings

CHOICES = ROOT / "benchmarks" / "data" / "choices"
REPLIES = ROOT / "benchmarks" / "data" / "replies"
SHARED_ED = ROOT.parent / "shared" / "data" / "empathetic_dialogues"


def load_choices(folder: Path = CHOICES) -> list[dict]:
    """Every written message with its writer (the file's suffix)."""
    rows = []
    for path in sorted(folder.glob("choices_*.jsonl")):
        writer = path.stem.removeprefix("choices_")
        for line, row, error in iter_jsonl(path):
            if error:
                sys.exit(f"{path}:{line}: {error}")
            rows.append({**row, "writer": writer})
    if not rows:
        sys.exit(f"no choices_*.jsonl under {folder}")
    return rows


def ed_first_messages(path: Path, count: int) -> list[str]:
    """``count`` first speaker messages of an ED split, evenly spaced."""
    if count <= 0:
        return []
    if not path.is_file():
        sys.exit(f"shared ED data not found at {path} (or pass --ed 0)")
    texts = [s.text for s in load_ed(path).samples]
    step = max(1, len(texts) // count)
    return texts[::step][:count]


Features = Callable[[list[str]], np.ndarray]


def encoder_features() -> tuple[Features, dict]:
    """The text-emotion encoder's sentence embeddings (cached), and what a screen over them records."""
    return (lambda texts: cached_embeddings(DEFAULT_ENCODER, texts)), {"encoder": DEFAULT_ENCODER}


def probe_features(layer: int) -> tuple[Features, dict]:
    """The embedded backbone's states at ``layer`` over each text (cached), and what a probe over them records."""
    from empathygraph.backbones import make_backbone
    from empathygraph.backbones.config import BackboneConfig
    from empathygraph.eval.probe_states import ProbeStates

    backbone = make_backbone(BackboneConfig())
    states = ProbeStates(backbone, layer=layer)

    def read(texts: list[str]) -> np.ndarray:
        states.ensure(texts)
        return states.matrix(texts)

    return read, {"backbone": backbone.name, "layer": layer}


def fit(x: np.ndarray, y: np.ndarray, c: float, positive_weight: float, reads: dict) -> ChoiceReadout:
    from sklearn.linear_model import LogisticRegression

    mean, scale = x.mean(axis=0), x.std(axis=0) + 1e-6
    model = LogisticRegression(C=c, max_iter=3000, class_weight={0: 1.0, 1: positive_weight})
    model.fit((x - mean) / scale, y)
    kind = ChoiceProbe if "backbone" in reads else ChoiceScreen
    return kind(mean=mean, scale=scale, coef=model.coef_[0], intercept=float(model.intercept_[0]), threshold=0.5,
                **reads)


def threshold_at_recall(scores: np.ndarray, recall: float) -> float:
    """The highest threshold that keeps ``recall`` of the positives' ``scores``."""
    ordered = np.sort(scores)[::-1]
    return float(ordered[max(0, int(np.ceil(recall * len(ordered))) - 1)])


def out_of_writer(rows: list[dict], x: np.ndarray, ed_x: np.ndarray, c: float, weight: float, reads: dict) -> np.ndarray:
    """Each written message's score by a model fitted without its writer (ED negatives always in)."""
    writers = np.array([r["writer"] for r in rows])
    y = np.array([r["harmful"] for r in rows], dtype=int)
    scores = np.zeros(len(rows))
    for writer in sorted(set(writers)):
        keep = writers != writer
        model = fit(np.vstack([x[keep], ed_x]), np.concatenate([y[keep], np.zeros(len(ed_x), int)]), c, weight, reads)
        scores[~keep] = model.probabilities(x[~keep])
    return scores


def rates(flags: np.ndarray, y: np.ndarray) -> dict:
    pos, neg = y == 1, y == 0
    return {"items": len(y), "harmful": int(pos.sum()),
            "recall": round(float(flags[pos].mean()), 3) if pos.any() else None,
            "false_flags": round(float(flags[neg].mean()), 3) if neg.any() else None}


def replies_report(model: ChoiceReadout, features: Features) -> dict:
    """Flag rates on the replies benchmark's sets, none of it trained on: requests to approve harm are the
    positives; each other kind of message is reported on its own."""
    groups: dict[str, list[float]] = defaultdict(list)
    flagged: dict[str, list[str]] = defaultdict(list)
    for name in ("tricky", "everyday"):
        rows = [row for _, row, error in iter_jsonl(REPLIES / f"{name}.jsonl") if not error]
        scores = model.probabilities(features([r["text"] for r in rows]))
        for row, score in zip(rows, scores, strict=True):
            group = "everyday" if name == "everyday" else f"tricky {row['kind']}"
            groups[group].append(float(score >= model.threshold))
            if score >= model.threshold:
                flagged[group].append(row["text"][:80])
    return {group: {"items": len(v), "flagged": round(float(np.mean(v)), 3),
                    "examples": flagged[group][:4] if group != "tricky harmful_request" else []}
            for group, v in sorted(groups.items())}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reader", choices=["probe", "encoder"], default="probe")
    parser.add_argument("--layer", type=int, default=12, help="the backbone layer the probe reads")
    parser.add_argument("--ed", type=int, default=1000, help="ED training first messages added as negatives")
    parser.add_argument("--c", type=float, nargs="+", default=[0.01, 0.03, 0.1, 0.3], help="C values compared out of writer")
    parser.add_argument("--positive-weight", type=float, default=1.0)
    parser.add_argument("--recall", type=float, default=0.95, help="out-of-writer recall the threshold keeps")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()

    rows = load_choices()
    features, reads = probe_features(args.layer) if args.reader == "probe" else encoder_features()
    x = features([r["text"] for r in rows])
    y = np.array([r["harmful"] for r in rows], dtype=int)
    ed_x = features(ed_first_messages(SHARED_ED / "ed_train.jsonl", args.ed)) if args.ed else np.zeros((0, x.shape[1]))
    report: dict = {"writers": sorted({r["writer"] for r in rows}), "messages": len(rows), "ed_negatives": len(ed_x)}
    best = None
    for c in args.c:
        oow = out_of_writer(rows, x, ed_x, c, args.positive_weight, reads)
        threshold = threshold_at_recall(oow[y == 1], args.recall)
        found = rates(oow >= threshold, y)
        asks = np.array([bool(r.get("asks_approval")) for r in rows])
        found["false_flags_asking_approval"] = rates((oow >= threshold)[asks], y[asks])["false_flags"]
        report[f"out_of_writer C={c:g}"] = {"threshold": round(threshold, 4), **found}
        if best is None or found["false_flags"] < best[2]:
            best = (c, threshold, found["false_flags"])
    c, threshold, _ = best
    model = fit(np.vstack([x, ed_x]), np.concatenate([y, np.zeros(len(ed_x), int)]), c, args.positive_weight, reads)
    model = replace(model, threshold=threshold,
                    trained_on=f"benchmarks/data/choices writers {', '.join(report['writers'])} ({len(rows)} messages) "
                               f"+ {len(ed_x)} ED train first messages; C {c:g}; the threshold keeps {args.recall} "
                               "recall out of writer")
    report["chosen"] = {"c": c, "threshold": round(threshold, 4)}
    report["never_trained_on"] = replies_report(model, features)
    ed_valid = ed_first_messages(SHARED_ED / "ed_valid.jsonl", 500) if SHARED_ED.is_dir() else []
    if ed_valid:
        flags = model.probabilities(features(ed_valid)) >= threshold
        report["never_trained_on"]["ED valid first messages"] = {"items": len(ed_valid),
                                                                  "flagged": round(float(flags.mean()), 3)}
    if args.out:
        model.save(args.out)
        report["written"] = str(args.out)
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
