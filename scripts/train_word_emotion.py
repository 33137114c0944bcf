"""Train the word-level emotion reader (``tools/word_emotion.py``) and the share it gets in the blend.

Data: as the text-emotion top (``scripts/train_text_emotion.py --texts first+situation``): each
ED **train** conversation's situation and first speaker utterance, labelled with its emotion,
except the ``--dev`` conversations held out there (same seed, the same 1,500). Choices (the
vocabulary's ``min_df``, C, and the share of the word reader in the product with the tuned
encoder top) are made on those dev conversations' first utterances, which neither model saw.
ED valid's 2,770 first utterances are read once, with the chosen setting, to report; ED test is
never read.

    python scripts/train_word_emotion.py --out empathygraph/tools/data/word_emotion.npz
    python scripts/train_word_emotion.py --min-df 3 --c 1 --shares 0.85 --with-probe 5

``--with-probe N`` also reads every N-th ED valid first utterance with the shipped emotion probe blended after
the word reader, as a turn on the embedded default does (the LLM's layer-12 states are read once into the
probe-states cache, ~0.5 s a text), and reports the encoder alone, with the words, with the probe and with both.

The encoder top's probabilities of the dev and valid texts are kept under
``<home>/word-emotion/`` (the encoder reads ~4,300 texts once; minutes on 2 cores).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path

import numpy as np
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression

sys.path.insert(0, str(Path(__file__).resolve().parent))

from train_text_emotion import LABELS, load_ed, scores, split_dev

from empathygraph.paths import default_home
from empathygraph.tools.term_weights import TermWeights, terms
from empathygraph.tools.text_emotion import TextEmotionClassifier
from empathygraph.tools.word_emotion import WordEmotionReader

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def encoder_probabilities(classifier: TextEmotionClassifier, texts: list[str]) -> np.ndarray:
    """The tuned top's probabilities (columns in ``LABELS`` order), cached on disk by the texts' hash."""
    key = hashlib.sha256(json.dumps([classifier.name, texts]).encode()).hexdigest()[:16]
    path = default_home() / "word-emotion" / f"encoder-{key}.npy"
    if path.is_file():
        return np.load(path)
    rows = [classifier.read(texts[k : k + 64])[1] for k in range(0, len(texts), 64)]
    probs = np.concatenate(rows)[:, [classifier.labels.index(label) for label in LABELS]]
    path.parent.mkdir(parents=True, exist_ok=True)
    np.save(path, probs)
    return probs


def product(encoder: np.ndarray, words: np.ndarray, share: float) -> np.ndarray:
    """The blend ``WordEmotionReader.blend`` computes, for many rows at once."""
    mixed = encoder * np.power(words, share)
    return mixed / mixed.sum(axis=1, keepdims=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=SHARED)
    parser.add_argument("--dev", type=int, default=1500, help="training conversations held out (as train_text_emotion.py)")
    parser.add_argument("--min-df", type=int, nargs="+", default=[2, 3])
    parser.add_argument("--c", type=float, nargs="+", default=[1.0, 3.0])
    parser.add_argument("--shares", type=float, nargs="+", default=[0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.85, 1.0])
    parser.add_argument("--with-probe", type=int, default=0, metavar="N",
                        help="also compare the blends with the emotion probe on every N-th ED valid first utterance")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()

    ed = args.data / "empathetic_dialogues"
    train, valid = load_ed(ed / "ed_train.jsonl"), load_ed(ed / "ed_valid.jsonl")
    fit, dev = split_dev(train, args.dev)
    texts = [text for c in fit for text in (c.situation, c.turns[0])]
    y = np.array([LABELS.index(c.emotion) for c in fit for _ in range(2)])
    dev_texts, dev_y = [c.turns[0] for c in dev], np.array([LABELS.index(c.emotion) for c in dev])
    valid_texts, valid_y = [c.turns[0] for c in valid], np.array([LABELS.index(c.emotion) for c in valid])
    classifier = TextEmotionClassifier()
    encoder_dev, encoder_valid = encoder_probabilities(classifier, dev_texts), encoder_probabilities(classifier, valid_texts)

    tried, best = [], None
    for min_df in args.min_df:
        vectorizer = TfidfVectorizer(analyzer=terms, min_df=min_df, sublinear_tf=True)
        x = vectorizer.fit_transform(texts)
        for c in args.c:
            started = time.time()
            model = LogisticRegression(C=c, max_iter=3000).fit(x, y)
            words_dev = model.predict_proba(vectorizer.transform(dev_texts))
            for share in args.shares:
                top1 = scores(product(encoder_dev, words_dev, share), dev_y)["top1"]
                row = {"min_df": min_df, "C": c, "share": share, "vocabulary": len(vectorizer.vocabulary_),
                       "words_alone_dev": scores(words_dev, dev_y)["top1"], "blend_dev": top1,
                       "fit_seconds": round(time.time() - started, 1)}
                tried.append(row)
                print(json.dumps(row), flush=True)
                if best is None or (top1, -row["vocabulary"]) > (best[0]["blend_dev"], -best[0]["vocabulary"]):
                    best = (row, vectorizer, model)  # a tie goes to the smaller vocabulary (a smaller file)
    assert best is not None
    chosen, vectorizer, model = best
    words_valid = model.predict_proba(vectorizer.transform(valid_texts))
    report = {"chosen": chosen, "encoder_alone_dev": scores(encoder_dev, dev_y),
              "valid": {"encoder_alone": scores(encoder_valid, valid_y), "words_alone": scores(words_valid, valid_y),
                        "blend": scores(product(encoder_valid, words_valid, chosen["share"]), valid_y)}}
    trained_on = (f"the situation and first utterance of {len(fit)} ED train conversations (the text-emotion top's "
                  f"fit split; {len(dev)} held out to choose min_df, C and the share)")
    weight = np.zeros((len(vectorizer.vocabulary_), len(LABELS)), np.float32)
    bias = np.full(len(LABELS), -1e4, np.float32)  # a label the fit never saw is never read
    for row, label in enumerate(model.classes_):
        weight[:, label], bias[label] = model.coef_[row], model.intercept_[row]
    words = TermWeights(dict(vectorizer.vocabulary_), vectorizer.idf_.astype(np.float32))
    reader = WordEmotionReader(words, list(LABELS), weight, bias, chosen["share"], {"trained_on": trained_on, **report})
    if args.with_probe:
        report["valid_with_probe"] = with_probe(reader, valid[:: args.with_probe], encoder_valid[:: args.with_probe])
    print(json.dumps({"trained_on": trained_on, **report}, indent=2))
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        reader.save(args.out)
        print(json.dumps({"wrote": str(args.out), "bytes": args.out.stat().st_size}))


def with_probe(reader: WordEmotionReader, convs: list, encoder: np.ndarray) -> dict:
    """First utterances of ``convs`` read four ways (``encoder``: the top's probabilities in ``LABELS`` order): the
    encoder alone, with the word reader, with the shipped emotion probe, and with both (words first, as a turn
    blends them), with how many read under the emotion fusion's confidence (the LLM then weighs the labels)."""
    from empathygraph.agents.config import AgentsConfig
    from empathygraph.backbones import make_backbone
    from empathygraph.backbones.config import BackboneConfig
    from empathygraph.eval.probe_states import ProbeStates
    from empathygraph.tools.emotion_probe import EmotionProbe

    probe = EmotionProbe.load()
    texts, y = [c.turns[0] for c in convs], np.array([LABELS.index(c.emotion) for c in convs])
    states = ProbeStates(make_backbone(BackboneConfig()), layer=probe.layer).matrix(texts)
    words = np.array([reader.blend(row, LABELS, text) for row, text in zip(encoder, texts, strict=True)])
    probed = [np.array([probe.blend(row, LABELS, state) for row, state in zip(rows, states, strict=True)])
              for rows in (encoder, words)]
    unsure_below = AgentsConfig().classifier_min_confidence
    return {name: {**scores(probs, y), "unsure": int((probs.max(axis=1) < unsure_below).sum())}
            for name, probs in (("encoder", encoder), ("encoder+words", words), ("encoder+probe", probed[0]),
                                ("encoder+words+probe", probed[1]))}


if __name__ == "__main__":
    main()
