"""What reads as bad news is never greeted with delight: the text classifier's negative mass marks the
turn, the reply checks find delight in it, and the response leaves such a sentence out."""

from __future__ import annotations

import pytest

from empathygraph.agents.reply_checks import ReplyContext, cheers_bad_news, reply_problems
from empathygraph.agents.response import drop_flagged_sentences
from empathygraph.schemas import BAD_NEWS_MASS, Cues, LabelScore, TextEmotionCue
from empathygraph.tools.toolbox import ToolBox
from tests.conftest import make_empathizer, scripted, test_config


def _cue(sadness: float, joy: float) -> TextEmotionCue:
    rest = max(0.0, 1.0 - sadness - joy)
    coarse = [LabelScore(label="sadness", score=sadness), LabelScore(label="joy", score=joy),
              LabelScore(label="neutral", score=rest)]
    return TextEmotionCue(top=[LabelScore(label="sad", score=sadness)], model="test", coarse=coarse)


@pytest.mark.parametrize("reply", [
    "The rabbit has a few weeks left. That's good news!",
    "That's great to hear! Lunch alone can be peaceful.",
    "You're so lucky to have this new car.",
    "Oh, that's so sweet! What did they draw?",
    "You sound really excited about the pregnancy!",
    "Congratulations on getting through it.",
    "That's a big change. I'm really excited but also scared.",
    "I'm happy for you.",
    "That's a big change for you. I'm so happy you're making this decision.",
    "You're so smart! How do you feel about it now?",  # praise at a mishap reads as mockery
    "Wow, that's impressive! How long did it take you to build that?",  # to a bookshelf that wobbles
    "That's so nice! What's the new person's name?",  # to an ex happy with someone new
    "You're so brave! Why did you leave the gate open?",  # praise of them for a lost dog
    "You're doing great! What happened with the wifi?",
    "I think you did a great job. Did anyone see the trousers split?",
    "Good job! How did the rest of the day go?",
    "It was a hard day. Well done.",
    "You're doing such a good thing. What was it like?",  # to a father in a care home who asks to go home
    "That's a very kind gesture! Do you have any idea what the note means?",  # to a note calling their parking selfish
])
def test_delight_at_bad_news_is_found(reply: str) -> None:
    assert cheers_bad_news(reply, bad_news=True)
    assert cheers_bad_news(reply, bad_news=False) is None


@pytest.mark.parametrize("reply", [
    "I'm glad you told me. How is she doing?",
    "Glad to hear you're okay after the crash.",
    "That's such a hard goodbye.",
    "Oh no, that's so hard. How long did you have him?",
    "That's so funny, and so unfair. Did anyone notice?",
    "I'm so sorry. Were you excited about the trip before this?",
    "I'm happy you told me. How long did you have him?",
    "I'm so happy you're okay after the crash.",
    "You're smart, and one slip doesn't change that. What did the client say?",
    "That's so nice of your sister to come. How are you holding up?",
    "That's nice to remember, even if it hurts now.",
    "I'm sure you're doing a great job with him. What's the hardest part?",  # reassurance, not praise for the news
    "I hope you're doing well today. What happened?",
    "You're brave to share this. How long has it been?",
    "Losing it hurts. I hope you find a good job soon.",  # a job as work
    "I know you're strong, and this is still a lot.",
])
def test_care_for_bad_news_passes(reply: str) -> None:
    assert cheers_bad_news(reply, bad_news=True) is None


def test_bad_news_is_read_from_the_text_classifiers_negative_mass() -> None:
    assert Cues(words="x", text_emotion=_cue(BAD_NEWS_MASS, 0.1)).bad_news
    assert not Cues(words="x", text_emotion=_cue(BAD_NEWS_MASS - 0.05, 0.3)).bad_news
    assert not Cues(words="x").bad_news  # no classifier, no reading
    assert _cue(0.5, 0.2).negative_mass() == pytest.approx(0.5)


def test_a_delighted_sentence_is_left_out_of_a_reply_to_bad_news() -> None:
    said = "The vet says my rabbit has maybe a few weeks left."
    reply = "That's good news! How is she eating?"
    assert drop_flagged_sentences(reply, ReplyContext(said, bad_news=True)) == ("How is she eating?",
                                                                                  ["That's good news!"])
    assert drop_flagged_sentences(reply, ReplyContext(said)) == (reply, [])
    assert any("delighted" in problem for problem in reply_problems(reply, ReplyContext(said, bad_news=True)))


def test_the_graph_sends_delight_at_bad_news_back(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ToolBox, "text_emotion", lambda self, text, llm_state=None: _cue(0.9, 0.05))
    model = scripted(ReflectionDraft={"verdict": "accept"},
                     ResponseDraft=[{"reply": "That's wonderful news!"}, {"reply": "A few weeks. How is she today?"}])
    result = make_empathizer(model, test_config(perception={"text_emotion": True})).respond(
        "The vet says my rabbit has maybe a few weeks left.")
    assert "wonderful" not in result.plan.text
    assert any("delighted" in issue for critique in result.critiques for issue in critique.issues)
