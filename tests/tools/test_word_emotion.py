"""The word-level emotion reader: TF-IDF as scikit-learn computes it, its softmax, the blend and its file."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression

from empathygraph.errors import BackendError
from empathygraph.tools.config import PerceptionConfig
from empathygraph.tools.term_weights import TermWeights, terms
from empathygraph.tools.toolbox import ToolBox
from empathygraph.tools.word_emotion import WordEmotionReader

TEXTS = ["I passed my driving test today", "my dog died this morning", "I'm so scared of the storm tonight",
         "we won the final, what a game", "I miss my grandmother so much", "the thunder kept me awake, so scared",
         "passed the exam with top marks", "she died last winter and I still cry"]
LABELS = ["proud", "sad", "afraid", "proud", "sad", "afraid", "proud", "sad"]


def fitted() -> tuple[TfidfVectorizer, LogisticRegression]:
    vectorizer = TfidfVectorizer(analyzer=terms, sublinear_tf=True)
    return vectorizer, LogisticRegression(C=10.0, max_iter=1000).fit(vectorizer.fit_transform(TEXTS), LABELS)


def reader(share: float = 0.5) -> WordEmotionReader:
    vectorizer, model = fitted()
    words = TermWeights(dict(vectorizer.vocabulary_), vectorizer.idf_.astype(np.float32))
    return WordEmotionReader(words, list(model.classes_), model.coef_.T.copy(), model.intercept_.astype(np.float32),
                             share, {"trained_on": "eight test sentences"})


def test_term_weights_read_a_text_as_scikit_learns_vectorizer_does() -> None:
    vectorizer, _ = fitted()
    words = TermWeights(dict(vectorizer.vocabulary_), vectorizer.idf_.astype(np.float32))
    for text in ["so so scared of the storm", "My dog died, my dog!", "nothing known here"]:
        expected = vectorizer.transform([text]).toarray()[0]
        assert np.allclose(words.vector(text), expected, atol=1e-6)


def test_the_reader_gives_what_the_fitted_model_gives() -> None:
    vectorizer, model = fitted()
    mine = reader()
    for text in ["I'm scared of thunder", "my grandmother died", "top marks!"]:
        expected = model.predict_proba(vectorizer.transform([text]))[0]
        assert np.allclose(mine.probabilities(text), expected, atol=1e-5)
    assert mine.labels[int(np.argmax(mine.probabilities("the storm scared me")))] == "afraid"


def test_the_blend_is_the_encoders_reading_times_the_words_raised_to_the_share() -> None:
    mine = reader(share=0.5)
    encoder_labels = ["sad", "proud", "afraid"]  # another order than the reader's
    encoder = np.array([0.5, 0.3, 0.2])
    words = mine.probabilities("so scared of the storm")
    expected = encoder * np.sqrt(words[[mine.labels.index(label) for label in encoder_labels]])
    blended = mine.blend(encoder, encoder_labels, "so scared of the storm")
    assert np.allclose(blended, expected / expected.sum())
    assert blended[2] > encoder[2]  # the words move it towards fear
    unmoved = WordEmotionReader(mine.words, mine.labels, mine.weight, mine.bias, 0.0, {})
    assert np.allclose(unmoved.blend(encoder, encoder_labels, "so scared"), encoder)


def test_the_file_round_trips_and_a_bad_one_is_named(tmp_path: Path) -> None:
    mine = reader()
    path = tmp_path / "words.npz"
    mine.save(path)
    again = WordEmotionReader.load(path)
    assert again.labels == mine.labels and again.share == mine.share and again.info == mine.info
    assert np.allclose(again.probabilities("scared of the storm"), mine.probabilities("scared of the storm"), atol=1e-3)
    with pytest.raises(BackendError, match="not found"):
        WordEmotionReader.load(tmp_path / "missing.npz")
    broken = WordEmotionReader(mine.words, mine.labels, mine.weight[:-1], mine.bias, 0.5, {})
    broken.save(tmp_path / "broken.npz")
    with pytest.raises(BackendError, match="do not fit"):
        WordEmotionReader.load(tmp_path / "broken.npz")


def test_the_toolbox_blends_the_shipped_reader_only_when_it_is_on() -> None:
    off = ToolBox(PerceptionConfig(word_emotion=False))
    assert off.word_emotion() is None
    toolbox = ToolBox()
    shipped = toolbox.word_emotion()
    assert shipped is not None and len(shipped.labels) == 32 and 0.0 < shipped.share <= 1.0
    text = "I have an exam tomorrow and my mind keeps going blank."
    alone, blended = off.text_emotion(text), toolbox.text_emotion(text)
    assert alone is not None and blended is not None
    assert "+ words" in blended.model and "words" not in alone.model
    assert blended.encoder_top == alone.top and not alone.encoder_top  # the trace keeps the encoder's own reading
    assert blended.top[0].label == "anxious" and blended.coarse[0].label == "fear"


def test_a_missing_reader_file_leaves_the_encoder_reading_and_says_why(monkeypatch: pytest.MonkeyPatch,
                                                                        tmp_path: Path) -> None:
    monkeypatch.setattr(WordEmotionReader.load.__func__, "__defaults__", (tmp_path / "gone.npz",))
    toolbox = ToolBox()
    cue = toolbox.text_emotion("My dog died this morning.")
    assert cue is not None and "words" not in cue.model
    assert toolbox.word_emotion_unavailable is not None and "gone.npz" in toolbox.word_emotion_unavailable
