"""Speech and avatar backends by name: a package adds one without editing the framework."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from empathygraph.config import load_config
from empathygraph.errors import ConfigError
from empathygraph.generators import AVATARS, SPEECH, GeneratorsConfig, build_renderer
from empathygraph.generators.base import SpeechChunk
from empathygraph.schemas import AvatarProfile, SpeechStyle


class Beep:
    """A speech backend that says every sentence as a short tone."""

    name = "beep"

    def __init__(self, config: GeneratorsConfig) -> None:
        self.config = config

    def describe(self, style: SpeechStyle, profile: AvatarProfile) -> dict[str, object]:
        return {"voice": "beep"}

    def stream(self, text: str, style: SpeechStyle, profile: AvatarProfile) -> Iterator[SpeechChunk]:
        tone = np.sin(np.linspace(0, 440 * 2 * np.pi * 0.3, 4800)).astype(np.float32) * 0.2
        yield SpeechChunk(text=text, audio=tone, sample_rate=16000)


@pytest.fixture
def beep():
    SPEECH.register("beep", Beep)
    yield
    SPEECH.unregister("beep")


def test_a_registered_speech_backend_is_a_name_the_config_and_renderer_take(beep, tmp_path, plan):
    config = load_config(overrides=["generators.speech=beep", "generators.avatar=none"]).generators
    (voiced,) = build_renderer(config).render(plan, tmp_path)
    assert voiced.error is None and voiced.backend == "beep" and voiced.settings["voice"] == "beep"
    assert voiced.files["audio"].is_file()


def test_an_unknown_backend_is_refused_naming_the_known_ones():
    with pytest.raises(ConfigError, match=r"unknown speech backend 'festival' \(known: coqui, espeak, kokoro, none, piper\)"):
        load_config(overrides=["generators.speech=festival"])
    with pytest.raises(ConfigError, match="unknown avatar backend 'photo'"):
        load_config(overrides=["generators.avatar=photo"])
    assert {"procedural", "portrait", "liveportrait", "none"} <= set(AVATARS.names())


def test_a_backend_whose_package_is_missing_fails_as_that_medium_not_at_build(plan, tmp_path):
    """Backends are imported when first used: a missing optional package is the medium's error in the trace."""
    SPEECH.register("absent", "empathygraph_absent_package.tts:Voice")
    try:
        renderer = build_renderer(GeneratorsConfig(speech="absent", avatar="none"))
        (voiced,) = renderer.render(plan, tmp_path)
    finally:
        SPEECH.unregister("absent")
    assert voiced.error is not None and "empathygraph_absent_package" in voiced.error
