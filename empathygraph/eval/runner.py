"""Run a system over samples with a per-sample cache, then score what it predicted.

Each finished prediction is appended to a JSONL cache at once, so an interrupted run
resumes where it stopped. Server backbones get ``concurrency`` samples in flight (vLLM
batches them); in-process systems run one at a time.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from threading import Lock

from empathygraph.errors import EmpathyGraphError
from empathygraph.eval import metrics
from empathygraph.eval.harm import harm_figures
from empathygraph.eval.judge import EmpathyJudge, empathy_figures
from empathygraph.eval.samples import Sample
from empathygraph.eval.style import StyleItem, style_figures
from empathygraph.eval.systems import Prediction, System
from empathygraph.schemas import CoarseEmotion, EDEmotion, Strategy

Advance = Callable[[Prediction], None]


def fingerprint(*parts: object) -> str:
    """A short hash of what makes predictions comparable (system, configuration, data file)."""
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()[:10]


class PredictionCache:
    """Predictions of one system on one file, one JSON object per line, keyed by sample id."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = Lock()
        self.done: dict[str, Prediction] = {}
        if path.is_file():
            for line in path.read_text(encoding="utf-8").splitlines():
                if line.strip():
                    prediction = Prediction.model_validate_json(line)
                    self.done[prediction.sample_id] = prediction

    def add(self, prediction: Prediction) -> None:
        with self._lock:
            self.done[prediction.sample_id] = prediction
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as handle:
                handle.write(prediction.model_dump_json() + "\n")


def _safe_predict(system: System, sample: Sample) -> Prediction:
    try:
        return system.predict(sample)
    except EmpathyGraphError as exc:  # one bad sample must not end a long run; it counts as a miss
        return Prediction(sample_id=sample.id, error=f"{type(exc).__name__}: {exc}")


def run_system(
    system: System,
    samples: Sequence[Sample],
    cache: PredictionCache,
    *,
    concurrency: int = 1,
    advance: Advance | None = None,
) -> list[Prediction]:
    """Predict every sample not yet in ``cache``; return predictions in sample order.

    Errored predictions are returned (they score as misses) but not cached, so a resumed
    run tries them again.
    """
    todo = [s for s in samples if s.id not in cache.done]
    errors: dict[str, Prediction] = {}

    def one(sample: Sample) -> None:
        prediction = _safe_predict(system, sample)
        if prediction.error is None:
            cache.add(prediction)
        else:
            errors[sample.id] = prediction
        if advance is not None:
            advance(prediction)

    if concurrency > 1:
        with ThreadPoolExecutor(max_workers=concurrency) as pool:
            list(pool.map(one, todo))
    else:
        for sample in todo:
            one(sample)
    return [cache.done.get(s.id) or errors[s.id] for s in samples]


def _values(enum: type) -> list[str]:
    return [member.value for member in enum]


def _value(item: object) -> str | None:
    return getattr(item, "value", None)


def reply_figures(items: Sequence[StyleItem], judge: EmpathyJudge | None = None) -> dict:
    """Style figures, harm flags and (with a judge) EPITOME scores of (person's words, reply, label) items."""
    items = [item for item in items if item[1] and item[1].strip()]
    result = {"style": style_figures(items), "harm": harm_figures([reply for _, reply, _ in items])}
    if judge is not None:
        result["empathy"] = empathy_figures(judge.score_many([(context, reply) for context, reply, _ in items]))
    return result


def reference_figures(samples: Sequence[Sample], judge: EmpathyJudge | None = None) -> dict:
    """The reply figures of the dataset's own (human) replies; the label is the dataset's, where it has one."""
    items = [(s.text, s.reference, _value(s.emotion)) for s in samples if s.reference]
    return {"n": len(items), "errors": 0, **(reply_figures(items, judge) if items else {})}


def score(samples: Sequence[Sample], predictions: Sequence[Prediction], *, expression_reader=None,
          judge: EmpathyJudge | None = None) -> dict:
    """Every metric the samples' labels allow, plus cost and error counts.

    Args:
        expression_reader: the face reader (``ToolBox.see``) for plan/face consistency of rendered media.
        judge: scores the replies for EPITOME's empathy mechanisms (style figures need none).
    """
    pairs = list(zip(samples, predictions))
    failed = [p for _, p in pairs if p.error is not None]
    result: dict = {"n": len(pairs), "errors": len(failed),
                    "error_examples": [{"sample_id": p.sample_id, "error": p.error} for p in failed[:20]]}
    emo = [(s, p) for s, p in pairs if s.emotion is not None]
    if emo:
        result["emotion"] = metrics.classification(
            [s.emotion.value for s, _ in emo], [_value(p.emotion) for _, p in emo], _values(EDEmotion))
    coarse = [(s, p) for s, p in pairs if s.coarse is not None]
    if coarse:
        result["coarse_emotion"] = metrics.classification(
            [s.coarse.value for s, _ in coarse], [_value(p.coarse) for _, p in coarse], _values(CoarseEmotion))
    strat = [(s, p) for s, p in pairs if s.strategy is not None and any(q.strategy for _, q in pairs)]
    if strat:
        result["strategy"] = metrics.classification(
            [s.strategy.value for s, _ in strat], [_value(p.strategy) for _, p in strat], _values(Strategy))
    replies = [(s, p) for s, p in pairs if p.reply]
    if replies:
        with_ref = [(s, p) for s, p in replies if s.reference]
        result["generation"] = metrics.generation(
            [s.reference for s, _ in with_ref], [p.reply for _, p in with_ref]) if with_ref else {}
        texts = [p.reply for _, p in replies]
        result["generation"].update({"n_replies": len(texts), "dist1": metrics.distinct(texts, 1),
                                     "dist2": metrics.distinct(texts, 2)})
        result |= reply_figures([(s.text, p.reply, _value(p.emotion)) for s, p in replies], judge)
    causes = [(s, p) for s, p in pairs if s.causes]
    if causes:
        result["cause_span"] = metrics.cause_spans([s.causes for s, _ in causes], [p.causes for _, p in causes])
    videos = [(Path(p.media["video"]), p.expression) for _, p in pairs if p.media.get("video") and p.expression]
    if videos and expression_reader is not None:
        agreement, rows = _expression_agreement(videos, expression_reader)
        result["media_consistency"] = {"n": len(rows), "face_matches_plan": round(agreement, 4)}
    ok = [p for _, p in pairs if p.error is None]
    result["cost"] = metrics.cost([p.seconds for p in ok], [p.llm_calls for p in ok], [p.tokens for p in ok])
    result["label_sources"] = {src: sum(p.label_source == src for p in ok) for src in {p.label_source for p in ok}}
    return result


def _expression_agreement(videos, reader):
    from empathygraph.eval.consistency import expression_agreement

    return expression_agreement(videos, reader)
