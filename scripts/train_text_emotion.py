"""Train the text-emotion reader (32 ED emotions) and report accuracy on data it never saw.

Data: the EmpatheticDialogues training split (``ed_train.jsonl``, 19,532 conversations): each
conversation's situation and every speaker turn, labelled with the conversation's emotion.
Never a test split. ED valid (2,770 conversations) is held out whole: nothing in this script
trains on it, and its first speaker utterances (the input the maintainers score) are where
the numbers below come from. Choices (C, epochs, rank, learning rate) are made on ``--dev``
training conversations held out of training (their first utterances), not on ED valid.

Stages (``--stage``):

- ``linear``: logistic regression over the frozen all-mpnet-base-v2 sentence embedding (what
  ``TextEmotionClassifier.embed`` returns), C chosen on dev, then refitted on all of ED train:
  the baseline, trained on the same texts as the tuned top.
- ``top``: the encoder's top layers tuned for emotion (``tools/encoder_top.py``): LoRA
  deltas on every linear map of layers ``--start``..11, their layer norms, mean pooling and a
  linear head, trained from token states the frozen lower layers computed once
  (``scripts/emotion_states.py``, cached under ``<home>/emotion-states``; ~2 h on 2 busy cores).
  Training resumes from its last checkpoint under ``<home>/emotion-train``.

    python scripts/train_text_emotion.py --stage linear
    python scripts/train_text_emotion.py --stage top --out empathygraph/tools/data/text_emotion_top.npz

Measured on ED valid first utterances (2,770; never trained on; top-1 / top-3 / coarse 7-way):

    linear, C 0.001 (chosen on dev), all 19,532 ED train first utterances       0.487 / 0.748 / 0.728
    top, start 10, rank 16, 3 epochs, first utterances of 18,032 (dev held out)  0.511 / 0.765 / 0.747
    top, the same on situation + first utterance (36,064 texts): shipped         0.514 / 0.776 / 0.751

On the 1,500 dev conversations (choices): linear 0.497 (C 0.001); top on first utterances 0.498 /
0.528 / 0.536 after epochs 1 / 2 / 3, on situation + first utterance 0.515 / 0.527 / 0.537. A top
from layer 8 was no better after one epoch (dev 0.498) at a third of the speed, and was stopped.
Time on 2 cores shared with other training: states ~2 h once; a top from layer 10 ~20 min an
epoch on 18k texts.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from emotion_states import CHUNK, States, load_states

from empathygraph.paths import default_home
from empathygraph.schemas import EDEmotion
from empathygraph.tools.text_emotion import MPNET, coarse_distribution, fit_head

LABELS = sorted(e.value for e in EDEmotion)


@dataclass(frozen=True)
class Conversation:
    conv_id: str
    emotion: str
    situation: str
    turns: list[str]  # the speaker's turns, first to last


def load_ed(path: Path) -> list[Conversation]:
    """The conversations of an ED-format JSONL file."""
    out = []
    for line in path.read_text().splitlines():
        c = json.loads(line)
        turns = [t["text"] for t in c["dialog"] if t["speaker"] == "speaker"]
        out.append(Conversation(c["conv_id"], c["emotion"], c["situation"], turns))
    return out


def corpus_texts(train: list[Conversation], valid: list[Conversation]) -> list[str]:
    """Every text the states are kept for, once each, in the order they were encoded (most needed first)."""
    order = [c.turns[0] for c in valid] + [c.turns[0] for c in train] + [c.situation for c in train]
    order += [t for c in train for t in c.turns[1:]] + [c.situation for c in valid]
    order += [t for c in valid for t in c.turns[1:]]
    return list(dict.fromkeys(order))


@dataclass
class Rows:
    """Texts (as indices into the corpus) with their labels and conversation ids."""

    index: np.ndarray
    y: np.ndarray
    groups: np.ndarray


KINDS = {"first": lambda c: [c.turns[0]], "first+situation": lambda c: [c.situation, c.turns[0]],
         "all": lambda c: [c.situation, *c.turns]}  # fmt: skip


def rows_of(convs: list[Conversation], where: dict[str, int], kinds: str) -> Rows:
    """The texts of ``convs`` that ``kinds`` names (``KINDS``), each labelled with its conversation's emotion."""
    index, y, groups = [], [], []
    for c in convs:
        texts = KINDS[kinds](c)
        for text in texts:
            index.append(where[text])
            y.append(LABELS.index(c.emotion))
            groups.append(c.conv_id)
    return Rows(np.array(index), np.array(y), np.array(groups))


def scores(probs: np.ndarray, y: np.ndarray) -> dict:
    """Top-1, top-3 and coarse (7-way, probabilities summed over the fine labels) accuracy."""
    top = np.argsort(-probs, axis=1)[:, :3]
    coarse_pred = coarse_distribution(probs, LABELS).argmax(axis=1)
    coarse_gold = coarse_distribution(np.eye(len(LABELS))[y], LABELS).argmax(axis=1)
    return {"top1": round(float((top[:, 0] == y).mean()), 4), "top3": round(float((top == y[:, None]).any(1).mean()), 4),
            "coarse": round(float((coarse_pred == coarse_gold).mean()), 4), "n": len(y)}  # fmt: skip


def split_dev(train: list[Conversation], n_dev: int, seed: int = 0) -> tuple[list[Conversation], list[Conversation]]:
    """(fit, dev): ``n_dev`` training conversations held out for choices, the rest to fit on."""
    rng = np.random.default_rng(seed)
    dev = set(rng.choice(len(train), n_dev, replace=False).tolist())
    return [c for i, c in enumerate(train) if i not in dev], [c for i, c in enumerate(train) if i in dev]


# --- the linear baseline ---------------------------------------------------------------------


def run_linear(states: States, fit: Rows, dev: Rows, full: Rows, valid: Rows, cs: list[float]) -> dict:
    emb = states.embedding
    on_dev = {}
    for c in cs:
        head = fit_head(emb[fit.index], fit.y, LABELS, c, MPNET)
        on_dev[c] = scores(head.probabilities(emb[dev.index]), dev.y)
        print(json.dumps({"linear": "dev", "C": c, **on_dev[c]}), flush=True)
    best = max(on_dev, key=lambda c: on_dev[c]["top1"])
    head = fit_head(emb[full.index], full.y, LABELS, best, MPNET)
    result = {"linear": "valid", "C": best, "trained_on": f"ED train, {len(full.y)} texts", **scores(
        head.probabilities(emb[valid.index]), valid.y)}  # fmt: skip
    print(json.dumps(result), flush=True)
    return result


# --- the tuned top ---------------------------------------------------------------------------------


def _batch(states: States, index: np.ndarray, offsets: np.ndarray):
    import torch

    lengths = states.lengths[index]
    hidden = np.zeros((len(index), lengths.max(), states.tokens.shape[1]), np.float32)
    mask = np.zeros((len(index), lengths.max()), np.int64)
    for j, i in enumerate(index):
        hidden[j, : lengths[j]] = states.tokens[offsets[i] : offsets[i + 1]]
        mask[j, : lengths[j]] = 1
    return torch.from_numpy(hidden), torch.from_numpy(mask)


def batches(rows: Rows, lengths: np.ndarray, size: int, rng: np.random.Generator | None) -> list[np.ndarray]:
    """Batches of row positions, similar lengths together; shuffled when ``rng`` is given."""
    order = rng.permutation(len(rows.index)) if rng is not None else np.arange(len(rows.index))
    out = []
    for start in range(0, len(order), size * 50):  # sort within pools of 50 batches: less padding, still random
        pool = order[start : start + size * 50]
        pool = pool[np.argsort(lengths[rows.index[pool]], kind="stable")]
        out += [pool[k : k + size] for k in range(0, len(pool), size)]
    if rng is not None:
        out = [out[k] for k in rng.permutation(len(out))]
    return out


def predict(top, states: States, rows: Rows, bf16: bool = False) -> np.ndarray:
    import torch

    offsets, out = states.offsets, np.zeros((len(rows.index), len(LABELS)), np.float32)
    top.eval()
    with torch.inference_mode(), torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
        for b in batches(rows, states.lengths, 128, None):
            hidden, mask = _batch(states, rows.index[b], offsets)
            out[b] = torch.softmax(top(hidden, mask).float(), dim=-1).numpy()
    return out


def train_top(states: States, fit: Rows, checks: dict[str, Rows], args: argparse.Namespace):
    import torch

    from empathygraph.tools.encoder_top import TunedTop
    from empathygraph.tools.text_emotion import SentenceEncoder

    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    encoder = SentenceEncoder(MPNET).transformer
    top = TunedTop(encoder, args.start, len(LABELS), args.rank, args.alpha, args.dropout)
    params = [p for p in top.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(params, lr=args.lr, weight_decay=args.weight_decay)
    per_epoch = math.ceil(len(fit.index) / args.batch)
    total = per_epoch * args.epochs
    warmup = max(1, int(0.06 * total))
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda step: min(1.0, (step + 1) / warmup) * max(0.0, (total - step) / max(1, total - warmup))
    )
    run = default_home() / "emotion-train" / args.run
    run.mkdir(parents=True, exist_ok=True)
    step = 0
    if (run / "last.pt").is_file():  # resume
        saved = torch.load(run / "last.pt", weights_only=False)
        top.load_state_dict(saved["model"], strict=False)
        optimizer.load_state_dict(saved["optimizer"])
        schedule.load_state_dict(saved["schedule"])
        step = saved["step"]
        print(f"resumed {run} at step {step}/{total}", flush=True)
    offsets = states.offsets
    y = torch.from_numpy(fit.y)
    started, done_here, loss_sum = time.perf_counter(), 0, 0.0
    while step < total:
        epoch, k = divmod(step, per_epoch)
        plan = batches(fit, states.lengths, args.batch, np.random.default_rng(args.seed + epoch))
        top.train()
        for b in plan[k:]:
            hidden, mask = _batch(states, fit.index[b], offsets)
            with torch.autocast("cpu", dtype=torch.bfloat16, enabled=args.bf16):
                logits = top(hidden, mask)
            loss = torch.nn.functional.cross_entropy(logits.float(), y[b], label_smoothing=args.smoothing)
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(params, 1.0)
            optimizer.step()
            schedule.step()
            step, done_here, loss_sum = step + 1, done_here + len(b), loss_sum + loss.item()
            if step % 100 == 0:
                rate = done_here / (time.perf_counter() - started)
                print(f"step {step}/{total} loss {loss_sum / 100:.3f} {rate:.1f} texts/s "
                      f"~{(total - step) * args.batch / rate / 60:.0f} min left", flush=True)  # fmt: skip
                loss_sum = 0.0
            if step % 500 == 0 or step % per_epoch == 0:
                trainable = {n: p for n, p in top.state_dict().items() if _trainable(top, n)}
                torch.save({"model": trainable, "optimizer": optimizer.state_dict(),
                            "schedule": schedule.state_dict(), "step": step}, run / "last.tmp")  # fmt: skip
                (run / "last.tmp").replace(run / "last.pt")
            if step % per_epoch == 0:
                for name, rows in checks.items():
                    print(json.dumps({"top": name, "epoch": step // per_epoch, **scores(
                        predict(top, states, rows, bf16=True), rows.y)}), flush=True)  # fmt: skip
                top.train()
            if step >= total:
                break
    return top


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _trainable(top, name: str) -> bool:
    return name.startswith("head.") or ".a" == name[-2:] or ".b" == name[-2:] or "LayerNorm" in name


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    parser.add_argument("--stage", choices=("linear", "top"), required=True)
    parser.add_argument("--dev", type=int, default=1500, help="training conversations held out for choices")
    parser.add_argument(
        "--texts", choices=tuple(KINDS), default="all", help="which texts of a conversation to train on"
    )
    parser.add_argument("--full", action="store_true", help="top: train on all of ED train (dev included)")
    parser.add_argument("--c", type=float, nargs="+", default=[0.001, 0.002, 0.005, 0.01], help="linear: C values")
    parser.add_argument("--start", type=int, default=10, help="top: first tuned layer (states kept for 8, 10)")
    parser.add_argument("--rank", type=int, default=16)
    parser.add_argument("--alpha", type=float, default=32.0)
    parser.add_argument("--dropout", type=float, default=0.1)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--weight-decay", type=float, default=0.01)
    parser.add_argument("--smoothing", type=float, default=0.1)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--bf16", action=argparse.BooleanOptionalAction, default=True,
                        help="top: train in bfloat16 autocast (AMX); final scores are in float32")  # fmt: skip
    parser.add_argument("--run", default=None, help="top: checkpoint folder name (default from the settings)")
    parser.add_argument("--out", type=Path, default=None, help="top: write the trained top here")
    args = parser.parse_args()

    ed = args.data / "empathetic_dialogues"
    train, valid = load_ed(ed / "ed_train.jsonl"), load_ed(ed / "ed_valid.jsonl")
    texts = corpus_texts(train, valid)
    where = {t: i for i, t in enumerate(texts)}
    fit_convs, dev_convs = split_dev(train, args.dev)
    fit = rows_of(train if args.full else fit_convs, where, args.texts)
    dev, full = rows_of(dev_convs, where, "first"), rows_of(train, where, args.texts)
    valid_rows = rows_of(valid, where, "first")
    needed = max(full.index.max(), valid_rows.index.max()) + 1
    needed = math.ceil(needed / CHUNK) * CHUNK  # whole chunks, as they were encoded
    if args.stage == "linear":
        run_linear(load_states(texts[:needed]), rows_of(fit_convs, where, args.texts), dev, full, valid_rows, args.c)
        return
    states = load_states(texts[:needed], layer=args.start)
    args.run = args.run or (f"start{args.start}-r{args.rank}-lr{args.lr}-e{args.epochs}-d{args.dropout}"
                            f"-s{args.smoothing}-{args.texts}-{'full' if args.full else f'dev{args.dev}'}")  # fmt: skip
    checks = {} if args.full else {"dev": dev}
    top = train_top(states, fit, checks, args)
    result = {"top": "valid", "run": args.run, "trained_on": f"ED train, {len(fit.y)} texts",
              **scores(predict(top, states, valid_rows), valid_rows.y)}  # fmt: skip
    print(json.dumps(result), flush=True)
    if args.out:
        from empathygraph.tools.encoder_top import TopFile, save_top

        trained = train if args.full else fit_convs
        trained_on = {"files": {"empathetic_dialogues/ed_train.jsonl": _sha256(ed / "ed_train.jsonl")},
                      "conversations": len(trained), "texts": args.texts, "settings": args.run}  # fmt: skip
        save_top(args.out, top, TopFile(LABELS, MPNET, args.start, "softmax", {"trained_on": trained_on}))
        print(json.dumps({"saved": str(args.out), "bytes": args.out.stat().st_size}))


if __name__ == "__main__":
    main()
