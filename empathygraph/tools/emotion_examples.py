"""Example messages, retrieved by meaning, for the agents' prompts.

A bank holds messages with what each is labelled with, embedded by the text-emotion
encoder; ``nearest`` returns the examples closest (cosine) to a message. Two banks use it:
the emotion fusion's (the situations and speaker turns of an EmpatheticDialogues-format
file, labelled with their conversation's emotion), so the LLM weighs the classifier's
candidate labels after reading how similar messages were labelled; and the response
agent's (messages labelled with a listener's reply to them: ``reply_pairs``), so the LLM
writes after reading how listeners answered similar messages. Embeddings are cached under
``<home>/eval`` (``cached_embeddings``): only the first use of a file pays for them.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from empathygraph.jsonl import iter_jsonl
from empathygraph.schemas import EDEmotion
from empathygraph.tools.text_emotion import SentenceEncoder, cached_embeddings


def ed_labelled_texts(ed_path: Path) -> tuple[list[str], list[str], list[str]]:
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


def reply_pairs(path: Path) -> tuple[list[str], list[str], list[str]]:
    """(messages, replies, ids) of a JSON Lines file: ``{"text", "reply"}`` pairs, or EmpatheticDialogues
    conversations (the speaker's first turn and the listener's answer to it; conversation ids as ids)."""
    texts, replies, groups = [], [], []
    for line, record, error in iter_jsonl(path):
        if error or not isinstance(record, dict):
            continue
        if isinstance(record.get("text"), str) and isinstance(record.get("reply"), str):
            text, reply, group = record["text"], record["reply"], str(record.get("id", line))
        else:
            turns = [t for t in record.get("dialog", []) if isinstance(t, dict)]
            if len(turns) < 2 or [t.get("speaker") for t in turns[:2]] != ["speaker", "listener"]:
                continue
            text, reply, group = turns[0].get("text", ""), turns[1].get("text", ""), str(record.get("conv_id"))
        if text.strip() and reply.strip():
            texts.append(text.strip())
            replies.append(reply.strip())
            groups.append(group)
    return texts, replies, groups


@dataclass(frozen=True)
class LabelledExample:
    """A message and what it is labelled with: its conversation's emotion, or a listener's reply."""

    text: str
    label: str


class ExampleBank:
    """Labelled texts and their unit-length embeddings."""

    def __init__(self, texts: list[str], labels: list[str], embeddings: np.ndarray) -> None:
        if not texts or len(texts) != len(labels) or len(texts) != embeddings.shape[0]:
            raise ValueError("an example bank needs as many labels and embeddings as texts, and at least one")
        self.texts, self.labels = texts, labels
        self._unit = embeddings / np.maximum(np.linalg.norm(embeddings, axis=1, keepdims=True), 1e-12)

    @classmethod
    def from_ed(cls, path: Path, encoder: SentenceEncoder, exclude: Collection[str] = ()) -> ExampleBank:
        """The bank of an ED-format JSONL file, without the conversations whose ids are in ``exclude``."""
        return cls._embedded(ed_labelled_texts(path), encoder, exclude,
                             f"{path}: no labelled EmpatheticDialogues conversation in it")

    @classmethod
    def from_replies(cls, path: Path, encoder: SentenceEncoder, exclude: Collection[str] = ()) -> ExampleBank:
        """The messages of ``reply_pairs(path)`` labelled with their replies, without the ids in ``exclude``."""
        return cls._embedded(reply_pairs(path), encoder, exclude, f"{path}: no message with a reply in it")

    @classmethod
    def _embedded(cls, rows: tuple[list[str], list[str], list[str]], encoder: SentenceEncoder,
                  exclude: Collection[str], empty: str) -> ExampleBank:
        """A bank of (texts, labels, groups) embedded by ``encoder``, without the groups in ``exclude``."""
        texts, labels, groups = rows
        if not texts:
            raise ValueError(empty)
        embeddings = cached_embeddings(encoder.name, texts, encoder)
        keep = [i for i, group in enumerate(groups) if group not in exclude]
        return cls([texts[i] for i in keep], [labels[i] for i in keep], embeddings[keep])

    def nearest(self, embedding: np.ndarray, k: int) -> list[LabelledExample]:
        """The ``k`` examples most similar to ``embedding``, the closest first."""
        similarity = self._unit @ (embedding / max(float(np.linalg.norm(embedding)), 1e-12))
        order = np.argsort(-similarity)[:k]
        return [LabelledExample(self.texts[i], self.labels[i]) for i in order]
