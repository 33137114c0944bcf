"""Reliability benchmark: backbone faults, kills mid-turn, hostile input, many sessions. Prints one JSON object.

    .venv/bin/python benchmarks/reliability.py            # the full run (a few minutes on 2 cores)
    .venv/bin/python benchmarks/reliability.py --quick    # fewer turns and cases

1. Faults: conversations on the graph with an instant scripted model behind ``with_faults``
   (30% of LLM calls: server errors, timeouts, slow answers, malformed, truncated or empty
   JSON, streams cut mid-reply), streamed as ``chat`` streams them, over a SQLite store. Each
   turn must complete (retries, repair, fallbacks) or fail with one typed error, and the
   session must then hold exactly its completed turns. One message in seven discloses risk:
   its reply must still follow the crisis protocol and list the configured resources.
2. Kills: ``tests/reliability/crash.py`` SIGKILLs a three-turn chat in its third turn at each
   stage (perception, two agents, speech, video encoding, the trace append) and a restarted
   process counts the finished turns it finds, resumes the cut turn, and checks every file.
3. Fuzz: ``tests/reliability/hostile.py`` generates hostile audio, images, videos, scenario
   files and messages, and feeds each to what a turn reads it with.
4. Many sessions: processes, each running sessions on threads, on one SQLite store.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from turn_latency import SCRIPTED_OVERRIDES

from empathygraph import Empathizer
from empathygraph.backbones import RetryPolicy, wrap_chat_model
from empathygraph.backbones.faults import FaultPlan, with_faults
from empathygraph.config import load_config
from empathygraph.errors import EmpathyGraphError
from empathygraph.trace.events import TurnFinished
from tests.conftest import scripted
from tests.reliability import crash, hostile, many_sessions

MESSAGES = [
    "My mom passed away last month. I keep picking up the phone to call her every Sunday.",
    "I got the rejection email today. Third final-round interview this year.",
    "My sister just had her baby this morning! I'm an aunt now.",
    "My chemistry final is tomorrow and my mind goes blank every time I open my notes.",
    "Since I moved to this city nobody really talks to me.",
    "My manager presented my project to the directors as his own idea.",
    "I've been saving up my sleeping pills and tonight I'm taking all of them.",  # the crisis route, under faults
]
FUZZ_SHARE = {"audio": 0.22, "image": 0.22, "video": 0.18, "scenario": 0.2, "text": 0.18}
HANG_S = 60.0  # a turn that takes longer than this under faults counts as a hang


def fault_run(turns: int, rate: float, db: Path, seed: int = 17) -> dict[str, object]:
    """Conversations of three turns through a backbone with ``rate`` faults (drawn from ``seed``);
    what became of each turn."""
    config = load_config(None, [f"sessions.db={db}", "generators.speech=none", "generators.avatar=none",
                                "perception.text_emotion=false", "agents.strategy_label=auto", *SCRIPTED_OVERRIDES])
    backbone = with_faults(wrap_chat_model(scripted()), FaultPlan(rate=rate, seed=seed, slow_s=0.5, timeout_s=1.0))
    backbone.retry = RetryPolicy(retries=config.backbone.retries, backoff_s=0.25)
    empathizer = Empathizer(config, backbone=backbone)
    outcomes: Counter[str] = Counter()
    seconds, errors, half_written, fallbacks, crisis, crisis_missing = [], Counter(), 0, 0, 0, 0
    completed: dict[str, int] = {}
    for index in range(turns):
        session = f"faults-{index // 3}"
        started = time.perf_counter()
        try:
            result = next(event.result for event in empathizer.events(MESSAGES[index % len(MESSAGES)],
                                                                       session_id=session)
                          if isinstance(event, TurnFinished))
            outcomes["completed"] += 1
            completed[session] = completed.get(session, 0) + 1
            fallbacks += any(step.fallback and "FALLBACK REPLY" in step.fallback for step in result.steps)
            if result.safety is not None and result.safety.at_risk:
                crisis += 1
                resources = config.safety.resources_for(result.safety.categories)
                crisis_missing += not (result.plan and result.plan.safety_protocol
                                       and all(resource in result.reply for resource in resources))
        except EmpathyGraphError as exc:
            outcomes["clean_failure"] += 1
            errors[type(exc).__name__] += 1
        except Exception as exc:  # noqa: BLE001 - what the benchmark counts: a failure that is not one typed error
            outcomes["untyped_failure"] += 1
            errors[type(exc).__name__] += 1
        elapsed = time.perf_counter() - started
        seconds.append(elapsed)
        outcomes["hang"] += elapsed > HANG_S
    for session in {f"faults-{index // 3}" for index in range(turns)}:
        half_written += len(empathizer.history(session)) != completed.get(session, 0)
    calls = backbone.chat_model.log  # type: ignore[attr-defined]
    return {
        "turns": turns,
        "llm_calls": len(calls),
        "llm_calls_faulted": sum(fault is not None for fault in calls),
        "faults_by_kind": dict(Counter(fault for fault in calls if fault)),
        "completed": outcomes["completed"],
        "clean_failures": outcomes["clean_failure"],
        "failures_by_error": dict(errors),
        "untyped_failures": outcomes["untyped_failure"],
        "hangs": outcomes["hang"],
        "fallback_replies": fallbacks,
        "crisis_turns": crisis,
        "crisis_replies_without_protocol_or_resources": crisis_missing,
        "sessions_not_matching_their_completed_turns": half_written,
        "p95_turn_seconds": round(statistics.quantiles(seconds, n=20)[-1], 3),
        "median_turn_seconds": round(statistics.median(seconds), 3),
    }


def kill_run(folder: Path) -> dict[str, object]:
    """SIGKILL at every stage; what a restarted process finds."""
    lost, resumed, broken, per_stage = 0, 0, [], {}
    for stage in crash.STAGES:
        db, out = folder / stage / "sessions.sqlite", folder / stage / "chat"
        found = crash.crash(stage, db, out)
        expected = crash.MESSAGES if stage == "trace" else crash.MESSAGES[:2]
        lost += len([text for text in expected if text not in found.finished_turns])
        broken += found.broken
        if found.interrupted is not None:
            empathizer = Empathizer(load_config(None, [f"sessions.db={db}", "generators.speech=none",
                                                      "generators.avatar=none", "perception.text_emotion=false",
                                                      *SCRIPTED_OVERRIDES]),
                                    backbone=wrap_chat_model(scripted()))
            empathizer.resume(crash.SESSION)
            resumed += [entry.user for entry in empathizer.history(crash.SESSION)] == crash.MESSAGES
        per_stage[stage] = {"finished_turns": len(found.finished_turns), "interrupted_turn_kept": found.interrupted
                            is not None, "partial_files": len(found.partial_files)}
    return {"crash_points_tested": len(crash.STAGES), "turns_lost_after_kill": lost,
            "interrupted_turns_resumed": resumed, "half_written_files_under_final_names": broken,
            "per_stage": per_stage}


def fuzz_run(cases: int, folder: Path) -> dict[str, object]:
    """About ``cases`` generated hostile inputs across the five kinds."""
    results: list[hostile.Result] = []
    for kind in hostile.KINDS:
        kind_folder = folder / kind
        kind_folder.mkdir(parents=True)
        results += hostile.fuzz(kind, max(1, round(cases * FUZZ_SHARE[kind])), kind_folder, random_seed=1)
    outcomes = Counter(result.outcome for result in results)
    bad = [f"{r.case.kind} ({r.case.how}): {r.outcome}: {r.detail[:160]}" for r in results
           if r.outcome not in ("accepted", "refused")]
    return {
        "fuzz_cases": len(results),
        "fuzz_by_kind": dict(Counter(result.case.kind for result in results)),
        "fuzz_accepted": outcomes["accepted"],
        "fuzz_refused_by_name": outcomes["refused"],
        "fuzz_untyped_errors": outcomes["untyped"],
        "fuzz_errors_not_naming_the_file": outcomes["unnamed"],
        "fuzz_hangs": outcomes["hang"],
        "fuzz_slowest_case_seconds": round(max(result.seconds for result in results), 3),
        "fuzz_failures": bad[:10],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="30 fault turns, 150 fuzz cases, 2x2 sessions")
    parser.add_argument("--fault-rate", type=float, default=0.3)
    parser.add_argument("--seed", type=int, default=17, help="seeds the fault draws (the fuzz has its own)")
    args = parser.parse_args()
    turns, cases, (processes, sessions, session_turns) = (30, 150, (2, 2, 3)) if args.quick else (120, 560, (4, 4, 5))
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        faults = fault_run(turns, args.fault_rate, folder / "faults.sqlite", args.seed)
        kills = kill_run(folder / "kills")
        fuzz = fuzz_run(cases, folder / "fuzz")
        many = many_sessions.run_many(folder / "many.sqlite", processes, sessions, session_turns)
    report = {
        "turns_completed_ratio_at_30pct_faults": round(faults["completed"] / turns, 3),
        "turns_completed_or_clean_failure_ratio_at_30pct_faults":
            round((faults["completed"] + faults["clean_failures"]) / turns, 3),
        "p95_turn_seconds_at_30pct_faults": faults["p95_turn_seconds"],
        "fuzz_cases": fuzz["fuzz_cases"],
        "fuzz_untyped_errors": fuzz["fuzz_untyped_errors"],
        "fuzz_hangs": fuzz["fuzz_hangs"],
        "crash_points_tested": kills["crash_points_tested"],
        "turns_lost_after_kill": kills["turns_lost_after_kill"],
        "concurrent_sessions": many.sessions,
        "cross_talk": len(many.cross_talk),
        "details": {
            "faults": {**faults, "fault_rate": args.fault_rate, "seed": args.seed},
            "kills": kills,
            "fuzz": fuzz,
            "many_sessions": {"processes": processes, "threads_per_process": sessions, "turns": many.turns,
                              "errors": len(many.errors), "error_examples": many.errors[:3],
                              "cross_talk_examples": many.cross_talk[:3]},
            "seconds": round(time.perf_counter() - started, 1),
        },
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
