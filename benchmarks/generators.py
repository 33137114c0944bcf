"""Speed and quality of the avatars (cartoon vs portrait) and the voices by profile; prints one JSON object.

Run: .venv/bin/python benchmarks/generators.py [--avatars procedural portrait] [--parts speed quality reference voices]

``speed``: frames per second of each avatar's ``animate`` (encode included) on the two-sentence
reply, median of 3: over wall-clock seconds (``fps``, which a shared machine slows) and over the
CPU seconds spent (``fps_per_cpu_second``, which load hardly changes; on 2 free cores the
wall-clock fps lies between it and twice it); and ``render_seconds``, the whole render of that
reply (speech, then video) with each voice, wall-clock, median of 3 after a first.

``quality``: avatars, each rendering the 7 emotions of one reply (the default profile; speech by Piper,
whose mouth follows loudness, and by Kokoro, whose mouth follows phonemes):
- ``expression_agreement``: the share of the 7 videos whose peak expression is the intended one,
  read by the bundled classifier (``tools/face.py``, which the cartoon was calibrated on) and by
  a second one never used for tuning (``facial-emotion-recognition``, ``eval/face_readers.py``);
  ``reference.sheet_photos`` is what each reads on the real labelled photos the portrait's
  expressions were learned from (its ceiling on these faces).
- ``identity``: dlib face-descriptor cosine similarity (and distance; < 0.6 is dlib's "same
  person") of the animated frames to the source portrait; ``reference.identity_between_people``
  is the same similarity between different packaged people.
- ``lipsync_r``: loudness vs the face mesh's lip gap on the frames (both avatars), and vs the
  painted mouth's area (cartoon).
``reference``: what both classifiers read on the sheet photos (overall and per emotion), their recall
per class on the FER2013 dev faces of ``../shared`` (the second never reads disgust), what the avatars'
video rule reads on real people talking (``talking_people``: the MEAD clips of ``../shared``, with their
lip gap beside the avatars' ``neutral_lip_gap``), and dlib's similarity between people.
``voices``: per profile and backend, on the three example replies: WER by whisper base, median F0
against the profile's expected range, RTF, first-sentence latency, whisper's English probability
(whisper base is the ``asr-base`` extra: ``.venv/bin/pip install -e '.[asr-base]'``; ``--no-asr`` runs without it).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from empathygraph.generators import GeneratorsConfig, PlanRenderer, build_renderer
from empathygraph.schemas import (
    AgeGroup,
    AvatarDirectives,
    AvatarProfile,
    CoarseEmotion,
    Gender,
    ResponsePlan,
    SpeechStyle,
)

TWO_SENTENCES = "I'm really sorry you're going through this. I'm here with you, and we can take it one step at a time."
REPLIES = [
    TWO_SENTENCES,
    "That sounds exhausting. What part of the day feels the hardest for you right now?",
    "It makes sense that you feel proud. You worked hard for this, and it shows. How did your family react?",
]
PARTS = ("speed", "quality", "reference", "voices")
SHARED_MEDIA = Path(__file__).resolve().parents[2] / "shared" / "media"
SPEECH = ("piper", "kokoro")
PROFILES = [
    AvatarProfile(),
    AvatarProfile(age=AgeGroup.CHILD, gender=Gender.FEMALE),
    AvatarProfile(age=AgeGroup.CHILD, gender=Gender.MALE),
    AvatarProfile(age=AgeGroup.MIDDLE_AGED, gender=Gender.FEMALE),
    AvatarProfile(age=AgeGroup.ELDERLY, gender=Gender.FEMALE, timbre="low"),
    AvatarProfile(age=AgeGroup.YOUNG, gender=Gender.MALE),
    AvatarProfile(age=AgeGroup.ELDERLY, gender=Gender.MALE),
]


def plan(
    text: str, emotion: CoarseEmotion = CoarseEmotion.SADNESS, profile: AvatarProfile | None = None
) -> ResponsePlan:
    return ResponsePlan(
        text=text,
        speech=SpeechStyle(emotion=emotion, rate=1.0, pitch=0.0, energy=0.5),
        avatar=AvatarDirectives(expression=emotion, intensity=0.8),
        profile=profile or AvatarProfile(),
    )


def _label(profile: AvatarProfile) -> str:
    return f"{profile.age.value}/{profile.gender.value}/{profile.timbre.value}"


# --- avatars -------------------------------------------------------------------------------


def sampled_frames(video: Path) -> list[np.ndarray]:
    """BGR frames sampled as ``ToolBox.see`` samples a video."""
    from empathygraph.tools.config import PerceptionConfig
    from empathygraph.tools.media_io import sample_video

    c = PerceptionConfig()
    frames = sample_video(video, fps=c.face_frames_per_second, max_frames=c.face_max_frames,
                          max_seconds=c.max_video_seconds, max_mb=c.max_media_mb)  # fmt: skip
    return [f.image for f in frames]


def expression_reads(videos: dict[CoarseEmotion, Path]) -> dict[str, object]:
    """Agreement by the bundled and the second classifier, with one row per emotion."""
    from empathygraph.eval.face_readers import SecondExpressionClassifier, read_expression
    from empathygraph.tools.face import ExpressionClassifier

    readers = {"bundled": (ExpressionClassifier().probabilities, 0.1), "second": (SecondExpressionClassifier(), 0.0)}
    rows, hits = [], dict.fromkeys(readers, 0)
    for emotion, video in videos.items():
        frames = sampled_frames(video)
        row: dict[str, object] = {"intended": emotion.value}
        for name, (classify, margin) in readers.items():
            read = read_expression(frames, classify, margin)
            row[name] = read.peak.value if read.peak else None
            row[f"{name}_mean"] = read.mean
            row[f"{name}_frames"] = read.frames
            hits[name] += read.peak is emotion
        rows.append(row)
    return {name: round(hits[name] / len(videos), 4) for name in readers} | {"rows": rows}


def identity(source_rgb: np.ndarray, videos: dict[CoarseEmotion, Path]) -> dict[str, object]:
    """Face-descriptor similarity of every 5th frame of each video to the source portrait."""
    from empathygraph.eval.face_readers import IdentityEmbedder, identity_similarity
    from empathygraph.generators.avatar.video import read_frames

    embed = IdentityEmbedder()
    per = {e.value: identity_similarity(source_rgb, list(read_frames(v))[::5], embed) for e, v in videos.items()}
    return {
        "cosine_median": round(statistics.median(r["cosine_median"] for r in per.values()), 4),
        "cosine_min": round(min(r["cosine_min"] for r in per.values()), 4),
        "distance_max": round(max(r["distance_max"] for r in per.values()), 4),
        "per_emotion": per,
    }


def avatar_section(
    name: str, out: Path, voices: tuple[str, ...] = SPEECH, person: str | None = None
) -> dict[str, object]:
    """Render the emotions with this avatar (speech by each of ``voices``) and measure them.

    ``person``: a packaged person's id to animate instead of the default profile's (portrait only).
    """
    from empathygraph.eval.consistency import lipsync_r

    result: dict[str, object] = {}
    for speech in voices:
        portrait = None
        if person and name == "portrait":
            from empathygraph.generators.avatar.people import person as packaged

            portrait = packaged(person).portrait
        config = GeneratorsConfig(speech=speech, avatar=name, portrait=portrait)
        renderer = build_renderer(config)
        renderer.prepare()
        videos, lips = {}, {}
        for emotion in CoarseEmotion:
            _, video = renderer.render(plan(REPLIES[1], emotion), out / f"{name}-{speech}-{emotion.value}")
            if video.error:
                raise RuntimeError(video.error)
            videos[emotion] = video.files["video"]
        audio = out / f"{name}-{speech}-neutral" / "reply.wav"
        lips["mesh"] = round(lipsync_r(videos[CoarseEmotion.NEUTRAL], audio, config.fps, reader="mesh"), 4)
        if name == "procedural":
            lips["painted_mouth"] = round(lipsync_r(videos[CoarseEmotion.NEUTRAL], audio, config.fps), 4)
        section: dict[str, object] = {
            "lipsync_r": lips,
            "mouth_from": video.settings.get("mouth_from"),
            "expression_agreement": expression_reads(videos),
            "neutral_lip_gap": lip_gap(videos[CoarseEmotion.NEUTRAL]),
        }
        if name == "portrait":
            source, rig = renderer.avatar.rig(AvatarProfile())  # type: ignore[union-attr]
            section["person"] = source.person_id
            section["identity"] = identity(rig.image, videos)
        result[speech] = section
    return result


def cpu_seconds() -> float:
    """CPU time of this process and its finished children (the video encoder) so far."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def render_seconds(name: str, out: Path, voice: str, runs: int = 3) -> float:
    """Wall-clock seconds of the whole render (speech WAV, then the avatar MP4) of the two-sentence reply, median
    of ``runs`` after a first one; each run's words differ a little, so no sentence comes from the speech memo."""
    renderer = build_renderer(GeneratorsConfig(speech=voice, avatar=name))
    renderer.prepare()
    walls = []
    for run, ending in enumerate(("one step", "a step", "one day", "a day")[: runs + 1]):
        wall = time.perf_counter()
        renderer.render(plan(TWO_SENTENCES.replace("one step", ending)), out / f"render-{name}-{voice}-{run}")
        walls.append(time.perf_counter() - wall)
    return round(statistics.median(walls[1:]), 3)


def speed_section(name: str, out: Path, runs: int = 3) -> dict[str, object]:
    """Frames per second of ``animate`` alone (encode included) on the two-sentence reply, median of ``runs``.

    ``fps`` is frames over wall-clock seconds, which a shared machine slows; ``fps_per_cpu_second``
    is frames over the CPU seconds spent (this process and the encoder), which load hardly changes:
    on 2 free cores the wall-clock fps lies between it (serial) and twice it (both cores busy).
    """
    from empathygraph.generators.audio import write_wav
    from empathygraph.generators.renderer import join_speech

    renderer = build_renderer(GeneratorsConfig(speech="kokoro", avatar=name))
    renderer.prepare()
    reply = plan(TWO_SENTENCES)
    speech = join_speech(list(renderer.speak(reply)))
    audio = out / f"speed-{name}.wav"
    write_wav(audio, speech.audio, speech.sample_rate)
    walls, cpus, frames = [], [], 0
    for run in range(runs):
        wall, cpu = time.perf_counter(), cpu_seconds()
        settings = renderer.avatar.animate(speech, audio, reply.avatar, reply.profile, out / f"speed-{name}-{run}.mp4")  # type: ignore[union-attr]
        walls.append(time.perf_counter() - wall)
        cpus.append(cpu_seconds() - cpu)
        frames = int(settings["frames"])
    return {
        "frames": frames,
        "fps": round(frames / statistics.median(walls), 2),
        "fps_per_cpu_second": round(frames / statistics.median(cpus), 2),
        "load_avg": round(os.getloadavg()[0], 2),
        "render_seconds": {voice: render_seconds(name, out, voice) for voice in SPEECH},
    }


def transfer_section(out: Path) -> dict[str, object] | None:
    """A face with no sheet (``../shared`` portrait): mean movements, shading from the profile's person."""
    photos = sorted((SHARED_MEDIA / "portraits").glob("*.jpg"))
    if not photos:
        return None
    from empathygraph.generators.avatar.portrait import load_portrait

    config = GeneratorsConfig(speech="piper", avatar="portrait", portrait=photos[0])
    renderer = build_renderer(config)
    videos = {}
    for emotion in CoarseEmotion:
        _, video = renderer.render(plan(REPLIES[1], emotion), out / f"transfer-{emotion.value}")
        videos[emotion] = video.files["video"]
    return {"photo": photos[0].name, "expression_agreement": expression_reads(videos),
            "identity": identity(load_portrait(photos[0], config.size), videos)}  # fmt: skip


def reference_section() -> dict[str, object]:
    """What the classifiers read on the real labelled sheet photos; how alike different people look to dlib."""
    import cv2

    from empathygraph.eval.face_readers import IdentityEmbedder, SecondExpressionClassifier
    from empathygraph.generators.avatar.expression_sheet import SHEET_EMOTION, sheet_faces
    from empathygraph.generators.avatar.people import people
    from empathygraph.tools.face import MODEL_LABELS, Box, ExpressionClassifier, crop

    readers = {"bundled": (ExpressionClassifier().probabilities, 0.1), "second": (SecondExpressionClassifier(), 0.0)}
    hits, total = dict.fromkeys(readers, 0), 0
    per_emotion = {name: dict.fromkeys((e.value for e in SHEET_EMOTION), 0) for name in readers}
    embed, vectors = IdentityEmbedder(), []
    for person in people():
        sheet = cv2.imread(str(person.expression_sheet))
        grey = cv2.cvtColor(sheet, cv2.COLOR_BGR2GRAY)
        faces = sheet_faces(cv2.cvtColor(sheet, cv2.COLOR_BGR2RGB))
        for emotion, label in SHEET_EMOTION.items():
            total += 1
            for name, (classify, margin) in readers.items():
                probs = classify(crop(grey, Box(*faces[label]), margin))
                hit = MODEL_LABELS[int(np.argmax(probs))] is emotion
                hits[name] += hit
                per_emotion[name][emotion.value] += hit
        vectors.append(embed(cv2.cvtColor(cv2.imread(str(person.portrait)), cv2.COLOR_BGR2RGB)))
    stack = np.stack([v for v in vectors if v is not None])
    unit = stack / np.linalg.norm(stack, axis=1, keepdims=True)
    between = (unit @ unit.T)[np.triu_indices(len(unit), 1)]
    return {
        "sheet_photos": {name: round(hits[name] / total, 4) for name in readers} | {"photos": total},
        "sheet_photos_read_as_labelled_by_emotion": per_emotion,  # out of one photo per person
        "fer2013_dev_recall": fer2013_recall({name: classify for name, (classify, _) in readers.items()}),
        "talking_people": talking_people(),
        "identity_between_people": {"cosine_median": round(float(np.median(between)), 4),
                                    "cosine_max": round(float(between.max()), 4)},
    }  # fmt: skip


def talking_people() -> dict[str, object] | None:
    """What the avatars' video rule (``expression_reads``) reads on real people talking with each emotion (the
    MEAD clips of ``../shared``: 3 actors, one clip per emotion, contempt left out), and their lip gap over face
    height (median and 98th percentile over the frames; the avatars' own is in ``quality``). None when absent."""
    from empathygraph.eval.face_readers import MEAD_TO_COARSE

    root = SHARED_MEDIA / "faces" / "mead_clips"
    actors = sorted({p.name.split("_")[0] for p in root.glob("*_front_*.mp4")}) if root.is_dir() else []
    if not actors:
        return None
    out: dict[str, object] = {}
    for actor in actors:
        videos = {CoarseEmotion(label): clip for name, label in MEAD_TO_COARSE.items()
                  if (clip := next(root.glob(f"{actor}_front_{name}_*.mp4"), None)) is not None}  # fmt: skip
        reads = expression_reads(videos)
        out[actor] = {"bundled": reads["bundled"], "second": reads["second"],
                      "read_as": {row["intended"]: [row["bundled"], row["second"]] for row in reads["rows"]},
                      "neutral_lip_gap": lip_gap(videos[CoarseEmotion.NEUTRAL]) if CoarseEmotion.NEUTRAL in videos else None}
    return out


def lip_gap(video: Path) -> dict[str, float]:
    """The face mesh's lip gap over face height in ``video``: median and 98th percentile over the frames."""
    from empathygraph.eval.consistency import mesh_mouth_track

    gap = mesh_mouth_track(video)
    return {"median": round(float(np.median(gap)), 4), "p98": round(float(np.percentile(gap, 98)), 4)}


def fer2013_recall(readers: dict[str, object]) -> dict[str, object] | None:
    """Each classifier's recall per class on the FER2013 dev faces in ``../shared`` (None when absent)."""
    import cv2

    from empathygraph.eval.face_readers import FER2013_TO_COARSE
    from empathygraph.tools.face import MODEL_LABELS

    root = SHARED_MEDIA / "faces" / "fer2013_dev"
    if not root.is_dir():
        return None
    out: dict[str, object] = {}
    for name, classify in readers.items():
        recall = {}
        for folder, label in FER2013_TO_COARSE.items():
            paths = sorted((root / folder).glob("*.jpg"))
            reads = [
                MODEL_LABELS[int(np.argmax(classify(cv2.imread(str(p), cv2.IMREAD_GRAYSCALE))))].value for p in paths
            ]  # type: ignore[operator]
            recall[label] = round(sum(r == label for r in reads) / max(1, len(reads)), 3)
        out[name] = recall
    return out


# --- voices --------------------------------------------------------------------------------


def voice_name(renderer: PlanRenderer, profile: AvatarProfile) -> str:
    """The Kokoro voice mix a profile gets, or the Piper model file that speaks it."""
    described = renderer.speech.describe(plan("x", CoarseEmotion.NEUTRAL, profile).speech, profile)  # type: ignore[union-attr]
    return str(described.get("model") if described.get("voice") in (None, "piper") else described["voice"])


def voice_section(asr: bool = True) -> dict[str, object]:
    """Each profile's voice under kokoro and under piper: intelligibility, pitch, speed, first sentence.

    ``asr=False`` leaves whisper out (no WER, no English probability): the timings alone, in minutes less.
    """
    from math import gcd

    from faster_whisper import WhisperModel
    from scipy.signal import resample_poly

    from empathygraph.eval.metrics import word_errors
    from empathygraph.generators.speech.voice_character import expected_f0_range
    from empathygraph.tools.asr import packaged_model_dir
    from empathygraph.tools.prosody import SAMPLE_RATE, pitch_track

    whisper = (
        WhisperModel(str(packaged_model_dir("base")), device="cpu", compute_type="int8", cpu_threads=2) if asr else None
    )
    renderers = {name: build_renderer(GeneratorsConfig(speech=name, avatar="none")) for name in ("kokoro", "piper")}
    for renderer in renderers.values():
        renderer.prepare()
    rows = []
    for profile in PROFILES:
        for backend, renderer in renderers.items():
            wers, f0s, synth, audio_s, firsts, english = [], [], 0.0, 0.0, [], []
            for text in REPLIES:
                start, chunks = time.perf_counter(), []
                for chunk in renderer.speak(plan(text, CoarseEmotion.NEUTRAL, profile)):
                    if not chunks:
                        firsts.append(time.perf_counter() - start)
                    chunks.append(chunk)
                synth += time.perf_counter() - start
                audio = np.concatenate([c.audio for c in chunks])
                rate = chunks[0].sample_rate
                audio_s += len(audio) / rate
                common = gcd(SAMPLE_RATE, rate)
                audio16 = resample_poly(audio, SAMPLE_RATE // common, rate // common).astype(np.float32)
                f0, _ = pitch_track(audio16)
                f0s.append(float(np.median(f0[f0 > 0])))
                if whisper is None:
                    continue
                segments, info = whisper.transcribe(
                    audio16, beam_size=1, temperature=0.0, condition_on_previous_text=False
                )
                errors, words = word_errors(text, " ".join(s.text for s in segments))
                wers.append(errors / words)
                english.append(info.language_probability if info.language == "en" else 0.0)
            low, high = expected_f0_range(profile)
            f0 = statistics.median(f0s)
            rows.append({
                "profile": _label(profile), "backend": backend,
                "voice": voice_name(renderer, profile),
                "wer": round(statistics.mean(wers), 4) if wers else None, "f0_median_hz": round(f0, 1),
                "f0_expected_hz": [round(low), round(high)], "f0_in_range": low <= f0 <= high,
                "rtf": round(synth / audio_s, 3), "first_sentence_s": round(statistics.median(firsts), 3),
                "english_probability": round(statistics.mean(english), 3) if english else None,
            })  # fmt: skip
    return {"rows": rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--avatars", nargs="*", default=["procedural", "portrait"])
    parser.add_argument("--parts", nargs="*", default=list(PARTS), choices=PARTS)
    parser.add_argument(
        "--speech", nargs="*", default=list(SPEECH), choices=SPEECH, help="voices the quality part renders with"
    )
    parser.add_argument("--no-any-face", action="store_true", help="skip the quality part's face with no sheet")
    parser.add_argument("--no-asr", action="store_true", help="voices part without whisper: timings and pitch only")
    parser.add_argument(
        "--person", help="packaged person (P001 ...) the portrait animates instead of the default profile's"
    )
    args = parser.parse_args()
    out = Path(tempfile.mkdtemp(prefix="bench-generators-"))
    machine = {"cpus": os.cpu_count(), "load_avg_at_start": os.getloadavg()[0], "python": sys.version.split()[0],
               "out": str(out)}  # fmt: skip
    result: dict[str, object] = {"machine": machine}
    if "speed" in args.parts:
        result["speed"] = {name: speed_section(name, out) for name in args.avatars}
    if "quality" in args.parts:
        result["avatars"] = {name: avatar_section(name, out, tuple(args.speech), args.person) for name in args.avatars}
        if "portrait" in args.avatars and not args.no_any_face:
            result["portrait_any_face"] = transfer_section(out)
    if "reference" in args.parts:
        result["reference"] = reference_section()
    if "voices" in args.parts:
        result["voices"] = voice_section(asr=not args.no_asr)
    machine["load_avg_at_end"] = os.getloadavg()[0]
    print(json.dumps(result))


if __name__ == "__main__":
    main()
