"""Hostile inputs, generated: broken audio, images, videos, scenario files and text.

Each ``Case`` is one file (or message) made from a small valid one by a mutation a careless or
hostile sender could make: cut short, bytes flipped, a header that lies (50,000 x 50,000
pixels, 4 GHz sample rates, hours of audio), NaN samples, the wrong container, an alias bomb,
a path out of the scenario's folder, megabytes of text, control characters. ``run_case`` feeds
it to the loader a turn uses and says how that went: accepted, refused with a typed error
that names the file and the problem, or not (an untyped exception, an error that names no
file, a case that takes longer than ``HANG_S``). The unit tests run a slice; the benchmark
(``benchmarks/reliability.py``) runs hundreds.
"""

from __future__ import annotations

import faulthandler
import functools
import io
import struct
import tempfile
import time
import wave
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np
import yaml
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

Kind = Literal["audio", "image", "video", "scenario", "text"]
KINDS: tuple[Kind, ...] = ("audio", "image", "video", "scenario", "text")
Outcome = Literal["accepted", "refused", "untyped", "unnamed", "hang"]
HANG_S = 10.0  # a case slower than this counts as a hang
STUCK_S = 120.0  # one that has not returned by then ends the fuzz run


@dataclass(frozen=True)
class Case:
    """One hostile input: its kind, the file name it is sent under, its content, and how it was made."""

    kind: Kind
    name: str
    data: bytes | str
    how: str


@dataclass(frozen=True)
class Result:
    case: Case
    outcome: Outcome
    detail: str
    seconds: float


# --- valid seeds -----------------------------------------------------------------------------

def wav_bytes(rate: int = 16_000, seconds: float = 1.0, channels: int = 1, *, float_nan: bool = False) -> bytes:
    """A spoken-level sine as 16-bit PCM, or as 32-bit float WAV holding NaN and infinity."""
    t = np.arange(int(rate * seconds)) / rate
    tone = (0.3 * np.sin(2 * np.pi * 220 * t)).astype(np.float32)
    frames = np.repeat(tone[:, None], channels, axis=1)
    if float_nan:
        frames[::50] = np.nan
        frames[1::97] = np.inf
        data = frames.astype("<f4").tobytes()
        fmt = struct.pack("<HHIIHH", 3, channels, rate, rate * channels * 4, channels * 4, 32)
        return (b"RIFF" + struct.pack("<I", 36 + len(data)) + b"WAVEfmt " + struct.pack("<I", 16) + fmt
                + b"data" + struct.pack("<I", len(data)) + data)
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(channels)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes((frames * 32767).astype("<i2").tobytes())
    return buffer.getvalue()


@functools.cache
def image_bytes(suffix: str) -> bytes:
    import cv2

    picture = np.dstack([np.tile(np.arange(64, dtype=np.uint8) * 4, (48, 1))] * 3)
    return cv2.imencode(suffix, picture)[1].tobytes()


@functools.cache
def video_bytes() -> bytes:
    """A 32x32, 10-frame H.264 MP4."""
    import imageio_ffmpeg

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "seed.mp4"
        writer = imageio_ffmpeg.write_frames(str(path), (32, 32), fps=10, macro_block_size=16, ffmpeg_log_level="error")
        writer.send(None)
        for index in range(10):
            writer.send(np.full((32, 32, 3), index * 20, np.uint8))
        writer.close()
        return path.read_bytes()


@functools.cache
def transcoded(kind: Literal["audio", "video"], suffix: str, *codec: str) -> bytes:
    """The audio seed (0.5 s) or the video seed re-encoded by FFmpeg into ``suffix``'s container."""
    import subprocess

    import imageio_ffmpeg

    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / ("seed.wav" if kind == "audio" else "seed.mp4")
        source.write_bytes(wav_bytes(seconds=0.5) if kind == "audio" else video_bytes())
        out = Path(folder) / f"out{suffix}"
        subprocess.run([imageio_ffmpeg.get_ffmpeg_exe(), "-v", "error", "-i", str(source), *codec, str(out)],
                       check=True, capture_output=True)
        return out.read_bytes()


def aac_bytes() -> bytes:
    return transcoded("audio", ".m4a", "-c:a", "aac")


# --- mutations -------------------------------------------------------------------------------

def patch(data: bytes, offset: int, packed: bytes) -> bytes:
    return data[:offset] + packed + data[offset + len(packed):] if 0 <= offset <= len(data) - len(packed) else data


def png_claiming(data: bytes, width: int, height: int) -> bytes:
    """The PNG with its IHDR claiming ``width`` x ``height`` (and a CRC that matches, as a forger would write)."""
    header = data[12:16] + struct.pack(">II", width, height) + data[24:29]
    return data[:12] + header + struct.pack(">I", zlib.crc32(header)) + data[33:]


def jpeg_claiming(data: bytes, width: int, height: int) -> bytes:
    at = data.find(b"\xff\xc0")
    return patch(data, at + 5, struct.pack(">HH", height, width)) if at >= 0 else data


def mp4_claiming(data: bytes, width: int, height: int) -> bytes:
    at = data.find(b"avc1")  # the visual sample entry: width and height 24 bytes after its type
    data = patch(data, at + 28, struct.pack(">HH", width, height)) if at >= 0 else data
    at = data.find(b"tkhd")  # the track header's 16.16 width and height close it
    return patch(data, at + 4 + 76, struct.pack(">II", width << 16, height << 16)) if at >= 0 else data


def long_flac(hours: float = 3.0, rate: int = 16_000) -> bytes:
    """A FLAC stream header claiming ``hours`` of 16-bit mono audio, and no audio after it."""
    fields = [(4096, 16), (4096, 16), (0, 24), (0, 24), (rate, 20), (0, 3), (15, 5), (int(hours * 3600 * rate), 36),
              (0, 128)]  # block sizes, frame sizes, rate, channels - 1, bits - 1, total samples, MD5
    info = 0
    for value, width in fields:
        info = info << width | value
    return b"fLaC" + bytes([0x80, 0, 0, 34]) + info.to_bytes(34, "big")


def wav_header(data: bytes, rate: int, channels: int, data_size: int | None) -> bytes:
    data = patch(data, 22, struct.pack("<HI", channels, rate))
    return patch(data, 40, struct.pack("<I", data_size)) if data_size is not None else data


OTHER = {"png": lambda: image_bytes(".png"), "wav": lambda: wav_bytes(seconds=0.2), "mp4": video_bytes,
         "text": lambda: b"hello, I am not media\n" * 20}


@st.composite
def byte_damage(draw: st.DrawFn, data: bytes) -> tuple[bytes, str]:
    """Cut short, bytes flipped, garbage in front, or emptied."""
    how = draw(st.sampled_from(["truncate", "flip", "prefix", "empty", "intact"]))
    if how == "truncate":
        cut = draw(st.integers(0, len(data)))
        return data[:cut], f"truncated at {cut} of {len(data)} bytes"
    if how == "flip":
        spots = draw(st.lists(st.integers(0, len(data) - 1), min_size=1, max_size=40))
        mutable = bytearray(data)
        for spot in spots:
            mutable[spot] ^= draw(st.integers(1, 255))
        return bytes(mutable), f"{len(spots)} bytes flipped"
    if how == "prefix":
        return draw(st.binary(min_size=1, max_size=64)) + data, "garbage in front"
    if how == "empty":
        return b"", "empty"
    return data, "intact"


Seed = Callable[[st.DrawFn], tuple[bytes, str]]


def _header_wav(draw: st.DrawFn) -> tuple[bytes, str]:
    rate = draw(st.sampled_from([0, 1, 999, 400_000, 2**31 - 1, 2**32 - 1]))
    channels = draw(st.sampled_from([0, 1, 2, 255, 65_535]))
    size = draw(st.sampled_from([None, 0, 2**32 - 1]))
    return wav_header(wav_bytes(), rate, channels, size), f"header: {rate} Hz, {channels} ch, data {size}"


def _other(draw: st.DrawFn) -> tuple[bytes, str]:
    other = draw(st.sampled_from(sorted(OTHER)))
    return OTHER[other](), f"{other} bytes"


AUDIO_SEEDS: dict[str, Seed] = {
    "pcm": lambda draw: (wav_bytes(), "16 kHz PCM"),
    "nan": lambda draw: (wav_bytes(float_nan=True), "float WAV with NaN and infinity"),
    "stereo": lambda draw: (wav_bytes(rate=44_100, channels=2, seconds=0.5), "44.1 kHz stereo"),
    "aac": lambda draw: (aac_bytes(), "AAC in MP4"),
    "vorbis": lambda draw: (transcoded("audio", ".ogg", "-c:a", "libvorbis"), "Vorbis in Ogg"),
    "mp3": lambda draw: (transcoded("audio", ".mp3", "-c:a", "libmp3lame"), "MP3"),
    "header": _header_wav,
    "long": lambda draw: (long_flac(draw(st.sampled_from([0.05, 3.0, 1000.0]))), "FLAC header claiming hours"),
}
# Declared sizes a header may lie with: a 50k square, nothing, one empty side, a 65k-wide strip.
CLAIMED = st.sampled_from([(50_000, 50_000), (0, 0), (0, 48), (65_535, 1)])


def _claiming(forge: Callable[[bytes, int, int], bytes], seed: Callable[[], bytes], what: str) -> Seed:
    def draw_one(draw: st.DrawFn) -> tuple[bytes, str]:
        width, height = draw(CLAIMED)
        return forge(seed(), width, height), f"{what} header claims {width}x{height}"
    return draw_one


IMAGE_SEEDS: dict[str, Seed] = {
    "png": lambda draw: (image_bytes(".png"), "png"),
    "jpg": lambda draw: (image_bytes(".jpg"), "jpg"),
    "claimed_png": _claiming(png_claiming, lambda: image_bytes(".png"), "PNG"),
    "claimed_jpg": _claiming(jpeg_claiming, lambda: image_bytes(".jpg"), "JPEG"),
}
VIDEO_SEEDS: dict[str, Seed] = {
    "mp4": lambda draw: (video_bytes(), "H.264 MP4"),
    "mkv": lambda draw: (transcoded("video", ".mkv", "-c", "copy"), "H.264 in Matroska"),
    "webm": lambda draw: (transcoded("video", ".webm", "-c:v", "libvpx"), "VP8 WebM"),
    "avi": lambda draw: (transcoded("video", ".avi", "-c:v", "mjpeg"), "Motion JPEG AVI"),
    "claimed": _claiming(mp4_claiming, video_bytes, "MP4 container"),
}


@st.composite
def media_cases(draw: st.DrawFn, kind: Kind, stem: str, seeds: dict[str, Seed], suffixes: list[str]) -> Case:
    """A seed file of ``kind`` (or another format's bytes), damaged, under one of ``suffixes``."""
    data, how = draw(st.sampled_from([*seeds.values(), _other]))(draw)
    damaged, damage = draw(byte_damage(data))
    return Case(kind, f"{stem}{draw(st.sampled_from(suffixes))}", damaged, f"{how}, {damage}")


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
SCENARIO_KEYS = st.sampled_from(["name", "description", "profile", "turns", "text", "audio", "image", "video", "x"])
ESCAPES = ["../voice.wav", "../../etc/passwd", "/etc/hostname", "~/.ssh/id_rsa", "media/../../x.wav", "link.wav"]
BOMB = ("a: &a [x,x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\n"
        "d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d]\n"
        "name: bomb\nturns: [{text: *e}]\n")


@st.composite
def scenario_cases(draw: st.DrawFn) -> Case:
    shape = draw(st.sampled_from(["random", "wrong_types", "escape", "bomb", "recursive", "huge", "deep", "bytes"]))
    if shape == "random":
        text, how = yaml.safe_dump(draw(st.dictionaries(SCENARIO_KEYS, JSON_VALUES, max_size=5))), "random mapping"
    elif shape == "wrong_types":
        turns = draw(st.lists(st.dictionaries(SCENARIO_KEYS, JSON_VALUES, max_size=3), max_size=3) | JSON_VALUES)
        text, how = yaml.safe_dump({"name": draw(JSON_VALUES), "turns": turns}), "keys of the wrong types"
    elif shape == "escape":
        where = draw(st.sampled_from(ESCAPES))
        kind = draw(st.sampled_from(["audio", "image", "video"]))
        text, how = yaml.safe_dump({"name": "x", "turns": [{"text": "hi", kind: where}]}), f"{kind} at {where}"
    elif shape == "bomb":
        text, how = BOMB, "alias bomb"
    elif shape == "recursive":
        text, how = "name: &n [*n]\nturns: &t [{text: hi, audio: *t}]\n", "recursive anchors"
    elif shape == "huge":
        size = draw(st.sampled_from([5_000, 2_000_000]))
        text, how = yaml.safe_dump({"name": "x", "turns": [{"text": "I feel lost. " * (size // 13)}]}), f"{size} chars"
    elif shape == "deep":
        depth = draw(st.integers(50, 5_000))
        text, how = "name: x\nturns: " + "[" * depth + "]" * depth + "\n", f"nested {depth} deep"
    else:
        return Case("scenario", "scenario.yaml", draw(st.binary(max_size=200)), "random bytes")
    return Case("scenario", "scenario.yaml", text, how)


SCRIPTS = ["I feel so alone tonight.", "Je me sens seul.", "我今天很难过。", "Мне грустно.", "أشعر بالحزن",
           "मैं उदास हूँ", "😢💔🙏🏽", "👩‍👩‍👧 family", "ignore\u202eevil", "e\u0301\u0301\u0301"]
CONTROL = st.characters(min_codepoint=0, max_codepoint=0x9F)


@st.composite
def text_cases(draw: st.DrawFn) -> Case:
    shape = draw(st.sampled_from(["mixed", "control", "surrogate", "megabytes", "any"]))
    if shape == "mixed":
        text, how = " ".join(draw(st.lists(st.sampled_from(SCRIPTS), min_size=1, max_size=6))), "mixed scripts, emoji"
    elif shape == "control":
        text = draw(st.text(alphabet=CONTROL | st.sampled_from("abc "), min_size=1, max_size=80))
        how = "control characters"
    elif shape == "surrogate":
        text, how = "I feel \ud83d alone \udc00 " + draw(st.text(max_size=20)), "lone surrogates"
    elif shape == "megabytes":
        size = draw(st.sampled_from([3_999, 4_001, 100_000, 3_000_000]))
        text, how = ("I feel lost. " * (size // 13 + 1))[:size], f"{size} characters"
    else:
        text, how = draw(st.text(max_size=300)), "any text"
    return Case("text", "message", text, how)


STRATEGIES = {
    "audio": media_cases("audio", "voice", AUDIO_SEEDS, [".wav", ".wav", ".mp3", ".flac", ".ogg", ".m4a"]),
    "image": media_cases("image", "face", IMAGE_SEEDS, [".png", ".jpg", ".jpeg", ".webp", ".bmp"]),
    "video": media_cases("video", "face", VIDEO_SEEDS, [".mp4", ".mp4", ".mov", ".mkv", ".webm", ".avi"]),
    "scenario": scenario_cases(),
    "text": text_cases(),
}


# --- running a case --------------------------------------------------------------------------

@functools.cache
def _empathizer():
    from empathygraph import Empathizer
    from empathygraph.backbones import wrap_chat_model
    from tests.conftest import scripted, test_config

    return Empathizer(test_config(), backbone=wrap_chat_model(scripted()))


def _write(case: Case, folder: Path) -> Path:
    path = folder / case.name
    if isinstance(case.data, bytes):
        path.write_bytes(case.data)
    else:
        path.write_text(case.data, encoding="utf-8", errors="surrogatepass")
    return path


def _load(case: Case, folder: Path) -> str:
    """Feed the case to what a turn uses to read it; what it produced, in a few words."""
    from empathygraph.cli.scenarios import load_scenario
    from empathygraph.state import TurnInput
    from empathygraph.tools import audio_io, media_io
    from empathygraph.tools.config import PerceptionConfig

    limits = PerceptionConfig()
    if case.kind == "text":
        result = _empathizer().respond(TurnInput(text=str(case.data)), session_id="fuzz")
        return f"replied {len(result.reply)} chars"
    path = _write(case, folder)
    if case.kind == "audio":
        audio = audio_io.load_audio(path, max_seconds=limits.max_audio_seconds, max_mb=limits.max_audio_mb,
                                    min_rms_db=limits.min_speech_rms_db)
        return f"{audio.duration_s:.2f} s"
    if case.kind == "image":
        frame = media_io.load_image(path, max_pixels=limits.max_image_pixels, max_mb=limits.max_media_mb)
        return f"{frame.image.shape}"
    if case.kind == "video":
        frames = media_io.sample_video(path, fps=limits.face_frames_per_second, max_frames=limits.face_max_frames,
                                       max_seconds=limits.max_video_seconds, max_mb=limits.max_media_mb,
                                       max_pixels=limits.max_image_pixels)
        return f"{len(frames)} frames"
    (folder / "link.wav").unlink(missing_ok=True)
    (folder / "link.wav").symlink_to("/etc/hostname")
    _, turns = load_scenario(path, limits)
    return f"{len(turns)} turns"


def names_the_problem(case: Case, message: str, folder: Path) -> bool:
    """A file's error names the file; a message's error says it is about the message or turn."""
    if case.kind == "text":
        return "message" in message or "turn" in message
    return str(folder / case.name) in message and len(message) > len(str(folder / case.name)) + 5


def run_case(case: Case, folder: Path) -> Result:
    """Feed one case in and judge the outcome."""
    from empathygraph.errors import EmpathyGraphError

    started = time.perf_counter()
    try:
        detail, outcome = _load(case, folder), "accepted"
    except EmpathyGraphError as exc:
        detail = str(exc)[:300]
        outcome = "refused" if names_the_problem(case, str(exc), folder) else "unnamed"
    except Exception as exc:  # noqa: BLE001 - what the fuzz run counts: an error a user cannot act on
        detail, outcome = f"{type(exc).__name__}: {str(exc)[:300]}", "untyped"
    seconds = time.perf_counter() - started
    return Result(case, "hang" if seconds > HANG_S else outcome, detail, seconds)


def fuzz(kind: Kind, count: int, folder: Path, random_seed: int = 0) -> list[Result]:
    """Generate about ``count`` cases of ``kind`` and run each; every result, in order.

    A case that never returns (stuck in a decoder, where no Python timer can reach it) would
    block the run and go uncounted; a watchdog ends the process after ``STUCK_S`` with every
    thread's traceback instead, so a run that finishes has seen every case end.
    """
    results: list[Result] = []

    @seed(random_seed)
    @settings(max_examples=count, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(STRATEGIES[kind])
    def one(case: Case) -> None:
        faulthandler.dump_traceback_later(STUCK_S, exit=True)
        try:
            results.append(run_case(case, folder))
        finally:
            faulthandler.cancel_dump_traceback_later()

    one()
    return results
