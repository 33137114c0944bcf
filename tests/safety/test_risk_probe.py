"""The risk probe over the backbone's hidden states: its file, its share of the screen, and its place in a turn."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from langchain_core.messages import BaseMessage

from empathygraph.agents.prompting import SYSTEM_PROMPT
from empathygraph.backbones import wrap_chat_model
from empathygraph.errors import BackendError
from empathygraph.session import Empathizer
from empathygraph.tools.risk import ProbeReading, RiskScreen
from empathygraph.tools.risk_classifier import RiskThresholds
from empathygraph.tools.risk_probe import RISK_PROBE_PATH, RiskProbe, blend_scores
from empathygraph.tools.toolbox import ToolBox
from tests.conftest import scripted, test_config

WIDTH = 4
SCREEN = RiskThresholds(threshold=0.5, gray=0.2)
WITH_PROBE = RiskThresholds(threshold=0.4, gray=0.3)


def probe_for(backbone: str = "scripted", layer: int | None = None) -> RiskProbe:
    """A probe that reads risk from the first dimension of the state."""
    return RiskProbe(backbone=backbone, mean=np.zeros(WIDTH), scale=np.ones(WIDTH),
                     coef=np.array([4.0, 0.0, 0.0, 0.0]), intercept=-2.0, thresholds=WITH_PROBE, layer=layer)


def calm(texts: list[str]) -> np.ndarray:
    return np.array([[0.3, 0.3, 0.0, 0.0, 0.0]] * len(texts))


def test_a_saved_probe_reads_back_the_same_and_refuses_another_width(tmp_path: Path):
    path = tmp_path / "probe.npz"
    probe_for().save(path, report={"held_out": {"recall": 1.0}})
    loaded = RiskProbe.load(path)
    state = np.array([1.0, 5.0, -3.0, 0.0])
    assert loaded.probability(state) == pytest.approx(1 / (1 + np.exp(-2.0)), abs=1e-6)
    assert loaded.thresholds == WITH_PROBE and loaded.backbone == "scripted" and loaded.layer is None
    replace(probe_for(), layer=7).save(path)
    assert RiskProbe.load(path).layer == 7
    with pytest.raises(BackendError, match="width 4"):
        loaded.probability(np.zeros(3))
    with pytest.raises(BackendError, match="cannot be read"):
        RiskProbe.load(tmp_path / "missing.npz")


def test_a_probe_with_a_hidden_layer_reads_through_it_and_saves_it(tmp_path: Path):
    """Two ReLU units: the first passes the first dimension, the second its negation; only the first counts."""
    probe = RiskProbe(backbone="scripted", mean=np.zeros(WIDTH), scale=np.ones(WIDTH), coef=np.array([4.0, 1.0]),
                      intercept=-2.0, thresholds=WITH_PROBE,
                      hidden_weight=np.array([[1.0, -1.0], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0]]),
                      hidden_bias=np.zeros(2))
    path = tmp_path / "probe.npz"
    probe.save(path)
    loaded = RiskProbe.load(path)
    assert loaded.hidden_weight is not None and loaded.hidden_weight.shape == (WIDTH, 2)
    assert loaded.probability(np.array([1.0, 0.0, 0.0, 0.0])) == pytest.approx(1 / (1 + np.exp(-2.0)), abs=1e-6)
    assert loaded.probability(np.array([-3.0, 0.0, 0.0, 0.0])) == pytest.approx(1 / (1 + np.exp(-1.0)), abs=1e-6)
    probe_for().save(tmp_path / "plain.npz")
    assert RiskProbe.load(tmp_path / "plain.npz").hidden_weight is None


def test_the_probe_moves_the_classifiers_score_to_their_mean_at_its_own_thresholds():
    screen = RiskScreen(calm, SCREEN)
    alone = screen.assess("A quiet evening at home.")
    assert not alone.at_risk
    tipped = screen.assess("A quiet evening at home.", probe=ProbeReading(0.6, WITH_PROBE))
    classifier = next(s for s in tipped.signals if s.source == "classifier")
    assert classifier.score == pytest.approx(0.45) and classifier.threshold == 0.4 and tipped.at_risk
    probe = next(s for s in tipped.signals if s.source == "probe")
    assert probe.score == 0.6 and not probe.fired and "encoder 0.300, probe 0.600" in classifier.detail
    lowered = screen.assess("A quiet evening at home.", probe=ProbeReading(0.05, WITH_PROBE))
    assert not lowered.at_risk
    careful = screen.assess("A quiet evening at home.", probe=ProbeReading(0.35, WITH_PROBE), careful=True)
    assert careful.at_risk and next(s for s in careful.signals if s.source == "classifier").threshold == 0.3


def test_the_probe_alone_does_not_route_a_message_the_encoder_reads_as_plainly_harmless():
    def harmless(texts: list[str]) -> np.ndarray:
        return np.array([[0.013, 0.01, 0.0, 0.0, 0.0]] * len(texts))

    screen = RiskScreen(harmless, SCREEN)
    sure = ProbeReading(0.93, WITH_PROBE, "log_odds")  # their blend is about 0.30, over a threshold of 0.2
    text = "The vet called, the lump is benign. I've been holding my breath for a week."
    verdict = screen.assess(text, probe=replace(sure, thresholds=RiskThresholds(threshold=0.2, gray=0.03)))
    classifier = next(s for s in verdict.signals if s.source == "classifier")
    assert not verdict.at_risk and classifier.score > 0.2 and not classifier.fired
    assert classifier.detail.startswith("not fired: the encoder scores the message 0.013, under 0.02")
    careful = screen.assess(text, probe=replace(sure, thresholds=RiskThresholds(threshold=0.2, gray=0.03)), careful=True)
    assert careful.at_risk  # a session that disclosed risk before: the blend fires from the gray level


def test_the_log_odds_blend_lets_a_sure_reader_weigh_more_than_an_unsure_one():
    assert blend_scores(0.5, 0.5, "log_odds") == pytest.approx(0.5)
    assert blend_scores(0.9, 0.1, "log_odds") == pytest.approx(0.5)  # sure both ways: they cancel
    # 0.8 and 0.2 have log-odds +-1.386; with 0.99 (4.595) the mean is 1.604 -> 0.833, where the plain mean says 0.595
    assert blend_scores(0.99, 0.2, "log_odds") == pytest.approx(1 / (1 + np.exp(-(np.log(99) + np.log(0.25)) / 2)))
    assert blend_scores(0.99, 0.2, "mean") == pytest.approx(0.595)
    both = blend_scores(np.array([0.0, 1.0]), np.array([0.0, 1.0]), "log_odds")  # no infinities at the ends
    assert both[0] == pytest.approx(0.0, abs=1e-5) and both[1] == pytest.approx(1.0, abs=1e-5)


def test_a_probe_keeps_its_blend_in_its_file_and_the_screen_blends_so(tmp_path: Path):
    path = tmp_path / "probe.npz"
    replace(probe_for(), blend="log_odds").save(path)
    loaded = RiskProbe.load(path)
    assert loaded.blend == "log_odds"
    probe_for().save(path)  # written as files were before the blend was kept: they read as the plain mean
    assert RiskProbe.load(path).blend == "mean"
    reading = ProbeReading.of(replace(probe_for(), blend="log_odds"), 0.6)
    assert reading.thresholds == WITH_PROBE and reading.blended(0.3) == pytest.approx(float(blend_scores(0.3, 0.6, "log_odds")))
    blended = RiskScreen(calm, SCREEN).assess("A quiet evening at home.", probe=reading)
    classifier = next(s for s in blended.signals if s.source == "classifier")
    assert classifier.score == pytest.approx(round(reading.blended(0.3), 4)) and "mean of log-odds" in classifier.detail
    assert "mean of log-odds" in next(s for s in blended.signals if s.source == "probe").detail


def test_a_probe_file_naming_an_unknown_blend_is_refused(tmp_path: Path):
    path = tmp_path / "probe.npz"
    probe_for().save(path)
    with np.load(path) as data:
        arrays = {name: data[name] for name in data.files}
    arrays["meta"] = np.array(str(arrays["meta"]).replace('"blend": "mean"', '"blend": "median"'))
    np.savez(path, **arrays)
    with pytest.raises(BackendError, match="unknown blend 'median'"):
        RiskProbe.load(path)


def test_the_probe_read_after_earlier_turns_moves_the_several_turn_score_too():
    """A later turn's probe state saw the conversation so far: the turns read together are averaged with it."""
    screen = RiskScreen(calm, SCREEN)
    later = screen.assess("Anyway.", earlier=["A long week."], probe=ProbeReading(0.6, WITH_PROBE))
    context = next(s for s in later.signals if s.source == "context")
    assert context.score == pytest.approx(0.45) and context.threshold == 0.4 and context.fired
    assert context.detail.startswith("(encoder 0.300, probe 0.600: mean) A long week.")  # before a long text is cut
    assert [s.source for s in later.signals].count("probe") == 1
    quiet = screen.assess("Anyway.", earlier=["A long week."], probe=ProbeReading(0.05, WITH_PROBE))
    assert not quiet.at_risk and next(s for s in quiet.signals if s.source == "context").score == pytest.approx(0.175)
    careful = screen.assess("Anyway.", earlier=["A long week."], probe=ProbeReading(0.05, WITH_PROBE), careful=True)
    assert next(s for s in careful.signals if s.source == "context").threshold == 0.3


class ProbingToolBox(ToolBox):
    """The calm classifier above and the probe; the real screen combines them."""

    def __init__(self, config, probe: RiskProbe) -> None:
        super().__init__(config)
        self.probe = probe

    def screen_safety(self, text, earlier=(), *, careful=False, classifier=True, probe=None):
        return RiskScreen(calm, SCREEN).assess(text, earlier, careful=careful, probe=probe)

    def risk_model(self):
        class Model:
            thresholds = SCREEN
        return Model()

    def risk_probe(self):
        return self.probe


def probing(state: list[float], trained_on: str = "scripted") -> tuple[Empathizer, list[tuple[list[BaseMessage], str, int | None]]]:
    read: list[tuple[list[BaseMessage], str, int | None]] = []
    backbone = wrap_chat_model(scripted(), name="scripted")

    def hidden_state(messages: list[BaseMessage], span: str, layer: int | None = None) -> np.ndarray:
        read.append((messages, span, layer))
        return np.array(state)

    backbone.hidden_state = hidden_state
    config = test_config(safety={"classifier": True, "llm_read": "off"})
    return Empathizer(config, backbone=backbone, toolbox=ProbingToolBox(config.perception, probe_for(trained_on, layer=3))), read


def test_a_turn_reads_the_probe_over_the_start_of_its_first_prompt():
    empathizer, read = probing([2.0, 0.0, 0.0, 0.0])
    result = empathizer.respond("I keep thinking about the bridge.")
    assert result.plan.safety_protocol
    (messages, span, layer), = read
    assert layer == 3  # the layer the probe was trained on
    assert str(messages[0].content) == SYSTEM_PROMPT
    assert str(messages[-1].content).endswith(span) and span == '"I keep thinking about the bridge."'
    assert [s.source for s in result.safety.signals if s.source in ("probe", "classifier")] == ["probe", "classifier"]


def test_a_probe_trained_on_another_backbone_is_not_read_and_the_trace_says_so():
    empathizer, read = probing([2.0, 0.0, 0.0, 0.0], trained_on="embedded:another-model")
    result = empathizer.respond("I keep thinking about the bridge.")
    assert read == [] and not result.plan.safety_protocol
    notes = next(s for s in result.steps if s.step == "read").notes
    assert any("trained on embedded:another-model" in note for note in notes)


def test_the_shipped_probe_reads_the_default_backbone():
    from empathygraph.backbones.config import BackboneConfig

    probe = RiskProbe.load(RISK_PROBE_PATH)
    assert probe.backbone == f"embedded:{BackboneConfig().model}"  # the name make_backbone gives it
    assert probe.mean.shape == (1536,) and 0 < probe.thresholds.gray <= probe.thresholds.threshold < 1
    assert probe.layer == 12 and "layer 12" in probe.trained_on  # a middle layer reads danger better than the final states
    assert "out-of-writer" in probe.trained_on
    assert probe.blend == "log_odds" and "mean of log-odds" in probe.trained_on  # its thresholds are for that blend


def test_a_conversations_later_turn_is_read_after_the_turns_before_it_and_kept(tmp_path: Path):
    """The benchmark reads a later turn as a session does: the earlier messages in the prompt, a stand-in reply."""
    from empathygraph.eval.probe_states import STAND_IN_REPLY, ProbeStates

    read: list[str] = []
    backbone = wrap_chat_model(scripted())

    def hidden_state(messages: list[BaseMessage], span: str, layer: int | None = None) -> np.ndarray:
        read.append(str(messages[-1].content))
        return np.full(4, float(len(read)))

    backbone.hidden_state = hidden_state
    states = ProbeStates(backbone, folder=tmp_path)
    first = states.in_conversation("I'm fine.", [])
    later = states.in_conversation("I said goodbye to everyone.", ["Rough week.", "I'm fine."])
    assert "Earlier in the conversation" not in read[0] and first[0] == 1.0
    assert read[1].index("Person: Rough week.") < read[1].index("The person now says")
    assert f"Listener: {STAND_IN_REPLY}" in read[1] and later[0] == 2.0
    again = ProbeStates(backbone, folder=tmp_path).in_conversation("I said goodbye to everyone.", ["Rough week.", "I'm fine."])
    assert len(read) == 2 and again[0] == 2.0  # kept on disk, not read again
