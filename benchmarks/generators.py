"""Speed and consistency of the default generators (Piper + procedural head); prints one JSON object.

Run: .venv/bin/python benchmarks/generators.py
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from empathygraph.generators import GeneratorsConfig, build_renderer
from empathygraph.generators.consistency import expression_agreement, lipsync_r
from empathygraph.schemas import AvatarDirectives, AvatarProfile, CoarseEmotion, ResponsePlan, SpeechStyle

TWO_SENTENCES = "I'm really sorry you're going through this. I'm here with you, and we can take it one step at a time."
REPLIES = [
    TWO_SENTENCES,
    "That sounds exhausting. What part of the day feels the hardest for you right now?",
    "It makes sense that you feel proud. You worked hard for this, and it shows. How did your family react?",
]


def plan(text: str, emotion: CoarseEmotion = CoarseEmotion.SADNESS, profile: AvatarProfile | None = None) -> ResponsePlan:
    return ResponsePlan(
        text=text,
        speech=SpeechStyle(emotion=emotion, rate=1.0, pitch=0.0, energy=0.5),
        avatar=AvatarDirectives(expression=emotion, intensity=0.8),
        profile=profile or AvatarProfile(),
    )


def main() -> None:
    config = GeneratorsConfig()
    renderer = build_renderer(config)
    renderer.prepare()
    out = Path(tempfile.mkdtemp(prefix="bench-generators-"))

    synth_s = audio_s = 0.0
    first_chunks = []
    for text in REPLIES:
        start = time.perf_counter()
        for i, chunk in enumerate(renderer.speak(plan(text))):
            if i == 0:
                first_chunks.append(time.perf_counter() - start)
            audio_s += chunk.duration
        synth_s += time.perf_counter() - start

    turns = []
    for run in range(3):
        start = time.perf_counter()
        media = renderer.render(plan(TWO_SENTENCES), out / f"turn{run}")
        turns.append((time.perf_counter() - start, media))
    media_seconds = statistics.median(t for t, _ in turns)
    speech, video = turns[-1][1]
    frames = int(video.settings["frames"])
    video_s = min(m[1].seconds for _, m in turns)

    agreement, rows = None, None
    try:
        from empathygraph.tools.toolbox import ToolBox

        see = ToolBox().see
        videos = []
        for emotion in CoarseEmotion:
            rendered = renderer.render(plan(REPLIES[1], emotion), out / f"emotion-{emotion.value}")
            videos.append((rendered[1].files["video"], emotion))
        agreement, rows = expression_agreement(videos, see)
    except Exception as exc:  # no face classifier in this build: the metric stays null
        rows = [{"unavailable": f"{type(exc).__name__}: {exc}"}]

    print(json.dumps({
        "tts_rtf": round(synth_s / audio_s, 4),
        "tts_first_chunk_s": round(statistics.median(first_chunks), 4),
        "avatar_fps": round(frames / video_s, 1),
        "lipsync_r": round(lipsync_r(video.files["video"], speech.files["audio"], config.fps), 4),
        "expression_agreement": None if agreement is None else round(agreement, 4),
        "media_seconds_two_sentences": round(media_seconds, 4),
        "details": {
            "audio_seconds_synthesised": round(audio_s, 2),
            "two_sentence_audio_s": speech.media_seconds,
            "video_frames": frames,
            "video_size": config.size,
            "speech_backend": speech.backend,
            "avatar_backend": video.backend,
            "expression_reads": rows,
            "cpus": __import__("os").cpu_count(),
            "python": sys.version.split()[0],
        },
    }))  # fmt: skip


if __name__ == "__main__":
    main()
