"""The risk classifier's training script: writer folds, conversations as the screen reads them, thresholds."""

from __future__ import annotations

import json

import numpy as np
import pytest

from empathygraph.eval.safety_set import SafetyConversation
from empathygraph.schemas import RiskCategory


def test_writer_folds_cover_every_writer_once(script) -> None:
    folds = script.writer_folds(["e", "a", "d", "b", "f"], 2)
    assert folds == [["a", "d", "f"], ["b", "e"]]
    assert script.writer_folds(["a"], 3) == [["a"]]


def test_conversations_are_read_as_a_session_reads_them(script) -> None:
    safe = SafetyConversation(id="s", turns=("one", "two", "three"), categories=(), risk_turn=None, writer="f")
    risky = SafetyConversation(id="r", turns=("fine", "not fine", "worse"), categories=(RiskCategory.SELF_HARM,),
                               risk_turn=1, writer="f")
    items = script.conversation_items([safe, risky])
    negatives = [m.text for m in items if not m.risk]
    positives = [m.text for m in items if m.risk]
    assert negatives == ["one", "two", "one two", "three", "one two three"]
    assert positives == ["fine not fine", "fine not fine worse"]
    assert all(m.categories == (RiskCategory.SELF_HARM,) for m in items if m.risk)


def test_the_threshold_keeps_the_asked_recall(script) -> None:
    scores = np.array([0.9, 0.8, 0.7, 0.6, 0.2, 0.1])
    positive = np.array([True, True, True, True, False, False])
    assert script.threshold_for_recall(scores, positive, 0.75) == pytest.approx(0.7)
    assert script.threshold_for_recall(scores, positive, 1.0) == pytest.approx(0.6)


def test_thresholds_are_read_from_a_folds_only_run_after_its_progress_lines(script, tmp_path) -> None:
    path = tmp_path / "folds.json"
    result = {"threshold": 0.4, "gray": 0.2, "out_of_writer": {"recall": 0.98}, "rank": 8}
    path.write_text("states 256/256 (3 s)\nfold without writers a\n" + json.dumps(result, indent=2))
    assert script.read_thresholds(path) == {"threshold": 0.4, "gray": 0.2, "out_of_writer": {"recall": 0.98}}
    hand_set = {**result, "gray": 0.05, "gray_why": "set by hand", "gray_out_of_writer_0995": 0.02}
    path.write_text(json.dumps(hand_set))
    assert script.read_thresholds(path) == {"threshold": 0.4, "gray": 0.05, "out_of_writer": {"recall": 0.98},
                                            "gray_why": "set by hand", "gray_out_of_writer_0995": 0.02}
    path.write_text("fold without writers a\n{")
    with pytest.raises(SystemExit, match="no complete"):
        script.read_thresholds(path, wait_s=0)


def test_out_of_writer_scores_are_saved_for_the_model_asked_only(script, tmp_path) -> None:
    """``--save-oow`` keeps the tuned top's scores; the linear baseline evaluated after it must not write over them."""
    from argparse import Namespace

    from empathygraph.eval.safety_set import SafetyMessage

    items = [SafetyMessage(id=f"{w}-{k}", text=f"message {k} of {w}", categories=(RiskCategory.SELF_HARM,) if k else (),
                           kind="test", indirect=True, writer=w) for w in "abcd" for k in range(2)]

    def constant(value: float):
        return lambda left_out: (lambda texts: np.full((len(texts), 5), value))

    args = Namespace(folds_only=True, folds=2, recall=0.98, gray_recall=0.995, plain_recall=0.8)
    path = tmp_path / "oow.npz"
    script.evaluate(constant(0.7), items, {}, args, save_oow=path)
    script.evaluate(constant(0.1), items, {}, args)
    with np.load(path) as saved:
        assert sorted(saved["ids"].tolist()) == sorted(m.id for m in items)
        assert np.allclose(saved["scores"], 0.7)


class _Classifier:
    """A stand-in shipped classifier: trained on writers a and b, scoring every text by its length."""

    trained_on = "safety set train split (10 texts from writers a, b, ed = 5 shared ED train first messages); 1 seed(s)"

    @staticmethod
    def probabilities(texts: list[str]) -> np.ndarray:
        return np.array([[len(t) / 100, 0, 0, 0, 0] for t in texts])


def test_items_of_writers_the_classifier_never_saw_are_scored_by_it(script, probe_script) -> None:
    assert probe_script.trained_writers(_Classifier.trained_on) >= {"a", "b"}
    known = script.negative("a-1", "old", "", "a")
    new = script.negative("q-1", "a new writer's message", "", "q")
    scores = probe_script.with_new_writers({"a-1": 0.5}, [known, new], _Classifier)
    assert scores == {"a-1": 0.5, "q-1": pytest.approx(len(new.text) / 100)}


def test_a_trained_writers_item_missing_from_the_out_of_writer_file_is_refused(script, probe_script) -> None:
    with pytest.raises(SystemExit, match="trained on"):
        probe_script.with_new_writers({}, [script.negative("b-1", "text", "", "b")], _Classifier)


def test_without_an_out_of_writer_file_only_writers_the_classifier_never_saw_calibrate(script, probe_script) -> None:
    known, new = script.negative("a-1", "old", "", "a"), script.negative("q-1", "a new writer's message", "", "q")
    items, scores, source = probe_script.calibration_scores(_Classifier, [known, new], None)
    assert [m.id for m in items] == ["q-1"]
    assert scores == {"q-1": pytest.approx(len(new.text) / 100)}
    assert "writers q" in source


def test_without_an_out_of_writer_file_a_classifier_trained_on_every_writer_is_refused(script, probe_script) -> None:
    with pytest.raises(SystemExit, match="--classifier-oow"):
        probe_script.calibration_scores(_Classifier, [script.negative("b-1", "text", "", "b")], None)


def test_painful_ed_negatives_come_after_the_plain_draw_and_only_of_painful_emotions(script, tmp_path) -> None:
    folder = tmp_path / "empathetic_dialogues"
    folder.mkdir()
    emotions = ["sad", "joyful", "furious", "proud", "lonely", "content"] * 5
    rows = [{"conv_id": f"c{i}", "emotion": emotion, "dialog": [{"speaker": "speaker", "text": f"message {i}"}]}
            for i, emotion in enumerate(emotions)]
    rows.append({"conv_id": "phrase", "emotion": "sad", "dialog": [{"speaker": "speaker", "text": "i want to kill myself"}]})
    (folder / "ed_train.jsonl").write_text("\n".join(json.dumps(r) for r in rows))
    plain = script.ed_negatives(tmp_path, 6)
    both = script.ed_negatives(tmp_path, 6, painful=4)
    assert [m.id for m in both[:6]] == [m.id for m in plain]  # the plain draw is unchanged by the painful one
    extra = both[6:]
    assert len(extra) == 4 and all(m.kind == "ed_painful" and not m.risk for m in extra)
    assert all(emotions[int(m.id.removeprefix("ed-c"))] in script.PAINFUL_EMOTIONS for m in extra)
    assert not {m.id for m in extra} & {m.id for m in plain}
    assert "ed-phrase" not in {m.id for m in script.ed_negatives(tmp_path, 0, painful=100)}  # a crisis phrase is left out
