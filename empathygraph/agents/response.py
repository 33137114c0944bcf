"""Response agent: the reply text, and how to voice and show it.

The LLM writes only the words. The speech style and avatar directives follow from
the analysis and strategy by rule (see ``expression``), which keeps the output
short and the face, voice and words consistent by construction.
"""

from __future__ import annotations

import re
import time

from langchain_core.messages import AIMessage, HumanMessage
from langgraph.runtime import Runtime
from pydantic import BaseModel, Field

from empathygraph.agents.expression import avatar_directives, speech_style
from empathygraph.agents.prompting import build_messages
from empathygraph.agents.steps import agent_record
from empathygraph.agents.structured import ask
from empathygraph.context import RunContext
from empathygraph.errors import StructuredOutputError
from empathygraph.schemas import AvatarProfile, ResponsePlan, Strategy
from empathygraph.state import MergState
from empathygraph.trace.records import TokenUsage

TASK = (
    "the reply. Speak to them as a warm {age} {gender} listener. {how} Name what they told you; "
    'no greeting, 1 or 2 short sentences, under {words} words. JSON: {{"reply": "..."}}'
)
# What each ESConv strategy asks of the words (a small model follows a plain instruction
# far better than a strategy name).
STRATEGY_GUIDE: dict[Strategy, str] = {
    Strategy.QUESTION: "Acknowledge it briefly, then ask one open, gentle question about it; give no advice.",
    Strategy.RESTATEMENT: "Say back in your own words what happened to them; give no advice.",
    Strategy.REFLECTION: "Name the feeling you hear and why it makes sense; give no advice.",
    Strategy.SELF_DISCLOSURE: "Share briefly that you have felt something similar; give no advice.",
    Strategy.AFFIRMATION: "Affirm their worth or effort and reassure them; give no advice.",
    Strategy.SUGGESTIONS: "Acknowledge the feeling, then offer one small, concrete idea, gently.",
    Strategy.INFORMATION: "Acknowledge the feeling, then share one useful fact about their situation.",
    Strategy.OTHERS: "Respond warmly to what they said.",
}
REVISE = " Improve your last reply, in one or two sentences under 20 words: {advice}"
# Asked when the strategy is Question and the reply asks nothing: the small model often
# writes advice instead, and a full rewrite (~4.5 s) was seen to return the same reply.
QUESTION_TASK = 'the question. Ask them one short, open question about what they told you, under 12 words. JSON: {"question": "..."}'
QUESTION_MAX_TOKENS = 24
# Bounds decode time (~35 words; the model overshoots word limits in the prompt); a reply
# cut here keeps its complete sentences (see ``close_cut_json``).
MAX_TOKENS = 52


class ResponseDraft(BaseModel):
    """LLM output of the response step."""

    reply: str = Field(min_length=1, max_length=1200)


class QuestionDraft(BaseModel):
    """LLM output when a Question reply lacks its question."""

    question: str = Field(min_length=2, max_length=300)


def word_count(text: str) -> int:
    return len(text.split())


def _leading(sentences: list[str], max_words: int, *, at_least_one: bool = True) -> list[str]:
    kept: list[str] = []
    for sentence in sentences:
        if (kept or not at_least_one) and word_count(" ".join([*kept, sentence])) > max_words:
            break
        kept.append(sentence)
    return kept


def trim_to_sentences(text: str, max_words: int, *, keep_question: bool = False) -> str:
    """The leading whole sentences of ``text`` within ``max_words`` (at least the first sentence).

    With ``keep_question`` the first question stays: the sentences before it fill what it leaves of the limit.
    """
    sentences = [s for s in re.split(r"(?<=[.!?])\s+", text.strip()) if s]
    question = next((i for i, s in enumerate(sentences) if s.endswith("?")), None) if keep_question else None
    if question is None:
        return " ".join(_leading(sentences, max_words))
    lead = _leading(sentences[:question], max_words - word_count(sentences[question]), at_least_one=False)
    return " ".join([*lead, sentences[question]])


def as_question(text: str) -> str:
    """``text`` ending in a question mark."""
    text = text.strip()
    return text if text.endswith("?") else text.rstrip(".!,;: ") + "?"


def with_question(reply: str, question: str, max_words: int) -> str:
    """``reply``'s leading sentences, as many as fit beside ``question``, then ``question``."""
    return f"{trim_to_sentences(reply, max(max_words - word_count(question), 1))} {question}"


def response_node(state: MergState, runtime: Runtime[RunContext]) -> dict:
    """Write the reply (or rewrite it after a critique) and derive its voice and face."""
    started = time.perf_counter()
    config = runtime.context.config.agents
    profile: AvatarProfile = state.get("profile") or runtime.context.config.profile
    strategy = state["empathy"].strategy
    task = TASK.format(
        age=profile.age.value, gender=profile.gender.value, how=STRATEGY_GUIDE[strategy], words=config.reply_max_words
    )
    critique, previous = state.get("critique"), state.get("response")
    revising = critique is not None and critique.verdict == "revise" and previous is not None
    if revising:
        task += REVISE.format(advice=critique.advice or "; ".join(critique.issues))
    messages = build_messages(state, task, history_turns=config.history_turns)
    answer = ask(runtime.context.backbone, messages, ResponseDraft, repair_attempts=config.repair_attempts,
                 max_tokens=MAX_TOKENS)
    if answer.parsed is None:
        raise StructuredOutputError(f"response output invalid after {len(answer.attempts)} attempts: {answer.error}")
    reply = answer.parsed.reply.strip()
    notes = []
    if answer.salvaged:
        notes.append(f"reply JSON was cut off ({answer.attempts[-1].error}); its complete sentences are used")
    asks = strategy is Strategy.QUESTION
    # Too long is mended by rule (whole sentences up to the limit): a re-ask costs a full
    # generation and small models overshoot word limits again.
    if word_count(reply) > config.reply_max_words:
        trimmed = trim_to_sentences(reply, config.reply_max_words, keep_question=asks)
        notes.append(f"reply trimmed from {word_count(reply)} to {word_count(trimmed)} words at a sentence end")
        reply = trimmed
    attempts = list(answer.attempts)
    # This mends what reflection would send back; with no reflection rounds (the fast preset) it is skipped too.
    if asks and "?" not in reply and config.reflection_rounds > 0:
        followup = [*messages, AIMessage(content=answer.raw), HumanMessage(content=f"Step: {QUESTION_TASK}")]
        question = ask(runtime.context.backbone, followup, QuestionDraft, repair_attempts=config.repair_attempts,
                       max_tokens=QUESTION_MAX_TOKENS)
        attempts += question.attempts
        if question.parsed is not None:
            asked = as_question(question.parsed.question)
            reply = with_question(reply, asked, config.reply_max_words)
            notes.append(f'the reply asked nothing although the strategy is Question; added the question "{asked}"')
    emotion = state["emotion"]
    plan = ResponsePlan(
        text=reply,
        speech=speech_style(emotion),
        avatar=avatar_directives(emotion, strategy),
        profile=profile,
    )
    record = agent_record(
        "response",
        started,
        output=plan,
        messages=messages,
        answer=answer,
        round=state.get("rounds", 0),
        fallback="; ".join(notes) or None,
        inputs={"revising": revising},
    )
    record.attempts = attempts
    record.tokens = TokenUsage.sum(attempt.tokens for attempt in attempts)
    return {"response": plan, "steps": [record]}
