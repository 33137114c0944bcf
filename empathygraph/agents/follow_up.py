"""Follow-up question: the one question a Question reply still needs, asked for on its own.

A Question draft can end up without a question: the reply checks left its question out (a stock,
advice-seeking or borrowed one) or the token bound cut the draft off before it. Its other sentences
passed the checks, so they stay: the model is shown them as its reply so far and asked only for a
question to end it. That reads a few new tokens after the prompt it has just read (cached) and
decodes ~15, where a rewrite through reflection decoded a whole reply again; on the embedded
default most rewrites were this case.
"""

from __future__ import annotations

import json
import time

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage

from empathygraph.agents.reply_drafts import FollowUpQuestion
from empathygraph.agents.spec import StepView
from empathygraph.agents.steps import agent_record
from empathygraph.agents.structured import ask
from empathygraph.backbones.base import Backbone
from empathygraph.trace.records import StepRecord

STEP = "follow_up_question"
TASK = ("Step: end your reply with one short question about a detail they mentioned, not their opinion; "
        'give no advice. JSON: {"question": "...?"}')
MAX_TOKENS = 32  # a question of ~15 words and its JSON


def reply_json(reply: str) -> str:
    """``reply`` as the response step's answer, spelled as a schema-constrained llama.cpp model writes it (no spaces,
    no escapes of non-ASCII), so the KV cache of that answer still serves as far as the kept words go."""
    return json.dumps({"reply": reply}, separators=(",", ":"), ensure_ascii=False)


def follow_up_messages(messages: list[BaseMessage], reply_so_far: str) -> list[BaseMessage]:
    """The reply's own chat, its kept sentences as the model's answer, then the ask for a question."""
    return [*messages, AIMessage(content=reply_json(reply_so_far)), HumanMessage(content=TASK)]


def ask_follow_up(backbone: Backbone, messages: list[BaseMessage], reply_so_far: str, *, repair_attempts: int,
                  temperature: float | None, round: int = 0) -> tuple[str | None, StepRecord]:
    """A question to end ``reply_so_far`` (None when the model gave no usable one), and the step's record.

    Args:
        messages: the chat the reply was written from (its last message is the reply's task).
    """
    started = time.perf_counter()
    asked = follow_up_messages(messages, reply_so_far)
    answer = ask(backbone, asked, FollowUpQuestion, repair_attempts=repair_attempts, max_tokens=MAX_TOKENS,
                 temperature=temperature)
    question = answer.parsed.question.strip() if answer.parsed is not None else None
    if question is not None and not question.endswith("?"):  # cut off at the bound before its question mark
        question = None
    record = agent_record(STEP, started, output=answer.parsed, messages=asked, answer=answer, round=round,
                          inputs={"reply_so_far": reply_so_far},
                          fallback=None if question else f"no usable question ({answer.error or 'cut off'})")
    return question, record


# The call is recorded inside the response node, under its own name.
VIEW = StepView(name=STEP, label="follow-up question", output=None)
