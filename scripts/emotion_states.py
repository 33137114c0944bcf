"""Encode texts once with the frozen encoder and keep what training needs, on disk, restartably.

For each text: the sentence embedding (what ``SentenceEncoder.encode`` returns), the mean of
every layer's token states, and the token states after the layers the adapter may start from
(``LAYERS``). Texts are stored in chunks of ``CHUNK`` named by a hash of their contents, so an
interrupted run resumes at the first missing chunk and a longer text list reuses the chunks of
a shorter one that starts the same way.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from empathygraph.paths import default_home
from empathygraph.tools.encoder_top import mean_pool
from empathygraph.tools.text_emotion import SentenceEncoder

LAYERS = (8, 10)  # token states kept after these layers (of 12): the adapter tunes what follows
CHUNK = 500
BATCH = 32


def _chunk_path(encoder: str, texts: list[str]) -> Path:
    key = hashlib.sha256(json.dumps([encoder, LAYERS, texts]).encode()).hexdigest()[:16]
    return default_home() / "emotion-states" / encoder / f"{key}.npz"


def _encode_chunk(encoder: SentenceEncoder, texts: list[str], path: Path) -> None:
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))  # similar lengths pad less
    embedding = np.zeros((len(texts), 768), np.float32)
    pooled = np.zeros((len(texts), 13, 768), np.float16)
    lengths = np.zeros(len(texts), np.int32)
    tokens: dict[int, list[np.ndarray | None]] = {layer: [None] * len(texts) for layer in LAYERS}
    for start in range(0, len(order), BATCH):
        rows = order[start : start + BATCH]
        states = encoder.states([texts[i] for i in rows])
        mask = states.mask
        layer_means = [mean_pool(h, mask).numpy() for h in states.hidden]
        for j, i in enumerate(rows):
            n = int(mask[j].sum())
            lengths[i], embedding[i] = n, states.embedding[j]
            pooled[i] = np.stack([m[j] for m in layer_means]).astype(np.float16)
            for layer in LAYERS:
                tokens[layer][i] = states.hidden[layer][j, :n].numpy().astype(np.float16)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp.npz")
    np.savez(tmp, embedding=embedding, pooled=pooled, lengths=lengths,
             **{f"tokens_{layer}": np.concatenate(tokens[layer]) for layer in LAYERS})  # fmt: skip
    tmp.replace(path)


def ensure_states(texts: list[str], encoder_name: str = "all-mpnet-base-v2", log: bool = True) -> list[Path]:
    """Encode every chunk of ``texts`` not yet on disk; return the chunk files in order."""
    paths = [_chunk_path(encoder_name, texts[s : s + CHUNK]) for s in range(0, len(texts), CHUNK)]
    missing = [k for k, p in enumerate(paths) if not p.is_file()]
    encoder = SentenceEncoder(encoder_name, threads=2) if missing else None
    started, done = time.perf_counter(), 0
    for k in missing:
        part = texts[k * CHUNK : (k + 1) * CHUNK]
        _encode_chunk(encoder, part, paths[k])
        done += len(part)
        if log:
            rate = done / (time.perf_counter() - started)
            left = sum(len(texts[m * CHUNK : (m + 1) * CHUNK]) for m in missing) - done
            print(f"chunk {k + 1}/{len(paths)}: {rate:.1f} texts/s, ~{left / rate / 60:.0f} min left", flush=True)
    return paths


@dataclass
class States:
    """What the frozen encoder made of a list of texts, row i for text i."""

    embedding: np.ndarray  # n × 768, the sentence embedding
    pooled: np.ndarray | None  # n × 13 × 768 float16, each layer's mean token state (when asked for)
    lengths: np.ndarray  # tokens per text
    tokens: np.ndarray | None  # (sum of lengths) × 768 float16 after layer ``layer``
    layer: int | None

    @property
    def offsets(self) -> np.ndarray:
        return np.concatenate([[0], np.cumsum(self.lengths)])


def load_states(
    texts: list[str], layer: int | None = None, pooled: bool = False, encoder_name: str = "all-mpnet-base-v2"
) -> States:
    """The states of ``texts`` (encoding what is missing); token states only when ``layer`` is given."""
    if layer is not None and layer not in LAYERS:
        raise ValueError(f"token states are kept after layers {LAYERS}, not {layer}")
    parts = [np.load(p) for p in ensure_states(texts, encoder_name)]
    return States(
        embedding=np.concatenate([p["embedding"] for p in parts]),
        pooled=np.concatenate([p["pooled"] for p in parts]) if pooled else None,
        lengths=np.concatenate([p["lengths"] for p in parts]),
        tokens=np.concatenate([p[f"tokens_{layer}"] for p in parts]) if layer is not None else None,
        layer=layer,
    )
