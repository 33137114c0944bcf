"""Risk assessment: combine the signals recall-first, each kept with its score for the trace.

Signals: the phrase patterns (``tools/safety.py``), the trained classifier over the message and,
when it is long, its sentences (``tools/risk_classifier.py``; blended with the risk probe's reading
where the backbone has one; neither a phrase nor the probe routes a message this classifier reads
as plainly harmless, ``HARMLESS_FLOOR``), the same classifier over the
last few turns read together (risk said across several messages), and, added by the
risk agent, the LLM's reading and the session's earlier disclosures. Any signal that
fires routes the turn to the crisis protocol: a false alarm costs one careful reply, a
miss can cost far more.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from empathygraph.schemas import RiskCategory, RiskSignal, RiskSource, SafetyAssessment
from empathygraph.tools import safety
from empathygraph.tools.risk_classifier import (
    CATEGORIES,
    Probabilities,
    RiskScores,
    RiskThresholds,
    pieces,
    scores_of,
)
from empathygraph.tools.risk_probe import BLEND_WORDS, Blend, RiskProbe, blend_scores
from empathygraph.tools.safety import PRIORITY, PatternHit

# Under this score of the encoder classifier the message reads as plainly harmless, and neither a phrase nor the
# probe routes it alone (outside a careful session): a phrase said in an essay on a double suicide or in "kms this
# lecture is 3 hours long"; the LLM's sure reading of "the lump on my dog's leg is benign. I've been holding my breath
# for a week." (probe 0.93, encoder 0.013: their blend 0.30 was over its threshold). On the train split's
# out-of-writer scores (four writer folds) the lowest of the 235 disclosures a phrase matched scored 0.031, and 23 of
# the 79 harmless messages a phrase matched scored under 0.02; the shipped classifier's lowest of the 342 disclosures
# of the writers it never trained on (ab, ac, w-y, where the probe's thresholds are set) scores 0.244, while 76 of
# their 356 harmless messages score under 0.02. (The gray band, tried as the floor on 2026-12-02 with two-fold
# scores, lost disclosures only a phrase caught.)
HARMLESS_FLOOR = 0.02


def pattern_signal(hits: Sequence[PatternHit], plain: bool = True, classifier_score: float | None = None) -> RiskSignal:
    """The patterns fire on any phrase, unless the classifier's own score (``classifier_score``, before any
    averaging; None: no gate, as without a classifier or in a careful session) is under ``HARMLESS_FLOOR``. The detail names each phrase and how
    risk was said (``plain``: whether the danger reads as plainly said, see ``RiskSignal.plain``)."""
    categories = [c for c in PRIORITY if any(h.category is c for h in hits)]
    detail = "; ".join(f'"{h.phrase}" ({h.category.value}: {h.kind})' for h in hits)
    heard_as_harmless = bool(hits) and classifier_score is not None and classifier_score < HARMLESS_FLOOR
    if heard_as_harmless:
        detail += f"; not fired: the classifier scores the message {classifier_score:.3f}, under {HARMLESS_FLOOR}"
    return RiskSignal(source="patterns", score=1.0 if hits else 0.0, threshold=1.0,
                      fired=bool(hits) and not heard_as_harmless, categories=categories, detail=detail, plain=plain)


def classifier_signal(scores: RiskScores, thresholds: RiskThresholds, source: RiskSource = "classifier",
                      threshold: float | None = None) -> RiskSignal:
    """The classifier fires at its calibrated threshold (lower in a careful session).

    Its categories are those at or above the head's category threshold and close enough to the
    likeliest one, or the likeliest alone when none is: a disclosure always names what kind of
    help it needs.
    """
    threshold = thresholds.threshold if threshold is None else threshold
    fired = scores.any_risk >= threshold
    ranked = sorted(CATEGORIES, key=lambda c: scores.categories[c], reverse=True)
    floor = max(thresholds.category, thresholds.category_share * scores.categories[ranked[0]])
    likely = [c for c in ranked if scores.categories[c] >= floor] or ranked[:1]
    return RiskSignal(source=source, score=round(scores.any_risk, 4), threshold=round(threshold, 4), fired=fired,
                      categories=[c for c in PRIORITY if c in likely], detail=scores.where[:300],
                      plain=scores.any_risk >= thresholds.plain)


def combine(signals: Sequence[RiskSignal], *, matched: Sequence[str] = (), careful: bool = False) -> SafetyAssessment:
    """At risk when any signal fired; categories are the fired signals', most urgent first.

    Args:
        signals: every signal weighed, fired or not (all are kept for the trace).
        matched: the phrases the patterns found.
        careful: the session disclosed risk in an earlier turn.
    """
    fired = [s for s in signals if s.fired]
    found = {c for s in fired for c in s.categories} - {RiskCategory.NONE}
    categories = [c for c in PRIORITY if c in found]
    if fired and not categories:  # e.g. the LLM said yes without saying what kind: treat as self-harm, the widest protocol
        categories = [RiskCategory.SELF_HARM]
    score = max((s.score for s in signals), default=0.0)
    return SafetyAssessment(
        tentative=bool(fired) and not any(s.plain for s in fired),
        category=categories[0] if categories else RiskCategory.NONE,
        categories=categories,
        matched=list(matched),
        score=round(min(1.0, score), 4),
        signals=list(signals),
        careful=careful,
    )


def llm_signal(p_yes: float, threshold: float, classifier: RiskSignal | None, gray: float, question: str) -> RiskSignal:
    """The LLM's yes/no reading fires only beside a classifier that is at least unsure (score >= ``gray``).

    On its own the small default model says yes too easily to be trusted (a finished
    marathon drew P(yes) 0.89 under a cautious prompt), so it may only tip a borderline case.
    """
    backed = classifier is None or classifier.score >= gray
    return RiskSignal(source="llm", score=round(p_yes, 4), threshold=threshold, fired=backed and p_yes >= threshold,
                      categories=list(classifier.categories) if classifier else [], detail=question, plain=False)


@dataclass(frozen=True)
class ProbeReading:
    """The risk probe's probability for this turn's words (``tools/risk_probe.py``), how it blends with the
    classifier's score, and the thresholds of that blend."""

    score: float
    thresholds: RiskThresholds
    blend: Blend = "mean"

    @classmethod
    def of(cls, probe: RiskProbe, score: float) -> ProbeReading:
        """``probe``'s reading ``score``, with the probe's blend and thresholds."""
        return cls(score, probe.thresholds, probe.blend)

    def blended(self, encoder_score: float) -> float:
        """The screen's score: the encoder classifier's ``encoder_score`` blended with the probe's."""
        return float(blend_scores(encoder_score, self.score, self.blend))

    def describe(self) -> str:
        """The blend in words, for the trace."""
        return BLEND_WORDS[self.blend]


def probe_signal(reading: ProbeReading) -> RiskSignal:
    """The probe in the trace: it never routes alone, it moves the classifier's score (their blend)."""
    return RiskSignal(source="probe", score=round(reading.score, 4), threshold=1.0, fired=False,
                      detail=f"the LLM's hidden states over the words; blended into the classifier's score "
                             f"({reading.describe()})")


class RiskScreen:
    """Patterns, the classifier over the message and its sentences, and over the last few turns together.

    Args:
        probabilities: the classifier (texts -> n x (any risk, categories...)); None screens with the patterns alone.
        thresholds: where its probabilities fire.
    """

    def __init__(self, probabilities: Probabilities | None = None, thresholds: RiskThresholds | None = None) -> None:
        self.probabilities, self.thresholds = probabilities, thresholds or RiskThresholds()

    def assess(self, words: str, earlier: Sequence[str] = (), *, careful: bool = False,
               probe: ProbeReading | None = None) -> SafetyAssessment:
        """Assess one turn's words.

        Args:
            words: everything the person said this turn (typed and transcribed).
            earlier: their earlier messages in this session, oldest first (read together with this one).
            careful: the session disclosed risk before; the classifier fires from its lower (gray) threshold.
            probe: the risk probe's reading of these words (after the recent turns); the classifier's scores
                over the message and over the turns together are then each blended with the probe's (the
                probe's ``blend``), at the probe's thresholds (calibrated on that blend).
        """
        hits = safety.find(words)
        signals, plain, own_score = [], True, None
        if self.probabilities is not None and words.strip():
            read = pieces(words)
            together = " ".join([*earlier, words]) if earlier else None
            probs = self.probabilities(read + ([together] if together else []))
            if probe is not None:
                signals.append(probe_signal(probe))
            scores = scores_of(read, probs[: len(read)])
            own_score = scores.any_risk
            message = self._classifier(scores, probe, careful)
            if message.fired and probe is not None and not careful and own_score < HARMLESS_FLOOR:
                message = message.model_copy(update={"fired": False, "detail": (
                    f"not fired: the encoder scores the message {own_score:.3f}, under {HARMLESS_FLOOR}, so the "
                    f"probe alone does not route it; {message.detail}")[:300]})
            signals.append(message)
            # A phrase reads as plainly said only where the classifier also finds danger: of the train split's
            # messages a phrase matched, it scored below its threshold (out of writer) for 41 of 52 harmless
            # ones (a school project on suicide, "i'm going to kill my brother") and 5 of 127 disclosures.
            plain = not hits or message.score >= self._thresholds(probe).threshold
            if together:
                signals.append(self._classifier(scores_of([together], probs[len(read):]), probe, careful,
                                                source="context"))
        # In a session that disclosed risk before, a phrase fires whatever the classifier says.
        gate = None if careful else own_score
        return combine([pattern_signal(hits, plain=plain, classifier_score=gate), *signals],
                       matched=[h.phrase for h in hits], careful=careful)

    def _thresholds(self, probe: ProbeReading | None) -> RiskThresholds:
        """The classifier's thresholds, or the probe's for the score blended with it."""
        return probe.thresholds if probe is not None else self.thresholds

    def _classifier(self, scores: RiskScores, probe: ProbeReading | None, careful: bool,
                    source: RiskSource = "classifier") -> RiskSignal:
        """The classifier's signal, its score blended with the probe's when there is one (then at the
        probe's thresholds), from the gray threshold in a careful session.

        A later turn's probe reading sees the conversation so far (the prompt's words block shows the
        recent turns), so it is blended into the several-turn text's score as well as the message's.
        """
        thresholds = self._thresholds(probe)
        if probe is not None:
            scores = replace(scores, any_risk=probe.blended(scores.any_risk),
                             where=f"(encoder {scores.any_risk:.3f}, probe {probe.score:.3f}: {probe.describe()}) "
                                   f"{scores.where}")
        return classifier_signal(scores, thresholds, source=source, threshold=thresholds.gray if careful else None)
