"""Evaluate systems on one dataset file: load, slice, predict (cached), score, report."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from empathygraph.backbones.base import Backbone
from empathygraph.config import Config
from empathygraph.eval.judge import EmpathyJudge
from empathygraph.eval.loaders import load_dataset
from empathygraph.eval.report import git_commit, write_report
from empathygraph.eval.runner import PredictionCache, fingerprint, reference_figures, run_system, score
from empathygraph.eval.samples import Sample
from empathygraph.eval.systems import ClassifierSystem, GraphSystem, Prediction, SinglePromptSystem, System
from empathygraph.session import Empathizer
from empathygraph.tools.toolbox import ToolBox

SYSTEMS = ("graph", "single_prompt", "classifier")
ProgressFactory = Callable[[str, int], Callable[[Prediction], None]]


def spread(samples: Sequence[Sample], limit: int | None) -> list[Sample]:
    """``limit`` samples spread evenly over the file (all when None), so a slice spans many conversations."""
    if limit is None or limit >= len(samples):
        return list(samples)
    step = len(samples) / limit
    return [samples[int(i * step)] for i in range(limit)]


# Backbone settings of speed alone: the model draws from the same distribution, so they do not
# make cached predictions stale (lookup drafts and thread counts change the last bits of the
# arithmetic, hence single samples, not the model).
SPEED_ONLY = frozenset({"n_threads", "draft_tokens", "json_drafts", "timeout_s", "connect_timeout_s"})


@dataclass
class Harness:
    """What the systems share: one configuration, backbone and set of perception tools."""

    config: Config
    backbone: Backbone | None = None
    toolbox: ToolBox | None = None

    def __post_init__(self) -> None:
        # Every sample is its own session; nothing of an evaluation belongs in the user's session store.
        self.config = self.config.model_copy(update={"sessions": self.config.sessions.model_copy(update={"db": ":memory:"})})
        self.toolbox = self.toolbox or ToolBox(self.config.perception)
        self._empathizer: Empathizer | None = None

    @property
    def empathizer(self) -> Empathizer:
        if self._empathizer is None:
            self._empathizer = Empathizer(self.config, backbone=self.backbone, toolbox=self.toolbox)
            self.backbone = self._empathizer.backbone
        return self._empathizer

    def system(self, name: str, media_dir: Path | None = None) -> System:
        """Build a system by name (see ``SYSTEMS``)."""
        if name == "graph":
            return GraphSystem(self.empathizer, media_dir=media_dir)
        if name == "single_prompt":
            agents = self.config.agents
            return SinglePromptSystem(self.empathizer.backbone, history_turns=agents.history_turns,
                                      reply_max_words=agents.reply_max_words, repair_attempts=agents.repair_attempts)
        if name == "classifier":
            from empathygraph.agents.strategy_prior import default_prior

            return ClassifierSystem(self.toolbox, default_prior())
        raise ValueError(f"unknown system '{name}' (known: {', '.join(SYSTEMS)})")

    def cache_key(self, system: System, path: Path, media: bool) -> str:
        """What makes a system's cached predictions reusable: its name, settings, data file and tools."""
        config = self.config.model_dump(mode="json")
        config["backbone"] = {k: v for k, v in config["backbone"].items() if k not in SPEED_ONLY}
        own = getattr(system, "settings", None)
        if own is not None:  # the system names what decides its output: the backbone and its own settings
            return fingerprint(system.name, config["backbone"], own, str(Path(path).resolve()), media)
        return fingerprint(system.name, config if system.uses_llm else config["perception"], str(Path(path).resolve()),
                           getattr(self.toolbox, "cache_key", type(self.toolbox).__name__), media)

    def concurrency(self, system: System, wanted: int) -> int:
        """Samples in flight: ``wanted`` against a server backbone, one for in-process models."""
        return wanted if system.uses_llm and self.config.backbone.kind == "openai" else 1


def evaluate(
    harness: Harness,
    dataset: str,
    path: Path,
    out: Path,
    *,
    systems: Sequence[str] = SYSTEMS,
    limit: int | None = None,
    concurrency: int = 1,
    media: bool = False,
    progress: ProgressFactory | None = None,
    only_cached: bool = False,
    judge: EmpathyJudge | None = None,
) -> dict:
    """Run ``systems`` on ``limit`` samples of ``path``; write the report into ``out``; return the result.

    With ``only_cached``, nothing is predicted: the slice shrinks to the samples that every
    system already has in its cache (to report an interrupted run on a common subset).
    Replies get style figures and harm flags, and EPITOME scores when a ``judge`` is given;
    so do the dataset's own replies to the same samples (``result["references"]``).
    """
    loaded = load_dataset(dataset, path)
    samples = spread(loaded.samples, limit)
    config_dump = harness.config.model_dump(mode="json")
    built = {name: harness.system(name, media_dir=out / "media" / name if media and name == "graph" else None)
             for name in systems}
    caches = {name: PredictionCache(out / "cache" / f"{name}-{harness.cache_key(system, path, media)}.jsonl")
              for name, system in built.items()}
    planned = len(samples)
    if only_cached:
        samples = [s for s in samples if all(s.id in cache.done for cache in caches.values())]
    how = "all samples" if limit is None or limit >= len(loaded.samples) else f"{planned} of {len(loaded.samples)}, evenly spaced"
    if only_cached:
        how += f"; the {len(samples)} of them every system finished (interrupted run)"
    result: dict = {
        "dataset": dataset,
        "load": loaded.summary(),
        "slice": {"n": len(samples), "how": how},
        "config": config_dump,
        "commit": git_commit(),
        "systems": {},
    }
    for name, system in built.items():
        cache = caches[name]
        if harness.config.perception.text_emotion and not only_cached:
            harness.toolbox.text_emotion("warm up")  # load the classifier once, outside every sample's time
        advance = progress(name, sum(s.id not in cache.done for s in samples)) if progress else None
        predictions = run_system(system, samples, cache, concurrency=harness.concurrency(system, concurrency),
                                 advance=advance)
        reader = harness.toolbox.see if media else None
        result["systems"][name] = score(samples, predictions, expression_reader=reader, judge=judge)
    if any(s.reference for s in samples):
        result["references"] = reference_figures(samples, judge)
    result["backbone"] = harness.backbone.name if harness.backbone is not None else "none (no LLM system ran)"
    write_report(result, out)
    return result
