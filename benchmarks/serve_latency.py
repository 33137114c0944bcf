"""First audio of a served turn: how soon the listener starts speaking, against the whole turn. Prints JSON.

    nice .venv/bin/python benchmarks/serve_latency.py [--turns 6] [--presets default fast] [--set KEY=VALUE ...]

For each preset it starts ``empathygraph serve`` (speech and avatar on, as a person gets
them), waits until it is ready (models loaded, one warm-up turn answered), then sends each
message in a fresh session, one at a time, and times from the request to: the first reply
token, the first playable audio (the first spoken sentence's WAV fully downloaded), the
avatar video, and the finished turn; and, for comparison, the whole reply's WAV (when
speech could start if it waited for the finished reply); ``stall_seconds`` is the silence a player
that starts each sentence as soon as it arrives (after the one before) hears inside the reply. Target (default model, 2 cores): first audio at most
0.6 x the turn and at most 8 s.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))

from serve_client import REPO, free_port, serve_command, served, timed_turn
from turn_latency import TURNS, WARM_UP

PRESETS = {"default": None, "fast": REPO / "configs" / "fast.yaml"}


def median(values: list[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return round(statistics.median(known), 3) if known else None


def measure(preset: str, texts: list[str], workdir: Path, overrides: Sequence[str] = ()) -> dict[str, object]:
    port = free_port()
    command = serve_command(port, f"sessions.db={workdir / f'{preset}.sqlite'}",
                            f"serve.media_dir={workdir / f'{preset}-media'}", *overrides, config=PRESETS[preset])
    with served(command, port, log=workdir / f"{preset}.log") as url, httpx.Client(base_url=url) as client:
        ready = client.get("/readyz").json()
        timed_turn(client, f"{preset}-warm", WARM_UP)  # a client's first turn, beside the server's own warm-up
        turns = [timed_turn(client, f"{preset}-{i}", text) for i, text in enumerate(texts)]
    errors = [t.error for t in turns if t.error]
    ratios = [t.first_audio / t.seconds for t in turns if t.first_audio and t.seconds]
    first_audio, seconds = median([t.first_audio for t in turns]), median([t.seconds for t in turns])
    return {
        "first_audio_seconds": first_audio,
        "turn_seconds": seconds,
        "first_audio_over_turn_median": round(statistics.median(ratios), 3) if ratios else None,
        "first_token_seconds": median([t.first_token for t in turns]),
        "whole_reply_audio_seconds": median([t.reply_audio for t in turns]),
        "video_seconds": median([t.video for t in turns]),
        "first_sentence_written_seconds": median([t.first_sentence for t in turns]),
        "stall_seconds": median([t.stall for t in turns if t.first_audio is not None]),
        "per_turn": [{key: round(value, 2) if value is not None else None for key, value in (
            ("first_token", t.first_token), ("first_sentence_written", t.first_sentence),
            ("first_speech_event", t.first_speech_event), ("first_audio", t.first_audio),
            ("whole_reply_audio", t.reply_audio), ("video", t.video),
            ("turn", t.seconds), ("stall", t.stall))} for t in turns],
        "errors": errors,
        "load_seconds": ready["load_seconds"],
        "backbone": ready["backbone"],
        "meets_target": bool(first_audio and seconds and first_audio <= 0.6 * seconds and first_audio <= 8.0),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--turns", type=int, default=6, help="measured turns per preset (different messages)")
    parser.add_argument("--presets", nargs="+", default=list(PRESETS), choices=list(PRESETS))
    parser.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                        help="a config override for every served preset (e.g. generators.speech=kokoro)")
    args = parser.parse_args()
    texts = (TURNS * 2)[: args.turns]
    with tempfile.TemporaryDirectory() as tmp:
        report = {preset: measure(preset, texts, Path(tmp), args.overrides) for preset in args.presets}
    report["turns_measured"] = len(texts)
    report["overrides"] = args.overrides
    report["target"] = "default model: first_audio_seconds <= 0.6 x turn_seconds and <= 8 s"
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
