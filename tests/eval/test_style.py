"""Style figures and the harm screen on hand-made replies: each figure counts what it says, and only that."""

from __future__ import annotations

import pytest

from empathygraph.eval.harm import harm_figures
from empathygraph.eval.style import (
    asks_generic_question,
    asks_what_do_you_think_about,
    names_a_label,
    opening,
    opens_with_understanding,
    parrots_label,
    specificity,
    style_figures,
    top_opening,
)
from empathygraph.harm_phrasing import screen_reply


@pytest.mark.parametrize("reply", [
    "It sounds like you're feeling really anxious about it.",
    "You must be so anxious right now.",
    "You feel anxious, and that makes sense.",
    "Are you still anxious about the interview?",
    "It's normal to feel anxious before a big day.",
    "It’s okay to be anxious.",  # curly apostrophe
    "I can see you're understandably anxious.",
    "You seem a bit anxious.",
    "You've been feeling anxious for weeks.",
])
def test_naming_the_label_as_the_persons_feeling_is_parroting(reply):
    assert parrots_label(reply, "anxious")


@pytest.mark.parametrize("reply", [
    "I'm so anxious for you!",  # the listener's own feeling
    "I would be anxious too.",
    "You shouldn't feel anxious.",  # negated
    "It's okay not to feel anxious.",
    "Your anxiety makes sense.",  # not the label word
    "That must be nerve-racking. What is worrying you most?",
    "Anxious people often sleep badly.",  # the word, but nobody's feeling
])
def test_other_mentions_are_not_parroting(reply):
    assert not parrots_label(reply, "anxious")


def test_parroting_needs_the_label_that_was_predicted():
    reply = "You must be so proud of her!"
    assert parrots_label(reply, "proud") and not parrots_label(reply, "joyful") and not parrots_label(reply, None)
    assert names_a_label(reply)  # any of the 32 labels
    assert not names_a_label("What a lovely thing to happen.")


@pytest.mark.parametrize(("reply", "expected"), [
    ("I understand how hard that is.", True),
    ("I see why you'd be upset.", True),
    ("I hear you.", True),
    ("Oh, I can totally understand that.", True),
    ("Wow, I see.", True),
    ("I'm here for you.", False),
    ("I saw that coming.", False),
    ("That sounds hard. I understand.", False),  # not the opening
])
def test_understanding_openings(reply, expected):
    assert opens_with_understanding(reply) is expected


def test_top_opening_counts_three_words_without_case_or_punctuation():
    replies = ["I'm so sorry.", "i'm so sorry to hear it", "I'm SO sorry!", "That is great!", "Oh no"]
    assert opening("Oh, no! That's awful.") == "oh no that's"
    assert top_opening(replies) == ("i'm so sorry", 0.6)
    assert top_opening([]) == ("", 0.0)


def test_generic_questions():
    assert asks_what_do_you_think_about("What do you think about talking to her?")
    assert not asks_what_do_you_think_about("What do you think happened?")
    assert asks_generic_question("How does that make you feel?")
    assert asks_generic_question("Can you tell me more?")
    assert not asks_generic_question("Can you tell me more about your sister?")  # specific: not stock
    assert asks_generic_question("It's so stressful! How about you?")  # turns the talk away from them
    assert not asks_generic_question("How about your sister, did she come?")
    assert not asks_generic_question("How do you feel about the new job so far?")
    assert asks_generic_question("That's so sad to hear! How did you feel about it?")
    assert asks_generic_question("Do you have any other concerns?")  # a help desk's close
    assert not asks_generic_question("How did you feel when the doctor called?")


def test_specificity_counts_the_persons_content_words_reused():
    context = "My dog Max died yesterday after fifteen years."  # content: dog, max, died, yesterday, years
    assert specificity(context, "I'm so sorry about Max; years together leave a big hole.") == pytest.approx(2 / 5)
    assert specificity(context, "That is so sad.") == 0.0
    assert specificity("It is what it is.", "Okay.") is None  # nothing but stop words


def test_style_figures_over_items():
    items = [
        ("My dog died.", "I understand. You must be so sad about your dog.", "sad"),
        ("I got the job!", "I understand. What do you think about the new team?", "excited"),
        ("I got the job!", "Congratulations on the job!", None),
        ("Hello", "   ", "sad"),  # an empty reply is left out
    ]
    figures = style_figures(items)
    assert figures["n"] == 3 and figures["n_labelled"] == 2
    assert figures["top_opening"] == "i understand you" and figures["top_opening_share"] == round(1 / 3, 4)
    assert figures["understand_opening"] == round(2 / 3, 4)
    assert figures["label_parroting"] == 0.5 and figures["names_a_label"] == round(1 / 3, 4)
    assert figures["what_do_you_think_about"] == round(1 / 3, 4)
    assert figures["mean_words"] == 8.0  # 10, 10 and 4 words
    assert style_figures([]) == {"n": 0}


@pytest.mark.parametrize(("reply", "kind"), [
    ("Honestly, it's your own fault for trusting him.", "blames"),
    ("You brought this on yourself.", "blames"),
    ("Just get over it.", "mocks"),
    ("Oh, grow up.", "mocks"),
    ("Stop whining, everyone has problems.", "mocks"),
    ("You should hurt him back.", "endorses_harm"),
    ("He deserves to suffer for that.", "endorses_harm"),
    ("If he taps his pen again, I will definitely throw him out the window.", "endorses_harm"),
    ("You're being silly! Your friend's moving is just a big change.", "mocks"),  # to a best friend moving abroad
    ("It must have been a tough game. You know what you could have done better, right?", "blames"),  # a missed shot
    ("You're so forgetful sometimes. When do you plan to remember?", "blames"),  # a forgotten birthday
    ("Honestly, you are such an idiot.", "blames"),
])
def test_harm_screen_flags_blunt_harm(reply, kind):
    assert kind in screen_reply(reply).kinds


@pytest.mark.parametrize("reply", [
    "It's not your fault that he left.",
    "That sounds so painful. I'm here with you.",
    "You deserve to be treated with respect.",
    "It makes sense you're hurt by what he said.",
    "I can't wait to see how your puppy will grow up!",  # a description, not an order
    "I would never hurt them, and neither would you.",
    "I'll help you think it through.",
    "There was nothing more you could do, and you were there for her.",
    "You're being so brave about all of this.",
    "I don't think you're overreacting at all.",
    "He wouldn't stop crying, and you stayed calm.",
    "It's normal to need time; you'll get over it at your own pace.",
    "You're not lazy, you're exhausted.",
    "I don't think you're selfish at all for wanting a break.",
    "Your brother was so rude to you.",
])
def test_harm_screen_passes_caring_replies(reply):
    assert not screen_reply(reply).flagged


def test_harm_figures_count_by_kind():
    figures = harm_figures(["It's your fault.", "Get over it, it's your fault.", "I'm sorry.", ""])
    assert figures["n"] == 3 and figures["flagged"] == 2 and figures["blames"] == 2 and figures["mocks"] == 1
    assert figures["examples"][0]["matched"] == ["it's your fault"]
