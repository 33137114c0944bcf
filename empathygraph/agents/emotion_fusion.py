"""Fuse the text classifier's ranking with the LLM's reading of the turn.

The classifier ranks the 32 ED emotions from the words alone; the LLM reads the same
context (conversation, words, cues) and the backbone scores how likely it would answer
with each of the classifier's top k. The label maximises
``log p_classifier + weight * log p_llm``: one prompt read, nothing decoded, and the
choice stays among labels the classifier finds plausible. With an example bank
(``perception.emotion_examples``) the task first shows the labelled messages most like
theirs: measured on 59 unsure held-out ED messages, the LLM picked right 15 times with
examples and 11 without (the classifier: 12).
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence

from pydantic import BaseModel

from empathygraph.agents.config import AgentsConfig
from empathygraph.agents.prompting import build_messages, exchange
from empathygraph.agents.spec import StepView
from empathygraph.agents.steps import agent_record
from empathygraph.agents.structured import Answer
from empathygraph.backbones.base import Backbone
from empathygraph.schemas import EDEmotion, StepOutput, TextEmotionCue
from empathygraph.state import Exchange, MergState
from empathygraph.tools.emotion_examples import LabelledExample
from empathygraph.trace.records import LLMAttempt, StepRecord, TokenUsage

FUSION_TASK = "the feeling. Answer with one word from: {options}."
FUSION_TASK_WITH_EXAMPLES = (
    "the feeling. Messages like theirs, and the feeling each showed:\n{examples}\nAnswer with one word from: {options}."
)
EXAMPLE_CHARS = 160  # each example is cut to this many characters
_FLOOR = 1e-6  # a classifier score of 0 must not become -inf


def fusion_task(options: list[str], examples: Sequence[LabelledExample] = ()) -> str:
    """The scoring task: the candidate labels, after the labelled examples if there are any."""
    if not examples:
        return FUSION_TASK.format(options=", ".join(options))
    lines = "\n".join(f'- "{example.text[:EXAMPLE_CHARS]}": {example.label}' for example in examples)
    return FUSION_TASK_WITH_EXAMPLES.format(examples=lines, options=", ".join(options))


class Candidate(BaseModel):
    """One label the fusion weighed."""

    label: str
    classifier: float
    llm_logprob: float
    score: float


class FusedEmotion(StepOutput):
    """The fusion's pick and every candidate it weighed, best first."""

    emotion: EDEmotion
    candidates: list[Candidate]


def fuse(cue: TextEmotionCue, llm_logprobs: list[float], weight: float) -> list[Candidate]:
    """The classifier's top labels ranked by ``log p_classifier + weight * log p_llm``, best first."""
    candidates = [
        Candidate(label=item.label, classifier=item.score, llm_logprob=round(logprob, 3),
                  score=round(math.log(max(item.score, _FLOOR)) + weight * logprob, 3))
        for item, logprob in zip(cue.top, llm_logprobs, strict=False)
    ]
    return sorted(candidates, key=lambda c: c.score, reverse=True)


def fused_label(
    backbone: Backbone, state: MergState, cue: TextEmotionCue, config: AgentsConfig,
    examples: Sequence[LabelledExample] = (),
) -> tuple[EDEmotion, StepRecord, list[Exchange]]:
    """The fused emotion label, the trace record of the scoring call and its place in the shared chat.

    The chosen word stands in the chat as the model's answer, so later steps' prompts extend
    this one (``examples`` are shown before the task).

    Raises:
        ValueError: the backbone cannot score continuations (``backbone.scorer`` is None).
    """
    if backbone.scorer is None:
        raise ValueError(f"backbone {backbone.name} cannot score choices")
    started = time.perf_counter()
    options = [item.label for item in cue.top[: config.fusion_top_k]]
    messages = build_messages(state, fusion_task(options, examples), history_turns=config.history_turns)
    scores = backbone.scorer(messages, options)
    ranked = fuse(cue, scores.logprobs, config.fusion_llm_weight)
    result = FusedEmotion(emotion=EDEmotion(ranked[0].label), candidates=ranked)
    # Nothing is decoded: the scoring call's answer is the chosen word, read in one prompt.
    attempt = LLMAttempt(raw=result.emotion.value, tokens=TokenUsage(prompt=scores.prompt_tokens),
                         latency_s=time.perf_counter() - started)
    answer = Answer(parsed=result, attempts=[attempt])
    record = agent_record("emotion_fusion", started, output=result, messages=messages, answer=answer,
                          inputs={"weight": config.fusion_llm_weight, "options": options,
                                  "examples": [[example.text, example.label] for example in examples]})
    return result.emotion, record, exchange("emotion_fusion", messages, answer.accepted)


# The scoring call is recorded inside the emotion-cause node, under its own name.
VIEW = StepView(name="emotion_fusion", label="emotion fusion", output=FusedEmotion)
