"""Risk assessment agent: the screen's signals, the LLM's own reading where it helps, and the session.

The ``read`` step already screened the words (phrase patterns; the trained classifier over
the message, its sentences and the last few turns together, blended with the risk probe over
the backbone's hidden states where the backbone has one: ``probe_reading``). This step decides: it adds
the LLM's yes/no reading of a fixed risk question, read in the turn's own prompt with
nothing decoded, when the configuration asks for it (by default only when the classifier
is unsure), and it notes an earlier disclosure in the session. Any fired signal routes the
turn to the crisis protocol; every signal stays in the trace with its score.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Literal

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langgraph.runtime import Runtime

from empathygraph.agents.prompting import SYSTEM_PROMPT, build_messages
from empathygraph.agents.spec import AgentSpec, Route
from empathygraph.agents.steps import agent_record
from empathygraph.agents.words_state import WordsState, read_state
from empathygraph.backbones.base import Backbone
from empathygraph.config import SafetyConfig
from empathygraph.context import RunContext
from empathygraph.errors import BackendError
from empathygraph.schemas import RiskCategory, RiskSignal, SafetyAssessment
from empathygraph.state import HistoryEntry, MergState
from empathygraph.tools.risk import ProbeReading, combine, llm_signal
from empathygraph.tools.risk_classifier import RiskThresholds
from empathygraph.tools.risk_probe import RiskProbe
from empathygraph.trace.records import TokenUsage

RISK_QUESTION = (
    "safety check. Does anything the person said show that someone may be in danger now: that they might end "
    "their life or hurt themselves, that someone is hurting or threatening them, that they need emergency medical "
    "help, or that they might hurt someone else? Answer yes or no."
)


def reading_messages(words: str, question: str = RISK_QUESTION) -> list[BaseMessage]:
    """The risk question about ``words`` shaped as in a turn (after an earlier step's answer), for benchmarks."""
    return [SystemMessage(content=SYSTEM_PROMPT),
            HumanMessage(content=f'The person now says: "{words}"\n\nStep: what they say happened, in a few words.'),
            AIMessage(content="(noted)"), HumanMessage(content=f"Step: {question}")]


def should_read(assessment: SafetyAssessment, config: SafetyConfig, thresholds: RiskThresholds | None) -> bool:
    """Ask the LLM only where its answer can change the outcome and the configuration wants it."""
    if config.llm_read == "off" or assessment.at_risk:
        return False
    if config.llm_read == "always" or thresholds is None:
        return True
    classifier = next((s for s in assessment.signals if s.source == "classifier"), None)
    return classifier is not None and classifier.score >= thresholds.gray


def add_llm_reading(assessment: SafetyAssessment, backbone: Backbone, messages: list[BaseMessage],
                    config: SafetyConfig, thresholds: RiskThresholds | None):
    """The assessment with the LLM's reading added (when it should be read), and the reading.

    Raises:
        BackendError: the backbone failed to answer.
    """
    if backbone.yes_no is None or not should_read(assessment, config, thresholds):
        return assessment, None
    reading = backbone.yes_no(messages)
    classifier = next((s for s in assessment.signals if s.source == "classifier"), None)
    gray = thresholds.gray if thresholds is not None else 0.0
    signal = llm_signal(reading.p_yes, config.llm_threshold, classifier, gray, f"{RISK_QUESTION} ({reading.method})")
    updated = combine([*assessment.signals, signal], matched=assessment.matched, careful=assessment.careful)
    return updated, reading


def read_probe(backbone: Backbone, probe: RiskProbe, words: str, history: Sequence[HistoryEntry] = ()) -> ProbeReading:
    """The probe's reading of ``words`` over ``backbone``'s hidden states, read as the start of the
    turn's first prompt (the conversation shown there, then the words), which the first step reuses.

    Raises:
        BackendError, RuntimeError, ValueError: the backbone or the probe could not read them.
    """
    return ProbeReading.of(probe, probe.probability(read_state(backbone, words, probe.layer, history)))


def probe_reading(found: WordsState) -> ProbeReading | None:
    """The risk probe's reading of this turn's state (``agents.words_state``), or None when it was not read."""
    if found.risk is None or found.state is None:
        return None
    return ProbeReading.of(found.risk, found.risk.probability(found.state))


def screen_thresholds(context: RunContext, assessment: SafetyAssessment) -> RiskThresholds | None:
    """The thresholds the classifier's score was screened at: the probe's when it was blended in."""
    probe = context.toolbox.risk_probe() if any(s.source == "probe" for s in assessment.signals) else None
    if probe is not None:
        return probe.thresholds
    model = context.toolbox.risk_model()
    return model.thresholds if model else None


def disclosed_now(context: RunContext, assessment: SafetyAssessment) -> bool:
    """Whether this turn's own words carry the risk, as they would in a fresh session: a phrase pattern, the LLM, or
    the classifier at its ordinary threshold. False when it fired only from the earlier turns read again (the
    several-turn text, or the lower threshold of a careful session)."""
    thresholds = screen_thresholds(context, assessment)
    return any(s.fired and (s.source in ("patterns", "llm") or (
        s.source == "classifier" and (thresholds is None or s.score >= thresholds.threshold)))
        for s in assessment.signals)


def session_signal(history: list[HistoryEntry]) -> RiskSignal | None:
    """An earlier disclosure in this session, for the trace (it keeps the session careful; it does not route)."""
    earlier = [entry for entry in history if entry.risk is not RiskCategory.NONE]
    if not earlier:
        return None
    categories = list(dict.fromkeys(entry.risk for entry in earlier))
    turns = ", ".join(str(entry.turn_index + 1) for entry in earlier)
    plain = not all(entry.risk_tentative for entry in earlier)
    return RiskSignal(source="session", score=1.0, threshold=1.0, fired=False, categories=categories, plain=plain,
                      detail=f"risk disclosed earlier in this session (turn {turns}"
                             f"{'' if plain else ', read as unsure'}): the session stays careful")


def assess_risk_node(state: MergState, runtime: Runtime[RunContext]) -> dict:
    """Decide whether this turn needs the crisis protocol, from every signal."""
    started = time.perf_counter()
    context = runtime.context
    config = context.config.safety
    screened = state["cues"].safety or SafetyAssessment()
    signals = list(screened.signals)
    remembered = session_signal(state["history"])
    if remembered is not None:
        signals.append(remembered)
    assessment = combine(signals, matched=screened.matched, careful=screened.careful or remembered is not None)
    thresholds = screen_thresholds(context, assessment) if config.classifier else None
    messages, reading, notes = None, None, []
    if config.enabled:
        messages = build_messages(state, RISK_QUESTION, history_turns=context.config.agents.history_turns)
        try:
            assessment, reading = add_llm_reading(assessment, context.backbone, messages, config, thresholds)
        except BackendError as exc:  # the screen's verdict stands; the trace says why the LLM was not read
            notes.append(f"LLM reading failed: {exc}")
    if reading is None:
        messages = None
        notes.append("LLM not asked: " + ("the screen already found risk" if assessment.at_risk else
                                           f"llm_read is {config.llm_read}" if config.llm_read != "gray" else
                                           "the classifier is sure"))
    record = agent_record("assess_risk", started, output=assessment, messages=messages,
                          inputs={"words": state["cues"].words, "careful": assessment.careful}, notes=notes)
    if reading is not None:
        record.tokens = TokenUsage(prompt=reading.prompt_tokens)
        record.raw_output = f"P(yes) = {reading.p_yes:.3f}"
    return {"safety": assessment, "steps": [record]}


def route_after_risk(state: MergState) -> Literal["crisis_protocol", "empathy_strategy"]:
    """Risk found: the crisis protocol answers; otherwise plan a reply."""
    safety = state["safety"]
    return "crisis_protocol" if safety is not None and safety.at_risk else "empathy_strategy"


SPEC = AgentSpec(name="assess_risk", label="risk assessment", node=assess_risk_node, writes="safety",
                 output=SafetyAssessment, then=Route(route_after_risk, ("crisis_protocol", "empathy_strategy")))
