"""Response agent: the reply text, and how to voice and show it.

The LLM writes only the words. The speech style and avatar directives follow from
the analysis and strategy by rule (see ``expression``), which keeps the output
short and the face, voice and words consistent by construction.
"""

from __future__ import annotations

import re
import time

from langgraph.runtime import Runtime
from pydantic import BaseModel, Field

from empathygraph.agents.expression import avatar_directives, speech_style
from empathygraph.agents.fallback import fallback_reply
from empathygraph.agents.prompting import build_messages, exchange
from empathygraph.agents.spec import AgentSpec
from empathygraph.agents.steps import agent_record
from empathygraph.agents.structured import ask
from empathygraph.context import RunContext
from empathygraph.schemas import AvatarProfile, ReplyVoice, ResponsePlan, Strategy
from empathygraph.state import MergState

TASK = (
    "the reply. Speak to them as a warm {age} {gender} listener. {how} Name what they told you; "
    "no greeting, 1 or 2 short sentences, under {words} words. JSON: {answer}"
)
REPLY_JSON = '{"reply": "..."}'
# A Question reply is asked for in two parts, so the schema makes it ask: asked for one text,
# the 1.5B model wrote advice or ran past its token bound before the question (2 of 6 in a probe).
QUESTION_JSON = '{"acknowledgment": "...", "question": "..."}'
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
# Bounds decode time (~35 words; the model overshoots word limits in the prompt); a reply
# cut here keeps its complete sentences (see ``close_cut_json``). A two-part answer has
# ~8 more tokens of keys and punctuation (drafted, not decoded, on the embedded backbone).
MAX_TOKENS = 52
QUESTION_MAX_TOKENS = 60


class ResponseDraft(BaseModel):
    """LLM output of the response step."""

    reply: str = Field(min_length=1, max_length=1200)


class QuestionReplyDraft(BaseModel):
    """LLM output of the response step when the strategy is Question."""

    acknowledgment: str = Field(min_length=1, max_length=1200)
    question: str = Field(min_length=2, max_length=300)

    @property
    def reply(self) -> str:
        return f"{as_sentence(self.acknowledgment)} {as_question(self.question)}"


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


def as_sentence(text: str) -> str:
    """``text`` ending as a sentence does (a full stop added where it has no end mark)."""
    text = text.strip().rstrip(",;: ")
    return text if text.endswith((".", "!", "?", "…")) else text + "."


def response_node(state: MergState, runtime: Runtime[RunContext]) -> dict:
    """Write the reply (or rewrite it after a critique) and derive its voice and face."""
    started = time.perf_counter()
    config = runtime.context.config.agents
    profile: AvatarProfile = state["profile"]
    strategy = state["empathy"].strategy
    asks = strategy is Strategy.QUESTION
    task = TASK.format(age=profile.age.value, gender=profile.gender.value, how=STRATEGY_GUIDE[strategy],
                       words=config.reply_max_words, answer=QUESTION_JSON if asks else REPLY_JSON)
    critique, previous = state["critique"], state["response"]
    revising = critique is not None and critique.verdict == "revise" and previous is not None
    if revising:
        task += REVISE.format(advice=critique.advice or "; ".join(critique.issues))
    messages = build_messages(state, task, history_turns=config.history_turns)
    emotion = state["emotion"]
    voice = ReplyVoice(speech=speech_style(emotion), profile=profile)
    runtime.stream_writer(voice)  # speech of the reply may start with its first sentence
    schema: type[ResponseDraft | QuestionReplyDraft] = QuestionReplyDraft if asks else ResponseDraft
    answer = ask(runtime.context.backbone, messages, schema, repair_attempts=config.repair_attempts,
                 max_tokens=QUESTION_MAX_TOKENS if asks else MAX_TOKENS)
    notes = []
    if answer.parsed is None:  # a listener always answers: a safe reply from what the agents decided
        reply = fallback_reply(state["emotion"], strategy)
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
        inputs={"revising": revising},
    )
    return {"response": plan, "steps": [record], "chat": exchange("response", messages, answer.accepted)}


SPEC = AgentSpec(name="response", label="response agent", node=response_node, writes="response", output=ResponsePlan,
                 reply_fields=("reply", "acknowledgment", "question"), then="reflection")
