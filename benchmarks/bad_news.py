"""How often replies greet bad news with delight: the text classifier's bad-news reading (``Cues.bad_news``)
and the ``cheers_bad_news`` check, over ED valid's first messages with their human listeners' replies, and
over stored graph replies (``replies.py run`` files). Prints one JSON object. The reading is ``ToolBox.text_emotion``'s
without an LLM state: the encoder with the word reader (``--encoder-alone``: without it); a turn on the embedded
default blends the emotion probe in after them, so a turn's reading can differ. ``by_ed_label`` says how often
messages whose ED label is a negative feeling, and how often the others, read as bad news.

    .venv/bin/python benchmarks/bad_news.py [--encoder-alone] [--replies ~/.cache/empathygraph/eval/replies/V.jsonl ...]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from empathygraph.agents.reply_checks import cheers_bad_news
from empathygraph.eval.loaders import ed_first_exchanges
from empathygraph.jsonl import iter_jsonl
from empathygraph.schemas import BAD_NEWS_MASS, ED_TO_COARSE, NEGATIVE_COARSE, EDEmotion
from empathygraph.tools.config import PerceptionConfig
from empathygraph.tools.toolbox import ToolBox

SHARED_ED = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "empathetic_dialogues" / "ed_valid.jsonl"
SHOWN = 10


def negative_mass(toolbox: ToolBox, texts: list[str]) -> np.ndarray:
    """Each text's summed sadness, fear, anger and disgust, as ``TextEmotionCue.negative_mass`` reads it."""
    return np.array([cue.negative_mass() if (cue := toolbox.text_emotion(text)) else 0.0 for text in texts])


def figures(toolbox: ToolBox, rows: list[tuple[str, str, str]]) -> dict:
    """How many messages read as bad news, the replies to them the check flags (a few shown), and, where the rows
    carry an ED label, the share read as bad news among negative and among other labels."""
    bad = negative_mass(toolbox, [message for message, _, _ in rows]) >= BAD_NEWS_MASS
    flagged = [(m, r) for (m, r, _), is_bad in zip(rows, bad, strict=True) if is_bad and cheers_bad_news(r, True)]
    report = {"messages": len(rows), "read_as_bad_news": int(bad.sum()), "delighted_replies": len(flagged),
              "delighted_share": round(len(flagged) / max(1, int(bad.sum())), 4)}
    negative = np.array([bool(label) and ED_TO_COARSE[EDEmotion(label)].value in NEGATIVE_COARSE for _, _, label in rows])
    labelled = np.array([bool(label) for _, _, label in rows])
    if labelled.any():
        report["by_ed_label"] = {"negative_read_as_bad": round(float(bad[negative].mean()), 4),
                                 "others_read_as_bad": round(float(bad[labelled & ~negative].mean()), 4)}
    return report | {"examples": [{"message": m, "reply": r} for m, r in flagged[:SHOWN]]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ed", type=Path, default=SHARED_ED, help="ED valid (jsonl)")
    parser.add_argument("--replies", type=Path, nargs="*", default=[], help="replies.py run files")
    parser.add_argument("--encoder-alone", action="store_true", help="read without the word reader")
    args = parser.parse_args()
    if not args.ed.is_file():
        sys.exit(f"ED valid not found at {args.ed}")
    toolbox = ToolBox(PerceptionConfig(word_emotion=not args.encoder_alone))
    report = {"bad_news_mass": BAD_NEWS_MASS, "reader": "encoder alone" if args.encoder_alone else "encoder + words",
              "ed_human_listeners": figures(toolbox, ed_first_exchanges([args.ed]))}
    if args.replies:
        stored = [(row["text"], row["reply"], "") for path in args.replies
                  for _, row, error in iter_jsonl(path) if not error]
        report["graph_replies"] = figures(toolbox, stored)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
