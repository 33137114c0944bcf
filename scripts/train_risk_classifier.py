"""Train the risk classifier (a tuned top of the text encoder) and report it on data it never saw.

Data, all from the project's own safety set (``benchmarks/data/safety``, written for this
purpose) unless said: the train split (70% of each training writer's items by a hash of the
id or contrast pair), less a calibration share (20% of it, again by hash) that only sets the
thresholds; negative conversations' turns; the sentences of multi-sentence negatives (so a
sentence scored alone is calibrated too); and ordinary first messages of the shared
EmpatheticDialogues training split as extra negatives (any that a crisis phrase matches is
left out rather than guessed). Reported: the held-out split (30% of each training writer) and
the exam writer held out whole.

Model: the frozen all-mpnet-base-v2 runs once over every text and its token states after layer
``--start`` are cached on disk; copies of the layers above get LoRA deltas and retrained layer
norms, then mean pooling and five sigmoid outputs (any risk, then each category). For
comparison the same data trains a logistic regression on the frozen sentence embedding.

Thresholds are recall-first, read off the calibration share with the run-time scoring (the
highest probability over the message and its sentences): ``threshold`` keeps ``--recall`` of
its disclosures, ``gray`` (the LLM's second-opinion band, and the careful session's
threshold) keeps ``--gray-recall``.

    python scripts/train_risk_classifier.py --out empathygraph/tools/data/risk_top.npz
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import time
from pathlib import Path

import numpy as np
import torch
from torch import nn

from empathygraph.eval.safety_set import SafetyMessage, load_conversations, load_messages
from empathygraph.paths import default_home
from empathygraph.tools import safety
from empathygraph.tools.encoder_top import TopFile, TunedTop, save_top
from empathygraph.tools.risk_classifier import CATEGORIES, LABELS, sentences
from empathygraph.tools.text_emotion import DEFAULT_ENCODER, SentenceEncoder

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
CALIBRATION_SHARE = 0.2
MAX_TOKENS = 160
CHUNK = 256


def ed_negatives(data: Path, count: int, seed: int = 0) -> list[SafetyMessage]:
    """``count`` first speaker messages of ED training conversations that no crisis phrase matches."""
    path = data / "empathetic_dialogues" / "ed_train.jsonl"
    if count <= 0 or not path.is_file():
        return []
    texts = []
    for line in path.read_text().splitlines():
        conv = json.loads(line)
        first = next((t["text"] for t in conv["dialog"] if t["speaker"] == "speaker"), None)
        if first and not safety.find(first):
            texts.append((conv["conv_id"], first))
    random.Random(seed).shuffle(texts)
    return [SafetyMessage(id=f"ed-{cid}", text=text, categories=(), kind="ed_everyday", indirect=True, writer="ed")
            for cid, text in texts[:count]]


def negative(item_id: str, text: str, kind: str, writer: str) -> SafetyMessage:
    return SafetyMessage(id=item_id, text=text, categories=(), kind=kind, indirect=True, writer=writer)


def calibration_part(item: SafetyMessage) -> bool:
    """The share of the train split that only sets thresholds (by a hash of the item's group)."""
    key = (item.group or item.id) + "#calibration"
    return int(hashlib.sha256(key.encode()).hexdigest()[:8], 16) / 0xFFFFFFFF < CALIBRATION_SHARE


class StateCache:
    """Token states after layer ``start`` and sentence embeddings of texts, made once and kept on disk."""

    def __init__(self, encoder: SentenceEncoder, start: int) -> None:
        self.encoder, self.start = encoder, start
        self.folder = default_home() / "risk-states" / f"{encoder.name}-{start}"
        self.tokens: dict[str, torch.Tensor] = {}
        self.embedding: dict[str, np.ndarray] = {}

    def ensure(self, texts: list[str]) -> None:
        todo = sorted(set(texts) - set(self.tokens))
        started = time.perf_counter()
        for k in range(0, len(todo), CHUNK):
            chunk = todo[k : k + CHUNK]
            path = self.folder / (hashlib.sha256(json.dumps(chunk).encode()).hexdigest()[:16] + ".pt")
            if not path.is_file():
                self._encode(chunk, path)
                print(f"states {k + len(chunk)}/{len(todo)} ({time.perf_counter() - started:.0f} s)", flush=True)
            saved = torch.load(path, weights_only=False)  # our own cache files: tensors and a NumPy array
            for text, tokens, embedding in zip(chunk, saved["tokens"], saved["embedding"], strict=True):
                self.tokens[text], self.embedding[text] = tokens, embedding

    def _encode(self, chunk: list[str], path: Path) -> None:
        tokens, embeddings = [], []
        for b in range(0, len(chunk), 32):
            batch = chunk[b : b + 32]
            states = self.encoder.states(batch)
            lengths = states.mask.sum(1)
            for j in range(len(batch)):
                tokens.append(states.hidden[self.start][j, : min(int(lengths[j]), MAX_TOKENS)].to(torch.float16).clone())
            embeddings += list(states.embedding)
        path.parent.mkdir(parents=True, exist_ok=True)
        torch.save({"tokens": tokens, "embedding": np.array(embeddings)}, path.with_suffix(".tmp"))
        path.with_suffix(".tmp").replace(path)

    def batch(self, texts: list[str]) -> tuple[torch.Tensor, torch.Tensor]:
        rows = [self.tokens[t].float() for t in texts]
        width = max(r.shape[0] for r in rows)
        hidden = torch.zeros(len(rows), width, rows[0].shape[1])
        mask = torch.zeros(len(rows), width, dtype=torch.long)
        for i, r in enumerate(rows):
            hidden[i, : r.shape[0]], mask[i, : r.shape[0]] = r, 1
        return hidden, mask


def targets(items: list[SafetyMessage]) -> torch.Tensor:
    return torch.tensor([[m.risk, *(c in m.categories for c in CATEGORIES)] for m in items], dtype=torch.float32)


def train(top: TunedTop, cache: StateCache, items: list[SafetyMessage], epochs: int, lr: float,
          risk_weight: float, seed: int = 0) -> None:
    """AdamW on the trainable parts, batches of similar length, positive rows weighted."""
    rng = random.Random(seed)
    torch.manual_seed(seed)
    params = [p for p in top.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(params, lr=lr, weight_decay=0.01)
    loss_fn = nn.BCEWithLogitsLoss(pos_weight=torch.full((len(LABELS),), risk_weight))
    started = time.perf_counter()
    for epoch in range(epochs):
        top.train()
        order = sorted(range(len(items)), key=lambda i: len(items[i].text) // 40 + rng.random())
        batches = [order[k : k + 16] for k in range(0, len(order), 16)]
        rng.shuffle(batches)
        total = 0.0
        for rows in batches:
            hidden, mask = cache.batch([items[i].text for i in rows])
            loss = loss_fn(top(hidden, mask), targets([items[i] for i in rows]))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss.item()
        print(f"epoch {epoch + 1}/{epochs}: loss {total / len(batches):.4f} ({time.perf_counter() - started:.0f} s)",
              flush=True)
    top.eval()


def probabilities(top: TunedTop, cache: StateCache, texts: list[str]) -> np.ndarray:
    out = []
    with torch.inference_mode():
        for k in range(0, len(texts), 64):
            out.append(torch.sigmoid(top(*cache.batch(texts[k : k + 64]))).numpy())
    return np.concatenate(out) if out else np.zeros((0, len(LABELS)))


def message_scores(score_texts, items: list[SafetyMessage]) -> np.ndarray:
    """Per message, the highest probabilities over the message and its sentences (as at run time)."""
    pieces = [[m.text, *sentences(m.text)] for m in items]
    flat = [t for p in pieces for t in p]
    probs = score_texts(flat)
    out, k = [], 0
    for p in pieces:
        out.append(probs[k : k + len(p)].max(axis=0))
        k += len(p)
    return np.array(out)


def threshold_for_recall(scores: np.ndarray, positive: np.ndarray, recall: float) -> float:
    """The highest threshold at which at least ``recall`` of the positives score at or above it."""
    ranked = np.sort(scores[positive])[::-1]
    return float(ranked[max(1, int(np.ceil(recall * len(ranked)))) - 1])


def report(scores: np.ndarray, items: list[SafetyMessage], threshold: float) -> dict:
    """Recall and false alarms of the classifier, of the patterns, and of both (the screen)."""
    risk = np.array([m.risk for m in items])
    fired = scores[:, 0] >= threshold
    patterns = np.array([bool(safety.find(m.text)) for m in items])
    either = fired | patterns
    per_category = {c.value: round(float(either[[c in m.categories for m in items]].mean()), 3)
                    for c in CATEGORIES if any(c in m.categories for m in items)}
    return {"messages": len(items), "risk": int(risk.sum()),
            "recall": round(float(either[risk].mean()), 3), "false_positive_rate": round(float(either[~risk].mean()), 3),
            "classifier_recall": round(float(fired[risk].mean()), 3),
            "classifier_false_positive_rate": round(float(fired[~risk].mean()), 3),
            "patterns_recall": round(float(patterns[risk].mean()), 3),
            "patterns_false_positive_rate": round(float(patterns[~risk].mean()), 3),
            "per_category_recall": per_category}


def linear_baseline(cache: StateCache, fit: list[SafetyMessage], calibration: list[SafetyMessage],
                    checks: dict[str, list[SafetyMessage]], recall: float) -> dict:
    """The same data and thresholds through a logistic regression on the frozen sentence embedding."""
    from sklearn.linear_model import LogisticRegression

    model = LogisticRegression(C=4.0, max_iter=3000, class_weight={0: 1.0, 1: 2.0})
    model.fit(np.array([cache.embedding[m.text] for m in fit]), [m.risk for m in fit])

    def score_texts(texts: list[str]) -> np.ndarray:
        p = model.predict_proba(np.array([cache.embedding[t] for t in texts]))[:, 1]
        return np.repeat(p[:, None], len(LABELS), axis=1)

    calibration_scores = message_scores(score_texts, calibration)
    threshold = threshold_for_recall(calibration_scores[:, 0], np.array([m.risk for m in calibration]), recall)
    return {"threshold": round(threshold, 4),
            **{name: report(message_scores(score_texts, items), items, threshold) for name, items in checks.items()}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=SHARED, help="the shared data folder (for ED negatives)")
    parser.add_argument("--ed", type=int, default=1500, help="ED first messages added as negatives (0: none)")
    parser.add_argument("--start", type=int, default=8, help="first encoder layer the tuned top copies")
    parser.add_argument("--rank", type=int, default=8)
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--lr", type=float, default=5e-4)
    parser.add_argument("--risk-weight", type=float, default=2.0, help="weight of positive rows in the loss")
    parser.add_argument("--sentence-negatives", type=int, default=800, help="sentences of negatives trained on")
    parser.add_argument("--recall", type=float, default=0.98, help="calibration recall the threshold keeps")
    parser.add_argument("--gray-recall", type=float, default=0.995, help="calibration recall of the gray band")
    parser.add_argument("--out", type=Path, default=None, help="write the tuned top here")
    args = parser.parse_args()
    torch.set_num_threads(2)

    train_split = load_messages(splits={"train"})
    fit_items = [m for m in train_split if not calibration_part(m)]
    calibration = [m for m in train_split if calibration_part(m)]
    checks = {"held_out": load_messages(splits={"held_out"}), "exam": load_messages(splits={"exam"})}
    conv_negatives = [negative(f"{c.id}-{i}", t, "conversation", c.writer)
                      for c in load_conversations(splits={"train"}) if not c.risk for i, t in enumerate(c.turns)]
    sentence_negatives = [negative(f"{m.id}-s{i}", s, "sentence", m.writer)
                          for m in fit_items if not m.risk for i, s in enumerate(sentences(m.text))]
    random.Random(1).shuffle(sentence_negatives)
    fit_items += ed_negatives(args.data, args.ed) + conv_negatives + sentence_negatives[: args.sentence_negatives]

    encoder = SentenceEncoder(DEFAULT_ENCODER)
    cache = StateCache(encoder, args.start)
    scored = calibration + [m for items in checks.values() for m in items]
    cache.ensure([m.text for m in fit_items] + [t for m in scored for t in [m.text, *sentences(m.text)]])

    top = TunedTop(encoder.transformer, args.start, len(LABELS), rank=args.rank, alpha=2.0 * args.rank)
    train(top, cache, fit_items, args.epochs, args.lr, args.risk_weight)

    def score_texts(texts: list[str]) -> np.ndarray:
        return probabilities(top, cache, texts)

    calibration_scores = message_scores(score_texts, calibration)
    positive = np.array([m.risk for m in calibration])
    threshold = threshold_for_recall(calibration_scores[:, 0], positive, args.recall)
    gray = min(threshold, threshold_for_recall(calibration_scores[:, 0], positive, args.gray_recall))
    writers = sorted({m.writer for m in fit_items})
    trained_on = (f"safety set train split minus calibration ({len(fit_items)} texts from writers {', '.join(writers)}; "
                  f"ed = {args.ed} shared ED train first messages); thresholds from {len(calibration)} calibration items")
    result = {
        "encoder": DEFAULT_ENCODER, "start": args.start, "rank": args.rank, "epochs": args.epochs,
        "trained_on": trained_on, "threshold": round(threshold, 4), "gray": round(gray, 4),
        "calibration": report(calibration_scores, calibration, threshold),
        **{name: report(message_scores(score_texts, items), items, threshold) for name, items in checks.items()},
        "linear_baseline_same_data": linear_baseline(cache, fit_items, calibration, checks, args.recall),
    }
    print(json.dumps(result, indent=2))
    if args.out:
        meta = {"threshold": threshold, "gray": gray, "category_threshold": 0.3, "trained_on": trained_on,
                "report": {k: result[k] for k in ("calibration", "held_out", "exam")}}
        save_top(args.out, top, TopFile(labels=LABELS, encoder=DEFAULT_ENCODER, start=args.start,
                                        activation="sigmoid", meta=meta))


if __name__ == "__main__":
    main()
