"""Turn latency of the MERG graph: text in, plan out. Prints one JSON object.

    .venv/bin/python benchmarks/turn_latency.py [--turns 12]

Measured in one process, in this order: the framework's own overhead (the same graph
with an instant scripted model and a SQLite session store), the default embedded
model (after one warm-up turn), then the ``fast`` preset (``configs/fast.yaml``). Each turn is a fresh session
so turns do not see each other. No media is rendered.

Absolute seconds differ between machines (and with other load on the same one), so the
default model also decodes 100 plain tokens (no grammar, no drafts; the median of three,
timed before and after the turns) and ``turn_over_decode100`` is the turn median over that
time: a change to the graph moves it, a faster or busier machine moves both alike. A turn the risk
screen sends to the crisis protocol is answered without the reply agents (about half the time), so
a screen with fewer false alarms raises the median of the same turns: ``ordinary_turn_seconds_median``
(and ``ordinary_over_decode100``) count only the turns the ordinary agents answered.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from empathygraph import Config, Empathizer, TurnResult
from empathygraph.backbones import ScriptedChatModel, wrap_chat_model
from empathygraph.config import load_config
from empathygraph.trace.events import ReplyToken, TurnFinished

TURNS = [
    "My mom passed away last month. I keep picking up the phone to call her every Sunday and then I remember.",
    "I got the rejection email today. Third final-round interview this year and I still didn't get the job.",
    "Guess what, my sister just had her baby this morning! I'm an aunt now and I can't stop smiling.",
    "My chemistry final is tomorrow morning and my mind just goes blank every time I open my notes.",
    "Since I moved to this new city nobody really talks to me. Some days I don't say a single word out loud.",
    "My manager presented my whole project to the directors as his own idea. I worked weekends on that.",
    "My best friend forgot my birthday again, and she posted photos from a party the same night.",
    # The lines of examples/scenarios/multi-turn-breakup.yaml and smiling-but-sad.yaml, each as a first turn,
    # and one of mixed feelings.
    "My boyfriend broke up with me last night after four years. He said he just doesn't feel it anymore.",
    "I keep scrolling through our old photos. Everything in my apartment reminds me of him.",
    "Maybe you're right. My best friend offered to come over tonight, I think I'll say yes.",
    "Everyone keeps telling me the breakup was for the best, but I cry every night when I get home.",
    "I got the promotion I wanted, but honestly I feel nothing. I just smile at everyone at work.",
]
WARM_UP = "I lost my wallet on the train this morning and I feel so stupid."
DECODE_PROMPT = "Write a long, calm story about a lighthouse keeper who finds an old letter in a bottle."
DECODE_TOKENS = 100

# The instant scripts copy a cause quote ("I") instead of picking one of the message's clauses (the default).
SCRIPTED_OVERRIDES = ["agents.cause_quote=free"]
INSTANT_SCRIPT = {
    "LabelledCauseDraft": {"scenario": "an event", "emotion": "sad", "quote": "I", "intensity": "medium"},
    "CauseDraft": {"scenario": "an event", "quote": "I", "intensity": "medium"},
    "StrategyDraft": {"goal": "comfort", "strategy": "Reflection of feelings"},
    "GoalDraft": {"goal": "comfort"},
    "ResponseDraft": {"reply": "That sounds really hard. What happened then?"},
    "FollowUpQuestion": {"question": "What happened then?"},
    "ReflectionDraft": {"verdict": "accept", "advice": ""},
}


def config(db: str, preset: str | None = None, overrides: list[str] | None = None) -> Config:
    """The built-in defaults, or a preset from ``configs/``, with no media and a private session store."""
    path = Path(__file__).resolve().parents[1] / "configs" / f"{preset}.yaml" if preset else None
    return load_config(path, [f"sessions.db={db}", "generators.speech=none", "generators.avatar=none", *(overrides or [])])


def timed_turn(empathizer: Empathizer, text: str, session: str) -> tuple[float, TurnResult]:
    """(seconds to the reply's first streamed token, the turn's result)."""
    started = time.perf_counter()
    first = None
    for event in empathizer.events(text, session_id=session):
        if isinstance(event, ReplyToken) and first is None:
            first = time.perf_counter() - started
        elif isinstance(event, TurnFinished):
            return (first if first is not None else event.result.seconds), event.result
    raise RuntimeError("the turn ended without a result")


def decode_seconds(empathizer: Empathizer, tokens: int = DECODE_TOKENS, repeats: int = 3) -> list[float]:
    """Seconds the embedded model takes to decode ``tokens`` plain tokens (greedy, no drafts), ``repeats`` times."""
    llama = empathizer.backbone.chat_model.load()
    lookup, json_drafts = llama.lookup, llama.json_drafts
    prompt = llama.tokenize(DECODE_PROMPT.encode())
    times = []
    llama.use_drafts(None, False)
    try:
        for _ in range(repeats):
            llama.reset()
            llama.eval(prompt)  # the prompt is read before the clock starts
            started = time.perf_counter()
            for count, _token in enumerate(llama.generate(prompt, temp=0.0, reset=False), start=1):
                if count >= tokens:
                    break
            times.append(time.perf_counter() - started)
    finally:
        llama.use_drafts(lookup, json_drafts)
        llama.reset()
    return times


def measure(empathizer: Empathizer, texts: list[str], tag: str) -> dict[str, object]:
    first_tokens, seconds, calls, tokens, ordinary = [], [], [], [], []
    per_agent: dict[str, list[float]] = defaultdict(list)
    for index, text in enumerate(texts):
        session = f"{tag}-{index}-{time.time_ns()}"
        first, result = timed_turn(empathizer, text, session)
        first_tokens.append(first)
        seconds.append(result.seconds)
        calls.append(result.llm_calls)
        tokens.append(result.tokens.total)
        if result.plan is None or not result.plan.safety_protocol:
            ordinary.append(result.seconds)
        for step in result.steps:
            per_agent[step.step].append(step.latency_s)
    return {
        "turn_seconds_median": round(statistics.median(seconds), 3),
        "turn_seconds": [round(s, 2) for s in seconds],
        "ordinary_turn_seconds_median": round(statistics.median(ordinary), 3) if ordinary else None,
        "reply_first_token_seconds": round(statistics.median(first_tokens), 3),
        "llm_calls_per_turn": statistics.median(calls),
        "tokens_per_turn": statistics.median(tokens),
        "per_agent_seconds_median": {k: round(statistics.median(v), 3) for k, v in per_agent.items()},
        "per_agent_turns": {k: len(v) for k, v in per_agent.items()},  # steps such as emotion_fusion run on some turns
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--turns", type=int, default=len(TURNS),
                        help="measured turns per model (>= 5; each a different message up to 12; sampled outputs "
                        "vary a turn by ±2 s, so more turns give a steadier median)")
    parser.add_argument("--skip-fast", action="store_true")
    parser.add_argument("--skip-default", action="store_true")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="override a setting of both measured models, e.g. agents.cause_quote=free")
    args = parser.parse_args()
    texts = (TURNS * 2)[: args.turns]
    with tempfile.TemporaryDirectory() as tmp:
        db = str(Path(tmp) / "sessions.sqlite")
        # The framework alone: no perception models (text emotion, the risk classifier).
        scripted = Empathizer(config(db, overrides=["safety.classifier=false", *SCRIPTED_OVERRIDES]),
                              backbone=wrap_chat_model(ScriptedChatModel(script=INSTANT_SCRIPT)))
        scripted.toolbox.config.text_emotion = False
        scripted.respond(WARM_UP, session_id="warm")
        overhead = [scripted.respond(t, session_id=f"o{i}").seconds * 1000 for i, t in enumerate(texts * 5)]

        main_run, peak_rss_mb = None, None
        if not args.skip_default:
            default = Empathizer(config(db, overrides=args.set))
            default.respond(WARM_UP, session_id="warm-default")
            decode = decode_seconds(default)
            main_run = measure(default, texts, "default")
            decode += decode_seconds(default)
            main_run["decode100_seconds"] = [round(t, 3) for t in decode]
            decode100 = statistics.median(decode)
            main_run["turn_over_decode100"] = round(main_run["turn_seconds_median"] / decode100, 3)
            if main_run["ordinary_turn_seconds_median"] is not None:
                main_run["ordinary_over_decode100"] = round(main_run["ordinary_turn_seconds_median"] / decode100, 3)
            peak_rss_mb = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
            del default

        fast_run = None
        if not args.skip_fast:
            fast = Empathizer(config(db, "fast", args.set))
            fast.respond(WARM_UP, session_id="warm-fast")
            fast_run = measure(fast, texts, "fast")

    main = main_run or {}
    report = {
        "turn_seconds_median": main.get("turn_seconds_median"),
        "turn_over_decode100": main.get("turn_over_decode100"),
        "ordinary_turn_seconds_median": main.get("ordinary_turn_seconds_median"),
        "ordinary_over_decode100": main.get("ordinary_over_decode100"),
        "decode100_seconds": main.get("decode100_seconds"),
        "turn_seconds_median_fast": fast_run["turn_seconds_median"] if fast_run else None,
        "reply_first_token_seconds": main.get("reply_first_token_seconds"),
        "llm_calls_per_turn": main.get("llm_calls_per_turn"),
        "tokens_per_turn": main.get("tokens_per_turn"),
        "overhead_ms_median": round(statistics.median(overhead), 2),
        "peak_rss_mb": peak_rss_mb,
        "per_agent_seconds_median": main.get("per_agent_seconds_median"),
        "per_agent_turns": main.get("per_agent_turns"),
        "turn_seconds": main.get("turn_seconds"),
        "fast": fast_run,
        "turns_measured": len(texts),
        "overrides": args.set,
        "model": "qwen2.5-coder-1.5b (Q4_K_M, llama.cpp)",
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
