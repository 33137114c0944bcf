"""Response agent: the reply text, and how to voice and show it.

The LLM writes only the words. The speech style and avatar directives follow from
the analysis and strategy by rule (see ``expression``), which keeps the output
short and the face, voice and words consistent by construction.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from langchain_core.messages import BaseMessage
from langgraph.runtime import Runtime

from empathygraph.agents.expression import avatar_directives, speech_style
from empathygraph.agents.fallback import fallback_reply
from empathygraph.agents.follow_up import VIEW as FOLLOW_UP
from empathygraph.agents.follow_up import ask_follow_up, reply_json
from empathygraph.agents.prompting import build_messages, exchange
from empathygraph.agents.reply_checks import ReplyContext, asked_of_them, reply_context, reply_problems
from empathygraph.agents.reply_drafts import draft_schema
from empathygraph.agents.small_talk import REPLY_HINT, Pleasantry, pleasantry
from empathygraph.agents.spec import AgentSpec
from empathygraph.agents.steps import agent_record
from empathygraph.agents.structured import ask
from empathygraph.context import RunContext
from empathygraph.phrasing import split_sentences
from empathygraph.schemas import AvatarProfile, ReplyScreen, ReplyVoice, ResponsePlan, Strategy
from empathygraph.state import MergState
from empathygraph.tools.emotion_examples import LabelledExample
from empathygraph.trace.records import StepRecord

TASK = (
    "the reply. Speak to them as a warm {age} {gender} listener. {how} {no_greeting}1 or 2 short sentences, "
    "under {words} words. JSON: {answer}"
)
REPLY_JSON = '{"reply": "..."}'
# Listener replies to the most similar messages (``perception.reply_examples``), shown before
# the task: a small model takes a register from examples it reads next to the task far more
# than from rules, and examples that change with the message vary its openings.
EXAMPLES = "the reply. How caring listeners answered messages like theirs:\n{examples}\nNow your reply. "
EXAMPLE_CHARS = 160  # each example message is cut to this many characters
# What each ESConv strategy asks of the words, as an intent (a small model follows a plain
# instruction far better than a strategy name). None names a stock move ("acknowledge",
# "name the feeling"): the 1.5B model turned those into "I understand you're ..." and
# "you feel <label>" openings, and a reply asked for in two parts ({acknowledgment, question})
# into "I understand ... What do you think about ...?" (issue 15: 89% and 39% of replies).
STRATEGY_GUIDE: dict[Strategy, str] = {
    Strategy.QUESTION: "React in a few words of your own to what they told you, then ask one short question about "
                       "a detail they mentioned, not their opinion; give no advice.",
    Strategy.RESTATEMENT: "Say back in your own words what happened to them; give no advice.",
    Strategy.REFLECTION: "Say what this must be like for them, in everyday words; give no advice.",
    Strategy.SELF_DISCLOSURE: "Say briefly that you have known something like it, then turn back to them; give no advice.",
    Strategy.AFFIRMATION: "Tell them what is understandable or good in what they did or feel, and reassure them; "
                          "give no advice.",
    Strategy.SUGGESTIONS: "Respond to what they told you, then offer one small, concrete idea, gently.",
    Strategy.INFORMATION: "Respond to what they told you, then share one useful fact about their situation.",
    Strategy.OTHERS: "Respond warmly to what they said.",
}
# Said after the strategy's intent when the choice screen reads the message as a choice of theirs that
# could hurt them or someone else (``tools/choice_screen.py``): the reply cares without cheering it on.
CHOICE_CAUTION = "Do not praise or agree with what they did or plan; care about them and what led to it."
# (Worded as an instruction the reply cannot copy: "What they did or plan could hurt them or someone else: ..."
# came back once as the whole reply, "What did you do or plan that could hurt you or someone else?".)

# The strategies whose intent is to give no advice (a reply of theirs that advises is mended).
NO_ADVICE = frozenset(s for s, guide in STRATEGY_GUIDE.items() if guide.endswith("give no advice."))
# A rewrite is asked afresh, without the reply it replaces in the chat (shown its reply, the
# 1.5B model wrote it again word for word), told only what to avoid.
REVISE = " A reply you wrote had this problem, so write a different one: {advice}"
# Bounds decode time (~35 words; the model overshoots word limits in the prompt); a reply
# cut here keeps its complete sentences (see ``close_cut_json``).
MAX_TOKENS = 52


def word_count(text: str) -> int:
    return len(text.split())


def _leading(sentences: list[str], max_words: int, *, at_least_one: bool = True) -> list[str]:
    kept: list[str] = []
    for sentence in sentences:
        if (kept or not at_least_one) and word_count(" ".join([*kept, sentence])) > max_words:
            break
        kept.append(sentence)
    return kept


def turn_context(state: MergState) -> ReplyContext:
    """The context the turn's reply is checked in: its cues, emotion analysis and strategy, and what they said before."""
    earlier = "\n".join(entry.user for entry in state.get("history", []))
    return reply_context(state["cues"], state["emotion"], state["empathy"].strategy not in NO_ADVICE, earlier)


def mend_sentence(sentence: str, context: ReplyContext) -> str | None:
    """``sentence`` as it may stand: itself when the reply checks find nothing, a question asked in their voice
    asked of them when that is all that was wrong ("... for me to focus?" -> "... for you to focus?"), else None."""
    if not reply_problems(sentence, context):
        return sentence
    mended = asked_of_them(sentence)
    if mended is not None and not reply_problems(mended, context):
        return mended
    return None


def drop_flagged_sentences(reply: str, context: ReplyContext) -> tuple[str, list[str]]:
    """``reply`` without the sentences the reply checks flag (a stock opening or question, a label told as
    their feeling, a violent word handed back, ...), and those sentences; unchanged when all or none are.
    A question asked in their voice is asked of them instead (it is not counted as flagged)."""
    sentences = split_sentences(reply)
    mended = [mend_sentence(s, context) for s in sentences]
    flagged = [s for s, kept in zip(sentences, mended, strict=True) if kept is None]
    if len(flagged) == len(sentences):
        return reply, []
    return " ".join(kept for kept in mended if kept is not None), flagged


def trim_to_sentences(text: str, max_words: int, *, keep_question: bool = False) -> str:
    """The leading whole sentences of ``text`` within ``max_words`` (at least the first sentence).

    With ``keep_question`` the first question stays: the sentences before it fill what it leaves of the limit.
    """
    sentences = split_sentences(text)
    question = next((i for i, s in enumerate(sentences) if s.endswith("?")), None) if keep_question else None
    if question is None:
        return " ".join(_leading(sentences, max_words))
    lead = _leading(sentences[:question], max_words - word_count(sentences[question]), at_least_one=False)
    return " ".join([*lead, sentences[question]])


def reply_task(strategy: Strategy, profile: AvatarProfile, max_words: int,
               examples: Sequence[LabelledExample] = (), small_talk: Pleasantry | None = None, *,
               risky_choice: bool = False) -> str:
    """The response step's task: the strategy's intent (or what answers a greeting, thanks or goodbye), the
    caution a ``risky_choice`` needs, and the bounds, after the example replies if any (never for small talk:
    they are about something)."""
    how = STRATEGY_GUIDE[strategy] if small_talk is None else REPLY_HINT[small_talk]
    if risky_choice and small_talk is None:
        how += " " + CHOICE_CAUTION
    task = TASK.format(age=profile.age.value, gender=profile.gender.value, how=how, words=max_words,
                       no_greeting="No greeting; " if small_talk is None else "", answer=REPLY_JSON)
    if not examples or small_talk is not None:
        return task
    lines = "\n".join(f'- "{e.text[:EXAMPLE_CHARS]}" -> "{e.label}"' for e in examples)
    return EXAMPLES.format(examples=lines) + task.removeprefix("the reply. ")


def response_node(state: MergState, runtime: Runtime[RunContext]) -> dict:
    """Write the reply (or rewrite it after a critique) and derive its voice and face."""
    started = time.perf_counter()
    config = runtime.context.config.agents
    profile: AvatarProfile = state["profile"]
    strategy = state["empathy"].strategy
    asks = strategy is Strategy.QUESTION
    critique, previous = state["critique"], state["response"]
    revising = critique is not None and critique.verdict == "revise" and previous is not None
    # A rewrite reads the same examples again from the KV cache: only its advice is new.
    small_talk = pleasantry(state["cues"].words)
    examples = () if small_talk else runtime.context.toolbox.reply_examples(state["cues"].words)
    risky_choice = state["cues"].risky_choice
    task = reply_task(strategy, profile, config.reply_max_words, examples, small_talk, risky_choice=risky_choice)
    if revising:
        task += REVISE.format(advice=critique.advice or "; ".join(critique.issues))
        state = {**state, "chat": [said for said in state["chat"] if said.step != "response"]}  # type: ignore[assignment]
    messages = build_messages(state, task, history_turns=config.history_turns)
    emotion = state["emotion"]
    voice = ReplyVoice(speech=speech_style(emotion), profile=profile, screen=ReplyScreen(words=state["cues"].words,
                                                                                        risky_choice=risky_choice))
    runtime.stream_writer(voice)  # speech of the reply may start with its first sentence
    answer = ask(runtime.context.backbone, messages, draft_schema(strategy), repair_attempts=config.repair_attempts,
                 max_tokens=MAX_TOKENS, temperature=config.reply_temperature)
    notes = []
    if answer.parsed is None:  # a listener always answers: a safe reply from what the agents decided
        reply = fallback_reply(state["emotion"], strategy, risky_choice=risky_choice)
        notes.append(f"FALLBACK REPLY: the LLM's reply stayed unusable after {len(answer.attempts)} attempts "
                     f"({answer.error}); a safe reply was built from the analysis and the strategy")
    else:
        reply = answer.parsed.reply.strip()
    if answer.salvaged:
        notes.append(f"reply JSON was cut off ({answer.attempts[-1].error}); its complete sentences are used")
    # Too long is mended by rule (whole sentences up to the limit, a Question reply's question
    # kept): a re-ask costs a full generation and small models overshoot word limits again.
    if word_count(reply) > config.reply_max_words:
        trimmed = trim_to_sentences(reply, config.reply_max_words, keep_question=asks)
        notes.append(f"reply trimmed from {word_count(reply)} to {word_count(trimmed)} words at a sentence end")
        reply = trimmed
    # A sentence of the LLM's in a stock shape is left out rather than sent back: a rewrite costs a
    # full generation, and the 1.5B model often wrote the same shape again when asked to fix it.
    steps = []
    if answer.parsed is not None:
        context = turn_context(state)
        drafted = split_sentences(reply)
        reply, dropped = drop_flagged_sentences(reply, context)
        if dropped:
            notes.append("left out: " + " ".join(dropped))
        if asked := [sentence for sentence in split_sentences(reply) if sentence not in drafted]:
            notes.append("asked of them, not in their voice: " + " ".join(asked))
        if asks and "?" not in reply:
            reply, note, follow_up = end_with_question(reply, messages, context, runtime, state["rounds"])
            notes.append(note)
            steps.append(follow_up)
    if revising and reply == previous.text:
        notes.append("the rewrite came out the same as the reply it replaces")
    plan = ResponsePlan(
        text=reply,
        speech=voice.speech,
        avatar=avatar_directives(emotion, strategy),
        profile=voice.profile,
    )
    record = agent_record(
        "response",
        started,
        output=plan,
        messages=messages,
        answer=answer,
        round=state["rounds"],
        fallback="; ".join(notes) or None,
        inputs={"revising": revising, "examples": [[e.text, e.label] for e in examples]},
    )
    # Later steps (a server's LLM critic) see the reply as it will be sent: the draft's own answer only where
    # nothing of it was left out, trimmed or added (its words then come from the KV cache as written).
    changed = answer.parsed is not None and reply != answer.parsed.reply.strip()
    said = reply_json(reply) if steps or changed else answer.accepted
    return {"response": plan, "steps": [record, *steps], "chat": exchange("response", messages, said)}


def end_with_question(reply: str, messages: list[BaseMessage], context: ReplyContext, runtime: Runtime[RunContext],
                      round: int) -> tuple[str, str, StepRecord]:
    """``reply`` (a Question reply that asks nothing) ended with a question asked for on its own, when the model
    gives one the reply checks pass (else ``reply`` as it was, for reflection to send back); a note for the trace;
    the follow-up's record."""
    config = runtime.context.config.agents
    question, record = ask_follow_up(runtime.context.backbone, messages, reply, repair_attempts=config.repair_attempts,
                                     temperature=config.reply_temperature, round=round)
    kept = mend_sentence(question, context) if question else None
    if kept is None:
        return reply, f"the reply asks nothing, and the question asked for on its own was not usable: {question}", record
    ended = trim_to_sentences(f"{reply} {kept}", config.reply_max_words, keep_question=True)
    return ended, f"the reply asked nothing; a question asked for on its own ends it: {kept}", record


SPEC = AgentSpec(name="response", label="response agent", node=response_node, writes="response", output=ResponsePlan,
                 reply_fields=("reply",), then="reflection", substeps=(FOLLOW_UP,))
