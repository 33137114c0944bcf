"""LivePortrait: drive the user's portrait with a LivePortrait checkout, in its own Python, on a GPU.

The subprocess follows LivePortrait's ``inference.py`` command line: ``-s SOURCE -d DRIVING
-o OUTPUT_DIR`` (plus any ``liveportrait_args``); it writes
``OUTPUT_DIR/<source stem>--<driving stem>.mp4``. The driving motion is a clip or ``.pkl``
template named after the expression in ``liveportrait_driving_dir``; without one, the
portrait mode's own animation of the photo (expression + lip movement) is the driving
video. The reply audio is muxed into the result with the bundled ffmpeg.
"""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

from empathygraph.generators.avatar.portrait import PortraitAvatar, portrait_source
from empathygraph.generators.avatar.video import ffmpeg_exe
from empathygraph.generators.base import GeneratorError, Speech
from empathygraph.generators.config import GeneratorsConfig
from empathygraph.schemas import AvatarDirectives, AvatarProfile


class LivePortraitAvatar:
    """Avatar backend that runs LivePortrait's ``inference.py`` as a subprocess."""

    name = "liveportrait"

    def __init__(self, config: GeneratorsConfig) -> None:
        self.config = config

    def command(self, source: Path, driving: Path, output_dir: Path) -> list[str]:
        """Return the ``inference.py`` command line, checking that the checkout is there."""
        root = self.config.liveportrait_dir
        if root is None:
            raise GeneratorError("liveportrait: set generators.liveportrait_dir to a LivePortrait checkout")
        script = root / "inference.py"
        if not script.is_file():
            raise GeneratorError(f"liveportrait: no inference.py in {root} (is this a LivePortrait checkout?)")
        python = self.config.liveportrait_python or root / ".venv" / "bin" / "python"
        if not Path(python).is_file():
            raise GeneratorError(f"liveportrait: its Python was not found: {python} (set generators.liveportrait_python)")
        return [str(python), str(script), "-s", str(source), "-d", str(driving), "-o", str(output_dir),
                *self.config.liveportrait_args]  # fmt: skip

    def driving_clip(self, speech: Speech, directives: AvatarDirectives, profile: AvatarProfile, work: Path) -> Path:
        """Pick the expression's driving clip/template, or render one from the portrait mode."""
        folder = self.config.liveportrait_driving_dir
        if folder is not None:
            for suffix in (".mp4", ".pkl"):
                candidate = folder / f"{directives.expression.value}{suffix}"
                if candidate.is_file():
                    return candidate
        driving = work / f"driving_{directives.expression.value}.mp4"
        PortraitAvatar(self.config).animate(speech, None, directives, profile, driving)
        return driving

    def animate(
        self, speech: Speech, audio_path: Path, directives: AvatarDirectives, profile: AvatarProfile, out_path: Path
    ) -> dict[str, object]:
        """Run LivePortrait on the portrait and write the result with the reply audio."""
        source = portrait_source(self.config, profile).path
        if not Path(source).is_file():
            raise GeneratorError(f"liveportrait: portrait not found: {source} (set generators.portrait)")
        with tempfile.TemporaryDirectory(prefix="liveportrait-") as tmp:
            work = Path(tmp)
            self.command(source, source, work)  # fail on a bad checkout before rendering a driving clip
            driving = self.driving_clip(speech, directives, profile, work)
            command = self.command(Path(source).resolve(), driving.resolve(), work / "out")
            try:
                result = subprocess.run(
                    command, check=False, cwd=self.config.liveportrait_dir, capture_output=True, text=True,
                    timeout=self.config.liveportrait_timeout_s,
                )  # fmt: skip
            except subprocess.TimeoutExpired as exc:
                raise GeneratorError(f"liveportrait: gave up after {self.config.liveportrait_timeout_s:.0f} s") from exc
            if result.returncode != 0:
                tail = (result.stderr or result.stdout).strip().splitlines()[-3:]
                raise GeneratorError(f"liveportrait: inference.py exited {result.returncode}: {' | '.join(tail)}")
            produced = work / "out" / f"{Path(source).stem}--{driving.stem}.mp4"
            if not produced.is_file():
                raise GeneratorError(f"liveportrait: inference.py wrote no {produced.name}")
            _mux(produced, audio_path, out_path)
        return {
            "portrait": str(source),
            "driving": driving.name if driving.parent != work else "portrait-mode animation",
            "checkout": str(self.config.liveportrait_dir),
            "args": self.config.liveportrait_args,
            "expression": directives.expression.value,
        }


def _mux(video: Path, audio: Path, out_path: Path) -> None:
    """Replace ``video``'s sound with ``audio`` (H.264 re-encoded to be safe, AAC audio)."""
    command = [
        ffmpeg_exe(), "-y", "-loglevel", "error", "-i", str(video), "-i", str(audio), "-map", "0:v:0", "-map", "1:a:0",
        "-c:v", "libx264", "-pix_fmt", "yuv420p", "-preset", "veryfast", "-c:a", "aac", "-shortest", str(out_path),
    ]  # fmt: skip
    result = subprocess.run(command, check=False, capture_output=True, text=True)
    if result.returncode != 0:
        raise GeneratorError(f"liveportrait: muxing the reply audio failed: {result.stderr.strip()[-200:]}")
