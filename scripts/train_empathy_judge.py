"""Train the empathy judge on the shared EPITOME annotations and report its held-out scores.

Data: ``<data>/epitome/{emotional-reactions,interpretations,explorations}-reddit.csv``, the
same 3,084 Reddit (seeker post, response) rows in each file, each rated 0/1/2 for its
mechanism. Pairs repeated with the same ids (61 rows) keep their first rating.

Protocol: one split by seeker post (20 % of the posts held out, seed 0), so no post's
replies sit on both sides. On the training posts, grouped 5-fold cross-validation picks
the token pattern (words only, or words plus "?" and "!"), and per mechanism C and class
weighting, by macro-F1. The heads are fitted on the training posts, scored once on the
held-out posts, and shipped: the held-out figures are the shipped heads' own.

``--compare-embeddings`` adds, under the same cross-validation and held-out split, heads
over all-mpnet-base-v2 sentence embeddings of the response alone and of the pair
``[u, v, u*v, |u-v|]`` (post u, response v), and a 70/30 mix of the word and embedding
heads' probabilities. ``--ed N`` scores N human listener replies of ED valid (first
speaker turn, first listener reply) to show how the judge reads short replies.

    PYTHONPATH=. python scripts/train_empathy_judge.py --data ../shared/data --out empathygraph/eval/data/empathy_judge.npz

Measured for the shipped heads (603 held-out pairs of 596 posts; accuracy / macro-F1; always
answering the commonest training level: 0.652 / 0.491 / 0.864 accuracy; the run's whole output
is ``empathygraph/eval/data/empathy_judge_training.json``):

    words + ?!   (shipped)     reactions 0.776 / 0.702   interpretations 0.839 / 0.571   explorations 0.929 / 0.648

Word features alone took 15 minutes on 2 busy cores; ``--compare-embeddings`` embeds ~6,000 texts once
(cached under ``<home>/eval``; about 45 minutes on 2 busy cores) and fits ~200 heads.
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score, f1_score
from sklearn.model_selection import GroupKFold, GroupShuffleSplit
from sklearn.preprocessing import StandardScaler

from empathygraph.eval.judge import (
    LEVELS,
    MECHANISMS,
    TOKEN_PATTERN,
    EmpathyJudge,
    JudgeHeads,
    WordFeatures,
    empathy_figures,
    word_head,
)
from empathygraph.phrasing import normalize
from empathygraph.tools.text_emotion import DEFAULT_ENCODER, SentenceEncoder, cached_embeddings

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data"
FILES = {"emotional_reactions": "emotional-reactions", "interpretations": "interpretations",
         "explorations": "explorations"}
PATTERNS = {"words": r"(?u)\b\w\w+\b", "words+?!": TOKEN_PATTERN}  # scikit-learn's default, and the judge's
WORD_C = (1.0, 3.0, 10.0)
EMBEDDING_C = {"response": (0.003, 0.01), "pair": (0.001, 0.003)}
WEIGHTS = (None, "balanced")
MIX = 0.7  # share of the word heads' probabilities in the mixed recipe

# A recipe: fit on (rows, levels), return a function giving level probabilities for other rows.
Recipe = Callable[[np.ndarray, np.ndarray], Callable[[np.ndarray], np.ndarray]]


@dataclass
class Pair:
    post: str
    response: str
    levels: dict[str, int]


def squash(text: str) -> str:
    """Whitespace collapsed (the three files differ in the spacing of some posts)."""
    return re.sub(r"\s+", " ", text).strip()


def load_epitome(folder: Path) -> tuple[list[Pair], int]:
    """Pairs with a level per mechanism, in file order; and the number of repeated rows dropped."""
    tables = {m: list(csv.DictReader((folder / f"{stem}-reddit.csv").open(encoding="utf-8")))
              for m, stem in FILES.items()}
    rows = list(zip(*tables.values()))
    pairs: dict[tuple[str, str], Pair] = {}
    for row in rows:
        ids = {(r["sp_id"], r["rp_id"]) for r in row}
        if len(ids) != 1:
            raise SystemExit(f"the EPITOME files are not aligned row by row at {ids}")
        key = ids.pop()
        if key not in pairs:
            pairs[key] = Pair(squash(row[0]["seeker_post"]), squash(row[0]["response_post"]),
                              {m: int(r["level"]) for m, r in zip(FILES, row)})
    return list(pairs.values()), len(rows) - len(pairs)


def full_probabilities(clf: LogisticRegression, x) -> np.ndarray:
    """n x 3 level probabilities (a level missing from the training rows gets 0)."""
    out = np.zeros((x.shape[0], len(LEVELS)))
    out[:, clf.classes_] = clf.predict_proba(x)
    return out


def word_recipe(pattern: str, c: float, weight: str | None) -> tuple[Recipe, Callable]:
    """TF-IDF + logistic regression over the response texts; also returns a builder of the shippable head."""
    def vectorizer() -> TfidfVectorizer:
        return TfidfVectorizer(ngram_range=(1, 2), min_df=2, sublinear_tf=True, lowercase=False,
                               preprocessor=normalize, token_pattern=pattern)

    def fit(texts: np.ndarray, y: np.ndarray):
        vec = vectorizer()
        clf = LogisticRegression(C=c, max_iter=3000, class_weight=weight).fit(vec.fit_transform(texts), y)
        return vec, clf

    def recipe(texts, y):
        vec, clf = fit(texts, y)
        return lambda new: full_probabilities(clf, vec.transform(new))

    return recipe, fit


def embedding_recipe(c: float, weight: str | None) -> Recipe:
    def recipe(x, y):
        scaler = StandardScaler().fit(x)
        clf = LogisticRegression(C=c, max_iter=3000, class_weight=weight).fit(scaler.transform(x), y)
        return lambda new: full_probabilities(clf, scaler.transform(new))

    return recipe


def out_of_fold(recipe: Recipe, x, y: np.ndarray, groups: np.ndarray, folds: int = 5) -> np.ndarray:
    """Grouped k-fold probabilities: each row predicted by a head that saw none of its post's rows."""
    probs = np.zeros((len(y), len(LEVELS)))
    for train, test in GroupKFold(folds).split(np.zeros(len(y)), y, groups):
        probs[test] = recipe(x[train], y[train])(x[test])
    return probs


def scores(gold: np.ndarray, probs: np.ndarray) -> dict[str, float]:
    pred = probs.argmax(axis=1)
    return {"accuracy": round(float(accuracy_score(gold, pred)), 4),
            "macro_f1": round(float(f1_score(gold, pred, labels=[0, 1, 2], average="macro", zero_division=0)), 4)}


def cv_grid(name: str, x, ys: dict[str, np.ndarray], groups, grid: dict[str, Recipe], cv: dict) -> dict[str, tuple]:
    """Cross-validate every recipe of ``grid`` per mechanism; keep each mechanism's best (macro-F1, key, probs)."""
    best: dict[str, tuple] = {}
    for key, recipe in grid.items():
        row = {}
        for m, y in ys.items():
            probs = out_of_fold(recipe, x, y, groups)
            row[m] = scores(y, probs)
            if row[m]["macro_f1"] > best.get(m, (-1.0,))[0]:
                best[m] = (row[m]["macro_f1"], key, probs)
        cv[f"{name} {key}"] = row
        print(f"  cv {name} {key:24s} mean macro-F1 {np.mean([r['macro_f1'] for r in row.values()]):.4f}  " + "  ".join(
            f"{m[:6]} {r['accuracy']:.3f}/{r['macro_f1']:.3f}" for m, r in row.items()), flush=True)
    return best


def ed_pairs(path: Path, limit: int) -> list[tuple[str, str]]:
    """(first speaker turn, first listener reply) of ``limit`` ED conversations spread over the file."""
    pairs = []
    for line in path.read_text(encoding="utf-8").splitlines():
        dialog = json.loads(line)["dialog"]
        if len(dialog) > 1 and dialog[0]["speaker"] == "speaker" and dialog[1]["speaker"] == "listener":
            pairs.append((dialog[0]["text"], dialog[1]["text"]))
    step = max(1, len(pairs) // limit)
    return pairs[::step][:limit]


def key_of(c: float, weight: str | None) -> str:
    return f"C={c:g} {weight or 'unweighted'}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=SHARED)
    parser.add_argument("--out", type=Path, default=None, help="write the heads here (npz)")
    parser.add_argument("--test-share", type=float, default=0.2)
    parser.add_argument("--compare-embeddings", action="store_true",
                        help=f"also cross-validate {DEFAULT_ENCODER} heads (response, pair) and a word/embedding mix")
    parser.add_argument("--ed", type=int, default=300, help="ED listener replies to score (0: none)")
    args = parser.parse_args()
    started = time.perf_counter()

    pairs, repeated = load_epitome(args.data / "epitome")
    posts, responses = [p.post for p in pairs], np.array([p.response for p in pairs], dtype=object)
    post_ids = {p: i for i, p in enumerate(dict.fromkeys(posts))}
    groups = np.array([post_ids[p] for p in posts])
    ys = {m: np.array([p.levels[m] for p in pairs]) for m in MECHANISMS}
    train, test = next(GroupShuffleSplit(n_splits=1, test_size=args.test_share, random_state=0)
                       .split(responses, groups=groups))
    ys_train = {m: y[train] for m, y in ys.items()}
    report: dict = {"pairs": len(pairs), "repeated_rows_dropped": repeated, "train_pairs": len(train),
                    "test_pairs": len(test), "train_posts": len(set(groups[train])), "test_posts": len(set(groups[test])),
                    "levels": {m: np.bincount(y, minlength=3).tolist() for m, y in ys.items()}, "cv": {}}

    # Word heads: token pattern chosen by mean macro-F1 over the mechanisms, C and weighting per mechanism.
    words_best = {name: cv_grid(name, responses[train], ys_train, groups[train],
                                {key_of(c, w): word_recipe(pattern, c, w)[0] for c in WORD_C for w in WEIGHTS},
                                report["cv"])
                  for name, pattern in PATTERNS.items()}
    pattern_name = max(words_best, key=lambda n: np.mean([b[0] for b in words_best[n].values()]))
    chosen = {m: {"recipe": f"{pattern_name} {key}", "cv_macro_f1": f1} for m, (f1, key, _) in words_best[pattern_name].items()}
    if pattern_name != "words+?!":
        raise SystemExit(f"cross-validation prefers '{pattern_name}'; the judge's WordFeatures read '{TOKEN_PATTERN}'")

    heads, held_out, test_probs = {}, {}, {}
    for m, y in ys.items():
        c, weight = next((c, w) for c in WORD_C for w in WEIGHTS if key_of(c, w) == words_best[pattern_name][m][1])
        vec, clf = word_recipe(TOKEN_PATTERN, c, weight)[1](responses[train], y[train])
        weights = np.zeros((len(LEVELS), len(vec.vocabulary_)), np.float32)
        bias = np.full(len(LEVELS), -1e4, np.float32)
        weights[clf.classes_], bias[clf.classes_] = clf.coef_, clf.intercept_
        terms = sorted(vec.vocabulary_, key=vec.vocabulary_.get)
        words = WordFeatures(terms, vec.idf_.astype(np.float32))
        if not np.allclose(words.transform(list(responses[test[:50]])), vec.transform(responses[test[:50]]).toarray(),
                           atol=1e-5):
            raise SystemExit("WordFeatures.transform does not reproduce the vectorizer")
        heads[m] = (words, word_head(weights, bias, c))
        test_probs[m] = full_probabilities(clf, vec.transform(responses[test]))
        majority = np.bincount(y[train], minlength=3).argmax()
        held_out[m] = {**scores(y[test], test_probs[m]), "majority_accuracy": round(float(np.mean(y[test] == majority)), 4),
                       "mean_gold": round(float(y[test].mean()), 3),
                       "mean_predicted": round(float(test_probs[m].argmax(axis=1).mean()), 3), **chosen[m]}
    report["held_out"] = {"words+?! (shipped)": held_out}
    # The three heads share one vocabulary only if the training rows are the same: they are.
    vocabularies = {tuple(w.terms) for w, _ in heads.values()}
    assert len(vocabularies) == 1
    judge_heads = JudgeHeads(next(iter(heads.values()))[0], {m: h for m, (_, h) in heads.items()}, {})

    if args.compare_embeddings:
        encoder = SentenceEncoder(DEFAULT_ENCODER)
        u, v = (embed(encoder, texts) for texts in (posts, list(responses)))
        held_out_embeddings = {}
        for kind, x in {"response": v, "pair": np.concatenate([u, v, u * v, np.abs(u - v)], axis=1)}.items():
            best = cv_grid(kind, x[train], ys_train, groups[train],
                           {key_of(c, w): embedding_recipe(c, w) for c in EMBEDDING_C[kind] for w in WEIGHTS},
                           report["cv"])
            rows, mixed_cv, mixed_test = {}, {}, {}
            for m, (f1, key, probs) in best.items():
                c, weight = next((c, w) for c in EMBEDDING_C[kind] for w in WEIGHTS if key_of(c, w) == key)
                kind_probs = embedding_recipe(c, weight)(x[train], ys[m][train])(x[test])
                rows[m] = {**scores(ys[m][test], kind_probs), "recipe": f"{kind} {key}", "cv_macro_f1": f1}
                mixed_cv[m] = scores(ys[m][train], MIX * words_best[pattern_name][m][2] + (1 - MIX) * probs)
                mixed_test[m] = scores(ys[m][test], MIX * test_probs[m] + (1 - MIX) * kind_probs)
            held_out_embeddings[f"{kind} embedding"] = rows
            report["cv"][f"mix {MIX:g} words+?! / {kind} embedding"] = mixed_cv
            held_out_embeddings[f"mix {MIX:g} words+?! / {kind} embedding"] = mixed_test
        report["held_out"] |= held_out_embeddings

    report["cv_mean_macro_f1"] = {name: round(float(np.mean([r["macro_f1"] for r in row.values()])), 4)
                                  for name, row in report["cv"].items()}
    judge = EmpathyJudge(judge_heads)
    test_scores = judge.score_many([(posts[i], responses[i]) for i in test])
    report["domain"] = {"epitome_held_out_responses": {
        **empathy_figures(test_scores), "words": round(float(np.mean([len(responses[i].split()) for i in test])), 1),
        "gold_score": round(float(sum(ys[m][test].mean() for m in MECHANISMS)), 3)}}
    if args.ed:
        ed = ed_pairs(args.data / "empathetic_dialogues" / "ed_valid.jsonl", args.ed)
        report["domain"]["ed_listener_replies"] = {**empathy_figures(judge.score_many(ed)),
                                                   "words": round(float(np.mean([len(r.split()) for _, r in ed])), 1)}

    info = {"data": "EPITOME Reddit (Sharma et al., EMNLP 2020), shared/data/epitome, research use",
            "features": f"TF-IDF of the response, words and word pairs, token pattern {TOKEN_PATTERN!r}",
            "split": f"GroupShuffleSplit by seeker post, test_size {args.test_share}, seed 0",
            "train_pairs": len(train), "test_pairs": len(test), "held_out": held_out}
    if args.out:
        JudgeHeads(judge_heads.words, judge_heads.heads, info).save(args.out)
        report["wrote"] = f"{args.out} ({args.out.stat().st_size // 1024} KB, {len(judge_heads.words.terms)} terms)"
    report["seconds"] = round(time.perf_counter() - started, 1)
    print(json.dumps(report, indent=1))


def embed(encoder: SentenceEncoder, texts: list[str]) -> np.ndarray:
    """Embeddings of ``texts``, each unique text encoded once and cached on disk."""
    unique = sorted(set(texts))
    emb = cached_embeddings(encoder.name, unique, encoder)
    index = {t: i for i, t in enumerate(unique)}
    return emb[[index[t] for t in texts]]


if __name__ == "__main__":
    main()
