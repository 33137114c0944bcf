"""Whether a message tells of a choice of the person's own that could hurt them or someone else.

"I've stopped my antidepressants cold turkey because I feel fine now. Good call, right?" or
"I'm lending my savings to a guy I met online": a listener may care about the person and
what is behind the choice, but must not cheer it on ("Good job!", "That's a great idea!" were
the embedded model's replies to these two). Over the threshold the response is asked not to
praise or approve it and reflection sends back a reply that does
(``agents/reply_checks.praises_choice``).

Two readers of the same question, both standardised logistic regressions:

- ``ChoiceProbe`` over the embedded backbone's hidden state over the words (the state the risk
  and emotion probes read each turn, so it costs nothing more): the default where it can be read;
- ``ChoiceScreen`` over the text-emotion encoder's sentence embedding, for backbones that give no
  hidden states (it separates contrast pairs less well: see ``scripts/train_choice_screen.py``).

Both are trained by ``scripts/train_choice_screen.py`` on ``benchmarks/data/choices`` (the
project's own writing), their thresholds set on out-of-writer scores.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Self

import numpy as np

from empathygraph.errors import BackendError

DATA = Path(__file__).parent / "data"
CHOICE_SCREEN_PATH = DATA / "choice_screen.npz"
CHOICE_PROBE_PATH = DATA / "choice_probe.npz"
_ARRAYS = ("mean", "scale", "coef")


@dataclass(frozen=True, kw_only=True)
class ChoiceReadout:
    """P(a harmful choice of their own) from one feature vector: standardise, then a logistic regression."""

    mean: np.ndarray
    scale: np.ndarray
    coef: np.ndarray
    intercept: float
    threshold: float
    trained_on: str = ""

    def probabilities(self, features: np.ndarray) -> np.ndarray:
        """P(a harmful choice of their own) for each row of ``features``."""
        z = (np.atleast_2d(features) - self.mean) / self.scale
        return 1.0 / (1.0 + np.exp(-(z @ self.coef + self.intercept)))

    def probability(self, features: np.ndarray) -> float:
        return float(self.probabilities(features)[0])

    def describe(self) -> str:
        """What it reads, for the trace."""
        raise NotImplementedError

    def save(self, path: Path) -> None:
        meta = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in (*_ARRAYS, "intercept")}
        np.savez(path, **{name: np.asarray(getattr(self, name), dtype=np.float32) for name in _ARRAYS},
                 intercept=np.float32(self.intercept), meta=json.dumps(meta))

    @classmethod
    def load(cls, path: Path) -> Self:
        """Raises:
            BackendError: the file is missing or is not this readout.
        """
        if not path.is_file():
            raise BackendError(f"{path.name} not found at {path} (run scripts/train_choice_screen.py)")
        try:
            with np.load(path, allow_pickle=False) as data:
                meta: dict[str, Any] = json.loads(str(data["meta"]))
                return cls(**{name: data[name] for name in _ARRAYS}, intercept=float(data["intercept"]), **meta)
        except (KeyError, TypeError, ValueError, OSError) as exc:
            raise BackendError(f"{path} is not a {cls.__name__}: {exc}") from exc


@dataclass(frozen=True, kw_only=True)
class ChoiceScreen(ChoiceReadout):
    """The reader over the sentence embedding of ``encoder`` (unit length, as ``SentenceEncoder.encode``)."""

    encoder: str

    def describe(self) -> str:
        return f"{self.encoder} sentence embedding"

    @classmethod
    def load(cls, path: Path = CHOICE_SCREEN_PATH) -> ChoiceScreen:
        return super().load(path)


@dataclass(frozen=True, kw_only=True)
class ChoiceProbe(ChoiceReadout):
    """The reader over ``backbone``'s mean hidden state at ``layer`` over the words (``agents/words_state``)."""

    backbone: str
    layer: int

    def describe(self) -> str:
        return f"{self.backbone} layer {self.layer} probe"

    @classmethod
    def load(cls, path: Path = CHOICE_PROBE_PATH) -> ChoiceProbe:
        return super().load(path)
