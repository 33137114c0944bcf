"""Emotion probe: the 32 ED emotions read from the LLM backbone's own hidden states.

The read step already takes one layer's states over the person's words for the risk probe
(``agents.risk.read_probe``: the start of the turn's first prompt, which the next step finds
in its KV cache). This probe turns the same state into a distribution over the 32 emotions,
and the text-emotion cue is the blend of it and the sentence encoder's tuned top:
``(1 - weight) * encoder + weight * probe``. The two read different things (a sentence
encoder tuned on ED; a 1.5B chat model's reading of the whole message), so the blend corrects
some of the encoder's errors for the cost of one small matrix product. ``weight`` and the
regularisation were chosen on ED training conversations neither reader was fitted on
(``scripts/train_emotion_probe.py``). The probe belongs to one model file and layer: another
backbone (a server, the fast preset) reads emotion with the encoder alone.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from empathygraph.errors import BackendError

EMOTION_PROBE_PATH = Path(__file__).parent / "data" / "emotion_probe.npz"


@dataclass(frozen=True)
class EmotionProbe:
    """A softmax readout over one backbone's standardised hidden states at one layer.

    Attributes:
        backbone: the backbone name whose states it reads (``Backbone.name``).
        layer: the layer whose outputs it reads (0-based).
        labels: the emotions, in the order of ``coef``'s columns.
        mean, scale: the standardisation of the states.
        coef, intercept: the softmax readout (width x labels, labels).
        weight: the probe's share when blended with the encoder's distribution.
        trained_on: what it was trained and chosen on.
        report: its measured accuracy (saved with it, shown by the training script).
    """

    backbone: str
    layer: int
    labels: list[str]
    mean: np.ndarray
    scale: np.ndarray
    coef: np.ndarray
    intercept: np.ndarray
    weight: float
    trained_on: str = ""
    report: dict = field(default_factory=dict)

    @classmethod
    def load(cls, path: Path = EMOTION_PROBE_PATH) -> EmotionProbe:
        """Read a probe saved by ``save``.

        Raises:
            BackendError: the file is missing or not an emotion probe.
        """
        try:
            with np.load(path, allow_pickle=False) as data:
                meta = json.loads(str(data["meta"]))
                probe = cls(backbone=meta["backbone"], layer=int(meta["layer"]), labels=list(meta["labels"]),
                            mean=data["mean"].astype(np.float64), scale=data["scale"].astype(np.float64),
                            coef=data["coef"].astype(np.float64), intercept=data["intercept"].astype(np.float64),
                            weight=float(meta["weight"]), trained_on=meta.get("trained_on", ""),
                            report=meta.get("report", {}))
        except (OSError, KeyError, ValueError) as exc:
            raise BackendError(f"emotion probe at {path} cannot be read ({exc})") from None
        if probe.coef.shape != (probe.mean.shape[0], len(probe.labels)) or not 0.0 <= probe.weight <= 1.0:
            raise BackendError(f"emotion probe at {path} is malformed: readout {probe.coef.shape} for "
                               f"{probe.mean.shape[0]} states and {len(probe.labels)} labels, weight {probe.weight}")
        return probe

    def save(self, path: Path) -> None:
        """Write the probe (its readout in float16: ~100 kB for 1,536 states and 32 labels)."""
        meta = {"backbone": self.backbone, "layer": self.layer, "labels": self.labels, "weight": self.weight,
                "trained_on": self.trained_on, "report": self.report}
        np.savez_compressed(path, mean=self.mean.astype(np.float32), scale=self.scale.astype(np.float32),
                            coef=self.coef.astype(np.float16), intercept=self.intercept.astype(np.float32),
                            meta=np.array(json.dumps(meta)))

    def probabilities(self, states: np.ndarray) -> np.ndarray:
        """The probability of each of ``labels`` for each row of ``states`` (n x width).

        Raises:
            BackendError: the states are not as wide as those the probe was trained on.
        """
        states = np.atleast_2d(np.asarray(states, dtype=np.float64))
        if states.shape[1] != self.mean.shape[0]:
            raise BackendError(f"the emotion probe reads states of width {self.mean.shape[0]}, got {states.shape[1]}")
        z = ((states - self.mean) / self.scale) @ self.coef + self.intercept
        z -= z.max(axis=1, keepdims=True)
        p = np.exp(z)
        return p / p.sum(axis=1, keepdims=True)

    def blend(self, encoder: np.ndarray, encoder_labels: list[str], state: np.ndarray) -> np.ndarray:
        """The encoder's distribution over ``encoder_labels`` blended with the probe's reading of ``state``
        (in the encoder's label order).

        Raises:
            BackendError: the probe's labels are not the encoder's, or the state has the wrong width.
        """
        if sorted(encoder_labels) != sorted(self.labels):
            raise BackendError("the emotion probe's labels are not the text classifier's")
        mine = self.probabilities(state)[0]
        reordered = mine[[self.labels.index(label) for label in encoder_labels]]
        return (1.0 - self.weight) * np.asarray(encoder, dtype=np.float64) + self.weight * reordered
