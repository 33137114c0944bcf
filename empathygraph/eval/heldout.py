"""A text-emotion head that never saw the evaluated conversations.

The shipped head is trained on all of EmpatheticDialogues valid, so scoring it on that
split would measure memory, not skill. This refits the same kind of head (logistic
regression over the shipped head's encoder, with its regularisation) on the ED file minus
the evaluated conversations, and a ``ToolBox`` that uses it. Embeddings of the whole file
are cached under ``<home>/eval``, so only the first run pays for them.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Collection
from functools import cached_property
from pathlib import Path

import numpy as np

from empathygraph.schemas import EDEmotion
from empathygraph.tools.config import PerceptionConfig
from empathygraph.tools.emotion_examples import ed_labelled_texts
from empathygraph.tools.text_emotion import (
    HEAD_PATH,
    SentenceEncoder,
    SoftmaxHead,
    TextEmotionClassifier,
    cached_embeddings,
    fit_head,
)
from empathygraph.tools.toolbox import ToolBox


def fit_heldout_head(ed_path: Path, exclude: Collection[str], encoder: SentenceEncoder, c: float) -> SoftmaxHead:
    """Fit the head on ED minus the conversations in ``exclude`` (``encoder`` and ``c`` as the shipped head's)."""
    texts, labels, groups = ed_labelled_texts(ed_path)
    emb = cached_embeddings(encoder.name, texts, encoder)
    keep = np.array([g not in exclude for g in groups])
    names = sorted(e.value for e in EDEmotion)
    y = np.array([names.index(label) for label, k in zip(labels, keep) if k])
    return fit_head(emb[keep], y, names, c, encoder.name)


class HeldOutClassifier(TextEmotionClassifier):
    """The text-emotion classifier with a head refitted without the evaluated conversations."""

    def __init__(self, ed_path: Path, exclude: Collection[str], head_path: Path = HEAD_PATH) -> None:
        shipped = SoftmaxHead.load(head_path)
        self.encoder = SentenceEncoder(shipped.encoder)
        self.head = fit_heldout_head(ed_path, exclude, self.encoder, shipped.c)
        self.name = f"{shipped.encoder}+heldout-head"


class HeldOutToolBox(ToolBox):
    """Perception tools whose text-emotion head and example bank exclude the evaluated ED conversations."""

    def __init__(self, config: PerceptionConfig | None, ed_path: Path, exclude: Collection[str]) -> None:
        super().__init__(config)
        self._ed_path, self.held_out = ed_path, frozenset(exclude)
        # The base key names the shipped head: a retrained head (another encoder or C) is another classifier.
        digest = hashlib.sha256(json.dumps([str(ed_path), sorted(self.held_out), self.cache_key]).encode()).hexdigest()[:10]
        self.cache_key = f"heldout-{digest}"

    @cached_property
    def _text_classifier(self) -> TextEmotionClassifier:
        return HeldOutClassifier(self._ed_path, self.held_out)
