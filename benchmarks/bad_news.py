"""How often replies greet bad news with delight: the text classifier's bad-news reading (``Cues.bad_news``)
and the ``cheers_bad_news`` check, over ED valid's first messages with their human listeners' replies, and
over stored graph replies (``replies.py run`` files). Prints one JSON object. The reading here is the sentence
encoder's alone; a turn on the embedded default blends the emotion probe into it first, so a turn's reading
can differ.

    .venv/bin/python benchmarks/bad_news.py [--replies ~/.cache/empathygraph/eval/replies/V.jsonl ...]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from empathygraph.agents.reply_checks import cheers_bad_news
from empathygraph.jsonl import iter_jsonl
from empathygraph.schemas import BAD_NEWS_MASS, NEGATIVE_COARSE
from empathygraph.tools.text_emotion import COARSE_LABELS, TextEmotionClassifier, coarse_distribution

SHARED_ED = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "empathetic_dialogues" / "ed_valid.jsonl"
SHOWN = 10


def negative_mass(classifier: TextEmotionClassifier, texts: list[str]) -> np.ndarray:
    """Each text's summed sadness, fear, anger and disgust, as ``TextEmotionCue.negative_mass`` reads it."""
    columns = [COARSE_LABELS.index(label) for label in NEGATIVE_COARSE]
    masses = []
    for start in range(0, len(texts), 64):
        _, probs = classifier.read(texts[start : start + 64])
        masses.append(coarse_distribution(probs, classifier.labels)[:, columns].sum(axis=1))
    return np.concatenate(masses) if masses else np.zeros(0)


def figures(classifier: TextEmotionClassifier, pairs: list[tuple[str, str]]) -> dict:
    """How many messages read as bad news, and the replies to them the check flags (a few shown)."""
    bad = negative_mass(classifier, [message for message, _ in pairs]) >= BAD_NEWS_MASS
    flagged = [(m, r) for (m, r), is_bad in zip(pairs, bad, strict=True) if is_bad and cheers_bad_news(r, True)]
    return {"messages": len(pairs), "read_as_bad_news": int(bad.sum()), "delighted_replies": len(flagged),
            "delighted_share": round(len(flagged) / max(1, int(bad.sum())), 4),
            "examples": [{"message": m, "reply": r} for m, r in flagged[:SHOWN]]}


def ed_pairs(path: Path) -> list[tuple[str, str]]:
    """(the speaker's first message, the human listener's first reply) of every ED conversation."""
    pairs = []
    for _, conversation, error in iter_jsonl(path):
        if error:
            continue
        dialog = conversation["dialog"]
        if len(dialog) > 1 and dialog[0]["speaker"] == "speaker":
            pairs.append((dialog[0]["text"], dialog[1]["text"]))
    return pairs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ed", type=Path, default=SHARED_ED, help="ED valid (jsonl)")
    parser.add_argument("--replies", type=Path, nargs="*", default=[], help="replies.py run files")
    args = parser.parse_args()
    if not args.ed.is_file():
        sys.exit(f"ED valid not found at {args.ed}")
    classifier = TextEmotionClassifier()
    report = {"bad_news_mass": BAD_NEWS_MASS, "ed_human_listeners": figures(classifier, ed_pairs(args.ed))}
    if args.replies:
        stored = [(row["text"], row["reply"]) for path in args.replies
                  for _, row, error in iter_jsonl(path) if not error]
        report["graph_replies"] = figures(classifier, stored)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
