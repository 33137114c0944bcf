"""Train the risk classifier (a tuned top of the text encoder) and report it on data it never saw.

Data, all from the project's own safety set (``benchmarks/data/safety``, written for this
purpose) unless said: the train split (70% of each training writer's items by a hash of the
id or contrast pair); negative conversations' turns; the sentences of multi-sentence
negatives (so a sentence scored alone is calibrated too); and ordinary first messages of the
shared EmpatheticDialogues training split as extra negatives (any that a crisis phrase matches is
left out rather than guessed; ``--ed-painful`` adds more of painful emotions only). Reported: the
held-out split (30% of each training writer) and the exam writers held out whole.

Model: the frozen all-mpnet-base-v2 runs once over every text and its token states after layer
``--start`` are cached on disk; copies of the layers above get LoRA deltas and retrained layer
norms, then mean pooling and five sigmoid outputs (any risk, then each category). For
comparison the same data trains a logistic regression on the frozen sentence embedding.

Thresholds are recall-first and set on writers the scoring model never saw: the training
writers are dealt into ``--folds`` groups (four by default: each fold top trains on about three quarters of the
writers, the shipped one on all, so these thresholds lean cautious; with two, on half, they leaned further:
0.0381 against 0.0648 on writers a-s, 1.0 recall at 0.53 false alarms on held-out); for each group a top is trained on the other
writers and scores that group's train items (the run-time scoring: the highest probability
over the message and, for a long one, its sentences; the shipped thresholds were set when every
multi-sentence message's sentences were scored). On the pooled out-of-writer scores ``threshold`` keeps
``--recall`` of the disclosures and ``gray`` (the LLM's second-opinion band, and the careful
session's threshold) keeps ``--gray-recall``; the shipped top is then trained on all of the
train split. (A share of the same writers' items promised 0.986 recall where the held-out
split gave 0.921: new phrasings score lower than the writers' own.)

    python scripts/train_risk_classifier.py --out empathygraph/tools/data/risk_top.npz

or the same in two parts side by side (the second waits for the first's thresholds):

    python scripts/train_risk_classifier.py --folds-only > folds.json
    python scripts/train_risk_classifier.py --thresholds folds.json --out empathygraph/tools/data/risk_top.npz
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import torch
from torch import nn

from empathygraph.eval.safety_set import (
    FIRST_WRITERS,
    SafetyConversation,
    SafetyMessage,
    load_conversations,
    load_messages,
)
from empathygraph.paths import default_home
from empathygraph.schemas import EMOTION_VALENCE_AROUSAL
from empathygraph.tools import safety
from empathygraph.tools.encoder_top import TopFile, TunedTop, save_top
from empathygraph.tools.risk_classifier import CATEGORIES, LABELS, sentences
from empathygraph.tools.risk_classifier import pieces as read_pieces  # message_scores names its own lists "pieces"
from empathygraph.tools.text_emotion import DEFAULT_ENCODER, SentenceEncoder

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
MAX_TOKENS = 160
CHUNK = 256


# ED emotions of pain (negative valence in the project's circumplex placements): their first messages are heavy
# feelings told without danger (grief, rage, fear, shame), the negatives a listening app hears most and a screen is
# likeliest to flag.
PAINFUL_EMOTIONS = frozenset(emotion.value for emotion, (valence, _) in EMOTION_VALENCE_AROUSAL.items() if valence < 0)


def ed_negatives(data: Path, count: int, seed: int = 0, painful: int = 0) -> list[SafetyMessage]:
    """``count`` first speaker messages of ED training conversations that no crisis phrase matches, then ``painful``
    more of those whose conversation is labelled with one of ``PAINFUL_EMOTIONS`` (drawn from the rest)."""
    path = data / "empathetic_dialogues" / "ed_train.jsonl"
    if count + painful <= 0 or not path.is_file():
        return []
    texts = []
    for line in path.read_text().splitlines():
        conv = json.loads(line)
        first = next((t["text"] for t in conv["dialog"] if t["speaker"] == "speaker"), None)
        if first and not safety.find(first):
            texts.append((conv["conv_id"], first, conv.get("emotion")))
    shuffled = list(texts)
    random.Random(seed).shuffle(shuffled)
    chosen = shuffled[:count]
    taken = {cid for cid, _, _ in chosen}
    more = [t for t in texts if t[2] in PAINFUL_EMOTIONS and t[0] not in taken]
    random.Random(seed + 1).shuffle(more)
    chosen += more[:painful]
    return [SafetyMessage(id=f"ed-{cid}", text=text, categories=(), kind="ed_everyday" if cid in taken else "ed_painful",
                          indirect=True, writer="ed") for cid, text, _ in chosen]


def negative(item_id: str, text: str, kind: str, writer: str) -> SafetyMessage:
    return SafetyMessage(id=item_id, text=text, categories=(), kind=kind, indirect=True, writer=writer)


def writer_folds(writers: list[str], folds: int) -> list[list[str]]:
    """The training writers dealt in sorted order into ``folds`` groups (each scored by a top trained without it)."""
    ordered = sorted(writers)
    return [ordered[k::folds] for k in range(min(folds, len(ordered)))]


class StateCache:
    """Token states after layer ``start`` and sentence embeddings of texts, made once and kept on disk.

    Each file holds a chunk of texts with their states; every file in the folder is read, so adding
    data encodes only the texts no earlier run encoded.
    """

    def __init__(self, encoder: SentenceEncoder, start: int) -> None:
        self.encoder, self.start = encoder, start
        self.folder = default_home() / "risk-states" / f"{encoder.name}-{start}"
        self.tokens: dict[str, torch.Tensor] = {}
        self.embedding: dict[str, np.ndarray] = {}
        for path in sorted(self.folder.glob("*.pt")):
            saved = torch.load(path, weights_only=False)  # our own cache files: tensors and a NumPy array
            if "texts" in saved:  # files of earlier runs did not name their texts
                self._keep(saved)

    def _keep(self, saved: dict) -> None:
        for text, tokens, embedding in zip(saved["texts"], saved["tokens"], saved["embedding"], strict=True):
            self.tokens[text], self.embedding[text] = tokens, embedding

    def ensure(self, texts: list[str]) -> None:
        todo = sorted(set(texts) - set(self.tokens))
        started = time.perf_counter()
        for k in range(0, len(todo), CHUNK):
            chunk = todo[k : k + CHUNK]
            path = self.folder / (hashlib.sha256(json.dumps(chunk).encode()).hexdigest()[:16] + ".pt")
            self._keep(self._encode(chunk, path))
            print(f"states {k + len(chunk)}/{len(todo)} ({time.perf_counter() - started:.0f} s)", flush=True)

    def _encode(self, chunk: list[str], path: Path) -> dict:
        tokens, embeddings = [], []
        for b in range(0, len(chunk), 32):
            batch = chunk[b : b + 32]
            states = self.encoder.states(batch)
            lengths = states.mask.sum(1)
            for j in range(len(batch)):
                tokens.append(states.hidden[self.start][j, : min(int(lengths[j]), MAX_TOKENS)].to(torch.float16).clone())
            embeddings += list(states.embedding)
        saved = {"texts": chunk, "tokens": tokens, "embedding": np.array(embeddings)}
        path.parent.mkdir(parents=True, exist_ok=True)
        torch.save(saved, path.with_suffix(".tmp"))
        path.with_suffix(".tmp").replace(path)
        return saved

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


def mean_probabilities(tops: list[TunedTop], cache: StateCache, texts: list[str]) -> np.ndarray:
    """The mean of ``tops``' probabilities over the cached states of ``texts``: an ensemble read as the shipped model reads it."""
    return np.mean([probabilities(top, cache, texts) for top in tops], axis=0)


def message_scores(score_texts, items: list[SafetyMessage]) -> np.ndarray:
    """Per message, the highest probabilities over what the screen reads of it (``pieces``: the message, and the
    sentences of a long one)."""
    pieces = [read_pieces(m.text) for m in items]
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


ScoreTexts = Callable[[list[str]], np.ndarray]  # texts -> n x labels probabilities


def conversation_items(conversations: list[SafetyConversation]) -> list[SafetyMessage]:
    """Conversations as the screen reads a session: a safe one's turns alone and its turns so far read
    together (negatives: dark topics that stay safe over several turns), and a risk conversation's turns
    so far from its risk turn on (disclosures). A risk conversation's turns alone are left out (the
    earlier ones are safe, the later ones may only make sense with them)."""
    out = []
    for c in conversations:
        for i, turn in enumerate(c.turns):
            so_far = " ".join(c.turns[: i + 1])
            if not c.risk:
                out.append(negative(f"{c.id}-{i}", turn, "conversation", c.writer))
                if i:
                    out.append(negative(f"{c.id}-so-far-{i}", so_far, "conversation_so_far", c.writer))
            elif c.risk_turn is not None and i >= c.risk_turn:
                out.append(SafetyMessage(id=f"{c.id}-so-far-{i}", text=so_far, categories=c.categories,
                                         kind="conversation_so_far", indirect=True, writer=c.writer))
    return out


def fit_items_for(left_out: set[str], train_split: list[SafetyMessage], conversations: list[SafetyConversation],
                  ed: list[SafetyMessage], sentence_cap: int) -> list[SafetyMessage]:
    """What a top trains on from the train items of all writers but ``left_out``: their messages, their
    conversations as the screen reads them, sentences of their multi-sentence negatives (the cap scaled to
    their share) and ``ed``."""
    items = [m for m in train_split if m.writer not in left_out]
    conv_items = conversation_items([c for c in conversations if c.writer not in left_out])
    sentence_negatives = [negative(f"{m.id}-s{i}", s, "sentence", m.writer)
                          for m in items if not m.risk for i, s in enumerate(sentences(m.text))]
    random.Random(1).shuffle(sentence_negatives)
    cap = round(sentence_cap * len(items) / max(1, len(train_split)))
    return items + ed + conv_items + sentence_negatives[:cap]


def out_of_writer_scores(fit: Callable[[set[str]], ScoreTexts], train_split: list[SafetyMessage],
                         folds: int) -> tuple[list[SafetyMessage], np.ndarray]:
    """Every train item scored by a model that ``fit`` trained without its writer's fold (``fit`` takes the left-out writers)."""
    writers = sorted({m.writer for m in train_split})
    scored, scores = [], []
    for group in writer_folds(writers, folds):
        print(f"fold without writers {', '.join(group)}", flush=True)
        score_texts = fit(set(group))
        held = [m for m in train_split if m.writer in group]
        scored += held
        scores.append(message_scores(score_texts, held))
    return scored, np.concatenate(scores)


def levels(scores: np.ndarray, positive: np.ndarray, recall: float, gray_recall: float,
           plain_recall: float) -> tuple[float, float, float]:
    """Over any-risk ``scores``: the threshold keeping ``recall`` of the disclosures, the gray band's keeping
    ``gray_recall`` (never above the threshold) and the plain level keeping ``plain_recall`` (never below it;
    above it a disclosure reads as plainly said)."""
    threshold = threshold_for_recall(scores, positive, recall)
    return (threshold, min(threshold, threshold_for_recall(scores, positive, gray_recall)),
            max(threshold, threshold_for_recall(scores, positive, plain_recall)))


def thresholds(scores: np.ndarray, items: list[SafetyMessage], recall: float, gray_recall: float,
               plain_recall: float) -> tuple[float, float, float]:
    """:func:`levels` of the any-risk column of ``scores`` over ``items``."""
    return levels(scores[:, 0], np.array([m.risk for m in items]), recall, gray_recall, plain_recall)


def linear_fit(cache: StateCache, items: list[SafetyMessage]) -> ScoreTexts:
    """A logistic regression on the frozen sentence embedding (the baseline the tuned top is compared with)."""
    from sklearn.linear_model import LogisticRegression

    model = LogisticRegression(C=4.0, max_iter=3000, class_weight={0: 1.0, 1: 2.0})
    model.fit(np.array([cache.embedding[m.text] for m in items]), [m.risk for m in items])

    def score_texts(texts: list[str]) -> np.ndarray:
        p = model.predict_proba(np.array([cache.embedding[t] for t in texts]))[:, 1]
        return np.repeat(p[:, None], len(LABELS), axis=1)

    return score_texts


# Optional keys of a thresholds file that say why its gray band is where it is (kept in the model's meta).
GRAY_NOTES = ("gray_out_of_writer_0995", "gray_why")


def read_thresholds(path: Path, wait_s: float = 3600.0) -> dict:
    """``threshold``, ``gray`` and ``out_of_writer`` from a ``--folds-only`` run's JSON, waiting until the
    file is complete (so the two parts can run side by side); a gray band set by hand there says why in
    ``GRAY_NOTES``.

    Raises:
        SystemExit: the file is still not complete JSON after ``wait_s``.
    """
    deadline = time.monotonic() + wait_s
    while True:
        try:
            text = path.read_text()
            found = json.loads(text[text.index("{"):])
            return {**{k: found[k] for k in ("threshold", "gray", "out_of_writer")},
                    **{k: found[k] for k in (*GRAY_NOTES, "plain") if k in found}}
        except (OSError, ValueError, KeyError):
            if time.monotonic() > deadline:
                raise SystemExit(f"{path}: no complete --folds-only result after {wait_s:.0f} s") from None
            time.sleep(30)


def evaluate(fit: Callable[[set[str]], ScoreTexts], train_split: list[SafetyMessage],
             checks: dict[str, list[SafetyMessage]], args: argparse.Namespace,
             given: Path | None = None, save_oow: Path | None = None) -> tuple[dict, ScoreTexts | None]:
    """The model on all train writers (unless ``--folds-only``) reported on ``checks`` at out-of-writer
    thresholds: computed here (their scores written to ``save_oow``), or ``given`` by a ``--folds-only`` run."""
    score_texts = None if args.folds_only else fit(set())
    if given is not None:
        result = read_thresholds(given)
    else:
        scored, scores = out_of_writer_scores(fit, train_split, args.folds)
        if save_oow:  # what train_risk_probe.py calibrates the averaged score with
            np.savez(save_oow, ids=np.array([m.id for m in scored]), scores=scores[:, 0])
        threshold, gray, plain = thresholds(scores, scored, args.recall, args.gray_recall, args.plain_recall)
        result = {"threshold": round(threshold, 4), "gray": round(gray, 4), "plain": round(plain, 4),
                  "out_of_writer": report(scores, scored, threshold)}
    if score_texts is not None:
        result.update({name: report(message_scores(score_texts, items), items, result["threshold"])
                       for name, items in checks.items()})
    return result, score_texts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=SHARED, help="the shared data folder (for ED negatives)")
    parser.add_argument("--ed", type=int, default=1500, help="ED first messages added as negatives (0: none)")
    parser.add_argument("--ed-painful", type=int, default=0,
                        help="more ED first messages added as negatives, of painful emotions only (heavy feelings, no danger)")
    parser.add_argument("--start", type=int, default=8, help="first encoder layer the tuned top copies")
    parser.add_argument("--rank", type=int, default=8)
    parser.add_argument("--seeds", type=int, default=1,
                        help="tops trained from seeds 0.. on the same data; the model is their mean (each fold too)")
    parser.add_argument("--fold-seeds", type=int, default=0,
                        help="seeds of each writer fold's top (0: --seeds); fewer make the thresholds in less time, "
                             "from noisier scores than the shipped mean's")
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--lr", type=float, default=5e-4)
    parser.add_argument("--risk-weight", type=float, default=2.0, help="weight of positive rows in the loss")
    parser.add_argument("--sentence-negatives", type=int, default=800, help="sentences of negatives trained on")
    parser.add_argument("--folds", type=int, default=4, help="writer groups for the out-of-writer thresholds")
    parser.add_argument("--folds-only", action="store_true",
                        help="only the out-of-writer scores (to compare settings without reading held-out data)")
    parser.add_argument("--thresholds", type=Path, default=None,
                        help="take the thresholds from this --folds-only run's output (waits for it) instead of the folds")
    parser.add_argument("--recall", type=float, default=0.98, help="out-of-writer recall the threshold keeps")
    parser.add_argument("--gray-recall", type=float, default=0.995, help="out-of-writer recall of the gray band")
    parser.add_argument("--plain-recall", type=float, default=0.8,
                        help="out-of-writer recall of the plain level (below it the protocol's words are tentative)")
    parser.add_argument("--save-oow", type=Path, default=None,
                        help="write the out-of-writer any-risk scores here (.npz: ids, scores; for train_risk_probe.py)")
    parser.add_argument("--out", type=Path, default=None, help="write the tuned top here")
    args = parser.parse_args()
    torch.set_num_threads(2)

    train_split = load_messages(splits={"train"})
    conversations = load_conversations(splits={"train"})
    checks: dict[str, list[SafetyMessage]] = {}
    if not args.folds_only:
        held_out = load_messages(splits={"held_out"})
        checks = {"held_out": held_out, "held_out_first_writers": [m for m in held_out if m.writer in FIRST_WRITERS],
                  "exam": load_messages(splits={"exam"})}
    ed = ed_negatives(args.data, args.ed, painful=args.ed_painful)

    def items_of(left_out: set[str]) -> list[SafetyMessage]:
        return fit_items_for(left_out, train_split, conversations, ed, args.sentence_negatives)

    encoder = SentenceEncoder(DEFAULT_ENCODER)
    cache = StateCache(encoder, args.start)
    scored = train_split + [m for items in checks.values() for m in items]
    cache.ensure([m.text for m in items_of(set())]
                 + [t for m in scored for t in read_pieces(m.text)])
    fitted: list[list[TunedTop]] = []

    def fit_top(left_out: set[str]) -> ScoreTexts:
        items = items_of(left_out)
        cache.ensure([m.text for m in items])  # a fold's capped share of sentence negatives differs from the whole's
        tops = []
        for seed in range(args.fold_seeds if left_out and args.fold_seeds else args.seeds):
            torch.manual_seed(seed)
            top = TunedTop(encoder.transformer, args.start, len(LABELS), rank=args.rank, alpha=2.0 * args.rank)
            train(top, cache, items, args.epochs, args.lr, args.risk_weight, seed=seed)
            tops.append(top)
        fitted.append(tops)
        return lambda texts: mean_probabilities(tops, cache, texts)

    tuned, _ = evaluate(fit_top, train_split, checks, args, given=args.thresholds, save_oow=args.save_oow)
    writers = sorted({m.writer for m in train_split})
    trained_on = (f"safety set train split ({len(items_of(set()))} texts from writers {', '.join(writers)}, "
                  f"ed = {args.ed} shared ED train first messages"
                  f"{f' and {args.ed_painful} more of painful emotions' if args.ed_painful else ''}); {args.seeds} seed(s); thresholds from "
                  f"out-of-writer scores ({args.folds} writer folds, each a mean of "
                  f"{f'{args.fold_seeds} seed(s)' if args.fold_seeds else 'as many seeds'})")
    result = {"encoder": DEFAULT_ENCODER, "start": args.start, "rank": args.rank, "seeds": args.seeds,
              "epochs": args.epochs,
              "lr": args.lr, "risk_weight": args.risk_weight, "trained_on": trained_on, **tuned,
              "linear_baseline_same_data": evaluate(lambda w: linear_fit(cache, items_of(w)), train_split, checks, args)[0]}
    print(json.dumps(result, indent=2))
    if args.out and not args.folds_only:
        save_ensemble(args.out, fitted[0], start=args.start,
                      meta={"threshold": tuned["threshold"], "gray": tuned["gray"], "plain": tuned.get("plain", 0.0),
                            "category_threshold": 0.3,
                            "trained_on": trained_on, **{k: tuned[k] for k in GRAY_NOTES if k in tuned},
                            "report": {k: result[k] for k in ("out_of_writer", "held_out", "held_out_first_writers",
                                                              "exam")}})


def save_ensemble(out: Path, tops: list[TunedTop], start: int, meta: dict) -> None:
    """The first top at ``out`` with ``meta`` naming the others (``<stem>_<k>.npz`` beside it) as members."""
    members = [f"{out.stem}_{k}.npz" for k in range(1, len(tops))]
    for top, path, top_meta in zip(tops, [out, *(out.parent / m for m in members)],
                                   [{**meta, "members": members}, *({"member_of": out.name} for _ in members)],
                                   strict=True):
        save_top(path, top, TopFile(labels=LABELS, encoder=DEFAULT_ENCODER, start=start, activation="sigmoid",
                                    meta=top_meta))


if __name__ == "__main__":
    main()
