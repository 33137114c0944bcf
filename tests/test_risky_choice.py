"""A choice of theirs that could hurt them or others is never praised: the screen's cue reaches the
strategy, the response's task, the reply checks and the fallback reply."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from empathygraph.agents.fallback import fallback_reply
from empathygraph.agents.reply_checks import ReplyContext, praises_choice, reply_problems, screen_flags
from empathygraph.agents.response import CHOICE_CAUTION, reply_task
from empathygraph.errors import BackendError
from empathygraph.schemas import (
    AvatarProfile,
    ChoiceCue,
    CoarseEmotion,
    EDEmotion,
    EmotionAnalysis,
    ReplyScreen,
    Strategy,
)
from empathygraph.tools.choice_screen import CHOICE_PROBE_PATH, CHOICE_SCREEN_PATH, ChoiceProbe, ChoiceScreen
from empathygraph.tools.toolbox import ToolBox
from tests.conftest import make_empathizer, scripted


@pytest.mark.parametrize("reply", [
    "Good job taking the cold turkey. I'm glad you feel better now.",
    "That's a great idea!",
    "Good call, honestly.",
    "Go for it, you deserve a break.",
    "I'm so glad you stopped taking them.",
    "That sounds like a plan.",
    "Sounds fair to me.",
    "Congratulations on standing up for yourself!",
    "You're so brave! I hope you find the printer fixed soon!",
    "You are right to stop them if you feel fine.",
])
def test_praise_of_a_choice_is_found(reply: str) -> None:
    assert praises_choice(reply)


@pytest.mark.parametrize("reply", [
    "Feeling fine is such a relief. Did your doctor say how to come off them safely?",
    "It's understandable to be furious after what she did.",
    "That sounds like a lot of money to send someone you haven't met yet. How did you two meet?",
    "You must be worn out by all of it.",
    "It's okay to feel angry about it, and there's nothing wrong with feeling hurt.",
    "You're right here, and I'm listening.",
])
def test_care_without_approval_passes(reply: str) -> None:
    assert praises_choice(reply) is None


def test_praise_is_a_problem_only_for_a_risky_choice() -> None:
    words = "I ran my first half marathon this morning!"
    assert reply_problems("Well done, that's huge!", ReplyContext(words)) == []
    found = reply_problems("Well done, that's huge!", ReplyContext(words, risky_choice=True))
    assert any("praises or approves" in problem for problem in found)


def test_a_praising_sentence_of_a_risky_choice_is_not_spoken_from_the_draft() -> None:
    screen = ReplyScreen(words="I'm lending my savings to someone I met online.", risky_choice=True)
    assert screen_flags("That's a great idea!", screen)
    assert not screen_flags("How long have you been talking?", screen)
    assert not screen_flags("That's a great idea!", ReplyScreen(words="I'm lending my savings to my sister."))


def test_the_task_asks_for_care_without_approval_only_for_a_risky_choice() -> None:
    profile = AvatarProfile()
    assert CHOICE_CAUTION in reply_task(Strategy.QUESTION, profile, 40, risky_choice=True)
    assert CHOICE_CAUTION not in reply_task(Strategy.QUESTION, profile, 40)


def test_the_fallback_reply_calls_nothing_good_for_a_risky_choice() -> None:
    happy = EmotionAnalysis(emotion=EDEmotion.JOYFUL, coarse=CoarseEmotion.JOY, intensity=0.6, valence=0.7,
                            arousal=0.3, event_scenario="x", causes=["x"], label_source="llm")
    assert praises_choice(fallback_reply(happy, Strategy.QUESTION))  # good news is cheered
    assert praises_choice(fallback_reply(happy, Strategy.QUESTION, risky_choice=True)) is None


def _risky(monkeypatch: pytest.MonkeyPatch, score: float) -> None:
    monkeypatch.setattr(ToolBox, "choice", lambda self, text, llm_state=None: ChoiceCue(score=score, threshold=0.5))


def test_a_risky_choice_holds_back_affirmation_and_sends_praise_back(monkeypatch: pytest.MonkeyPatch) -> None:
    _risky(monkeypatch, 0.9)
    model = scripted(StrategyDraft={"strategy": "Affirmation", "goal": "affirm"},
                     ReflectionDraft={"verdict": "accept"},
                     ResponseDraft=[{"reply": "That's a great idea! How long have you known him?"},
                                    {"reply": "How long have you two been talking?"}])
    result = make_empathizer(model).respond("I'm lending my savings to a man I met online last month.")
    offered = re.search(r"one of: ([^)]*)\)", model.calls_for("StrategyDraft")[0].prompt).group(1)
    assert "Question" in offered and "Affirmation" not in offered
    assert result.empathy.strategy is not Strategy.AFFIRMATION
    assert CHOICE_CAUTION in model.calls_for("ResponseDraft")[0].prompt
    read = next(s for s in result.steps if s.step == "read")
    assert read.output["choice"]["score"] == 0.9
    assert "praises or approves" in " ".join(result.critiques[0].issues) or \
        "That's a great idea" not in result.plan.text  # left out of the draft, or sent back by reflection
    assert "great idea" not in result.plan.text


def test_good_news_keeps_its_praise(monkeypatch: pytest.MonkeyPatch) -> None:
    _risky(monkeypatch, 0.1)
    model = scripted(ReflectionDraft={"verdict": "accept"}, ResponseDraft={"reply": "Well done! How do your legs feel?"})
    result = make_empathizer(model).respond("I ran my first half marathon this morning!")
    assert result.plan.text == "Well done! How do your legs feel?"
    assert CHOICE_CAUTION not in model.calls_for("ResponseDraft")[0].prompt


def test_a_screen_file_round_trips_and_a_missing_one_is_named(tmp_path: Path) -> None:
    probe = ChoiceProbe(backbone="b", layer=3, mean=np.zeros(3), scale=np.ones(3), coef=np.array([1.0, 0.0, 0.0]),
                        intercept=0.0, threshold=0.4, trained_on="t")
    probe.save(tmp_path / "p.npz")
    loaded = ChoiceProbe.load(tmp_path / "p.npz")
    assert (loaded.backbone, loaded.layer, loaded.trained_on) == ("b", 3, "t")
    assert loaded.threshold == pytest.approx(0.4) and loaded.describe() == "b layer 3 probe"
    assert loaded.probability(np.array([2.0, 5.0, 5.0])) == pytest.approx(1 / (1 + np.exp(-2.0)), rel=1e-5)
    with pytest.raises(BackendError, match="not a ChoiceScreen"):
        ChoiceScreen.load(tmp_path / "p.npz")  # a probe's file is not a screen
    with pytest.raises(BackendError, match="not found"):
        ChoiceScreen.load(tmp_path / "missing.npz")


def test_the_shipped_readers_read_the_default_models() -> None:
    screen, probe = ChoiceScreen.load(CHOICE_SCREEN_PATH), ChoiceProbe.load(CHOICE_PROBE_PATH)
    assert screen.encoder == "all-mpnet-base-v2" and screen.coef.shape == (768,)
    assert probe.backbone == "embedded:qwen2.5-coder-1.5b" and probe.layer == 12 and probe.coef.shape == (1536,)
    for reader in (screen, probe):
        assert 0.0 < reader.threshold < 1.0 and "choices" in reader.trained_on
