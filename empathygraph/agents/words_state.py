"""The backbone's hidden state over the person's words, read once a turn for every probe that wants it.

Three small readouts use the embedded model's own reading of the words: the risk probe
(``tools/risk_probe.py``, blended into the safety screen's score), the emotion probe
(``tools/emotion_probe.py``, blended into the text-emotion cue) and the choice probe
(``tools/choice_screen.py``: a choice of theirs that could hurt them or others). All read the mean of one
layer's outputs over the words at the start of the turn's first prompt (the conversation shown
there, then the words), which the first step then finds in its KV cache. This module decides
which probes can be read here, reads the state once at their layer, and says in notes why a
probe was not read (no hidden states from this backbone, a probe trained on another model,
the read failing), so the turn goes on with the encoder's readings alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from empathygraph.agents.prompting import recent_history_of, words_messages
from empathygraph.backbones.base import Backbone
from empathygraph.context import RunContext
from empathygraph.errors import BackendError
from empathygraph.state import HistoryEntry
from empathygraph.tools.choice_screen import ChoiceProbe
from empathygraph.tools.emotion_probe import EmotionProbe
from empathygraph.tools.risk_probe import RiskProbe


@dataclass
class WordsState:
    """This turn's hidden state over the words (None when not read), the probes it serves, and why others were not."""

    state: np.ndarray | None = None
    risk: RiskProbe | None = None
    emotion: EmotionProbe | None = None
    choice: ChoiceProbe | None = None
    notes: list[str] = field(default_factory=list)


def read_state(backbone: Backbone, words: str, layer: int, history: Sequence[HistoryEntry] = ()) -> np.ndarray:
    """The mean of ``layer``'s outputs over ``words`` read as the start of the turn's first prompt (``history``:
    the turns that prompt shows).

    Raises:
        BackendError, RuntimeError, ValueError: the backbone could not read them.
    """
    if backbone.hidden_state is None:
        raise ValueError(f"{backbone.name} gives no hidden states")
    messages, span = words_messages(words, history)
    return np.asarray(backbone.hidden_state(messages, span, layer), dtype=np.float64)


def _risk_probe(context: RunContext, words: str) -> tuple[RiskProbe | None, str | None]:
    """The risk probe when the screen averages it in this turn, or None and why not (None: nothing to say)."""
    safety = context.config.safety
    if not (safety.enabled and safety.probe and safety.classifier and words.strip()):
        return None, None
    if context.toolbox.risk_model() is None:
        return None, None  # nothing to average it into (the read step notes a missing classifier)
    probe = context.toolbox.risk_probe()
    if probe is None:
        return None, f"risk probe unavailable: {context.toolbox.risk_probe_unavailable}"
    return probe, None


def _emotion_probe(context: RunContext, words: str) -> tuple[EmotionProbe | None, str | None]:
    """The emotion probe when the text-emotion cue blends it in this turn, or None and why not."""
    perception = context.config.perception
    if not (perception.text_emotion and perception.emotion_probe and words.strip()):
        return None, None
    probe = context.toolbox.emotion_probe()
    if probe is None:
        return None, f"emotion probe unavailable: {context.toolbox.emotion_probe_unavailable}"
    return probe, None


def _choice_probe(context: RunContext, words: str) -> tuple[ChoiceProbe | None, str | None]:
    """The choice probe when the choice cue reads it this turn, or None and why not."""
    if not (context.config.perception.choice_screen and words.strip()):
        return None, None
    probe = context.toolbox.choice_probe()
    if probe is None:
        return None, f"choice probe unavailable: {context.toolbox.choice_probe_unavailable}"
    return probe, None


def words_state(context: RunContext, words: str, history: Sequence[HistoryEntry]) -> WordsState:
    """Read the hidden state the probes of this turn need, once, at their layer (the risk probe's first)."""
    found = WordsState()
    wanted: list[tuple[str, RiskProbe | EmotionProbe | ChoiceProbe]] = []
    probes = (("risk", _risk_probe(context, words)), ("emotion", _emotion_probe(context, words)),
              ("choice", _choice_probe(context, words)))
    for kind, (probe, why) in probes:
        if why:
            found.notes.append(why)
        if probe is None:
            continue
        if probe.backbone != context.backbone.name:
            found.notes.append(f"{kind} probe not read: it was trained on {probe.backbone}, "
                               f"this backbone is {context.backbone.name}")
        elif context.backbone.hidden_state is None:
            found.notes.append(f"{kind} probe not read: {context.backbone.name} gives no hidden states")
        elif wanted and probe.layer != wanted[0][1].layer:
            found.notes.append(f"{kind} probe not read: it reads layer {probe.layer}, the state was read at "
                               f"layer {wanted[0][1].layer}")
        else:
            wanted.append((kind, probe))
    if not wanted:
        return found
    layer = wanted[0][1].layer
    try:
        found.state = read_state(context.backbone, words, layer,
                                 recent_history_of(history, context.config.agents.history_turns))
    except (BackendError, RuntimeError, ValueError) as exc:  # the encoder's readings go on without it
        found.notes.append(f"hidden state not read ({exc}): "
                           + ", ".join(f"the {kind} probe" for kind, _ in wanted) + " skipped")
        return found
    for kind, probe in wanted:
        setattr(found, kind, probe)
    return found
