"""Prompt-lookup drafts on and off, in one process, on the turn benchmark's messages. Prints one JSON object.

    .venv/bin/python benchmarks/lookup_drafts.py [--turns 12]

Each message runs twice in fresh sessions, with drafts and without, the order alternating,
on one loaded default model. Reported per mode: turn seconds (median, mean), completion
tokens, and milliseconds of model evaluation per generated token (prompt batches excluded:
a batch longer than a draft batch counts as prompt). Drafts do not change what the model
would draw, but a batch's arithmetic differs from single steps in the last bits, so sampled
replies can differ; compare the per-token cost, and the turn times over many turns.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from turn_latency import TURNS, WARM_UP, config

from empathygraph import Empathizer


class EvalClock:
    """Times a model's ``eval`` calls, split into prompt batches and decode batches."""

    def __init__(self, evaluate: Callable[[Sequence[int]], None], decode_batch: int) -> None:
        self._evaluate, self._decode_batch = evaluate, decode_batch
        self.decode_s = self.prompt_s = 0.0

    def __call__(self, tokens: Sequence[int]) -> None:
        started = time.perf_counter()
        self._evaluate(tokens)
        if len(tokens) <= self._decode_batch:
            self.decode_s += time.perf_counter() - started
        else:
            self.prompt_s += time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--turns", type=int, default=len(TURNS))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        empathizer = Empathizer(config(str(Path(tmp) / "sessions.sqlite")))
        empathizer.respond(WARM_UP, session_id="warm")
        llama = empathizer.backbone.chat_model.load()
        draft = llama.draft_model
        if draft is None:
            sys.exit("the default config has backbone.draft_tokens = 0: nothing to compare")
        clocks = {mode: EvalClock(type(llama).eval.__get__(llama), draft.tokens + 1) for mode in ("off", "on")}
        seconds: dict[str, list[float]] = {"off": [], "on": []}
        completion = {"off": 0, "on": 0}
        for index, text in enumerate(TURNS[: args.turns]):
            for mode in ("off", "on") if index % 2 == 0 else ("on", "off"):
                llama.draft_model = draft if mode == "on" else None
                llama.eval = clocks[mode]
                result = empathizer.respond(text, session_id=f"{mode}-{index}-{time.time_ns()}")
                seconds[mode].append(round(result.seconds, 2))
                completion[mode] += result.tokens.completion
    report = {
        mode: {
            "turn_seconds_median": statistics.median(seconds[mode]),
            "turn_seconds_mean": round(statistics.mean(seconds[mode]), 3),
            "completion_tokens": completion[mode],
            "decode_ms_per_token": round(1000 * clocks[mode].decode_s / completion[mode], 1),
            "turn_seconds": seconds[mode],
        }
        for mode in ("off", "on")
    }
    report["median_ratio_on_off"] = round(report["on"]["turn_seconds_median"] / report["off"]["turn_seconds_median"], 3)
    report["decode_ratio_on_off"] = round(report["on"]["decode_ms_per_token"] / report["off"]["decode_ms_per_token"], 3)
    report["draft"] = {"tokens": draft.tokens, "min_match": draft.min_match, "max_match": draft.max_match}
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
