"""Train the ESConv strategy prior on ESConv train; report accuracy on ESConv valid.

Samples are the supporter replies that answer the seeker (see ``empathygraph.eval.loaders``).
Model selection (C) uses the valid split; the test split is never read.

    python scripts/train_strategy_prior.py --data ../shared/data --out empathygraph/agents/data/strategy_prior.npz
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression

from empathygraph.agents.strategy_prior import STRATEGIES, StrategyPrior, context_features
from empathygraph.eval.loaders import load_esconv
from empathygraph.eval.samples import Sample
from empathygraph.eval.systems import previous_strategy
from empathygraph.tools.term_weights import TermWeights, terms


def matrix(samples: list[Sample], vectorizer: TfidfVectorizer) -> np.ndarray:
    text = vectorizer.transform([s.text for s in samples]).toarray()
    extra = np.stack([context_features(previous_strategy(s), s.position) for s in samples])
    return np.hstack([text, extra]).astype(np.float32)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    parser.add_argument("--out", type=Path, default=Path("empathygraph/agents/data/strategy_prior.npz"))
    parser.add_argument("--c", type=float, nargs="+", default=[0.3, 1.0, 3.0])
    parser.add_argument("--min-df", type=int, default=3)
    args = parser.parse_args()

    train = load_esconv(args.data / "esconv" / "train.jsonl").samples
    valid = load_esconv(args.data / "esconv" / "valid.jsonl").samples
    vectorizer = TfidfVectorizer(analyzer=terms, min_df=args.min_df, sublinear_tf=True)
    vectorizer.fit([s.text for s in train])
    x_train, x_valid = matrix(train, vectorizer), matrix(valid, vectorizer)
    y_train = np.array([STRATEGIES.index(s.strategy) for s in train])
    y_valid = np.array([STRATEGIES.index(s.strategy) for s in valid])
    majority = np.bincount(y_train, minlength=len(STRATEGIES)).argmax()
    results = {}
    for c in args.c:
        clf = LogisticRegression(C=c, max_iter=3000).fit(x_train, y_train)
        results[c] = (float((clf.predict(x_valid) == y_valid).mean()), clf)
        print(json.dumps({"C": c, "valid_acc": round(results[c][0], 4)}))
    best = max(results, key=lambda c: results[c][0])
    clf = results[best][1]
    weight = np.zeros((len(STRATEGIES), x_train.shape[1]), np.float32)
    bias = np.full(len(STRATEGIES), -1e4, np.float32)
    for row, cls in enumerate(clf.classes_):
        weight[cls], bias[cls] = clf.coef_[row], clf.intercept_[row]
    prior = StrategyPrior(TermWeights(dict(vectorizer.vocabulary_), vectorizer.idf_.astype(np.float32)), weight, bias)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    prior.save(args.out)
    check = StrategyPrior.load(args.out)
    agree = np.mean([check.predict(s.text, previous_strategy(s), s.position)[0][0] == STRATEGIES[p]
                     for s, p in zip(valid[:300], clf.predict(x_valid[:300]))])
    print(json.dumps({
        "saved": str(args.out), "C": best, "valid_acc": round(results[best][0], 4),
        "majority_valid_acc": round(float((y_valid == majority).mean()), 4),
        "n_train": len(train), "n_valid": len(valid), "numpy_matches_sklearn": round(float(agree), 4),
        "vocabulary": len(vectorizer.vocabulary_), "bytes": args.out.stat().st_size,
    }))


if __name__ == "__main__":
    main()
