"""The emotion probe over the backbone's hidden states: its file, its blend with the encoder, and its place in a turn."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from langchain_core.messages import BaseMessage

from empathygraph.backbones import wrap_chat_model
from empathygraph.errors import BackendError
from empathygraph.schemas import EDEmotion, TextEmotionCue
from empathygraph.session import Empathizer
from empathygraph.tools.emotion_probe import EMOTION_PROBE_PATH, EmotionProbe
from empathygraph.tools.risk import RiskScreen
from empathygraph.tools.risk_classifier import RiskThresholds
from empathygraph.tools.risk_probe import RISK_PROBE_PATH, RiskProbe
from empathygraph.tools.toolbox import ToolBox
from tests.conftest import scripted, test_config

LABELS = sorted(e.value for e in EDEmotion)
WIDTH = 4


def probe_for(backbone: str = "scripted", layer: int = 3, weight: float = 0.5, labels: list[str] = LABELS) -> EmotionProbe:
    """A probe that reads *terrified* from the first dimension of the state and *joyful* from the second."""
    coef = np.zeros((WIDTH, len(labels)))
    coef[0, labels.index("terrified")] = 6.0
    coef[1, labels.index("joyful")] = 6.0
    return EmotionProbe(backbone=backbone, layer=layer, labels=list(labels), mean=np.zeros(WIDTH),
                        scale=np.ones(WIDTH), coef=coef, intercept=np.zeros(len(labels)), weight=weight)


def test_a_saved_probe_reads_back_the_same_and_refuses_another_width(tmp_path: Path):
    path = tmp_path / "probe.npz"
    probe_for().save(path)
    loaded = EmotionProbe.load(path)
    assert (loaded.backbone, loaded.layer, loaded.labels, loaded.weight) == ("scripted", 3, LABELS, 0.5)
    state = np.array([1.0, 0.0, 0.0, 0.0])
    assert np.allclose(loaded.probabilities(state), probe_for().probabilities(state), atol=1e-3)
    assert loaded.probabilities(state).sum() == pytest.approx(1.0)
    with pytest.raises(BackendError, match="width 4"):
        loaded.probabilities(np.zeros(5))


def test_a_missing_or_malformed_file_is_a_clear_error(tmp_path: Path):
    with pytest.raises(BackendError, match="cannot be read"):
        EmotionProbe.load(tmp_path / "none.npz")
    path = tmp_path / "bad.npz"
    probe_for(weight=0.5).save(path)
    with np.load(path) as data:
        parts = dict(data)
    parts["coef"] = parts["coef"][:, :5]
    np.savez(path, **parts)
    with pytest.raises(BackendError, match="malformed"):
        EmotionProbe.load(path)


def test_the_blend_weighs_the_probe_in_the_encoders_label_order():
    probe = probe_for(weight=0.25, labels=list(reversed(LABELS)))
    encoder = np.full(len(LABELS), 1 / len(LABELS))
    blended = probe.blend(encoder, LABELS, np.array([2.0, 0.0, 0.0, 0.0]))
    assert blended.sum() == pytest.approx(1.0)
    assert LABELS[int(blended.argmax())] == "terrified"
    alone = probe.probabilities(np.array([2.0, 0.0, 0.0, 0.0]))[0][list(reversed(LABELS)).index("terrified")]
    assert blended[LABELS.index("terrified")] == pytest.approx(0.75 / len(LABELS) + 0.25 * alone)
    with pytest.raises(BackendError, match="labels"):
        probe.blend(encoder[:31], LABELS[:31], np.zeros(WIDTH))


class Classifier:
    """An encoder that is unsure between *anxious* and *terrified*, with *anxious* ahead."""

    labels = LABELS
    name = "test-encoder"

    def probabilities(self, text: str) -> np.ndarray:
        probs = np.full(len(LABELS), 0.2 / 30)
        probs[LABELS.index("anxious")], probs[LABELS.index("terrified")] = 0.42, 0.38
        return probs


class ProbingToolBox(ToolBox):
    def __init__(self, config, probe: EmotionProbe | None) -> None:
        super().__init__(config)
        self.probe = probe

    def _text_model(self, name: str):
        return Classifier()

    def emotion_probe(self):
        return self.probe


def turn_with(probe: EmotionProbe | None, state: list[float], **perception):
    read: list[tuple[str, int | None]] = []
    backbone = wrap_chat_model(scripted(), name="scripted")

    def hidden_state(messages: list[BaseMessage], span: str, layer: int | None = None) -> np.ndarray:
        read.append((span, layer))
        return np.array(state)

    backbone.hidden_state = hidden_state
    # The choice screen is off: its encoder reader would need an embedding this stand-in encoder does not give;
    # the word reader too, so that the stand-in encoder's ranking is what the probe is blended with.
    config = test_config(perception={"text_emotion": True, "choice_screen": False, "word_emotion": False, **perception})
    empathizer = Empathizer(config, backbone=backbone, toolbox=ProbingToolBox(config.perception, probe))
    result = empathizer.respond("The storm is getting closer and the power just went out.")
    step = next(s for s in result.steps if s.step == "read")
    return TextEmotionCue.model_validate(step.output["text_emotion"]), step, read


def test_a_turn_blends_the_probes_reading_into_the_text_emotion_and_shows_both():
    cue, _, read = turn_with(probe_for(), [2.0, 0.0, 0.0, 0.0])
    assert read == [('"The storm is getting closer and the power just went out."', 3)]  # read once, at its layer
    assert cue.top[0].label == "terrified" and [s.label for s in cue.encoder_top[:2]] == ["anxious", "terrified"]
    assert "layer 3 probe" in cue.model
    assert cue.coarse[0].label == "fear"


def test_without_a_probe_for_this_backbone_the_encoder_reads_alone_and_the_trace_says_why():
    cue, step, read = turn_with(probe_for(backbone="embedded:another-model"), [2.0, 0.0, 0.0, 0.0])
    assert read == [] and cue.top[0].label == "anxious" and not cue.encoder_top
    assert any("emotion probe not read: it was trained on embedded:another-model" in n for n in step.notes)
    off, _, read_off = turn_with(probe_for(), [2.0, 0.0, 0.0, 0.0], emotion_probe=False)
    assert read_off == [] and off.top[0].label == "anxious"


def test_a_probe_that_does_not_fit_the_state_leaves_the_encoder_reading():
    cue, step, _ = turn_with(probe_for(), [2.0, 0.0, 0.0])  # a state of the wrong width
    assert cue.top[0].label == "anxious"
    assert any("emotion probe not blended" in n and "width 4" in n for n in step.notes)


@pytest.mark.skipif(not EMOTION_PROBE_PATH.is_file(), reason="no shipped emotion probe")
def test_the_shipped_probe_reads_the_default_backbone_at_the_risk_probes_layer():
    from empathygraph.backbones.config import BackboneConfig

    probe = EmotionProbe.load(EMOTION_PROBE_PATH)
    assert probe.backbone == f"embedded:{BackboneConfig().model}"
    assert probe.layer == RiskProbe.load(RISK_PROBE_PATH).layer  # one state read a turn serves both probes
    assert sorted(probe.labels) == LABELS and probe.mean.shape == (1536,) and 0 < probe.weight < 1
    assert probe.report["ed_valid"]["blend"]["top1"] >= probe.report["ed_valid"]["encoder"]["top1"]


class WithRiskProbe(ProbingToolBox):
    """The emotion probe beside a risk probe (a screen that only records the probe reading it was given)."""

    def __init__(self, config, probe: EmotionProbe, risk: RiskProbe) -> None:
        super().__init__(config, probe)
        self.risk, self.risk_read = risk, []

    def screen_safety(self, text, earlier=(), *, careful=False, classifier=True, probe=None):
        self.risk_read.append(probe)
        return RiskScreen().assess(text, earlier, careful=careful)

    def risk_model(self):
        return self.risk  # only its thresholds are read

    def risk_probe(self):
        return self.risk


@pytest.mark.parametrize("risk_layer", [3, 5])
def test_one_state_read_serves_both_probes_at_the_risk_probes_layer(risk_layer: int):
    read: list[int | None] = []
    backbone = wrap_chat_model(scripted(), name="scripted")

    def hidden_state(messages: list[BaseMessage], span: str, layer: int | None = None) -> np.ndarray:
        read.append(layer)
        return np.array([2.0, 0.0, 0.0, 0.0])

    backbone.hidden_state = hidden_state
    config = test_config(perception={"text_emotion": True, "choice_screen": False},
                         safety={"classifier": True, "llm_read": "off"})
    risk = RiskProbe(backbone="scripted", mean=np.zeros(WIDTH), scale=np.ones(WIDTH), coef=np.zeros(WIDTH),
                     intercept=0.0, thresholds=RiskThresholds(0.5, 0.3), layer=risk_layer)
    toolbox = WithRiskProbe(config.perception, probe_for(layer=3), risk)
    result = Empathizer(config, backbone=backbone, toolbox=toolbox).respond("The storm is getting closer.")
    step = next(s for s in result.steps if s.step == "read")
    cue = TextEmotionCue.model_validate(step.output["text_emotion"])
    assert read == [risk_layer] and toolbox.risk_read[0].score == pytest.approx(0.5)
    if risk_layer == 3:
        assert cue.top[0].label == "terrified"
    else:
        assert cue.top[0].label == "anxious"
        assert any("emotion probe not read: it reads layer 3, the state was read at layer 5" in n for n in step.notes)
