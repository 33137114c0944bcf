"""A text-emotion head that never saw the evaluated conversations.

The shipped head is trained on all of EmpatheticDialogues valid, so scoring it on that
split would measure memory, not skill. This refits the same kind of head (logistic
regression over all-MiniLM-L6-v2 embeddings) on the ED file minus the evaluated
conversations, and a ``ToolBox`` that uses it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Collection
from functools import cached_property
from pathlib import Path

import numpy as np

from empathygraph.config import default_home
from empathygraph.eval.jsonfile import iter_jsonl
from empathygraph.schemas import EDEmotion
from empathygraph.tools.config import PerceptionConfig
from empathygraph.tools.text_emotion import MODEL_NAME, SentenceEncoder, SoftmaxHead, TextEmotionClassifier
from empathygraph.tools.toolbox import ToolBox

REGULARISATION = 0.05  # the C the shipped head's cross-validation chose


def ed_training_texts(ed_path: Path) -> tuple[list[str], list[str], list[str]]:
    """(texts, labels, conversation ids): situation and speaker turns of every ED conversation."""
    texts, labels, groups = [], [], []
    valid = {e.value for e in EDEmotion}
    for _, record, error in iter_jsonl(ed_path):
        if error or not isinstance(record, dict) or record.get("emotion") not in valid:
            continue
        turns = [t.get("text", "") for t in record.get("dialog", []) if t.get("speaker") == "speaker"]
        for text in [record.get("situation", ""), *turns]:
            if text.strip():
                texts.append(text)
                labels.append(record["emotion"])
                groups.append(str(record.get("conv_id")))
    return texts, labels, groups


def fit_heldout_head(ed_path: Path, exclude: Collection[str], encoder: SentenceEncoder) -> SoftmaxHead:
    """Fit the head on ED minus the conversations in ``exclude``; embeddings of the whole file are cached."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import StandardScaler

    texts, labels, groups = ed_training_texts(ed_path)
    stat = ed_path.stat()
    key = hashlib.sha256(json.dumps([str(ed_path.resolve()), stat.st_size, stat.st_mtime]).encode()).hexdigest()[:12]
    cache = default_home() / "eval" / f"ed-embeddings-{key}.npy"
    if cache.is_file() and len(np.load(cache)) == len(texts):
        emb = np.load(cache)
    else:
        emb = encoder.encode(texts)
        cache.parent.mkdir(parents=True, exist_ok=True)
        np.save(cache, emb)
    keep = np.array([g not in exclude for g in groups])
    emb, labels = emb[keep], [label for label, k in zip(labels, keep) if k]
    names = sorted(e.value for e in EDEmotion)
    y = np.array([names.index(label) for label in labels])
    scaler = StandardScaler().fit(emb)
    clf = LogisticRegression(C=REGULARISATION, max_iter=2000).fit(scaler.transform(emb), y)
    weight = np.zeros((len(names), emb.shape[1]), np.float32)
    bias = np.full(len(names), -1e4, np.float32)
    for row, cls in enumerate(clf.classes_):
        weight[cls], bias[cls] = clf.coef_[row], clf.intercept_[row]
    return SoftmaxHead(names, scaler.mean_, scaler.scale_, weight, bias)


class HeldOutClassifier(TextEmotionClassifier):
    """The text-emotion classifier with a head refitted without the evaluated conversations."""

    def __init__(self, ed_path: Path, exclude: Collection[str]) -> None:
        self.encoder = SentenceEncoder()
        self.head = fit_heldout_head(ed_path, exclude, self.encoder)
        self.name = f"{MODEL_NAME}+heldout-head"


class HeldOutToolBox(ToolBox):
    """Perception tools whose text-emotion head excludes the evaluated ED conversations."""

    def __init__(self, config: PerceptionConfig | None, ed_path: Path, exclude: Collection[str]) -> None:
        super().__init__(config)
        self._ed_path, self._exclude = ed_path, set(exclude)
        digest = hashlib.sha256(json.dumps([str(ed_path), sorted(self._exclude)]).encode()).hexdigest()[:10]
        self.cache_key = f"heldout-{digest}"

    @cached_property
    def _text_classifier(self) -> TextEmotionClassifier:
        return HeldOutClassifier(self._ed_path, self._exclude)
