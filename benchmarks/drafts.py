"""Draft sources on and off, in one process, on the turn benchmark's messages. Prints one JSON object.

    .venv/bin/python benchmarks/drafts.py [--turns 12] [--modes none,json,lookup,both]

Modes: ``none`` (plain decoding), ``json`` (what the answer's schema forces), ``lookup``
(prompt lookup, ``backbone.draft_tokens`` of the default config), ``both`` (the default).
Each message runs once per mode in fresh sessions, the order of modes rotating from
message to message, on one loaded default model. Reported per mode: turn seconds
(median, mean), completion tokens, and milliseconds of model evaluation per generated
token (each answer's first evaluation, its prompt, excluded). Drafts do not change what
the model would draw, but a batch's arithmetic differs from single steps in the last
bits, so sampled answers can differ: compare the per-token cost, and turn times over
many turns.
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
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from turn_latency import TURNS, WARM_UP, config

from empathygraph import Empathizer
from empathygraph.backbones.grammar_first import PromptLookupDraft

MODES = ("none", "json", "lookup", "both")


class DecodeClock:
    """Times a model's evaluations after the first of each answer or scoring (its prompt)."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self._prompt_next = False

    def timed_eval(self, evaluate: Callable[[Sequence[int]], None]) -> Callable[[Sequence[int]], None]:
        def run(tokens: Sequence[int]) -> None:
            started = time.perf_counter()
            evaluate(tokens)
            if not self._prompt_next:
                self.seconds += time.perf_counter() - started
            self._prompt_next = False
        return run

    def reading_prompt(self, method: Callable[..., Any]) -> Callable[..., Any]:
        """``method``, whose first evaluation is a prompt."""
        def run(*args: Any, **kwargs: Any) -> Any:
            self._prompt_next = True
            return method(*args, **kwargs)
        return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--turns", type=int, default=len(TURNS))
    parser.add_argument("--modes", default=",".join(MODES), help=f"comma-separated, of {', '.join(MODES)}")
    args = parser.parse_args()
    modes = [mode for mode in args.modes.split(",") if mode]
    if unknown := set(modes) - set(MODES):
        sys.exit(f"unknown modes: {', '.join(sorted(unknown))}")
    with tempfile.TemporaryDirectory() as tmp:
        settings = config(str(Path(tmp) / "sessions.sqlite"))
        empathizer = Empathizer(settings)
        empathizer.respond(WARM_UP, session_id="warm")
        llama = empathizer.backbone.chat_model.load()
        lookup = PromptLookupDraft(tokens=settings.backbone.draft_tokens or 3)
        sources = {"none": (None, False), "json": (None, True), "lookup": (lookup, False), "both": (lookup, True)}
        clock = DecodeClock()
        plain_eval = llama.eval
        llama.generate = clock.reading_prompt(llama.generate)
        llama.continuation_logprobs = clock.reading_prompt(llama.continuation_logprobs)
        decode_s = dict.fromkeys(modes, 0.0)
        seconds: dict[str, list[float]] = {mode: [] for mode in modes}
        completion = dict.fromkeys(modes, 0)
        for index, text in enumerate(TURNS[: args.turns]):
            for mode in modes[index % len(modes) :] + modes[: index % len(modes)]:
                llama.use_drafts(*sources[mode])
                clock.seconds = 0.0
                llama.eval = clock.timed_eval(plain_eval)
                result = empathizer.respond(text, session_id=f"{mode}-{index}-{time.time_ns()}")
                decode_s[mode] += clock.seconds
                seconds[mode].append(round(result.seconds, 2))
                completion[mode] += result.tokens.completion
    report: dict[str, Any] = {
        mode: {
            "turn_seconds_median": statistics.median(seconds[mode]),
            "turn_seconds_mean": round(statistics.mean(seconds[mode]), 3),
            "completion_tokens": completion[mode],
            "decode_ms_per_token": round(1000 * decode_s[mode] / completion[mode], 1),
            "turn_seconds": seconds[mode],
        }
        for mode in modes
    }
    if "none" in modes:
        for mode in modes:
            report[mode]["median_ratio_to_none"] = round(
                report[mode]["turn_seconds_median"] / report["none"]["turn_seconds_median"], 3)
            report[mode]["decode_ratio_to_none"] = round(
                report[mode]["decode_ms_per_token"] / report["none"]["decode_ms_per_token"], 3)
    report["lookup_settings"] = {"tokens": lookup.tokens, "min_match": lookup.min_match, "max_match": lookup.max_match}
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
