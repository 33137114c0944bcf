"""The systems under test: the agent graph and its two baselines, behind one ``predict`` call.

- ``GraphSystem``: the full MERG graph (``Empathizer``), the dataset's context seeded as history.
- ``SinglePromptSystem``: one LLM call that returns emotion, cause, goal, strategy and reply,
  as the earlier single-pass systems do, on the same backbone.
- ``ClassifierSystem``: the perception text-emotion classifier alone (and the strategy
  predictor, when one is given); no LLM, no reply.
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Protocol

from langchain_core.messages import HumanMessage, SystemMessage
from pydantic import BaseModel, ConfigDict, Field

from empathygraph.agents.prompting import LISTENER
from empathygraph.agents.strategy_prior import StrategyPredictor
from empathygraph.agents.structured import ask
from empathygraph.backbones.base import Backbone
from empathygraph.eval.samples import Sample, Utterance
from empathygraph.schemas import (
    ED_TO_COARSE,
    EMOTION_VALENCE_AROUSAL,
    CoarseEmotion,
    EDEmotion,
    Strategy,
)
from empathygraph.session import Empathizer
from empathygraph.state import HistoryEntry
from empathygraph.tools.toolbox import ToolBox


class Prediction(BaseModel):
    """What a system said about one sample, and what it cost."""

    model_config = ConfigDict(extra="forbid")

    sample_id: str
    emotion: EDEmotion | None = None
    coarse: CoarseEmotion | None = None
    strategy: Strategy | None = None
    reply: str | None = None
    causes: list[str] = Field(default_factory=list)
    label_source: str | None = None
    media: dict[str, str] = Field(default_factory=dict)
    expression: CoarseEmotion | None = Field(default=None, description="the face the plan asked for")
    seconds: float = 0.0
    llm_calls: int = 0
    tokens: int = 0
    error: str | None = None


class System(Protocol):
    """A system the runner can evaluate."""

    name: str
    uses_llm: bool

    def predict(self, sample: Sample) -> Prediction: ...


def exchanges(history: list[Utterance]) -> list[tuple[str, str, Strategy | None]]:
    """Earlier utterances grouped as (person's words, listener's reply, the reply's last strategy)."""
    pairs: list[tuple[str, str, Strategy | None]] = []
    user: list[str] = []
    reply: list[str] = []
    strategy: Strategy | None = None
    for utt in [*history, Utterance(role="user", text="")]:  # the sentinel flushes the last exchange
        if utt.role == "user":
            if reply:
                pairs.append((" ".join(user), " ".join(reply), strategy))
                user, reply, strategy = [], [], None
            if utt.text:
                user.append(utt.text)
        else:
            reply.append(utt.text)
            strategy = utt.strategy or strategy
    return pairs


def history_entries(history: list[Utterance], toolbox: ToolBox) -> list[HistoryEntry]:
    """Seeded history: words and strategies from the dataset, each turn's emotion from the classifier.

    Turns whose emotion cannot be classified (classifier off, no words) and replies without a
    strategy label take placeholders (``content``, ``Others``); the agents read only the words
    and the strategies of earlier turns, so the placeholders do not enter a prompt as labels.
    """
    entries = []
    for index, (user, reply, strategy) in enumerate(exchanges(history)):
        cue = toolbox.text_emotion(user) if user else None
        emotion = EDEmotion(cue.top[0].label) if cue and cue.top else EDEmotion.CONTENT
        valence, arousal = EMOTION_VALENCE_AROUSAL[emotion]
        entries.append(HistoryEntry(
            turn_index=index, user=user, reply=reply, emotion=emotion, coarse=ED_TO_COARSE[emotion],
            valence=valence, arousal=arousal, strategy=strategy or Strategy.OTHERS,
        ))
    return entries


def seed_history(empathizer: Empathizer, session_id: str, entries: list[HistoryEntry]) -> None:
    """Append finished turns to a session without running any agent."""
    if entries:
        thread = {"configurable": {"thread_id": session_id}}
        empathizer.graph.update_state(thread, {"history": entries}, as_node="remember")


class GraphSystem:
    """The full agent graph; each sample runs in its own session seeded with the sample's context."""

    uses_llm = True

    def __init__(self, empathizer: Empathizer, name: str = "graph", media_dir: Path | None = None) -> None:
        self.empathizer = empathizer
        self.name = name
        self.media_dir = media_dir

    def predict(self, sample: Sample) -> Prediction:
        session = f"eval:{sample.dataset}:{sample.id}"
        started = time.perf_counter()
        seed_history(self.empathizer, session, history_entries(sample.history, self.empathizer.toolbox))
        out_dir = self.media_dir / re.sub(r"[^A-Za-z0-9_.-]+", "_", sample.id) if self.media_dir else None
        result = self.empathizer.respond(sample.text, session_id=session, out_dir=out_dir)
        return Prediction(
            sample_id=sample.id,
            emotion=result.emotion.emotion,
            coarse=result.emotion.coarse,
            strategy=result.empathy.strategy,
            reply=result.reply,
            causes=result.emotion.causes,
            label_source=result.emotion.label_source,
            media=result.media,
            expression=result.plan.avatar.expression,
            seconds=time.perf_counter() - started,
            llm_calls=result.llm_calls,
            tokens=result.tokens.total,
        )


def conversation_text(sample: Sample, turns: int) -> str:
    """The last ``turns`` exchanges and the person's current words, as plain lines."""
    lines = []
    for user, reply, _ in exchanges(sample.history)[-turns:] if turns else []:
        if user:
            lines.append(f"Person: {user}")
        lines.append(f"Listener: {reply}")
    lines.append(f'The person now says: "{sample.text}"')
    return "\n".join(lines)


class OnePass(BaseModel):
    """Everything the single-prompt baseline decides in one answer."""

    emotion: EDEmotion
    cause: str = Field(max_length=300)
    goal: str = Field(max_length=300)
    strategy: Strategy
    reply: str = Field(min_length=1, max_length=1200)


ONE_PASS_TASK = (
    'Answer with JSON: "emotion" (their feeling, one of: {emotions}), "cause" (copy their words that explain it), '
    '"goal" (what your reply should do, under 12 words), "strategy" (Question, Restatement or Paraphrasing, '
    "Reflection of feelings, Self-disclosure, Affirmation and Reassurance, Providing Suggestions, Information or "
    'Others), "reply" (your warm reply to them, 1 or 2 sentences, under {words} words).'
)


class SinglePromptSystem:
    """One LLM call does everything (the EmpathyEar-style single pass), on the same backbone."""

    uses_llm = True

    def __init__(self, backbone: Backbone, *, history_turns: int = 4, reply_max_words: int = 40,
                 repair_attempts: int = 1, name: str = "single_prompt") -> None:
        self.backbone = backbone
        self.history_turns = history_turns
        self.repair_attempts = repair_attempts
        self.task = ONE_PASS_TASK.format(emotions=", ".join(e.value for e in EDEmotion), words=reply_max_words)
        self.name = name

    @property
    def settings(self) -> dict[str, object]:
        """What decides its answers besides the backbone (it uses no perception tool)."""
        return {"task": self.task, "history_turns": self.history_turns, "repair_attempts": self.repair_attempts}

    def predict(self, sample: Sample) -> Prediction:
        started = time.perf_counter()
        messages = [
            SystemMessage(content=LISTENER),  # the listener alone: the graph's reply rules and examples are its own
            HumanMessage(content=f"{conversation_text(sample, self.history_turns)}\n\n{self.task}"),
        ]
        answer = ask(self.backbone, messages, OnePass, repair_attempts=self.repair_attempts)
        draft = answer.parsed
        common = {"sample_id": sample.id, "seconds": time.perf_counter() - started,
                  "llm_calls": len(answer.attempts), "tokens": answer.tokens.total}
        if draft is None:
            return Prediction(**common, error=answer.error)
        return Prediction(**common, emotion=draft.emotion, coarse=ED_TO_COARSE[draft.emotion], strategy=draft.strategy,
                          reply=draft.reply.strip(), causes=[draft.cause.strip()], label_source="llm")


def previous_strategy(sample: Sample) -> Strategy | None:
    """The strategy of the listener's last labelled utterance before this sample."""
    labelled = [u.strategy for u in sample.history if u.role == "listener" and u.strategy is not None]
    return labelled[-1] if labelled else None


class ClassifierSystem:
    """The text-emotion classifier alone (plus the strategy predictor if given): no LLM, no reply.

    As its cause it quotes the whole utterance, the trivial span baseline.
    """

    uses_llm = False

    def __init__(self, toolbox: ToolBox, strategy: StrategyPredictor | None = None, name: str = "classifier") -> None:
        self.toolbox = toolbox
        self.strategy = strategy
        self.name = name

    def predict(self, sample: Sample) -> Prediction:
        started = time.perf_counter()
        cue = self.toolbox.text_emotion(sample.text)
        emotion = EDEmotion(cue.top[0].label) if cue and cue.top else None
        strategy = None
        if self.strategy is not None:
            strategy = self.strategy.predict(sample.text, previous_strategy(sample), sample.position)[0][0]
        return Prediction(
            sample_id=sample.id, emotion=emotion, coarse=ED_TO_COARSE[emotion] if emotion else None,
            strategy=strategy, causes=[sample.text], label_source="classifier",
            seconds=time.perf_counter() - started,
        )
