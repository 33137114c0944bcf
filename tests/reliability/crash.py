"""Kill a conversation with SIGKILL in the middle of one stage of a turn, then look at what survived.

``python -m tests.reliability.crash STAGE DB OUT`` runs a three-turn chat (scripted agents,
real espeak-ng speech and procedural avatar video, a SQLite session store) the way ``empathygraph
chat`` does, and kills its own process with SIGKILL during turn 3 at ``STAGE``. ``inspect`` then
reads the store and the output folder as a restarted process would. The unit tests and
``benchmarks/reliability.py`` both use it.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import wave
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
MESSAGES = [
    "My dog died last week and the house is so quiet.",
    "I keep looking for him at the door when I get home.",
    "My sister says I should get a new puppy, but it feels too soon.",
]
# Where turn 3 dies: a perception tool, an agent's LLM call (two of them), the speech file
# half written, the video encoder mid-stream, the session trace being appended.
STAGES = ("perception", "emotion_cause", "response", "tts", "video", "trace")
SESSION = "crash"


def die() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def _arm(stage: str, out: Path) -> dict[str, Any]:
    """Patch the stage to die on turn 3; return the scripted model's answers."""
    from tests.conftest import DEFAULT_SCRIPT

    script: dict[str, Any] = dict(DEFAULT_SCRIPT)
    crashing = {"turn": False}

    def killing(key: str):
        answer = DEFAULT_SCRIPT[key]

        def respond(messages, schema):
            if crashing["turn"]:
                die()
            return answer

        return respond

    if stage == "emotion_cause":
        script["LabelledCauseDraft"] = killing("LabelledCauseDraft")
    elif stage == "response":
        script["ResponseDraft"] = killing("ResponseDraft")
    elif stage == "perception":
        from empathygraph.tools.toolbox import ToolBox

        screen = ToolBox.screen_safety
        ToolBox.screen_safety = lambda self, *args, **kwargs: die() if crashing["turn"] else screen(self, *args, **kwargs)
    elif stage == "tts":
        from empathygraph.generators import renderer

        def half_wav(path, audio, rate):
            if crashing["turn"]:
                Path(path).write_bytes(b"RIFF\x00\x00\x00\x00WAVEfmt ")  # a header and no more
                die()
            renderer_write(path, audio, rate)

        renderer_write = renderer.write_wav
        renderer.write_wav = half_wav
    elif stage == "video":
        import imageio_ffmpeg

        frames_writer = imageio_ffmpeg.write_frames

        class DyingWriter:
            def __init__(self, *args, **kwargs):
                self.writer, self.sent = frames_writer(*args, **kwargs), 0

            def send(self, frame):
                self.writer.send(frame)
                self.sent += frame is not None
                if crashing["turn"] and self.sent == 4:  # ffmpeg has begun the file
                    die()

            def close(self):
                self.writer.close()

        imageio_ffmpeg.write_frames = DyingWriter
    elif stage == "trace":
        from empathygraph import files

        replace = files.os.replace

        class DyingOs:
            def __getattr__(self, name):
                return getattr(os, name)

            @staticmethod
            def replace(src, dst):
                if crashing["turn"] and Path(dst) == out / "trace.jsonl":
                    die()
                replace(src, dst)

        files.os = DyingOs()
    else:
        raise SystemExit(f"unknown stage {stage}")
    script["_crashing"] = crashing
    return script


def run_child(stage: str, db: Path, out: Path, overrides: dict[str, Any] | None = None) -> None:
    """The child process: a three-turn chat that dies in turn 3 at ``stage`` (``overrides``: config sections)."""
    from empathygraph import Empathizer
    from empathygraph.backbones import ScriptedChatModel, wrap_chat_model
    from tests.conftest import test_config

    script = _arm(stage, out)
    crashing = script.pop("_crashing")
    sections = {"sessions": {"db": str(db)},
                "generators": {"speech": "espeak", "avatar": "procedural", "size": 128, "fps": 8}}
    for name, values in (overrides or {}).items():
        sections[name] = {**sections.get(name, {}), **values}
    config = test_config(**sections)
    empathizer = Empathizer(config, backbone=wrap_chat_model(ScriptedChatModel(script=script)))
    for index, text in enumerate(MESSAGES, start=1):
        crashing["turn"] = index == 3
        turn_dir = out / f"turn-{index}"
        result = empathizer.respond(text, session_id=SESSION, out_dir=turn_dir)
        result.write(turn_dir)
        result.write(out, append_trace=True)
    raise SystemExit(f"stage {stage} never ran in turn 3")


@dataclass
class Survivors:
    """What a restarted process finds after the kill."""

    stage: str
    exit_code: int
    finished_turns: list[str]
    interrupted: str | None
    complete_files: dict[str, str] = field(default_factory=dict)  # final name -> problem, "" if complete
    partial_files: list[str] = field(default_factory=list)

    @property
    def broken(self) -> list[str]:
        """Files under a final name that are not complete."""
        return [f"{name}: {problem}" for name, problem in self.complete_files.items() if problem]


def _problem(path: Path) -> str:
    """Why a file under its final name is not complete ("" when it is)."""
    try:
        if path.suffix == ".wav":
            with wave.open(str(path), "rb") as audio:
                expected = audio.getnframes() * audio.getsampwidth() * audio.getnchannels()
            return "" if expected and path.stat().st_size >= expected + 44 else "WAV shorter than its header says"
        if path.suffix == ".mp4":  # ffmpeg closes a file whose frames stopped coming: count them
            import av

            with av.open(str(path)) as video:
                stream = video.streams.video[0]
                seconds = sum(1 for _ in video.decode(stream)) / float(stream.average_rate)
            with wave.open(str(path.with_name("reply.wav")), "rb") as audio:
                speech = audio.getnframes() / audio.getframerate()
            return "" if seconds >= speech - 0.5 else f"MP4 shows {seconds:.1f} s of {speech:.1f} s of speech"
        if path.suffix == ".json":
            json.loads(path.read_text(encoding="utf-8"))
            return ""
        if path.suffix == ".jsonl":
            from empathygraph.trace.store import read_trace

            return "; ".join(read_trace(path)[1])
    except Exception as exc:  # noqa: BLE001 - what a reader of a half-written file meets
        return f"{type(exc).__name__}: {exc}"
    return ""


def inspect(stage: str, exit_code: int, db: Path, out: Path) -> Survivors:
    """Open the store and the folder as a restarted process does."""
    from empathygraph import Empathizer
    from empathygraph.backbones import wrap_chat_model
    from empathygraph.files import is_partial
    from tests.conftest import scripted, test_config

    empathizer = Empathizer(test_config(sessions={"db": str(db)}), backbone=wrap_chat_model(scripted()))
    pending = empathizer.interrupted(SESSION)
    found = Survivors(stage, exit_code, [entry.user for entry in empathizer.history(SESSION)],
                      pending.text if pending else None)
    for path in sorted(out.rglob("*")):
        if path.is_file():
            name = str(path.relative_to(out))
            if is_partial(path):
                found.partial_files.append(name)
            else:
                found.complete_files[name] = _problem(path)
    return found


def crash(stage: str, db: Path, out: Path, timeout_s: float = 240,
          config_overrides: dict[str, Any] | None = None) -> Survivors:
    """Run the child to its kill at ``stage`` and inspect what survived."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    overrides = json.dumps(config_overrides or {})
    child = subprocess.run([sys.executable, "-m", "tests.reliability.crash", stage, str(db), str(out), overrides],
                           cwd=REPO, env=env, capture_output=True, text=True, timeout=timeout_s, check=False)
    if child.returncode != -signal.SIGKILL:
        raise RuntimeError(f"the child was not killed at {stage} (exit {child.returncode}): {child.stderr[-2000:]}")
    return inspect(stage, child.returncode, db, out)


if __name__ == "__main__":
    run_child(sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3]), json.loads(sys.argv[4]) if len(sys.argv) > 4 else None)
