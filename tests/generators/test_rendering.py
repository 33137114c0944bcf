"""End-to-end rendering with the real default backends, and every way a generator can fail."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

from empathygraph.eval.consistency import lipsync_r
from empathygraph.generators import GeneratorsConfig, build_renderer
from empathygraph.generators.audio import read_wav
from empathygraph.generators.avatar.video import probe
from tests.generators.conftest import median_f0

STANDIN = Path(__file__).with_name("liveportrait_standin.py")


def test_default_renderer_writes_wav_and_h264_aac_mp4_of_equal_duration(tmp_path, plan):
    speech, video = build_renderer().render(plan, tmp_path)
    assert speech.error is None and video.error is None, (speech.error, video.error)
    audio, rate = read_wav(speech.files["audio"])
    info = probe(video.files["video"])
    assert (info["video_codec"], info["audio_codec"]) == ("h264", "aac")
    assert (info["width"], info["height"], info["fps"]) == (512, 512, 25.0)
    assert info["duration"] == pytest.approx(len(audio) / rate, abs=0.08)
    assert speech.settings["sentences"] == 2 and speech.first_chunk_seconds <= speech.seconds
    # The mouth the viewer sees follows the loudness they hear.
    assert lipsync_r(video.files["video"], speech.files["audio"], 25) > 0.6


def test_speech_streams_the_first_sentence_before_the_rest(plan_for):
    renderer = build_renderer()
    stream = renderer.speak(plan_for("First sentence here. Second one follows. And a third."))
    first = next(stream)
    assert first.text == "First sentence here." and first.duration > 0.3
    assert [c.text for c in stream] == ["Second one follows.", "And a third."]


def test_profiles_sound_different(plan_for):
    """Piper's one voice, shifted: a child sits far higher than a young man; compare their median pitch.

    Pitch, not spectral centroid: Piper samples its prosody noise, so the spectrum of one
    short sentence varies run to run, while the profile's pitch shift dominates F0.
    """
    text = "I'm so glad you told me about your day at school."
    renderer = build_renderer(GeneratorsConfig(speech="piper", avatar="none"))

    def f0_of(profile):
        chunk = next(renderer.speak(plan_for(text, profile=profile)))
        return median_f0(chunk.audio, chunk.sample_rate)

    child = f0_of({"age": "child", "gender": "female"})
    man = f0_of({"age": "young", "gender": "male"})
    assert child > man * 1.5, (child, man)


def test_empty_text_degrades_the_turn_with_a_named_error(tmp_path, plan_for):
    speech, video = build_renderer().render(plan_for("  🙂 "), tmp_path)
    assert "empty" in speech.error and not speech.files
    assert "speech failed" in video.error


@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng (Debian package) is not installed")
def test_espeak_fallback_renders(tmp_path, plan):
    speech, video = build_renderer(GeneratorsConfig(speech="espeak")).render(plan, tmp_path)
    assert speech.error is None and video.error is None
    assert speech.settings["voice"] == "en-us+f3"


def test_coqui_without_weights_says_what_to_set(tmp_path, plan):
    speech, _ = build_renderer(GeneratorsConfig(speech="coqui")).render(plan, tmp_path)
    assert "coqui_model_dir" in speech.error


def test_missing_and_faceless_portraits_are_named(tmp_path, plan):
    missing = build_renderer(GeneratorsConfig(avatar="portrait", portrait=tmp_path / "nope.jpg")).render(plan, tmp_path)
    assert "file not found" in missing[1].error and missing[0].error is None
    blank = tmp_path / "blank.png"
    import cv2

    cv2.imwrite(str(blank), np.full((200, 200, 3), 128, np.uint8))
    faceless = build_renderer(GeneratorsConfig(avatar="portrait", portrait=blank)).render(plan, tmp_path)
    assert "no face found" in faceless[1].error


def test_portrait_mode_animates_a_photo(tmp_path, plan, portrait):
    _, video = build_renderer(GeneratorsConfig(avatar="portrait", portrait=portrait)).render(plan, tmp_path)
    assert video.error is None, video.error
    assert probe(video.files["video"])["video_codec"] == "h264"


def test_liveportrait_path_missing_is_named(tmp_path, plan, portrait):
    config = GeneratorsConfig(avatar="liveportrait", portrait=portrait, liveportrait_dir=tmp_path / "LivePortrait")
    _, video = build_renderer(config).render(plan, tmp_path)
    assert "no inference.py" in video.error


def test_liveportrait_follows_the_inference_cli_contract(tmp_path, plan, portrait):
    checkout = tmp_path / "LivePortrait"
    checkout.mkdir()
    shutil.copy(STANDIN, checkout / "inference.py")
    config = GeneratorsConfig(
        avatar="liveportrait", portrait=portrait, liveportrait_dir=checkout, liveportrait_python=Path(sys.executable)
    )
    speech, video = build_renderer(config).render(plan, tmp_path / "turn")
    assert video.error is None, video.error
    info = probe(video.files["video"])
    assert info["audio_codec"] == "aac"
    assert info["duration"] == pytest.approx(speech.media_seconds, abs=0.1)
