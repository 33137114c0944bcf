"""The sentence encoder's top layers tuned for one task, shipped as low-rank deltas, and a head over them.

The encoder stays frozen: its sentence embedding is what other tools read. A task reads the
token states after a middle layer (``start``) through copies of the remaining layers whose
linear maps carry a trained low-rank delta (LoRA: ``W + B @ A``) and whose layer norms are
retrained, then mean pooling and a linear head. A message is encoded once: the frozen pass
gives both the sentence embedding and the middle states, and each tuned top costs
``(layers - start) / layers`` of a pass more. A file holds only the deltas, the layer norms and
the head (about 1 MB at rank 8); the encoder's own weights come from its package.
"""

from __future__ import annotations

import copy
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np
import torch
from torch import nn

from empathygraph.errors import BackendError

# The linear maps of an MPNet layer that get a low-rank delta, and the norms that are retrained.
TARGETS = ("attention.attn.q", "attention.attn.k", "attention.attn.v", "attention.attn.o",
           "intermediate.dense", "output.dense")  # fmt: skip
NORMS = ("attention.LayerNorm", "output.LayerNorm")
Activation = Literal["softmax", "sigmoid"]


class LoRALinear(nn.Module):
    """A frozen linear map plus a trainable low-rank delta ``scale * B @ A`` (B starts at zero)."""

    def __init__(self, base: nn.Linear, rank: int, alpha: float, dropout: float = 0.0) -> None:
        super().__init__()
        self.base = base
        for p in base.parameters():
            p.requires_grad_(False)
        self.a = nn.Parameter(torch.empty(rank, base.in_features))
        self.b = nn.Parameter(torch.zeros(base.out_features, rank))
        nn.init.kaiming_uniform_(self.a, a=math.sqrt(5))
        self.scale = alpha / rank
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.base(x) + (self.dropout(x) @ self.a.T @ self.b.T) * self.scale


def _swap(root: nn.Module, dotted: str, new: nn.Module) -> None:
    parent_name, _, child = dotted.rpartition(".")
    setattr(root.get_submodule(parent_name) if parent_name else root, child, new)


def mean_pool(tokens: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Average of the token vectors the attention mask keeps (sentence-transformers' mean pooling)."""
    weights = mask[..., None].to(tokens.dtype)
    return (tokens * weights).sum(1) / weights.sum(1).clamp(min=1e-9)


class TunedTop(nn.Module):
    """Copies of an MPNet encoder's layers ``start``.. with LoRA deltas, mean pooling and a linear head.

    Args:
        encoder: the frozen ``MPNetModel`` (its layers are copied; its relative position bias is shared).
        start: the first layer copied; its input is the encoder's hidden state ``start``.
        outputs: the head's width (labels).
        rank, alpha: LoRA rank and scale numerator; ``rank = 0`` keeps the copied weights as they are.
        share_weights: the copies' linear maps share the encoder's weights instead of copying them
            (for inference: ~28 MB a layer saved; the deltas stay separate).
    """

    def __init__(self, encoder: nn.Module, start: int, outputs: int, rank: int = 8, alpha: float = 16.0,
                 dropout: float = 0.1, share_weights: bool = False) -> None:
        super().__init__()
        self.start, self.rank, self.alpha = start, rank, alpha
        self._frozen = (encoder.encoder,)  # a tuple keeps the shared position bias out of this module's parameters
        originals = encoder.encoder.layer[start:]
        # Sharing, the copies' linear maps hold the encoder's own weights (no copy in memory): only the
        # layer norms and the deltas are the top's. Training copies them all, so nothing it does reaches the encoder.
        shared = ({id(p): p for layer in originals for name in TARGETS for p in layer.get_submodule(name).parameters()}
                  if share_weights else {})
        self.layers = nn.ModuleList(copy.deepcopy(layer, dict(shared)) for layer in originals)  # deepcopy fills its memo
        for p in self.layers.parameters():
            p.requires_grad_(False)
        for layer in self.layers:
            for name in NORMS:
                for p in layer.get_submodule(name).parameters():
                    p.requires_grad_(True)
            if rank:
                for name in TARGETS:
                    _swap(layer, name, LoRALinear(layer.get_submodule(name), rank, alpha, dropout))
        self.dropout = nn.Dropout(dropout)
        self.head = nn.Linear(encoder.config.hidden_size, outputs)

    def forward(self, hidden: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """Logits (n x outputs) from hidden state ``start`` (n x tokens x dims) under ``mask`` (n x tokens)."""
        with torch.no_grad():
            bias = self._frozen[0].compute_position_bias(hidden)
        extended = (1.0 - mask[:, None, None, :].to(hidden.dtype)) * torch.finfo(hidden.dtype).min
        for layer in self.layers:
            hidden = layer(hidden, extended, bias)[0]
        return self.head(self.dropout(mean_pool(hidden, mask)))

    def arrays(self) -> dict[str, np.ndarray]:
        """The trained parts: deltas (float16, scale folded in), layer norms and head."""
        out = {"head_weight": self.head.weight.detach().numpy().astype(np.float32),
               "head_bias": self.head.bias.detach().numpy().astype(np.float32)}
        for i, layer in enumerate(self.layers):
            for name in NORMS:
                norm = layer.get_submodule(name)
                out[f"{i}.{name}.weight"] = norm.weight.detach().numpy().astype(np.float32)
                out[f"{i}.{name}.bias"] = norm.bias.detach().numpy().astype(np.float32)
            if self.rank:
                for name in TARGETS:
                    lora = layer.get_submodule(name)
                    out[f"{i}.{name}.a"] = lora.a.detach().numpy().astype(np.float16)
                    out[f"{i}.{name}.b"] = (lora.b.detach() * lora.scale).numpy().astype(np.float16)
        return out


@dataclass
class TopFile:
    """What a tuned-top file says about itself."""

    labels: list[str]
    encoder: str
    start: int
    activation: Activation
    meta: dict  # e.g. thresholds and what data it was trained on


def save_top(path: Path, top: TunedTop, info: TopFile) -> None:
    """Write a tuned top as a compressed npz."""
    np.savez_compressed(path, labels=np.array(info.labels), encoder=np.array(info.encoder),
                        start=np.array(info.start), activation=np.array(info.activation),
                        rank=np.array(top.rank), meta=np.array(json.dumps(info.meta)), **top.arrays())


class LoadedTop:
    """A saved tuned top applied to a loaded encoder: its layers share the encoder's linear weights and
    add the file's low-rank deltas to their outputs (merged into copies, each top would hold ~113 MB).

    Raises:
        BackendError: the file is missing.
    """

    def __init__(self, path: Path, encoder: nn.Module) -> None:
        if not path.is_file():
            raise BackendError(f"tuned encoder top not found at {path}")
        data = dict(np.load(path, allow_pickle=False))
        self.info = TopFile(labels=[str(x) for x in data["labels"]], encoder=str(data["encoder"]),
                            start=int(data["start"]), activation=str(data["activation"]),  # type: ignore[arg-type]
                            meta=json.loads(str(data["meta"])))
        rank = int(data["rank"])  # the file's b carries the scale: alpha = rank makes it 1
        top = TunedTop(encoder, self.info.start, len(self.info.labels), rank=rank, alpha=float(rank), dropout=0.0,
                       share_weights=True)
        with torch.no_grad():
            for i, layer in enumerate(top.layers):
                for name in NORMS:
                    norm = layer.get_submodule(name)
                    norm.weight.copy_(torch.from_numpy(data[f"{i}.{name}.weight"]))
                    norm.bias.copy_(torch.from_numpy(data[f"{i}.{name}.bias"]))
                for name in TARGETS if rank else ():
                    lora = layer.get_submodule(name)
                    lora.a.copy_(torch.from_numpy(data[f"{i}.{name}.a"].astype(np.float32)))
                    lora.b.copy_(torch.from_numpy(data[f"{i}.{name}.b"].astype(np.float32)))
            top.head.weight.copy_(torch.from_numpy(data["head_weight"]))
            top.head.bias.copy_(torch.from_numpy(data["head_bias"]))
        self.top = top.eval()

    def probabilities(self, hidden: torch.Tensor, mask: torch.Tensor) -> np.ndarray:
        """Per row: softmax over the labels, or each label's own sigmoid."""
        with torch.inference_mode():
            logits = self.top(hidden, mask)
            probs = torch.softmax(logits, dim=-1) if self.info.activation == "softmax" else torch.sigmoid(logits)
        return probs.numpy()
