"""Benchmark the perception tools; print ONE JSON object.

Speech for ASR is synthesised with espeak-ng from known sentences (so WER is measurable
without shipping recordings). Everything that needs ../shared is skipped when it is absent.

    python benchmarks/perception.py [--shared ../shared] [--no-text-eval]
"""

from __future__ import annotations

import argparse
import csv
import glob
import json
import shutil
import subprocess
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from empathygraph.eval.face_readers import FER2013_TO_COARSE, MEAD_TO_COARSE
from empathygraph.eval.metrics import word_errors as word_error_rate
from empathygraph.tools import audio_io, media_io
from empathygraph.tools.face import MODEL_LABELS, crop
from empathygraph.tools.toolbox import ToolBox

SENTENCES = [
    "I finally got the job offer I was hoping for and I cannot stop smiling.",
    "My dog passed away last week and the house feels so empty without him.",
    "I am really nervous about the exam tomorrow because I did not study enough.",
    "Someone scratched my car in the parking lot and just drove away.",
    "We are going to visit my grandparents this weekend for the first time in years.",
]


def synthesize(text: str, path: Path, speed: int = 160) -> Path:
    """Speak ``text`` with espeak-ng into a WAV file."""
    subprocess.run(["espeak-ng", "-s", str(speed), "-w", str(path), text], check=True, capture_output=True)
    return path


def _score_asr(recognizer, clips: list[Path]) -> dict:
    errors = words = 0
    audio_s = asr_s = 0.0
    recognizer.transcribe(audio_io.load_audio(clips[0], max_seconds=60, max_mb=10, min_rms_db=-60).samples)  # warm
    for text, clip in zip(SENTENCES, clips):
        samples = audio_io.load_audio(clip, max_seconds=60, max_mb=10, min_rms_db=-60).samples
        t0 = time.perf_counter()
        transcript = recognizer.transcribe(samples)
        asr_s += time.perf_counter() - t0
        audio_s += len(samples) / audio_io.SAMPLE_RATE
        e, n = word_error_rate(text, transcript.text)
        errors, words = errors + e, words + n
    return {"rtf": round(asr_s / audio_s, 4), "wer": round(errors / words, 4)}


def bench_asr(tools: ToolBox, tmp: Path, compare: list[str]) -> dict:
    if not shutil.which("espeak-ng"):
        return {"asr_skipped": "espeak-ng not installed"}
    from empathygraph.errors import BackendError
    from empathygraph.tools.asr import FasterWhisperRecognizer

    clips = [synthesize(s, tmp / f"s{i}.wav") for i, s in enumerate(SENTENCES)]
    default = _score_asr(tools._recognizer, clips)
    out = {"asr_model": tools._recognizer.name, "asr_rtf": default["rtf"], "asr_wer": default["wer"],
           "asr_wer_data": f"{len(clips)} espeak-ng sentences"}  # fmt: skip
    others = {}
    for name in compare:
        try:
            others[name] = _score_asr(FasterWhisperRecognizer(name, language="en", beam_size=1), clips)
        except BackendError as exc:
            others[name] = {"skipped": str(exc)}
    if others:
        out["asr_compare"] = others
    return out


def bench_face_fer(tools: ToolBox, shared: Path) -> dict:
    files = sorted(glob.glob(str(shared / "media/faces/fer2013_dev/*/*.jpg")))
    if not files:
        return {}
    import cv2

    _, classifier, _ = tools._face_models
    per: dict[str, list[bool]] = {}
    for f in files:
        probs = classifier.probabilities(cv2.imread(f, cv2.IMREAD_GRAYSCALE))
        truth = FER2013_TO_COARSE[Path(f).parent.name]
        per.setdefault(truth, []).append(MODEL_LABELS[int(np.argmax(probs))].value == truth)
    hits = [h for v in per.values() for h in v]
    return {"face_accuracy_fer": round(float(np.mean(hits)), 4),
            "face_accuracy_fer_per_class": {k: round(float(np.mean(v)), 3) for k, v in sorted(per.items())}}  # fmt: skip


def bench_face_mead(tools: ToolBox, shared: Path) -> dict:
    clips = sorted(glob.glob(str(shared / "media/faces/mead_clips/*.mp4")))
    if not clips:
        return {}
    import cv2

    detector, classifier, mesh = tools._face_models
    frames = [f for c in clips[:3] for f in media_io.sample_video(Path(c), fps=30, max_frames=40, max_seconds=60,
                                                                  max_mb=100)]  # fmt: skip
    t0 = time.perf_counter()
    for frame in frames:  # detection + expression per frame, the per-frame cost of see()
        grey = cv2.cvtColor(frame.image, cv2.COLOR_BGR2GRAY)
        box = detector.largest(grey)
        if box is not None:
            classifier.probabilities(crop(grey, box))
            if mesh is not None:
                mesh.landmarks(frame.image, box)
    fps = len(frames) / (time.perf_counter() - t0)
    top_hits, scored, seen = [], 0, 0
    for clip in clips:
        label = Path(clip).name.split("_")[2]
        cue = tools.see(Path(clip))
        seen += 1
        if label in MEAD_TO_COARSE:
            scored += 1
            top_hits.append(cue.distribution[0].label == MEAD_TO_COARSE[label])
    return {"face_fps": round(fps, 1), "face_accuracy_mead": round(float(np.mean(top_hits)), 4),
            "face_mead_clips": f"{scored} of {seen} scored (contempt has no coarse label)"}  # fmt: skip


def bench_speech_va(tools: ToolBox, shared: Path) -> dict:
    folder = shared / "media/speech/valence_arousal"
    if not (folder / "valence.csv").is_file():
        return {}
    truth = {dim: dict(csv.reader((folder / f"{dim}.csv").open())) for dim in ("valence", "arousal")}
    pred: dict[str, list[float]] = {"valence": [], "arousal": []}
    gold: dict[str, list[float]] = {"valence": [], "arousal": []}
    for name in sorted(truth["valence"]):
        cue = tools.hear(folder / name)
        for dim, values in pred.items():
            values.append(getattr(cue, dim))
            gold[dim].append(float(truth[dim][name]))
    r = {dim: float(np.corrcoef(pred[dim], gold[dim])[0, 1]) for dim in pred}
    return {"speech_valence_r": round(r["valence"], 4), "speech_arousal_r": round(r["arousal"], 4),
            "speech_va_clips": len(gold["valence"])}  # fmt: skip


def _five_seconds(path: Path, out: Path) -> Path:
    """Cut the first 5 s of ``path`` into a 16 kHz WAV."""
    import wave

    samples = audio_io.load_audio(path, max_seconds=60, max_mb=10, min_rms_db=-60).samples[: 5 * 16_000]
    with wave.open(str(out), "wb") as w:
        w.setnchannels(1), w.setsampwidth(2), w.setframerate(16_000)
        w.writeframes((samples * 32767).astype("<i2").tobytes())
    return out


def bench_5s_clip(tools: ToolBox, shared: Path, tmp: Path) -> dict:
    if not shutil.which("espeak-ng"):
        return {}
    clips = sorted(glob.glob(str(shared / "media/faces/mead_clips/*.mp4")))
    if not clips:
        return {}
    audio = _five_seconds(synthesize(" ".join(SENTENCES[:2]), tmp / "long.wav", speed=175), tmp / "five.wav")
    video = Path(clips[0])
    text = " ".join(SENTENCES[:2])
    tools.hear(audio), tools.see(video), tools.text_emotion(text)  # warm: models loaded once per run
    t0 = time.perf_counter()
    with ThreadPoolExecutor(max_workers=4) as pool:  # the graph runs the senses as parallel branches
        futures = [pool.submit(tools.hear, audio), pool.submit(tools.see, video),
                   pool.submit(tools.text_emotion, text), pool.submit(tools.screen_safety, text)]  # fmt: skip
        for f in futures:
            f.result()
    wall = time.perf_counter() - t0
    duration = len(audio_io.load_audio(audio, max_seconds=60, max_mb=10, min_rms_db=-60).samples) / 16000
    return {"perception_seconds_5s_clip": round(wall, 3), "perception_clip_audio_s": round(duration, 2)}


def bench_text_heldout(shared: Path) -> dict:
    """The shipped text-emotion classifier on ED valid first utterances, which it never saw (~3 min on 2 cores)."""
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
    from train_text_emotion import LABELS, load_ed, scores

    from empathygraph.eval.heldout import top_saw
    from empathygraph.tools.text_emotion import TextEmotionClassifier

    path = shared / "data" / "empathetic_dialogues" / "ed_valid.jsonl"
    if top_saw(path):
        return {"text_emotion_eval": f"not measured: the shipped text-emotion top was trained on {path}"}
    convs = load_ed(path)
    texts = [c.turns[0] for c in convs]
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))  # similar lengths pad less
    classifier = TextEmotionClassifier()
    columns = [classifier.labels.index(label) for label in LABELS]
    probs = np.zeros((len(texts), len(LABELS)), np.float32)
    for start in range(0, len(order), 32):
        rows = order[start : start + 32]
        probs[rows] = classifier.read([texts[i] for i in rows])[1][:, columns]
    r = scores(probs, np.array([LABELS.index(c.emotion) for c in convs]))
    return {"text_emotion_top1": r["top1"], "text_emotion_top3": r["top3"], "text_emotion_coarse": r["coarse"],
            "text_emotion_eval": r | {"data": "ED valid first utterances", "model": classifier.name}}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shared", type=Path, default=Path(__file__).resolve().parents[1].parent / "shared")
    parser.add_argument("--text-eval", action=argparse.BooleanOptionalAction, default=True,
                        help="score the text-emotion classifier on ED valid first utterances (~3 min on 2 cores)")  # fmt: skip
    parser.add_argument("--asr-compare", nargs="*", default=["tiny.en", "base"],
                        help="packaged faster-whisper models to score beside the configured one")  # fmt: skip
    args = parser.parse_args()
    tools = ToolBox()
    out: dict = {}
    t0 = time.perf_counter()
    tools.text_emotion("warm up")
    out["text_emotion_load_s"] = round(time.perf_counter() - t0, 2)
    t0 = time.perf_counter()
    _ = tools._recognizer  # loads the ASR model
    out["asr_load_s"] = round(time.perf_counter() - t0, 2)
    with tempfile.TemporaryDirectory() as tmp:
        out |= bench_asr(tools, Path(tmp), args.asr_compare)
        if args.shared.is_dir():
            out |= bench_face_fer(tools, args.shared)
            out |= bench_face_mead(tools, args.shared)
            out |= bench_speech_va(tools, args.shared)
            out |= bench_5s_clip(tools, args.shared, Path(tmp))
            if args.text_eval:
                out |= bench_text_heldout(args.shared)
        else:
            out["skipped"] = f"{args.shared} absent: face, speech valence/arousal, text emotion and 5 s clip not measured"
    print(json.dumps(out))


if __name__ == "__main__":
    main()
