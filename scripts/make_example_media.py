"""Make the small example inputs in examples/scenarios/media/: a spoken sentence, a face image, a face video.

Speech comes from espeak-ng (apt package ``espeak-ng``); the face is the project's own procedural
avatar (empathygraph.generators), so nothing here is taken from a dataset. Every file stays well
under 300 KB.

    python scripts/make_example_media.py [--out examples/scenarios/media]
"""

from __future__ import annotations

import argparse
import subprocess
import tempfile
import wave
from pathlib import Path

import numpy as np

from empathygraph.generators.avatar.procedural import ProceduralAvatar
from empathygraph.generators.avatar.video import encode_mp4
from empathygraph.generators.base import Speech
from empathygraph.generators.config import GeneratorsConfig
from empathygraph.schemas import AvatarDirectives, AvatarProfile, CoarseEmotion, Gender
from empathygraph.tools.audio_io import SAMPLE_RATE, load_audio

SPEECH = {
    "sad_voice.wav": ("I failed my driving test again today. I really thought I was ready.", 120),
    "happy_voice.wav": ("Guess what, I got into the university I wanted! I can't believe it!", 185),
}
FACES = {"sad_face": CoarseEmotion.SADNESS, "happy_face": CoarseEmotion.JOY}


def speak(text: str, words_per_minute: int, out: Path) -> np.ndarray:
    """Speak ``text`` with espeak-ng and save it as 16 kHz mono 16-bit WAV; return the samples."""
    with tempfile.TemporaryDirectory() as tmp:
        raw = Path(tmp) / "raw.wav"
        subprocess.run(["espeak-ng", "-s", str(words_per_minute), "-w", str(raw), text], check=True)
        samples = load_audio(raw, max_seconds=60, max_mb=10, min_rms_db=-60).samples
    with wave.open(str(out), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(SAMPLE_RATE)
        w.writeframes((np.clip(samples, -1, 1) * 32767).astype("<i2").tobytes())
    return samples


def render_face(expression: CoarseEmotion, speech: np.ndarray, out_dir: Path, name: str) -> None:
    """Write one still (JPEG) and a short silent clip (MP4) of the avatar showing ``expression``."""
    import cv2

    config = GeneratorsConfig(size=256, fps=12, video_crf=30)
    directives = AvatarDirectives(expression=expression, intensity=1.0)
    clip = Speech(audio=speech[: SAMPLE_RATE * 3], sample_rate=SAMPLE_RATE)
    _, frames = ProceduralAvatar(config).frames(clip, directives, AvatarProfile(gender=Gender.FEMALE))
    frames = list(frames)
    still = cv2.cvtColor(frames[len(frames) // 2], cv2.COLOR_RGB2BGR)  # frames are RGB, OpenCV writes BGR
    cv2.imwrite(str(out_dir / f"{name}.jpg"), still, [cv2.IMWRITE_JPEG_QUALITY, 85])
    encode_mp4(iter(frames), out_dir / f"{name}.mp4", (256, 256), config.fps, None, config.video_crf, "veryfast")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=Path("examples/scenarios/media"))
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    voices = {name: speak(text, wpm, args.out / name) for name, (text, wpm) in SPEECH.items()}
    render_face(FACES["sad_face"], voices["sad_voice.wav"], args.out, "sad_face")
    render_face(FACES["happy_face"], voices["happy_voice.wav"], args.out, "happy_face")
    for f in sorted(args.out.iterdir()):
        print(f"{f}  {f.stat().st_size // 1024} KB")


if __name__ == "__main__":
    main()
