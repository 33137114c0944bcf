"""The empathy judge: its word features match scikit-learn's, the shipped heads load and say what they saw,
and they rank replies the way a reader would."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.feature_extraction.text import TfidfVectorizer

from empathygraph.errors import BackendError
from empathygraph.eval.judge import (
    JUDGE_PATH,
    LEVELS,
    MECHANISMS,
    TOKEN_PATTERN,
    EmpathyJudge,
    EmpathyScore,
    JudgeHeads,
    WordFeatures,
    empathy_figures,
)
from empathygraph.phrasing import normalize
from tests.eval.toy_judge import toy_judge


def test_word_features_reproduce_the_vectorizer_they_were_trained_with():
    corpus = ["I'm so sorry. How are you?", "That sounds hard! I'm here.", "How are you holding up? Sorry!",
              "Sorry sorry sorry, I'm sorry."]
    vec = TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True, lowercase=False, preprocessor=normalize,
                          token_pattern=TOKEN_PATTERN).fit(corpus)
    words = WordFeatures(sorted(vec.vocabulary_, key=vec.vocabulary_.get), vec.idf_)
    new = ["I\u2019m SO sorry! How are you?", "Nothing in the vocabulary", ""]
    assert np.allclose(words.transform(new), vec.transform(new).toarray(), atol=1e-6)
    assert "?" in words.terms and "i'm so" in words.terms


def test_shipped_heads_load_with_their_held_out_scores():
    heads = JudgeHeads.load(JUDGE_PATH)
    assert set(heads.heads) == set(MECHANISMS) and len(heads.words.terms) > 1000
    for mechanism, head in heads.heads.items():
        assert head.weight.shape == (len(LEVELS), len(heads.words.terms))
        held_out = heads.info["held_out"][mechanism]
        # On posts it never saw, each head must beat always answering the commonest level.
        assert held_out["accuracy"] > held_out["majority_accuracy"] and held_out["macro_f1"] > 0.5
    assert "EPITOME" in heads.info["data"] and heads.info["test_pairs"] > 500
    assert JUDGE_PATH.stat().st_size < 600_000  # a small head, not a model


def test_heads_round_trip_and_missing_file(tmp_path):
    heads = toy_judge().heads
    heads = JudgeHeads(heads.words, heads.heads, {"note": "test"})
    heads.save(tmp_path / "j.npz")
    again = JudgeHeads.load(tmp_path / "j.npz")
    assert again.info == {"note": "test"} and again.words.terms == ["sorry", "?"]
    assert np.allclose(again.heads["explorations"].weight, heads.heads["explorations"].weight)
    with pytest.raises(BackendError, match="train_empathy_judge"):
        JudgeHeads.load(tmp_path / "absent.npz")


def test_scores_levels_totals_and_means():
    kind, cold = toy_judge().score_many([("My dog died.", "I'm so sorry. How are you?"), ("My dog died.", "Ok.")])
    assert kind.levels == {"emotional_reactions": 2, "interpretations": 2, "explorations": 2} and kind.total == 6
    assert cold.total == 0 and cold.expected_total < 1.0 < kind.expected_total
    assert empathy_figures([kind, cold])["score"] == 3.0 and empathy_figures([]) == {"n": 0}
    assert toy_judge().score_many([]) == []


def test_empathy_score_totals():
    score = EmpathyScore(levels={"a": 2, "b": 0, "c": 1}, expected={"a": 1.5, "b": 0.25, "c": 0.75})
    assert score.total == 3 and score.expected_total == 2.5


CONTEXT = "My mom was diagnosed with cancer last week and I can't stop crying."


@pytest.fixture(scope="module")
def judge():
    return EmpathyJudge()


def test_an_empathetic_reply_outscores_a_dismissive_one(judge):
    caring = judge.score(CONTEXT, "I'm so sorry about your mom. That must be terrifying. How are you holding up?")
    dismissive = judge.score(CONTEXT, "Everyone gets sick eventually. Crying won't fix anything.")
    assert caring.expected_total > dismissive.expected_total + 1.0
    assert caring.levels["emotional_reactions"] >= 1 and dismissive.levels["emotional_reactions"] == 0


def test_a_question_about_the_person_reads_as_exploration(judge):
    asks = judge.score(CONTEXT, "What did the doctors say about her treatment? How are you coping with it?")
    tells = judge.score(CONTEXT, "Cancer treatment has improved a lot in recent years.")
    assert asks.levels["explorations"] == 2 and tells.levels["explorations"] == 0


def test_having_been_there_reads_as_interpretation(judge):
    lived = judge.score(CONTEXT, "I went through the same thing with my dad last year, and I know how scary it is.")
    advice = judge.score(CONTEXT, "Make a list of questions for the oncologist.")
    assert lived.expected["interpretations"] > advice.expected["interpretations"] + 0.5
