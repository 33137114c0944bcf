"""Risk probe: a small readout of danger from the LLM backbone's own hidden states.

The embedded model reads the person's words anyway, at the start of the turn's first prompt.
``Backbone.hidden_state`` returns the mean of one of its layers' outputs over those words (read
as that prompt's prefix, so the next step finds them in the KV cache; a middle layer reads
danger better than the final states), and this probe turns it into a probability of risk. The
LLM reads meaning the sentence encoder misses (who is in danger, whether it is over, whether it
is a joke), so the screen's classifier score blends the encoder classifier's probability with
the probe's (``blend``: the mean of their log-odds for the shipped probe, their plain mean for
older files), with thresholds calibrated out of writer on that blend
(``scripts/train_risk_probe.py``). The probe belongs to one model file: another backbone (a server,
the fast preset) screens with the encoder classifier alone.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, get_args

import numpy as np
from scipy.special import expit, logit

from empathygraph.errors import BackendError
from empathygraph.tools.risk_classifier import RiskThresholds

RISK_PROBE_PATH = Path(__file__).parent / "data" / "risk_probe.npz"
# How the encoder classifier's probability and the probe's make the screen's score. "log_odds": the mean of their
# log-odds, so a reader that is sure either way weighs more than one near 0.5 (at equal recall it raised fewer false
# alarms than the plain mean on both held-out sets, README Safety); "mean": their plain mean (probes before 2026-12-07).
Blend = Literal["mean", "log_odds"]
BLENDS: tuple[Blend, ...] = get_args(Blend)
BLEND_WORDS: dict[Blend, str] = {"mean": "mean", "log_odds": "mean of log-odds"}  # as the trace and trained_on say it
_SURE = 1e-6  # probabilities are kept this far from 0 and 1 before their log-odds are taken


def blend_scores(encoder: np.ndarray | float, probe: np.ndarray | float, how: Blend) -> np.ndarray:
    """The screen's score from the encoder classifier's probability and the probe's (element-wise)."""
    encoder, probe = np.asarray(encoder, dtype=np.float64), np.asarray(probe, dtype=np.float64)
    if how == "mean":
        return (encoder + probe) / 2
    return expit((logit(np.clip(encoder, _SURE, 1 - _SURE)) + logit(np.clip(probe, _SURE, 1 - _SURE))) / 2)


@dataclass(frozen=True)
class RiskProbe:
    """A logistic readout over one backbone's standardised hidden states, through one hidden ReLU
    layer when it has one, and the thresholds of the screen's score when it is blended with the
    encoder classifier's.

    Attributes:
        backbone: the backbone name whose states it reads (``Backbone.name``).
        layer: the layer whose outputs it reads (0-based), or None for the final states.
        blend: how its probability and the encoder classifier's make the score its thresholds are for.
        mean, scale: the standardisation of the states.
        coef, intercept: the logistic output over the hidden units (over the standardised states
            when there is no hidden layer).
        thresholds: where the blended score fires (the encoder classifier's own category thresholds).
        trained_on: what it was trained and calibrated on.
        hidden_weight, hidden_bias: the hidden layer (width x units, units), or None for a plain
            logistic regression. Several networks trained from different seeds are kept as one wider
            layer whose output averages their logits.
    """

    backbone: str
    mean: np.ndarray
    scale: np.ndarray
    coef: np.ndarray
    intercept: float
    thresholds: RiskThresholds
    trained_on: str = ""
    hidden_weight: np.ndarray | None = None
    hidden_bias: np.ndarray | None = None
    layer: int | None = None
    blend: Blend = "mean"

    @classmethod
    def load(cls, path: Path = RISK_PROBE_PATH) -> RiskProbe:
        """Read a probe saved by ``save``.

        Raises:
            BackendError: the file is missing or not a probe, or names a blend this version does not know.
        """
        try:
            with np.load(path, allow_pickle=False) as data:
                meta = json.loads(str(data["meta"]))
                hidden = (data["hidden_weight"], data["hidden_bias"]) if "hidden_weight" in data.files else (None, None)
                return cls(backbone=meta["backbone"], mean=data["mean"], scale=data["scale"], coef=data["coef"],
                           intercept=float(data["intercept"]), trained_on=meta.get("trained_on", ""),
                           thresholds=RiskThresholds(meta["threshold"], meta["gray"], meta["category_threshold"],
                                                     plain=meta.get("plain", 0.0)),
                           hidden_weight=hidden[0], hidden_bias=hidden[1], layer=meta.get("layer"),
                           blend=_known_blend(meta.get("blend", "mean")))
        except (OSError, KeyError, ValueError) as exc:
            raise BackendError(f"risk probe at {path} cannot be read ({exc})") from None

    def save(self, path: Path, report: dict | None = None) -> None:
        """Write the probe (a few kB; about 4 bytes a weight with a hidden layer) with its thresholds and
        what it was trained on."""
        meta = {"backbone": self.backbone, "layer": self.layer, "threshold": self.thresholds.threshold, "gray": self.thresholds.gray,
                "plain": self.thresholds.plain, "category_threshold": self.thresholds.category,
                "blend": self.blend, "trained_on": self.trained_on,
                "report": report or {}}
        hidden = {} if self.hidden_weight is None or self.hidden_bias is None else {
            "hidden_weight": self.hidden_weight.astype(np.float32), "hidden_bias": self.hidden_bias.astype(np.float32)}
        np.savez(path, mean=self.mean.astype(np.float32), scale=self.scale.astype(np.float32),
                 coef=self.coef.astype(np.float32), intercept=np.float32(self.intercept),
                 meta=np.array(json.dumps(meta)), **hidden)

    def probability(self, state: np.ndarray) -> float:
        """The probe's probability that the words read into ``state`` disclose risk.

        Raises:
            BackendError: ``state`` is not as wide as the states the probe was trained on.
        """
        state = np.asarray(state, dtype=np.float64)
        if state.shape != self.mean.shape:
            raise BackendError(f"the risk probe reads states of width {self.mean.shape[0]}, got {state.shape}")
        return float(self.probabilities(state[None])[0])

    def probabilities(self, states: np.ndarray) -> np.ndarray:
        """``probability`` of each row of ``states`` (n x width)."""
        x = (np.asarray(states, dtype=np.float64) - self.mean) / self.scale
        if self.hidden_weight is not None and self.hidden_bias is not None:
            x = np.maximum(x @ self.hidden_weight + self.hidden_bias, 0.0)
        z = x @ self.coef + self.intercept
        return 1.0 / (1.0 + np.exp(-z))


def _known_blend(name: str) -> Blend:
    if name not in BLENDS:
        raise ValueError(f"unknown blend {name!r} (known: {', '.join(BLENDS)})")
    return name  # type: ignore[return-value]
