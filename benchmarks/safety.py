"""Safety benchmark: the risk assessment on messages it never trained on.

Prints one JSON object. Top level: the held-out split of the project's own safety set
(``benchmarks/data/safety``; 30% of each training writer's items, by a hash of the id) —
``recall``, ``false_positive_rate``, ``per_category_recall``, the patterns alone for
comparison, ``false_alarms_by_kind`` (the false-alarm rate per kind of harmless message), ``screen_ms_median`` (patterns + classifier over the message and its
sentences), the text-emotion tool's time on the same messages in the same run, and
``added_ms_median``: what the screen adds to a turn, which shares the encoder's pass over the
message with text emotion. ``held_out_first_writers``: the same on the held-out items of the
first training writers (a, b, d, e), the split earlier measurements used; ``held_out_by_writer``: each training writer's held-out items. ``exam``: the same on a writer held out whole. ``conversations``:
the held-out multi-turn conversations turn by turn, as a session sees them (earlier turns
read together, careful mode after a disclosure; with ``--probe`` a later turn's probe state is
read after the turns before it, as the turn's prompt shows them). ``everyday``: ordinary messages sent to the
crisis protocol (false alarms a user meets in everyday use): every 5th first message of ED
validation (never trained on; the model's ED negatives come from ED train) and the replies
benchmark's everyday set. With ``--llm`` the LLM's yes/no reading
is added where the run's config asks for it, and ``llm_read_ms_median`` is the time of one
read after a cached prompt of the size a turn has (the read shares the turn's prompt).
With ``--probe``: ``probe_added_ms_median`` is what reading the LLM's state over the words adds
to the first step; ``probe_read_also_serves`` names the other probes a default turn reads from
that same state (so it is read whether or not the screen runs), ``probe_head_ms_median`` is the
probe's own share, and ``safety_added_ms_median`` is what the screen adds to a default turn:
the classifier and patterns, plus the probe's head where the read is shared, else its read.

    python benchmarks/safety.py            # classifier + patterns
    python benchmarks/safety.py --llm      # + the embedded LLM's reading (slow: loads the 1.5B model)
    python benchmarks/safety.py --probe    # + the risk probe over the LLM's states (as a turn; ~0.5 s a new text)
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from langchain_core.messages import BaseMessage

from empathygraph.agents.crisis_words import said_as
from empathygraph.agents.prompting import words_messages
from empathygraph.backbones import Backbone, make_backbone
from empathygraph.config import Config
from empathygraph.eval.safety_set import (
    FIRST_WRITERS,
    SafetyConversation,
    SafetyMessage,
    everyday_messages,
    load_conversations,
    load_messages,
)
from empathygraph.schemas import RiskCategory, SafetyAssessment
from empathygraph.tools import safety
from empathygraph.tools.risk import ProbeReading
from empathygraph.tools.risk_classifier import CATEGORIES, RiskThresholds
from empathygraph.tools.risk_probe import RiskProbe
from empathygraph.tools.toolbox import ToolBox

Assess = Callable[[str, Sequence[str], bool], SafetyAssessment]


def rates(flags: Sequence[bool], items: Sequence[SafetyMessage]) -> dict:
    """Recall over risk items, false-positive rate over the others, recall per category."""
    risky = [f for f, m in zip(flags, items, strict=True) if m.risk]
    safe = [f for f, m in zip(flags, items, strict=True) if not m.risk]
    per_category = {}
    for category in CATEGORIES:
        hits = [f for f, m in zip(flags, items, strict=True) if category in m.categories]
        if hits:
            per_category[category.value] = round(sum(hits) / len(hits), 3)
    return {"messages": len(items), "risk": len(risky),
            "recall": round(sum(risky) / max(1, len(risky)), 3),
            "false_positive_rate": round(sum(safe) / max(1, len(safe)), 3),
            "per_category_recall": per_category}


def false_alarms_by_kind(flags: Sequence[bool], items: Sequence[SafetyMessage], least: int = 10) -> dict:
    """False-alarm rate per kind of harmless message (hyperbole, grief, a game, ...), highest first.

    Kinds with fewer than ``least`` messages are pooled as ``other kinds``.
    """
    kinds: dict[str, list[bool]] = {}
    for flag, m in zip(flags, items, strict=True):
        if not m.risk:
            kinds.setdefault(m.kind, []).append(flag)
    pooled: dict[str, list[bool]] = {}
    for kind, kind_flags in kinds.items():
        pooled.setdefault(kind if len(kind_flags) >= least else "other kinds", []).extend(kind_flags)
    rows = {kind: {"messages": len(f), "false_alarm_rate": round(sum(f) / len(f), 3)} for kind, f in pooled.items()}
    return dict(sorted(rows.items(), key=lambda row: -row[1]["false_alarm_rate"]))


def score_messages(assess: Assess, items: Sequence[SafetyMessage]) -> dict:
    """The assessment and the patterns alone on single messages, with what was missed."""
    verdicts = [assess(m.text, (), False) for m in items]
    flags = [v.at_risk for v in verdicts]
    patterns = [bool(safety.find(m.text)) for m in items]
    caught = [(v, m) for v, m in zip(verdicts, items, strict=True) if m.risk and v.at_risk]
    category_right = [bool(set(v.categories) & set(m.categories)) for v, m in caught]
    wrong_categories = [len(set(v.categories) - set(m.categories)) for v, m in caught]
    alarms = [(v, m) for v, m in zip(verdicts, items, strict=True) if not m.risk and v.at_risk]

    def opened_as_said(found: list[tuple[SafetyAssessment, SafetyMessage]]) -> float:
        """Share whose (fixed) acknowledgment is the one for how a phrase said it."""
        said = [not v.tentative and said_as(v.categories, safety.find(m.text)) is not None for v, m in found]
        return round(sum(said) / max(1, len(said)), 3)

    return {**rates(flags, items),
            # The protocol's unsure words (not presuming the danger) go to tentative readings: wanted for false
            # alarms, a gentler opening than it could have for the disclosures.
            "read_tentative": {"caught_disclosures": round(sum(v.tentative for v, _ in caught) / max(1, len(caught)), 3),
                               "false_alarms": round(sum(v.tentative for v, _ in alarms) / max(1, len(alarms)), 3)},
            "acknowledged_as_said": {"caught_disclosures": opened_as_said(caught), "false_alarms": opened_as_said(alarms)},
            "category_agreement": round(sum(category_right) / max(1, len(category_right)), 3),
            "wrong_categories_per_caught": round(sum(wrong_categories) / max(1, len(wrong_categories)), 3),
            "patterns_alone": {k: v for k, v in rates(patterns, items).items() if k in ("recall", "false_positive_rate")},
            "false_alarms_by_kind": false_alarms_by_kind(flags, items),
            "missed": [m.id for m, f in zip(items, flags, strict=True) if m.risk and not f],
            "false_alarms": [m.id for m, f in zip(items, flags, strict=True) if not m.risk and f]}


def score_conversations(assess: Assess, conversations: Sequence[SafetyConversation]) -> dict:
    """Turn by turn as a session: caught by the risk turn, kept careful after, no alarm in safe conversations."""
    caught, kept, alarmed, delays = 0, 0, 0, []
    risky = [c for c in conversations if c.risk]
    for conv in conversations:
        careful, first = False, None
        for i, turn in enumerate(conv.turns):
            verdict = assess(turn, conv.turns[:i], careful)
            if verdict.at_risk and first is None:
                first = i
            careful = careful or verdict.at_risk
        if conv.risk:
            caught += first is not None and first <= conv.risk_turn
            kept += first is not None  # careful from the first flag to the end, by construction of the session
            delays.append((first - conv.risk_turn) if first is not None else None)
        else:
            alarmed += first is not None
    return {"conversations": len(conversations), "risk": len(risky),
            "caught_by_risk_turn": round(caught / max(1, len(risky)), 3),
            "caught_at_all": round(kept / max(1, len(risky)), 3),
            "safe_conversations_flagged": round(alarmed / max(1, len(conversations) - len(risky)), 3),
            "flag_turn_minus_risk_turn": delays}


def timings(toolbox: ToolBox, items: Sequence[SafetyMessage]) -> dict:
    """Median ms per message of the text-emotion tool alone, and of the screen then the text-emotion
    tool as a turn runs them (they share the encoder's pass over the message), in the same run:
    ``added_ms_median`` is what the screen adds to a turn."""
    alone, both, screen = [], [], []
    for m in items:
        for timed in (alone, both):
            toolbox.forget_recent()
            started = time.perf_counter()
            if timed is both:
                toolbox.screen_safety(m.text)
                screen.append(time.perf_counter() - started)
            toolbox.text_emotion(m.text)
            timed.append(time.perf_counter() - started)
    return {"screen_ms_median": round(1000 * statistics.median(screen), 1),
            "text_emotion_ms_median_same_run": round(1000 * statistics.median(alone), 1),
            "added_ms_median": round(1000 * statistics.median(b - a for a, b in zip(alone, both, strict=True)), 1)}


def remembered(assess: Assess) -> Assess:
    """``assess`` with its verdicts kept, so a subset scored again (the first writers' held-out items) costs nothing."""
    verdicts: dict[tuple[str, tuple[str, ...], bool], SafetyAssessment] = {}

    def again(text: str, earlier: Sequence[str], careful: bool) -> SafetyAssessment:
        key = (text, tuple(earlier), careful)
        if key not in verdicts:
            verdicts[key] = assess(text, earlier, careful)
        return verdicts[key]

    return again


def probe_screen(toolbox: ToolBox, backbone: Backbone, texts: Sequence[str], conversations: Sequence[SafetyConversation],
                 timing_texts: Sequence[str]) -> tuple[Assess, list[float], list[float]]:
    """The screen with the risk probe blended in, as a turn's read step runs it (a message read alone, a
    conversation's later turn after the turns before it with a stand-in listener; the states of ``texts`` and
    ``conversations`` read into ``eval.probe_states``' cache first), and ``probe_timings`` of ``timing_texts``."""
    from empathygraph.eval.probe_states import ProbeStates

    probe = toolbox.risk_probe()
    if probe is None or probe.backbone != backbone.name:
        raise SystemExit(f"no risk probe for {backbone.name}: {toolbox.risk_probe_unavailable or probe.backbone}")
    states = ProbeStates(backbone, layer=probe.layer)
    states.ensure(texts)
    states.ensure_in_conversation([(turn, c.turns[:i]) for c in conversations for i, turn in enumerate(c.turns)])
    read_seconds, added_seconds = probe_timings(backbone, probe, timing_texts)

    def assess(text: str, earlier: Sequence[str], careful: bool) -> SafetyAssessment:
        reading = ProbeReading.of(probe, probe.probability(states.in_conversation(text, earlier)))
        return toolbox.screen_safety(text, earlier, careful=careful, probe=reading)

    return assess, read_seconds, added_seconds


def first_step_messages(text: str) -> list[BaseMessage]:
    """The first LLM step's prompt for a first turn with no other cues (emotion and cause, label asked)."""
    from empathygraph.agents.emotion_cause import ANY_EMOTION, QUOTE_FREE, TASK_WITH_LABEL
    from empathygraph.agents.prompting import build_messages
    from empathygraph.schemas import Cues

    task = TASK_WITH_LABEL.format(choices=ANY_EMOTION, quote=QUOTE_FREE)
    return build_messages({"cues": Cues(words=text), "chat": [], "history": []}, task,  # type: ignore[typeddict-item]
                          history_turns=0)


def probe_timings(backbone: Backbone, probe: RiskProbe, texts: Sequence[str]) -> tuple[list[float], list[float]]:
    """Per text, timed back to back with the system prompt cached as in a turn: the probe's read alone, and
    what it adds to the turn (the read then the first step's prompt, minus that prompt read without it: the
    read is the start of the prompt, so the step finds the words in the KV cache)."""
    from empathygraph.agents.risk import read_probe

    def fresh() -> None:  # as in a turn: the system prompt is cached, nothing of this text is
        backbone.hidden_state(*words_messages("a message of no interest"), probe.layer)

    def first_step(text: str) -> None:
        backbone.chat_model.invoke(first_step_messages(text), max_tokens=1)

    reads, added = [], []
    for text in texts:
        fresh()
        started = time.perf_counter()
        first_step(text)
        alone = time.perf_counter() - started
        fresh()
        started = time.perf_counter()
        read_probe(backbone, probe, text)
        reads.append(time.perf_counter() - started)
        first_step(text)
        added.append(time.perf_counter() - started - alone)
    return reads, added


def probe_share(toolbox: ToolBox, screen_added_ms: float, probe_added: Sequence[float]) -> dict:
    """What the risk probe adds to a default turn: its head alone when another probe the default config reads
    (emotion, choice) needs the same layer's state, else the state's read too."""
    import numpy as np

    config, probe = Config(), toolbox.risk_probe()
    others = {"emotion probe": toolbox.emotion_probe() if config.perception.emotion_probe else None,
              "choice probe": toolbox.choice_probe() if config.perception.choice_screen else None}
    serves = sorted(name for name, other in others.items()
                    if other is not None and other.backbone == probe.backbone and other.layer == probe.layer)
    state = np.random.default_rng(0).standard_normal(probe.mean.shape)
    heads = []
    for _ in range(200):
        started = time.perf_counter()
        probe.probability(state)
        heads.append(time.perf_counter() - started)
    head_ms = 1000 * statistics.median(heads)
    own = head_ms if serves else 1000 * statistics.median(probe_added)
    return {"probe_read_also_serves": serves, "probe_head_ms_median": round(head_ms, 3),
            "safety_added_ms_median": round(screen_added_ms + own, 1)}


def llm_assess(toolbox: ToolBox, backbone: Backbone, screen: Assess, thresholds: RiskThresholds | None) -> tuple[Assess, list[float]]:
    """``screen`` with the embedded LLM's yes/no reading added as the graph adds it, and its read times."""
    from empathygraph.agents.risk import add_llm_reading, reading_messages, should_read

    config = Config()
    read_seconds: list[float] = []

    def assess(text: str, earlier: Sequence[str], careful: bool) -> SafetyAssessment:
        verdict = screen(text, earlier, careful)
        if not should_read(verdict, config.safety, thresholds):
            return verdict
        backbone.yes_no(reading_messages(text, "anything else?"))  # the turn's earlier steps left this prefix cached
        updated, reading = add_llm_reading(verdict, backbone, reading_messages(text), config.safety, thresholds)
        if reading is not None:
            read_seconds.append(reading.latency_s)
        return updated

    return assess, read_seconds


SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"

def score_everyday(assess: Assess, sets: dict[str, list[str]]) -> dict:
    """How many ordinary messages the screen sends to the crisis protocol, and which."""
    out = {}
    for name, texts in sets.items():
        flagged = [text for text in texts if assess(text, (), False).at_risk]
        out[name] = {"messages": len(texts), "flagged": len(flagged),
                     "false_positive_rate": round(len(flagged) / max(1, len(texts)), 3), "flagged_texts": flagged}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--llm", action="store_true", help="add the embedded LLM's yes/no reading")
    parser.add_argument("--probe", action="store_true",
                        help="average the risk probe over the embedded LLM's hidden states into the classifier (as turns do)")
    parser.add_argument("--timing-items", type=int, default=60, help="messages timed for screen_ms")
    parser.add_argument("--shared", type=Path, default=SHARED, help="the shared data folder (ED validation messages)")
    args = parser.parse_args()

    toolbox = ToolBox()
    held_out = load_messages(splits={"held_out"})
    first = [m for m in held_out if m.writer in FIRST_WRITERS]  # the held-out items of the first measurements
    exam = load_messages(splits={"exam"})
    conversations = load_conversations(splits={"held_out"})
    everyday = everyday_messages(args.shared)

    def plain(text: str, earlier: Sequence[str], careful: bool) -> SafetyAssessment:
        return toolbox.screen_safety(text, earlier, careful=careful)

    backbone = make_backbone(Config().backbone) if args.llm or args.probe else None
    assess, probe_seconds, probe_added, thresholds = plain, [], [], toolbox.risk_model().thresholds if toolbox.risk_model() else None
    if args.probe:
        texts = [m.text for m in held_out + exam] + [c.turns[0] for c in conversations]
        texts += [t for group in everyday.values() for t in group]
        assess, probe_seconds, probe_added = probe_screen(toolbox, backbone, texts, conversations,
                                             [m.text for m in held_out[: args.timing_items]])
        thresholds = toolbox.risk_probe().thresholds
    assess, read_seconds = llm_assess(toolbox, backbone, assess, thresholds) if args.llm else (assess, [])
    assess = remembered(assess)
    screen_timing = timings(toolbox, held_out[: args.timing_items])

    def rates_only(items: Sequence[SafetyMessage]) -> dict:
        """``score_messages`` of a subset without its lists of ids (the whole set's result has them)."""
        dropped = ("missed", "false_alarms", "false_alarms_by_kind")
        return {k: v for k, v in score_messages(assess, items).items() if k not in dropped}

    def by_writer(items: Sequence[SafetyMessage]) -> dict:
        """``rates_only`` of each writer's items."""
        return {writer: rates_only([m for m in items if m.writer == writer]) for writer in sorted({m.writer for m in items})}

    result = {
        "split": "held_out",
        **score_messages(assess, held_out),
        **screen_timing,
        "llm_read": args.llm,
        "llm_read_ms_median": round(1000 * statistics.median(read_seconds), 1) if read_seconds else None,
        "llm_reads": len(read_seconds),
        "probe": args.probe,
        "probe_read_ms_median": round(1000 * statistics.median(probe_seconds), 1) if probe_seconds else None,
        "probe_added_ms_median": round(1000 * statistics.median(probe_added), 1) if probe_added else None,
        **(probe_share(toolbox, screen_timing["added_ms_median"], probe_added) if args.probe else {}),
        "held_out_first_writers": rates_only(first),
        "held_out_by_writer": by_writer(held_out),
        "exam": score_messages(assess, exam),
        "exam_by_writer": by_writer(exam),
        "conversations": score_conversations(assess, conversations),
        "everyday": score_everyday(assess, everyday),
        "classifier": toolbox.risk_model().trained_on if toolbox.risk_model() else toolbox.risk_classifier_unavailable,
        "categories": [c.value for c in RiskCategory if c is not RiskCategory.NONE],
    }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
