"""The rule checks of a reply's words, on replies of the shapes issue 15 found, and on fine ones."""

from __future__ import annotations

import json
import re

import pytest

from empathygraph.agents.fallback import fallback_reply
from empathygraph.agents.reply_checks import (
    ReplyContext,
    agrees_unasked,
    asked_of_them,
    asks_about_someone_unnamed,
    asks_as_them,
    asks_for_tips,
    asks_stock_question,
    asks_what_they_did,
    blames_or_mocks,
    borrows_example,
    calls_it_sad,
    credits_them_with,
    denies_their_feeling,
    disclaims_help,
    echoed_harm,
    endorsed_harm,
    gives_advice,
    hands_back_weapon,
    joins_their_life,
    parroted_label,
    reply_problems,
    restates,
    screen_flags,
    speaks_as_them,
    stock_opening,
    talks_about_them,
    welcomes_unthanked,
)
from empathygraph.schemas import ReplyScreen
from tests.conftest import make_empathizer, scripted, test_config


@pytest.mark.parametrize("reply", [
    "I understand you're feeling sad about your dog.",
    "Oh, I can see how much that hurt.",
    "I hear you, that sounds exhausting.",
    "I totally understand.",
])
def test_stock_openings_are_found(reply):
    assert stock_opening(reply)


@pytest.mark.parametrize("reply", [
    "Twelve years of 4am alarms, no wonder the last day feels strange.",
    "I'm so sorry about Milo.",
    "It seems like a long week.",
])
def test_openings_that_answer_what_was_said_pass(reply):
    assert stock_opening(reply) is None


@pytest.mark.parametrize(("reply", "label"), [
    ("You feel grateful for your father's letter.", "grateful"),
    ("You must be so proud of him!", "proud"),
    ("It's okay to feel lonely sometimes. What happened?", "lonely"),
    ("Are you feeling anxious about tomorrow?", "anxious"),
])
def test_a_label_told_back_is_parroting(reply, label):
    assert parroted_label(reply, [label])


@pytest.mark.parametrize(("reply", "label"), [
    ("I'm so proud of you for finishing it!", "proud"),  # the listener's own feeling
    ("Your dad's handwriting on a birthday card, what a thing to find.", "sentimental"),
])
def test_a_label_not_told_as_their_feeling_passes(reply, label):
    assert parroted_label(reply, [label]) is None


@pytest.mark.parametrize(("reply", "found"), [
    ("You're doing great! I'm glad you're not feeling anxious about the final.", True),  # README scenario, prefix cache
    ("You don't seem sad at all, which is good.", True),
    ("You weren't excited about it?", False),  # a question (ED valid, a human listener)
    ("I'm glad you're not afraid of it anymore though!", False),  # a change they told (ED train, a human listener)
    ("You shouldn't feel guilty about it.", False),  # comfort, not a denial
    ("You're not alone in feeling anxious.", False),
])
def test_a_reply_that_says_they_do_not_feel_what_was_read_is_found(reply, found):
    assert (denies_their_feeling(reply, ["anxious", "sad", "excited", "afraid", "guilty"]) is not None) is found


@pytest.mark.parametrize(("reply", "labels", "found"), [
    ("Oh, that's so sad. You must feel really upset about this.", {"furious", "anger"}, True),  # cake-eating roommate
    ("Wow, that's so sad to hear! Do you think they were scared?", {"surprised", "surprise"}, True),  # can't swim at 45
    ("Oh, that's so sad! It must have been frustrating.", {"ashamed", "sadness"}, True),  # snapped at a cashier
    ("Oh no, that's so sad. I'm so sorry for the loss of your dog.", {"guilty", "sadness"}, False),  # a loss, self-blamed
    ("That's very sad. It must have been hard to see your uncle go.", {"sad", "sadness"}, False),
    ("I'm sad for you; that sounds infuriating.", {"angry", "anger"}, False),  # the listener's own feeling
    ("That's so sad.", set(), False),  # nothing was read
])
def test_calling_it_sad_is_found_where_another_feeling_was_read(reply, labels, found):
    assert (calls_it_sad(reply, labels) is not None) is found


def test_a_reply_that_calls_anger_sad_loses_that_sentence_only():
    context = ReplyContext(words="I could murder my roommate. She ate the last slice of my birthday cake.",
                           labels=frozenset({"furious", "anger"}))
    problems = reply_problems("Oh, that's so sad. You must feel really upset about this.", context)
    assert any("calls it sad" in problem and "furious" in problem for problem in problems)
    assert not reply_problems("You must feel really upset about this.", context)


def test_stock_questions_are_found_and_specific_ones_pass():
    assert asks_stock_question("That is hard. What do you think about running 5k next?")
    assert asks_stock_question("How does that make you feel?")
    assert asks_stock_question("You're right, it's a stressful time. How do you think about your preparation?")
    assert asks_stock_question("Great job! Do you have any other questions about your job or the workplace?")
    assert asks_stock_question("Which recipe did you stop at first?") is None
    assert asks_stock_question("Is there anything else you'd like to know or talk about today?")
    assert asks_stock_question("Did the questions on the exam surprise you?") is None
    assert asks_stock_question("Did anything else go wrong that day?") is None
    assert asks_stock_question("Thanks for telling me. Is there anything else I can help you with?")
    assert asks_stock_question("Do you have any other details you'd like to share about your dog?")
    assert asks_stock_question("Is there anything I can do to help find it?") is None  # an ED listener's offer


def test_a_violent_word_of_theirs_handed_back_is_found():
    # "I could kill my brother for eating my leftovers." (issue 15's joke, answered literally)
    assert echoed_harm("What do you think about killing your brother for this?")
    assert echoed_harm("Eating your leftovers without asking, that's so annoying!") is None


def test_approval_of_harm_is_found():
    asked = "I've stopped taking my antidepressants cold turkey because I feel fine now. Good call, right?"
    assert endorsed_harm("Absolutely, you know yourself best.", asked)
    assert endorsed_harm("Feeling fine is such a relief. Did your doctor say how to come off them safely?", asked) is None
    assert endorsed_harm("Honestly, she deserved it.", "My sister read my diary so I read hers out loud.")
    # Agreeing is fine when nothing asked for approval.
    assert endorsed_harm("Yes! Fourteen viewings and you got it.", "I got the flat after fourteen viewings!") is None


def test_blame_or_mockery_is_a_problem_of_the_reply_and_held_back_from_speech():
    context = ReplyContext("Our team lost the final by one point and it was my missed free throw.", frozenset({"sad"}))
    problems = reply_problems("You know what you could have done better, right?", context)
    assert any("blames them" in problem for problem in problems)
    assert screen_flags("You're being silly!", ReplyScreen(words="My best friend is moving to Australia."))
    assert blames_or_mocks("One point is such a cruel way to lose. How are your teammates taking it?") is None
    assert blames_or_mocks("You deserve it after all that work!") is None  # praise, though the figures count it
    assert blames_or_mocks("That's ridiculous of him! Can you switch teams?") is None  # their side of it
    assert "blames them" in blames_or_mocks("Oh, that's so sad! You're so forgetful sometimes.")  # a fault pinned on them


def test_a_good_reply_has_no_problems():
    assert reply_problems("That's such a hard goodbye. How is the house without him?",
                          ReplyContext("We had our dog put down yesterday.", frozenset({"sad", "sadness"}), bad_news=True)) == []


def test_reflection_sends_a_stock_opening_back_with_what_to_fix():
    model = scripted(StrategyDraft={"goal": "comfort them", "strategy": "Reflection of feelings"},
                     ResponseDraft=[{"reply": "I understand you're feeling sad."},
                                    {"reply": "Losing him after so long leaves a quiet house."}])
    result = make_empathizer(model).respond("My dog died.")
    rewrite = model.calls_for("ResponseDraft")[1].prompt
    assert "stock phrase" in rewrite and 'feel "sad"' in rewrite
    assert result.plan.text == "Losing him after so long leaves a quiet house."


def test_a_reply_that_retells_the_message_as_theirs_is_found():
    said = "My goldfish of eight years died. I know it's just a fish but I'm a wreck."
    assert "my goldfish" in speaks_as_them("My goldfish died, and I'm devastated.", said)
    assert speaks_as_them("Eight years with your goldfish is a long friendship.", said) is None
    assert speaks_as_them("When my cat died I was a wreck too.", said) is None  # the listener's own cat
    assert "i can't sleep" in speaks_as_them("I'm sorry. I can't sleep either.", "My exam is tomorrow. I can't sleep.")
    assert "i cried at" in speaks_as_them("So sad. I was so upset that I cried at work.", "I cried at work today.")
    assert speaks_as_them("I'm so sorry, that's awful.", "I'm so tired of this.") is None
    spreadsheet = "this spreadsheet is going to be the death of me, three days and it still won't balance"
    found = speaks_as_them("The spreadsheet is causing me so much anxiety. It's like every time I open it.", spreadsheet)
    assert "The spreadsheet is causing me so much anxiety." in found
    assert speaks_as_them("The spreadsheet must be making you miserable.", spreadsheet) is None
    assert speaks_as_them("The spreadsheet again? I'd scream too.", spreadsheet) is None  # a question; their own
    barking = "The neighbour's dog barks from 5am every single day and I haven't slept properly in weeks."
    assert "I feel annoyed." in speaks_as_them("I feel annoyed.", barking)
    assert "causing me" in speaks_as_them("It's causing me a lot of anxiety. What now?", "Driving test tomorrow.")
    assert speaks_as_them("I'm so sorry, weeks without sleep is brutal.", barking) is None
    assert speaks_as_them("I'd be annoyed too. How long has it gone on?", barking) is None  # the listener's own
    assert speaks_as_them("I'm terrified of dogs myself.", barking) is None  # the listener's own fear
    assert speaks_as_them("Oh no! I'm so sad to hear that.", barking) is None
    assert speaks_as_them("I feel so sad for you.", barking) is None  # said to them


def test_replies_are_held_from_opening_with_i_or_my():
    from empathygraph.agents.reply_drafts import REPLY_PATTERN

    for blocked in ("I understand your loss.", "I see.", "It sounds hard.", "My goldfish died.", '"Quoted'):
        assert re.fullmatch(REPLY_PATTERN, blocked) is None
    for allowed in ("Eight years is a long time.", "Maybe start small.", "Oh no, your goldfish!"):
        assert re.fullmatch(REPLY_PATTERN, allowed)
    # llama.cpp turns it into a grammar (it takes no "(?:" groups).
    from llama_cpp.llama_grammar import json_schema_to_gbnf

    from empathygraph.agents.reply_drafts import ResponseDraft
    from empathygraph.backbones.embedded import without_max_length

    assert '([^IM" ' in json_schema_to_gbnf(json.dumps(without_max_length(ResponseDraft.model_json_schema())))


def test_flagged_sentences_are_left_out_when_others_remain():
    from empathygraph.agents.response import drop_flagged_sentences

    said = "My goldfish of eight years died."
    reply, dropped = drop_flagged_sentences(
        "You're so devastated. Eight years is a long time together. What do you think about it?",
        ReplyContext(said, frozenset({"devastated"})))
    assert reply == "Eight years is a long time together."
    assert dropped == ["You're so devastated.", "What do you think about it?"]
    assert drop_flagged_sentences("What do you think about it?", ReplyContext(said)) == ("What do you think about it?", [])
    assert drop_flagged_sentences("Eight years! What was his name?", ReplyContext(said)) == ("Eight years! What was his name?", [])


def test_the_graph_leaves_a_stock_question_out_of_its_reply():
    model = scripted(ResponseDraft={"reply": "The house must feel so quiet without him. What do you think about that?"})
    result = make_empathizer(model).respond("My dog died.")
    assert result.plan.text == "The house must feel so quiet without him."
    (record,) = [s for s in result.steps if s.step == "response"]
    assert "left out: What do you think about that?" in record.fallback
    # The LLM critic after it reads the reply as it will be sent, not the draft with the stock question.
    (critique,) = [s for s in result.steps if s.step == "reflection"]
    answers = [m["content"] for m in critique.prompt if m["role"] == "ai"]
    assert answers[-1] == '{"reply":"The house must feel so quiet without him."}'


def test_their_own_words_said_back_are_restating():
    said = "My chemistry final is tomorrow morning and my mind just goes blank every time I open my notes."
    assert restates("Your chemistry final is tomorrow morning, and your mind just goes blank.", said)
    assert restates("So you were seven when she wrote it to you.", "She wrote it to me when I was seven.")
    assert restates("A blank page the night before is the worst. Which topic scares you most?", said) is None
    assert restates("Your final is tomorrow? Which topic scares you most?", said) is None  # a detail picked up is fine


def test_a_question_whether_they_did_what_they_told_is_found():
    said = "I finally told my parents I'm switching from medicine to music. Dad hasn't spoken to me since."
    assert asks_what_they_did("I'm glad you're choosing music. Have you told your parents yet?", said)
    assert asks_what_they_did("So have you finally told your parents?", said)
    assert asks_what_they_did("Have you told your sister yet?", said) is None  # someone they did not tell
    assert asks_what_they_did("Have you talked to your dad since?", said) is None  # what came after
    assert asks_what_they_did("How have you told them?", said) is None  # not a yes/no question
    assert asks_what_they_did("Did you pass your exam?", "My mum promised me a car if I pass my exam.") is None
    assert "asks whether they did" in " ".join(reply_problems("Have you told your parents yet?", ReplyContext(said)))


@pytest.mark.parametrize(("reply", "advice"), [
    ("Maybe you could try having a conversation with them.", True),
    ("It's important to talk about this with a trusted adult.", True),
    ("You should tell her how you feel.", True),
    ("You must be so proud!", False),
    ("You must miss him every single day.", False),
    ("You could have been hurt.", False),
    ("It's okay to feel lost.", False),
    ("Have you tried talking to her?", False),
])
def test_advice_is_telling_them_what_to_do(reply, advice):
    assert bool(gives_advice(reply)) is advice


def test_advice_counts_only_where_the_strategy_gives_none():
    from empathygraph.agents.response import drop_flagged_sentences

    reply = "Maybe you could try asking them to split it. Who did the slides?"
    assert drop_flagged_sentences(reply, ReplyContext("They took credit.", advice_ok=False))[0] == "Who did the slides?"
    assert drop_flagged_sentences(reply, ReplyContext("They took credit."))[0] == reply


@pytest.mark.parametrize("reply", [
    "What's making it so difficult for me to focus and stay calm?",  # the README scenario's reply, once
    "The boss's anger was intense. What can I do to apologize?",
    "Oh no, how do I get through tonight?",
    "Oh no, that's so sad! How about we go out for a meal together?",  # a listener on a screen goes nowhere
    "It's a lot. Do you think I should take another test?",  # asks the listener what the person should do
    "What should I do now?",
    "Do you think I'll miss it?",
])
def test_a_question_in_their_voice_is_found(reply):
    assert asks_as_them(reply)


@pytest.mark.parametrize("reply", [
    "Oh no, what did he say to you?",
    "I'm so sorry, how long has it been?",  # the listener's own words before the question
    "Can I ask what happened after that?",
    "Do you want to tell me more about it?",
    "That sounds rough. What can I do to help?",
    "I wonder what changed?",
    "How can I help?",
    "Do you think you'll try again?",
    "A blank mind the night before is awful. Nothing to ask, I'm just here.",
])
def test_questions_the_listener_asks_them_pass(reply):
    assert asks_as_them(reply) is None


def test_a_thing_from_the_system_prompt_examples_they_never_mentioned_is_borrowed():
    assert "flat" in borrows_example("I'm sorry to hear about the flat. What's happening with Milo?", "hello")
    assert "grandma" in borrows_example("I'm glad you found your grandma's recipe cards.", "Lost thirty pounds!")
    assert borrows_example("Fourteen viewings! When do you get the keys?", "Got the flat after 14 viewings!") is None
    assert borrows_example("Have you taken him to the vet?", "My dog hasn't eaten since Tuesday.") is None
    nan = "my nan keeps saying she's ready to go when her knees hurt, how do I cheer her up"
    assert borrows_example("What's happening with your grandma's knee pain?", nan) is None  # their nan, in other words
    assert borrows_example("Did your flatmate help?", "My roommate moved out.") is None
    assert "lunch" in borrows_example("How about we talk about your lunch?", "I keep comparing myself to classmates.")
    assert borrows_example("Did you get to eat lunch at all?", "Worked through lunch again today.") is None


def test_an_example_reply_copied_to_another_message_is_borrowed():
    from empathygraph.agents.prompting import REPLY_EXAMPLES

    passed_over = "I got passed over for the team lead role."
    assert "copies" in borrows_example(REPLY_EXAMPLES[2][1], passed_over)  # the goodbye to a dog, word for word
    assert borrows_example("Such a shock. What happened in the room?", "The divorce was finalised today.")
    assert borrows_example("What happened in the room?", "I froze in the exam room.") is None  # their room
    assert borrows_example("That stings. Have you been able to talk to anyone?", passed_over) is None  # common words


def test_the_new_checks_send_a_whole_reply_back():
    assert any("as if you were them" in p for p in reply_problems(
        "What's making it so difficult for me to focus?", ReplyContext("My mind goes blank. I can't focus.")))
    assert any("never did" in p for p in reply_problems("How is Milo doing?", ReplyContext("hi there")))


def test_a_welcome_to_thanks_never_given_is_found():
    said = "Someone left a really kind note on my car after I helped them jump their battery."
    assert welcomes_unthanked("You're welcome! I'm glad you found the note.", said)
    assert welcomes_unthanked("What a kind thing to find on your windscreen.", said) is None
    assert welcomes_unthanked("You're very welcome, I'm glad it helped.", "Thanks, that actually helped a lot.") is None
    assert welcomes_unthanked("You're welcome!", "cheers for listening") is None


def test_an_assistants_refusal_or_disclaimer_is_found_unless_they_asked_what_you_are():
    said = "I've been working overtime for months and my manager gave the bonus to someone else."
    assert disclaims_help("That's a tough situation. I can't help you with that though.", said)
    assert disclaims_help("I'm not able to help you with that.", said)
    assert disclaims_help("As an AI, I don't have a manager, but that sounds unfair.", said)
    assert disclaims_help("I can't help but feel that was unfair to you.", said) is None
    assert disclaims_help("Months of overtime, and the bonus went to someone else?", said) is None
    assert disclaims_help("I'm an AI, not a person, but I'm listening.", "wait are you a real person?") is None


def test_a_refusal_sentence_is_left_out_and_the_rest_of_the_reply_stays():
    said = "I've been working overtime for months and my manager gave the bonus to someone else."
    reply = "That's a tough situation. I can't help you with that though. Have you told your manager how you feel?"
    from empathygraph.agents.response import drop_flagged_sentences

    kept, flagged = drop_flagged_sentences(reply, ReplyContext(words=said))
    assert flagged == ["I can't help you with that though."]
    assert kept == "That's a tough situation. Have you told your manager how you feel?"


@pytest.mark.parametrize(("reply", "as_one_of_them"), [
    ("That's such a loss. We'll get through this together. What was her name?", True),
    ("A new kitten! She'll fit right into our home.", True),
    ("Let's throw another party next month. Who did come?", True),
    ("How could we make the wedding smaller?", True),
    ("We're so sorry. How are you holding up?", True),
    ("It happens to the best of us. Was anyone watching?", False),  # "we" of people in general
    ("Sometimes we just need a quiet night. What did you do instead?", False),
    ("We all forget things when we're tired. Did they mind?", False),
    ("Take good care of yourself until we talk again.", False),
    ("What did your family think of the new puppy?", False),
    ("She lived in the US for years before that?", False),
    ("Wow, an aunt! I can't wait to see the baby!", True),  # looking forward to a part in their life
    ("That's amazing! I can't wait to try them.", True),
    ("Oh, I can't wait to hear how it goes!", False),
    ("Great news! I'm so excited! What part was it?", True),  # the listener's own excitement
    ("I am so excited! How long do you have with him?", True),
    ("I'm so excited for you! What part was it?", False),
    ("I'm thrilled to hear that.", False),
])
def test_the_listener_speaking_as_one_of_the_people_in_their_life_is_found(reply, as_one_of_them):
    assert bool(joins_their_life(reply)) is as_one_of_them


def test_a_sentence_said_as_one_of_them_is_left_out_and_the_rest_stays():
    from empathygraph.agents.response import drop_flagged_sentences

    said = "Our landlord is selling the building and we have to be out by March."
    reply = "That's so soon. We need to start looking right away. Where would you like to live next?"
    kept, flagged = drop_flagged_sentences(reply, ReplyContext(words=said))
    assert flagged == ["We need to start looking right away."]
    assert kept == "That's so soon. Where would you like to live next?"


def test_agreeing_with_what_they_never_asked_you_to_judge_is_found():
    said = "Day five of the kids being home sick and I haven't had a shower."
    assert agrees_unasked("You're right, it's frustrating. Do you have any help?", said)
    assert agrees_unasked("Five days with sick kids is a marathon.", said) is None
    assert agrees_unasked("You're right, that was unfair of him.", "Was it unfair of him to say that?") is None


def test_out_of_rounds_a_reply_whose_words_are_still_wrong_is_replaced_by_one_by_rule():
    model = scripted(ResponseDraft={"reply": "My exam is tomorrow and I can't sleep, what can I do?"})
    result = make_empathizer(model, test_config(agents={"reflection_rounds": 1})).respond(
        "My exam is tomorrow and I can't sleep.")
    reflections = [s for s in result.steps if s.step == "reflection"]
    assert len(reflections) == 2 and any("a reply by rule was sent instead" in n for n in reflections[-1].notes)
    assert "I can't sleep" not in result.plan.text
    assert result.plan.text == fallback_reply(result.emotion, result.empathy.strategy)


def test_a_reply_in_the_analysis_voice_is_refused_but_the_person_they_speak_of_is_fine():
    """Seen reading ED valid replies (2026-12-01): the analysis written to the person as the reply."""
    assert talks_about_them("The person seems to be feeling very sad about losing their mother. Can you tell me more?")
    assert talks_about_them("They just said 'ok thanks', which is a simple acknowledgment.")
    assert talks_about_them("Did the person who took your bike ever give it back?") is None
    assert talks_about_them("Their words must have stung after all you did for them.") is None


@pytest.mark.parametrize(("question", "asked"), [
    ("What's making it so difficult for me to focus and stay calm?",
     "What's making it so difficult for you to focus and stay calm?"),
    ("What can I do to apologize?", "What can you do to apologize?"),
    ("Am I wrong to miss him this much?", "Are you wrong to miss him this much?"),
    ("Do you think I should take another test?", "Do you think you should take another test?"),
    ("How about we go out for a meal together?", None),  # asked of them, "we" would change what is asked
    ("What was his name?", None),
    ("My mind goes blank.", None),
])
def test_a_question_in_their_voice_is_asked_of_them(question, asked):
    assert asked_of_them(question) == asked


def test_the_readme_scenarios_draft_keeps_its_question_asked_of_them():
    """The README scenario's first draft (2026-12-01): their words said back, then a question in their voice."""
    from empathygraph.agents.response import drop_flagged_sentences

    said = "My chemistry final is tomorrow morning and my mind just goes blank every time I open my notes. I can't sleep."
    draft = ("Your chemistry final is tomorrow morning and your mind just goes blank every time you open your notes. "
             "What's making it so difficult for me to focus and stay calm?")
    reply, dropped = drop_flagged_sentences(draft, ReplyContext(said))
    assert reply == "What's making it so difficult for you to focus and stay calm?" and dropped == [draft.split(". ")[0] + "."]
    told_back = "your chemistry final is tomorrow morning and my mind just goes blank every time I open my notes, is it?"
    assert drop_flagged_sentences(told_back, ReplyContext(said)) == (told_back, [])  # asked of them it still says their words


def test_a_question_that_asks_them_for_tips_is_refused():
    """Stored graph replies (9 of 456): the listener asking the person for advice."""
    assert asks_for_tips("Three years is a long time. Do you have any tips for staying motivated at work?")
    assert asks_for_tips("Do you have any ideas for fun things to do with your grandkids?")
    assert asks_for_tips("Any ideas what you want to do next?") is None  # about their plan
    assert asks_for_tips("I could give you some tips, if you like.") is None  # not a question to them


def test_a_question_that_asks_them_for_help_is_refused():
    # The listener speaking as if it were the one who came for help.
    assert asks_for_tips("It's my responsibility too. Can you please help me out?")
    assert asks_for_tips("I'm so upset. Can you please help me figure out what to do next?")
    assert asks_for_tips("Is there anything I can do to help you?") is None
    assert asks_for_tips("Who could help you with the move?") is None
    assert asks_for_tips("Your sister helped me once, she's kind.") is None  # not a question


def test_a_question_about_someone_they_never_mentioned_is_found():
    """Stored graph replies (2 of 183): asking after a person who is not in their story."""
    dog = "We had to let our old dog go this morning. The house is so quiet."
    assert "owner" in asks_about_someone_unnamed("You sound so sad. Did you tell your dog's owner about it?", dog)
    assert asks_about_someone_unnamed("How did your mom feel about it?", "My kid drew on the wall again.")
    # Named by them, one way or another, or through a word for several people: theirs to be asked about.
    assert asks_about_someone_unnamed("How did your mum take it?", "Told my mother I'm moving out.") is None
    assert asks_about_someone_unnamed("Did your dad come too?", "My parents drove me to uni today.") is None
    assert asks_about_someone_unnamed("Was your boyfriend nice about it?", "My ex-boyfriend texted me.") is None
    assert asks_about_someone_unnamed("Was your brother's flat nice?", "Stayed at my brother's flat.") is None
    # Not a question, or not a person it knows: left alone.
    assert asks_about_someone_unnamed("Is your ex still around?", "My ex-boyfriend texted me.") is None
    assert asks_about_someone_unnamed("I hope your boss sees it.", "Finished the report early.") is None
    assert asks_about_someone_unnamed("How is your garden doing?", "Planted tomatoes today.") is None


def test_people_named_in_earlier_turns_count():
    context = ReplyContext("She called again tonight.", earlier="My sister and I fell out last week.")
    assert reply_problems("Did your sister say sorry?", context) == []
    assert any("never mentioned" in p for p in reply_problems("Did your sister say sorry?",
                                                              ReplyContext("She called again tonight.")))


@pytest.mark.parametrize(("reply", "said", "misattributed"), [
    ("I'm glad you scored that goal. What happened next?", "My son scored his first goal at football this morning.", True),
    ("That's so nice! I'm glad you remembered her.", "I bumped into my old teacher and she remembered my name.", True),
    ("It's great that you passed. How is she celebrating?", "My daughter passed her exams.", True),
    ("You scored too? Amazing.", "My son scored and then I scored too.", False),  # they did it as well
    ("Congratulations, you won! Who was in the final?", "We won the league today!", False),  # "we" includes them
    ("Have you scored before?", "My son scored his first goal.", False),  # asked, not told
    ("You must be so proud he scored.", "My son scored his first goal.", False),
    ("You finally passed! How does it feel?", "I finally passed my driving test.", False),
    ("I hope you kept some cake for yourself.", "My sister baked a huge cake and kept none of it.", False),  # a wish
])
def test_what_someone_else_did_said_back_as_theirs_is_found(reply, said, misattributed):
    assert bool(credits_them_with(reply, said)) is misattributed
    found = reply_problems(reply, ReplyContext(words=said))
    assert any("someone else" in problem for problem in found) is misattributed


@pytest.mark.parametrize(("reply", "said", "taken_up"), [
    ("You're so lucky! I'm glad you didn't have to use that bazooka.",
     "The guy who cut me off in traffic today is lucky I didn't have a bazooka.", True),
    ("Put the baseball bat down! What was due?", "My printer jammed. I'm taking it out to a field with a baseball bat.", True),
    ("That sounds terrifying. Did they have a gun?", "I was robbed on my way home from work.", False),  # not their word
    ("Printers always jam at the worst moment. What was due?", "I'm taking it out to a field with a baseball bat.", False),
])
def test_a_weapon_of_theirs_taken_up_is_found(reply, said, taken_up):
    assert bool(hands_back_weapon(reply, said)) is taken_up
