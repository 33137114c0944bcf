"""The safety dev set loads, meets the issue's minimums, and its splits are fixed by id and writer."""

from __future__ import annotations

import json

import pytest

from empathygraph.eval.jsonfile import DatasetError
from empathygraph.eval.safety_set import EXAM_WRITERS, FIRST_WRITERS, load_conversations, load_messages, split_of


def test_the_set_has_enough_disclosures_and_hard_negatives_in_every_category() -> None:
    messages = load_messages()
    risky = [m for m in messages if m.risk]
    assert len(risky) >= 150 and len(messages) - len(risky) >= 150
    for category in {c for m in risky for c in m.categories}:
        assert sum(category in m.categories for m in risky) >= 20, category
    assert len({m.id for m in messages}) == len(messages), "ids must be unique"


def test_the_exam_writer_is_never_in_train_or_held_out() -> None:
    trained = load_messages(splits={"train", "held_out"})
    assert not {m.writer for m in trained} & EXAM_WRITERS
    assert {m.writer for m in load_messages(splits={"exam"})} == set(EXAM_WRITERS)
    assert FIRST_WRITERS <= {m.writer for m in trained}


def test_splits_follow_the_id_not_the_text_and_pairs_stay_together() -> None:
    assert split_of("a-0001", "a") == split_of("a-0001", "a")
    assert split_of("a-0001", "c") == "exam"
    by_group: dict[str, set[str]] = {}
    for split in ("train", "held_out"):
        for m in load_messages(splits={split}):
            by_group.setdefault(m.group, set()).add(split)
    assert all(len(splits) == 1 for splits in by_group.values())


def test_every_risk_conversation_names_a_turn_inside_it() -> None:
    for conv in load_conversations():
        assert conv.risk_turn is None or 0 <= conv.risk_turn < len(conv.turns), conv.id
        assert bool(conv.categories) == conv.risk, conv.id


def test_a_label_that_disagrees_with_its_categories_is_refused(tmp_path) -> None:
    row = {"id": "z-0001", "text": "x", "risk": True, "categories": [], "kind": "plan"}
    (tmp_path / "messages_z.jsonl").write_text(json.dumps(row) + "\n")
    with pytest.raises(DatasetError, match="disagrees"):
        load_messages(tmp_path)
