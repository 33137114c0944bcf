"""Hostile input: every generated case is accepted or refused with a typed error naming the file and problem.

A representative slice runs here (``hostile.SLICE`` cases per kind); ``benchmarks/reliability.py``
runs the big fuzz. The named tests pin the limits that must hold before anything is decoded.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from empathygraph.cli.scenarios import load_scenario
from empathygraph.errors import InputError, ScenarioError
from empathygraph.state import TurnInput
from empathygraph.tools import audio_io, media_io
from tests.conftest import make_empathizer
from tests.reliability import hostile

SLICE = settings(max_examples=30, deadline=None, database=None, derandomize=True,
                 suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


def judged(kind: str, case: hostile.Case, folder: Path) -> hostile.Result:
    result = hostile.run_case(case, folder)
    assert result.outcome in ("accepted", "refused"), (case.how, result.outcome, result.detail)
    return result


@pytest.mark.parametrize("kind", hostile.KINDS)
def test_generated_hostile_inputs_are_accepted_or_refused_by_name(kind, tmp_path: Path):
    @SLICE
    @given(hostile.STRATEGIES[kind])
    def check(case: hostile.Case) -> None:
        judged(kind, case, tmp_path)

    check()


def load_image(path: Path) -> media_io.Frame:
    return media_io.load_image(path, max_pixels=4096 * 4096, max_mb=200)


@pytest.mark.parametrize(("width", "height", "problem"), [
    (50_000, 50_000, r"(50000×50000|over \d+ pixels), over the 16777216 pixel limit"),
    (0, 0, "cannot decode image .*cannot identify image file"),  # Pillow refuses an empty size itself
    (48, 0, "cannot decode image .*cannot identify image file"),
])
def test_an_image_header_claiming_a_huge_or_empty_size_is_refused_before_decoding(width, height, problem,
                                                                                 tmp_path: Path):
    for suffix, forge in ((".png", hostile.png_claiming), (".jpg", hostile.jpeg_claiming)):
        path = tmp_path / f"face{suffix}"
        path.write_bytes(forge(hostile.image_bytes(suffix), width, height))
        started = time.perf_counter()
        with pytest.raises(InputError, match=problem) as refused:
            load_image(path)
        assert refused.value.path == str(path) and time.perf_counter() - started < 1.0


def test_a_video_is_refused_by_its_stream_header_before_a_frame_is_decoded(tmp_path: Path):
    # The container's own size fields lie freely (``mp4_claiming``); FFmpeg takes the frame size from
    # the codec's header, and that is what is checked before decoding.
    path = tmp_path / "face.mp4"
    path.write_bytes(hostile.video_bytes())  # 32x32
    with pytest.raises(InputError, match="video is 32×32, over the 1000 pixel limit") as refused:
        media_io.sample_video(path, fps=4, max_frames=8, max_seconds=60, max_mb=10, max_pixels=1000)
    assert refused.value.path == str(path)
    path.write_bytes(hostile.mp4_claiming(hostile.video_bytes(), 50_000, 50_000))
    frames = media_io.sample_video(path, fps=4, max_frames=8, max_seconds=60, max_mb=10, max_pixels=4096 * 4096)
    assert frames[0].image.shape == (32, 32, 3)  # decoded at the codec's size, not the container's claim


@pytest.mark.parametrize(("name", "problem"), [("face.mp4", "video stream has no codec description"),
                                              ("voice.m4a", "audio stream has no codec description")])
def test_a_file_cut_inside_its_stream_description_is_refused_by_name(name, problem, tmp_path: Path):
    # Found by the fuzz: the cut leaves a stream without a codec context, whose size or rate the
    # checks before decoding then read from nothing (an AttributeError, not a refusal).
    path = tmp_path / name
    data = hostile.video_bytes() if name.endswith(".mp4") else hostile.aac_bytes()
    path.write_bytes(data[:data.find(b"hdlr") + 16])  # the handler names the stream's kind, and the file ends
    with pytest.raises(InputError, match=problem) as refused:
        load_video(path) if name.endswith(".mp4") else load_audio(path)
    assert refused.value.path == str(path)


def load_video(path: Path) -> list[media_io.Frame]:
    return media_io.sample_video(path, fps=4, max_frames=8, max_seconds=60, max_mb=10)


def load_audio(path: Path) -> audio_io.Audio:
    return audio_io.load_audio(path, max_seconds=120, max_mb=50, min_rms_db=-50)


@pytest.mark.parametrize(("rate", "channels", "problem"), [
    (2**32 - 1, 1, "cannot decode audio"),  # FFmpeg refuses this one itself
    (400_000, 1, "declares 400000 samples a second"),
    (16_000, 255, "declares 255 channels|cannot decode audio"),
])
def test_an_audio_header_with_an_impossible_rate_or_channel_count_is_refused(rate, channels, problem, tmp_path: Path):
    path = tmp_path / "voice.wav"
    path.write_bytes(hostile.wav_header(hostile.wav_bytes(), rate, channels, None))
    with pytest.raises(InputError, match=problem) as refused:
        load_audio(path)
    assert refused.value.path == str(path)


def test_audio_holding_nan_samples_is_refused_by_name(tmp_path: Path):
    path = tmp_path / "voice.wav"
    path.write_bytes(hostile.wav_bytes(float_nan=True))
    with pytest.raises(InputError, match=r"voice.wav: audio holds \d+ samples that are not numbers"):
        load_audio(path)


def test_audio_whose_header_claims_hours_is_refused_without_decoding_it(tmp_path: Path):
    path = tmp_path / "voice.flac"
    path.write_bytes(hostile.long_flac(hours=3.0))  # 56 bytes that claim three hours
    with pytest.raises(InputError, match=r"audio is 10800 s long, over the 120 s limit"):
        load_audio(path)


def write_scenario(folder: Path, text: str) -> Path:
    path = folder / "scenario.yaml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("where", ["../voice.wav", "/etc/hostname", "media/../../voice.wav", "link.wav"])
def test_a_scenario_cannot_name_media_outside_its_folder(where, tmp_path: Path):
    folder = tmp_path / "scenarios"
    (folder / "media").mkdir(parents=True)
    (tmp_path / "voice.wav").write_bytes(hostile.wav_bytes())
    (folder / "link.wav").symlink_to(tmp_path / "voice.wav")
    path = write_scenario(folder, f"name: x\nturns:\n  - audio: {where}\n")
    with pytest.raises(ScenarioError, match=rf"{path}: turn 1: audio '{where}' is outside the scenario's folder"):
        load_scenario(path)


@pytest.mark.parametrize("where", ["../face.jpg", "/etc/hostname", "link.jpg"])
def test_a_scenario_cannot_name_a_portrait_outside_its_folder(where, tmp_path: Path):
    folder = tmp_path / "scenarios"
    folder.mkdir()
    (tmp_path / "face.jpg").write_bytes(b"not read")
    (folder / "link.jpg").symlink_to(tmp_path / "face.jpg")
    (folder / "own.jpg").write_bytes(b"not read")
    path = write_scenario(folder, f"name: x\nportrait: {where}\nturns:\n  - text: hi\n")
    spec, _ = load_scenario(path)
    with pytest.raises(ScenarioError, match=rf"portrait '{where}' is outside the scenario's folder"):
        spec.portrait_path(folder)
    inside = write_scenario(folder, "name: x\nportrait: own.jpg\nturns:\n  - text: hi\n")
    assert load_scenario(inside)[0].portrait_path(folder) == (folder / "own.jpg").resolve()


@pytest.mark.parametrize(("text", "problem"), [
    (hostile.BOMB, "anchors expand it to over 100,000 values"),
    ("name: &n [*n]\nturns: [{text: hi}]\n", "an anchor refers to itself"),
    ("name: x\nturns: " + "[" * 3000 + "]" * 3000, "nests more than 50 levels deep"),
    ("name: [1, 2]\nturns: {text: 3}\n", "'name': Input should be a valid string"),
    ("name: x\nturns: [{text: " + "a" * 5000 + "}]\n", "turn 1: the message is 5,000 characters long"),
])
def test_a_hostile_scenario_file_is_refused_quickly_by_name(text, problem, tmp_path: Path):
    path = write_scenario(tmp_path, text)
    started = time.perf_counter()
    with pytest.raises(ScenarioError, match=problem) as refused:
        load_scenario(path)
    assert str(path) in str(refused.value) and time.perf_counter() - started < 2.0


def test_megabytes_of_text_are_refused_before_anything_is_stored():
    empathizer = make_empathizer()
    with pytest.raises(InputError, match="the message is 3,000,000 characters long, over the 4,000 character limit"):
        empathizer.respond("a" * 3_000_000, session_id="s")
    assert empathizer.history("s") == [] and empathizer.interrupted("s") is None


def test_control_characters_and_lone_surrogates_are_dropped_and_other_scripts_kept():
    text = "I feel\x1b[2J\x00 alone\r\ntonight \ud800 我很难过 😢 👩‍👩‍👧"
    turn = TurnInput(text=text)
    assert turn.text == "I feel[2J alone\ntonight ? 我很难过 😢 👩‍👩‍👧"
    result = make_empathizer().respond(turn)
    assert result.user_text == turn.text and result.reply
    with pytest.raises(InputError, match="empty turn"):
        TurnInput(text="\x00\x07\x1b")
