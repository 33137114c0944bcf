"""Many sessions at once: N concurrent clients x M turns each against a served listener. Prints JSON.

    nice .venv/bin/python benchmarks/serve_load.py [--clients 8] [--turns 5] [--fast-clients 4] [--fast-turns 2]

Two servers, each started as its own process: one with an instant scripted backbone (the
HTTP server, the graph and the SQLite session store alone, 8 turns at once; no perception
models), and ``empathygraph serve`` with the fast preset (SmolLM2 on the embedded backbone,
which answers one turn at a time: the others wait in line and are told their place). Turns
are text in, plan out (no media). Each client talks in a session of its own; at the end every
session's history must hold exactly that client's turns, in order. Errors must be 0.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))

from serve_client import REPO, TimedTurn, free_port, serve_command, served, timed_turn
from turn_latency import INSTANT_SCRIPT, SCRIPTED_OVERRIDES, TURNS


def serve_scripted(port: int, workdir: Path) -> None:
    """Run a server whose backbone answers at once from ``INSTANT_SCRIPT`` (this script's child process)."""
    import uvicorn

    from empathygraph import Empathizer
    from empathygraph.backbones import ScriptedChatModel, wrap_chat_model
    from empathygraph.config import load_config
    from empathygraph.serve.app import create_app

    config = load_config(overrides=[f"sessions.db={workdir / 'scripted.sqlite'}", f"serve.media_dir={workdir}",
                                    "serve.concurrency=8", "serve.warm_up=false", "perception.text_emotion=false",
                                    "safety.classifier=false", "generators.speech=none", "generators.avatar=none",
                                    *SCRIPTED_OVERRIDES])
    empathizer = Empathizer(config, backbone=wrap_chat_model(ScriptedChatModel(script=INSTANT_SCRIPT)))
    uvicorn.run(create_app(config, empathizer=empathizer), host="127.0.0.1", port=port, log_level="warning")


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))], 3)


def load(url: str, clients: int, turns: int, tag: str) -> dict[str, object]:
    """``clients`` threads, each sending ``turns`` turns in its own session; then check every history."""
    def client_run(index: int) -> tuple[str, list[str], list[TimedTurn]]:
        session = f"{tag}-{index}-{time.time_ns()}"
        # Different messages in every session, so a turn in the wrong history shows; past the 12 benchmark
        # messages a tag tells repeats apart (only the instant backbone gets that many).
        texts = [TURNS[(index * turns + t) % len(TURNS)] for t in range(turns)]
        if clients * turns > len(TURNS):
            texts = [f"{text} (client {index}, turn {t})" for t, text in enumerate(texts)]
        with httpx.Client(base_url=url) as client:
            return session, texts, [timed_turn(client, session, text, media=False) for text in texts]

    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=clients) as pool:
        runs = list(pool.map(client_run, range(clients)))
    wall = time.perf_counter() - started
    timed = [t for _, _, turns_of in runs for t in turns_of]
    ok = [t.seconds for t in timed if t.error is None and t.seconds is not None]
    mismatched = []
    with httpx.Client(base_url=url) as client:
        for session, texts, _ in runs:
            history = client.get(f"/v1/sessions/{session}").json().get("turns", [])
            if [h["user"] for h in history] != texts:
                mismatched.append(session)
    return {
        "clients": clients,
        "turns_per_client": turns,
        "turns": len(timed),
        "turns_per_second": round(len(ok) / wall, 3),
        "latency_p50_seconds": percentile(ok, 0.5),
        "latency_p95_seconds": percentile(ok, 0.95),
        "errors": len(timed) - len(ok),
        "error_messages": sorted({t.error for t in timed if t.error})[:5],
        "turns_that_waited_in_line": sum("queued" in t.events for t in timed),
        "sessions_hold_only_their_own_turns": not mismatched,
        "mismatched_sessions": mismatched,
        "wall_seconds": round(wall, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, default=8, help="concurrent clients against the scripted backbone")
    parser.add_argument("--turns", type=int, default=5, help="turns per client against the scripted backbone")
    parser.add_argument("--fast-clients", type=int, default=4, help="concurrent clients against the fast preset")
    parser.add_argument("--fast-turns", type=int, default=2, help="turns per client against the fast preset (0: skip)")
    parser.add_argument("--serve-scripted", type=int, metavar="PORT", help=argparse.SUPPRESS)
    parser.add_argument("--workdir", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_scripted:
        serve_scripted(args.serve_scripted, args.workdir)
        return
    report: dict[str, object] = {}
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        port = free_port()
        scripted = [sys.executable, __file__, "--serve-scripted", str(port), "--workdir", str(workdir)]
        with served(scripted, port, log=workdir / "scripted.log") as url:
            load(url, 2, 1, "warm")
            report["instant_scripted_backbone"] = load(url, args.clients, args.turns, "scripted")
        if args.fast_turns:
            port = free_port()
            command = serve_command(port, f"sessions.db={workdir / 'fast.sqlite'}", f"serve.media_dir={workdir}",
                                    "serve.warm_up=true", config=REPO / "configs" / "fast.yaml")
            with served(command, port, log=workdir / "fast.log") as url:
                report["fast_preset"] = load(url, args.fast_clients, args.fast_turns, "fast")
    report["ok"] = all(r["errors"] == 0 and r["sessions_hold_only_their_own_turns"]  # type: ignore[index]
                       for r in report.values() if isinstance(r, dict))
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
