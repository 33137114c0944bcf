"""State reducers, session persistence across runs, and custom graphs."""

from __future__ import annotations

import pytest

from empathygraph import Empathizer, build_graph
from empathygraph.backbones import wrap_chat_model
from empathygraph.errors import InputError
from empathygraph.state import TurnInput, extend_or_clear, merge_or_clear
from tests.conftest import make_empathizer, scripted, test_config


def test_reducers_merge_parallel_writes_and_clear_on_none():
    assert merge_or_clear({"a": 1}, {"b": 2}) == {"a": 1, "b": 2}
    assert merge_or_clear({"a": 1}, None) == {}
    assert extend_or_clear([1], [2]) == [1, 2]
    assert extend_or_clear([1], None) == []


def test_empty_turn_is_refused():
    with pytest.raises(InputError, match="empty turn"):
        TurnInput(text="   ")


def test_a_session_continues_across_runs_from_the_sqlite_file(tmp_path):
    config = test_config(sessions={"db": str(tmp_path / "sessions.sqlite")})
    first = make_empathizer(config=config)
    first.respond("My dog died yesterday.", session_id="anna")
    del first

    model = scripted()
    second = make_empathizer(model, config)
    result = second.respond("I still can't sleep.", session_id="anna")
    assert result.turn_index == 1
    assert [h.user for h in second.history("anna")] == ["My dog died yesterday.", "I still can't sleep."]
    assert "My dog died yesterday." in model.calls[0].prompt  # the history reached the agents
    assert second.history("someone-else") == []


def test_per_turn_state_is_cleared_between_turns():
    empathizer = make_empathizer()
    empathizer.respond("My dog died.", session_id="s")
    result = empathizer.respond("I want to end my life.", session_id="s")
    assert result.critiques == []  # the first turn's critique did not leak into the crisis turn
    assert result.steps[0].step == "read"


def test_session_profile_holds_for_later_turns():
    from empathygraph.schemas import AvatarProfile

    empathizer = make_empathizer()
    elderly = AvatarProfile(age="elderly", gender="male", timbre="low")
    empathizer.respond(TurnInput(text="My dog died.", profile=elderly), session_id="p")
    result = empathizer.respond("I miss him.", session_id="p")
    assert result.plan.profile == elderly


def test_an_agent_can_be_replaced_and_another_inserted():
    def plain_response(state, runtime):
        from empathygraph.agents.response import response_node

        update = response_node(state, runtime)
        update["response"] = update["response"].model_copy(update={"text": update["response"].text + " I'm here."})
        return update

    def count_words(state, runtime):
        return {"cues": {"word_count": len(state["turn"].text.split())}}

    config = test_config()
    graph = build_graph(config, nodes={"response": plain_response}, insert_after={"read": ("count_words", count_words)})
    empathizer = Empathizer(config, backbone=wrap_chat_model(scripted()), graph=graph)
    result = empathizer.respond("My dog died.")
    assert result.plan.text.endswith("I'm here.")
    values = graph.get_state({"configurable": {"thread_id": "default"}}).values
    assert values["cues"].word_count == 3


def test_unknown_agent_names_are_refused():
    with pytest.raises(ValueError, match="unknown agents"):
        build_graph(test_config(), nodes={"respnse": lambda s, r: {}})
