"""Metrics: classification, response generation, cause spans, word errors and cost.

Classification uses scikit-learn, BLEU uses NLTK's corpus BLEU (method-1 smoothing),
ROUGE-L uses Google's rouge-score; none needs a download at run time.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
from nltk.translate.bleu_score import SmoothingFunction, corpus_bleu
from rouge_score import rouge_scorer
from sklearn.metrics import accuracy_score, confusion_matrix, f1_score

_TOKEN = re.compile(r"[a-z0-9']+|[^\sa-z0-9']", re.IGNORECASE)


def tokens(text: str) -> list[str]:
    """Lower-cased word and punctuation tokens."""
    return _TOKEN.findall(text.lower())


def classification(gold: Sequence[str], predicted: Sequence[str | None], labels: Sequence[str]) -> dict:
    """Accuracy, macro- and weighted-F1 and the confusion matrix; a missing prediction counts as wrong."""
    if not gold:
        return {"n": 0}
    pred = [p if p is not None else "(none)" for p in predicted]
    used = list(labels) + (["(none)"] if "(none)" in pred else [])
    present = sorted(set(gold), key=list(labels).index)  # macro-F1 over the classes the slice contains
    return {
        "n": len(gold),
        "accuracy": round(float(accuracy_score(gold, pred)), 4),
        "macro_f1": round(float(f1_score(gold, pred, labels=present, average="macro", zero_division=0)), 4),
        "weighted_f1": round(float(f1_score(gold, pred, labels=present, average="weighted", zero_division=0)), 4),
        "labels": used,
        "confusion": confusion_matrix(gold, pred, labels=used).tolist(),
    }


def distinct(replies: Sequence[str], n: int) -> float:
    """Corpus Dist-n: distinct n-grams over all n-grams of all replies."""
    grams = [tuple(t[i : i + n]) for r in replies for t in [tokens(r)] for i in range(len(t) - n + 1)]
    return round(len(set(grams)) / len(grams), 4) if grams else 0.0


def generation(references: Sequence[str], replies: Sequence[str]) -> dict:
    """BLEU-1/2/4, ROUGE-L F1, Dist-1/2 and average length of ``replies`` against ``references``."""
    if not replies:
        return {"n": 0}
    hyp = [tokens(r) for r in replies]
    ref = [[tokens(r)] for r in references]
    smooth = SmoothingFunction().method1
    scorer = rouge_scorer.RougeScorer(["rougeL"])
    weights = {"bleu1": (1.0,), "bleu2": (0.5, 0.5), "bleu4": (0.25, 0.25, 0.25, 0.25)}
    result: dict = {"n": len(replies)}
    for name, w in weights.items():
        result[name] = round(float(corpus_bleu(ref, hyp, weights=w, smoothing_function=smooth)), 4)
    result["rougeL"] = round(float(np.mean([scorer.score(r, h)["rougeL"].fmeasure for r, h in zip(references, replies)])), 4)
    result["dist1"], result["dist2"] = distinct(replies, 1), distinct(replies, 2)
    result["avg_length"] = round(float(np.mean([len(h) for h in hyp])), 2)
    return result


def _plain_words(text: str) -> list[str]:
    text = text.lower().replace("’", "'")
    return "".join(c if c.isalnum() or c.isspace() or c == "'" else " " for c in text).split()


def word_errors(reference: str, hypothesis: str) -> tuple[int, int]:
    """Return (word edit distance, reference length) lowercased, punctuation but apostrophes dropped; WER is their ratio."""
    ref, hyp = _plain_words(reference), _plain_words(hypothesis)
    d = list(range(len(hyp) + 1))
    for i, r in enumerate(ref, 1):
        prev, d[0] = d[0], i
        for j, h in enumerate(hyp, 1):
            prev, d[j] = d[j], min(d[j] + 1, d[j - 1] + 1, prev + (r != h))
    return d[len(hyp)], len(ref)


def span_overlap(predicted: str, gold: str) -> tuple[float, float]:
    """Token-overlap precision and recall of one predicted span against one gold span."""
    p, g = tokens(predicted), tokens(gold)
    if not p or not g:
        return 0.0, 0.0
    common = sum(min(p.count(t), g.count(t)) for t in set(p))
    return common / len(p), common / len(g)


def cause_spans(gold: Sequence[Sequence[str]], predicted: Sequence[Sequence[str]]) -> dict:
    """RECCON span P/R/F1: each predicted span is scored against its best gold span (token overlap).

    Per sample, precision and recall come from the best-matching (predicted, gold) pair; a sample
    with no prediction scores 0. Exact match counts a predicted span equal to a gold span.
    """
    if not gold:
        return {"n": 0}
    precision, recall, f1, exact = [], [], [], []
    for golds, preds in zip(gold, predicted):
        best = (0.0, 0.0)
        for p in preds:
            for g in golds:
                pr, rc = span_overlap(p, g)
                if 2 * pr * rc / (pr + rc or 1) > 2 * best[0] * best[1] / (best[0] + best[1] or 1):
                    best = (pr, rc)
        precision.append(best[0])
        recall.append(best[1])
        f1.append(2 * best[0] * best[1] / (best[0] + best[1]) if sum(best) else 0.0)
        exact.append(any(tokens(p) == tokens(g) for p in preds for g in golds))
    return {
        "n": len(gold),
        "precision": round(float(np.mean(precision)), 4),
        "recall": round(float(np.mean(recall)), 4),
        "f1": round(float(np.mean(f1)), 4),
        "exact_match": round(float(np.mean(exact)), 4),
    }


def cost(seconds: Sequence[float], llm_calls: Sequence[int], tokens_used: Sequence[int]) -> dict:
    """Mean seconds, LLM calls and tokens per sample."""
    if not seconds:
        return {"n": 0}
    return {
        "n": len(seconds),
        "seconds_per_sample": round(float(np.mean(seconds)), 3),
        "seconds_median": round(float(np.median(seconds)), 3),
        "llm_calls_per_sample": round(float(np.mean(llm_calls)), 2),
        "tokens_per_sample": round(float(np.mean(tokens_used)), 1),
        "total_seconds": round(float(np.sum(seconds)), 1),
    }
