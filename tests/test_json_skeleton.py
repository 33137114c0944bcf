"""What a flat JSON schema forces next, for drafting (no model needed)."""

from __future__ import annotations

import pytest

from empathygraph.agents.emotion_cause import CauseDraft
from empathygraph.agents.structured import with_choices
from empathygraph.backbones.base import without_max_length
from empathygraph.backbones.json_skeleton import Forced, JsonSkeleton

QUOTES = ("My mom passed away last month", "I keep picking up the phone", "and then I remember")


@pytest.fixture
def cause() -> JsonSkeleton:
    schema = without_max_length(with_choices(CauseDraft, "quote", QUOTES).model_json_schema())
    skeleton = JsonSkeleton.from_schema(schema)
    assert skeleton is not None
    return skeleton


def test_keys_and_punctuation_between_values_are_forced(cause):
    assert cause.forced("") == Forced('{"scenario": "')
    assert cause.forced('{"') == Forced('scenario": "')
    assert cause.forced('{"scenario": "mom pass') == Forced("")  # free text: the model's to write
    assert cause.forced('{"scenario": "mom passing away"') == Forced(', "quote": "')
    assert cause.forced('{"scenario": "mom passing away",') == Forced(' "quote": "')


def test_an_allowed_value_is_forced_once_its_start_is_unique(cause):
    assert cause.forced('{"scenario": "loss", "quote": "') == Forced("")  # three quotes still possible
    assert cause.forced('{"scenario": "loss", "quote": "I') == Forced(' keep picking up the phone", "intensity": "')
    # $ref'd enum (Intensity): "l" can only be "low", and then the object closes.
    assert cause.forced('{"scenario": "loss", "quote": "I keep picking up the phone", "intensity": "l') == Forced(
        'ow"}', complete=True)
    assert cause.forced('{"scenario": "loss", "quote": "I keep picking up the phone", "intensity": "low"}') == Forced(
        "", complete=True)


def test_optional_spaces_follow_the_answer_s_own_habit(cause):
    assert cause.forced('{"scenario":"loss","') == Forced('quote":"')
    assert cause.forced('{"scenario":"loss", "') == Forced('quote":"')  # compact after colons only


def test_escaped_quotes_do_not_close_a_value(cause):
    assert cause.forced('{"scenario": "a \\"big\\"') == Forced("")
    assert cause.forced('{"scenario": "a \\"big\\""') == Forced(', "quote": "')


def test_text_off_the_skeleton_forces_nothing(cause):
    assert cause.forced('{"emotion"') is None
    assert cause.forced('{"scenario": "x"}') is None  # closed before the required fields


def test_a_single_allowed_value_is_written_out():
    skeleton = JsonSkeleton.from_schema({
        "type": "object",
        "properties": {"kind": {"enum": ["note"]}, "text": {"type": "string"}},
        "required": ["kind", "text"],
    })
    assert skeleton is not None and skeleton.forced('{"') == Forced('kind": "note", "text": "')


@pytest.mark.parametrize("schema", [
    {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}}, "required": ["a"]},
    {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]},
    {"type": "object", "properties": {"o": {"type": "object", "properties": {}}}, "required": ["o"]},
    {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"], "additionalProperties": True},
    {"type": "array", "items": {"type": "string"}},
])
def test_schemas_beyond_flat_required_strings_are_not_drafted(schema):
    assert JsonSkeleton.from_schema(schema) is None
