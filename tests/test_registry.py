"""The step registry: one spec per step is all the graph, the result and the trace need."""

from __future__ import annotations

import time

import pytest

from empathygraph import Empathizer, build_graph
from empathygraph.agents.response import response_node
from empathygraph.agents.spec import AgentSpec
from empathygraph.backbones import wrap_chat_model
from empathygraph.graphs import registry
from empathygraph.graphs.registry import AGENT_SPECS, STEPS, view
from empathygraph.schemas import Decisions, StepOutput
from empathygraph.state import MergState
from empathygraph.trace.records import StepRecord
from empathygraph.trace.replay import decisions, group_turns
from empathygraph.trace.store import read_trace
from tests.conftest import make_empathizer, scripted, test_config

ACCEPT = {"verdict": "accept", "advice": ""}
REVISE = {"verdict": "revise", "advice": "name what they lost"}


class Tone(StepOutput):
    """What a toy agent decides: how light the reply may be."""

    light: bool

    def decisions(self) -> Decisions:
        return [("tone", "light" if self.light else "gentle")]


def tone_node(state, runtime) -> dict:
    started = time.perf_counter()
    tone = Tone(light=state["emotion"].valence > 0)
    record = StepRecord(step="tone", kind="agent", latency_s=time.perf_counter() - started, output=tone.model_dump())
    return {"tone": tone, "steps": [record]}


TONE = AgentSpec(name="tone", label="tone agent", node=tone_node, writes="tone", output=Tone, after="emotion_cause")


@pytest.fixture
def tone_registered():
    """The toy agent in the registry for one test (as its one line in ``AGENT_SPECS`` would put it)."""
    steps, views, agents = list(registry.STEPS), dict(registry.VIEWS), dict(registry.AGENTS)
    registry.register(TONE)
    yield
    registry.STEPS[:] = steps
    for table, saved in ((registry.VIEWS, views), (registry.AGENTS, agents)):
        table.clear()
        table.update(saved)


def test_an_added_agent_is_one_spec_and_the_graph_result_and_trace_take_it(tone_registered, tmp_path):
    """A new agent: its module's spec, and one line that registers it."""
    model = scripted()
    empathizer = make_empathizer(model)
    first = empathizer.respond("Yesterday my dog died and the house is empty.", session_id="t")
    names = [step.step for step in first.steps]
    assert names.index("emotion_cause") + 1 == names.index("tone") < names.index("empathy_strategy")
    assert first.output(Tone) == Tone(light=False)
    assert empathizer.graph.get_state({"configurable": {"thread_id": "t"}}).values["tone"] == Tone(light=False)
    assert "tone" in registry.AGENTS and view("tone").label == "tone agent"
    first.write(tmp_path)
    (turn,) = group_turns(read_trace(tmp_path)[0])
    assert decisions(turn.last("tone")) == [("tone", "gentle")] and turn.output(Tone) == Tone(light=False)


def test_insert_after_takes_a_spec_whose_output_gets_a_state_field_every_node_sees():
    seen = []

    def response(state: MergState, runtime) -> dict:  # typed with the base state, still sees the added field
        seen.append(state.get("tone"))
        return response_node(state, runtime)

    config = test_config()
    graph = build_graph(config, nodes={"response": response}, insert_after={"emotion_cause": TONE})
    Empathizer(config, backbone=wrap_chat_model(scripted()), graph=graph).respond("My dog died.")
    values = graph.get_state({"configurable": {"thread_id": "default"}}).values
    assert values["tone"] == Tone(light=False) and seen == [Tone(light=False)]


def test_every_agent_and_step_is_declared_once_with_a_label_and_its_output():
    names = [spec.name for spec in STEPS]
    assert len(names) == len(set(names))
    for spec in STEPS:
        assert view(spec.name) is spec and spec.label
        assert spec.writes is None or spec.output is not None, f"{spec.name} writes {spec.writes} without a schema"
    assert {spec.name for spec in AGENT_SPECS} == {
        "perception", "emotion_cause", "assess_risk", "empathy_strategy", "response", "reflection", "stay_careful",
        "crisis_protocol",
    }
    assert view("render:piper") is view("render")


def test_a_turn_read_back_from_its_trace_is_the_turn_the_run_returned(tmp_path):
    """One finished-turn model: the live result and the replayed trace agree on what the turn decided."""
    empathizer = make_empathizer(scripted(ReflectionDraft=[REVISE, ACCEPT]))
    live = [empathizer.respond(text, session_id="s") for text in ("My dog died.", "I want to end my life.")]
    for result in live:
        result.write(tmp_path, append_trace=True)
    replayed = group_turns(read_trace(tmp_path)[0])
    assert [turn.key for turn in replayed] == [(result.session_id, result.turn_index) for result in live]
    for result, turn in zip(live, replayed, strict=True):
        assert (turn.perception, turn.emotion, turn.plan, turn.critiques) == (
            result.perception, result.emotion, result.plan, result.critiques
        )
        assert turn.reply == result.reply and turn.user_text == result.perception.text
        assert turn.tokens == result.tokens and turn.llm_calls == result.llm_calls
    assert replayed[0].empathy == live[0].empathy
    assert replayed[1].empathy is None  # the crisis protocol's plan is not in its record
