"""Speed and consistency of the default generators (Piper + procedural head); prints one JSON object.

Run: .venv/bin/python benchmarks/generators.py

Expression keys: ``expression_agreement`` is the share of the 7 emotion videos whose peak
expression (``ToolBox.see``) is the intended one; ``expression_geometry_agreement`` is the share
of the 6 non-neutral videos whose face-mesh geometry moves as their action units should (an
independent reader); ``details.expression_reads`` has one row per emotion (peak, mean
distribution, geometry) and ``details.expression_frames`` the classifier on a silent still
frame and on each sampled talking frame.
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from empathygraph.eval.consistency import expression_agreement, geometry_agreement, lipsync_r
from empathygraph.generators import GeneratorsConfig, build_renderer
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


def frame_reads(videos: list[tuple[Path, CoarseEmotion]], config: GeneratorsConfig) -> list[dict[str, object]]:
    """Per emotion: the classifier on a silent still frame, and the share of talking frames it reads as intended.

    The still is the procedural head with the expression at the benchmark's intensity, mouth closed
    and eyes open; the talking frames are the video's frames sampled as ``ToolBox.see`` samples them.
    """
    import cv2

    from empathygraph.generators.avatar.motion import EXPRESSIONS, FaceTrack
    from empathygraph.generators.avatar.procedural import ProceduralHead
    from empathygraph.tools.config import PerceptionConfig
    from empathygraph.tools.face import MODEL_LABELS, ExpressionClassifier, FaceDetector, crop
    from empathygraph.tools.media_io import sample_video

    tools = PerceptionConfig()
    detector, classifier = FaceDetector(tools.face_detect_width, tools.face_min_size), ExpressionClassifier()
    head = ProceduralHead(AvatarProfile(), config.size)

    def read(grey: np.ndarray) -> str | None:
        box = detector.largest(grey)
        return None if box is None else MODEL_LABELS[int(np.argmax(classifier.probabilities(crop(grey, box))))].value

    rows = []
    for path, emotion in videos:
        zero = np.zeros(1)
        still = FaceTrack(config.fps, zero, zero, zero, zero, zero, zero, zero, EXPRESSIONS[emotion].scaled(0.35 + 0.65 * 0.8), "still")
        still_read = read(cv2.cvtColor(head.frame(still, 0), cv2.COLOR_RGB2GRAY))
        frames = sample_video(path, fps=tools.face_frames_per_second, max_frames=tools.face_max_frames,
                              max_seconds=tools.max_video_seconds, max_mb=tools.max_media_mb)  # fmt: skip
        reads = [read(cv2.cvtColor(f.image, cv2.COLOR_BGR2GRAY)) for f in frames]
        rows.append({
            "intended": emotion.value,
            "still_read": still_read,
            "talking_frames_as_intended": round(sum(r == emotion.value for r in reads) / max(1, len(reads)), 3),
            "talking_frames": len(reads),
        })  # fmt: skip
    return rows


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

    agreement, rows, geometry, checks, frame_rows = None, None, None, None, None
    try:
        from empathygraph.tools.toolbox import ToolBox

        see = ToolBox().see
        videos = []
        for emotion in CoarseEmotion:
            rendered = renderer.render(plan(REPLIES[1], emotion), out / f"emotion-{emotion.value}")
            videos.append((rendered[1].files["video"], emotion))
        agreement, rows = expression_agreement(videos, see)
        geometry, checks = geometry_agreement(rows)
        frame_rows = frame_reads(videos, config)
    except Exception as exc:  # no face classifier in this build: the metric stays null
        rows = (rows or []) + [{"unavailable": f"{type(exc).__name__}: {exc}"}]

    print(json.dumps({
        "tts_rtf": round(synth_s / audio_s, 4),
        "tts_first_chunk_s": round(statistics.median(first_chunks), 4),
        "avatar_fps": round(frames / video_s, 1),
        "lipsync_r": round(lipsync_r(video.files["video"], speech.files["audio"], config.fps), 4),
        "expression_agreement": None if agreement is None else round(agreement, 4),
        "expression_geometry_agreement": None if geometry is None else round(geometry, 4),
        "media_seconds_two_sentences": round(media_seconds, 4),
        "details": {
            "audio_seconds_synthesised": round(audio_s, 2),
            "two_sentence_audio_s": speech.media_seconds,
            "video_frames": frames,
            "video_size": config.size,
            "speech_backend": speech.backend,
            "avatar_backend": video.backend,
            "expression_reads": rows,
            "expression_frames": frame_rows,
            "expression_geometry": checks,
            "cpus": __import__("os").cpu_count(),
            "python": sys.version.split()[0],
        },
    }))  # fmt: skip


if __name__ == "__main__":
    main()
