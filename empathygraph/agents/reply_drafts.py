"""What the LLM may write as a reply: the drafts' schemas and the patterns held at decode time."""

from __future__ import annotations

from pydantic import BaseModel, Field

from empathygraph.schemas import Strategy

# Held at decode time where the backbone constrains to the schema (llama.cpp grammars, vLLM):
# the reply does not begin with "I" (nor a quote mark, backslash or space), which rules out the
# "I understand / I see / I hear" openings the 1.5B model wrote for 89% of messages, nor with
# "My", which it then used to retell the message as if it were the person ("My goldfish died,
# and I'm devastated"); and it keeps out quote marks, whose escapes a pattern cannot spell. Not
# validated: a reply from a backbone that cannot constrain still counts (reflection checks it).
_OPENING = r'([^IM" \\?]|M[^y"\\?])'
REPLY_PATTERN = r'^([^IM" \\]|M[^y"\\])[^"\\]*$'
# A Question reply holds exactly one question mark, at its end: it asks one question, and the
# reply is over once it has (unconstrained, the 1.5B model restated the message until the token
# bound cut it off before any question, and its rewrite did the same).
QUESTION_PATTERN = rf'^{_OPENING}[^"\\?]*\?$'


class ResponseDraft(BaseModel):
    """LLM output of the response step."""

    reply: str = Field(min_length=1, max_length=1200, json_schema_extra={"pattern": REPLY_PATTERN})


class QuestionDraft(ResponseDraft):
    """LLM output of the response step for a Question reply (scripted models know it as ``ResponseDraft``)."""

    reply: str = Field(min_length=1, max_length=1200, json_schema_extra={"pattern": QUESTION_PATTERN})


QuestionDraft.__name__ = "ResponseDraft"


class FollowUpQuestion(BaseModel):
    """LLM output of the follow-up step: the one question a Question reply still needs."""

    question: str = Field(min_length=1, max_length=300, json_schema_extra={"pattern": QUESTION_PATTERN})


def draft_schema(strategy: Strategy) -> type[ResponseDraft]:
    """The reply's schema for ``strategy``."""
    return QuestionDraft if strategy is Strategy.QUESTION else ResponseDraft
