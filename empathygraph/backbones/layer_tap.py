"""Read one transformer layer's outputs while llama.cpp reads a prompt (its graph eval callback).

A probe over a middle layer reads danger better than one over the model's final states (out of
writer on the safety set: false alarms 0.239 against 0.301 at 0.98 recall, averaged with the
encoder classifier; ``scripts/train_risk_probe.py --layer``). llama.cpp names each layer's output
``l_out-N`` and calls an eval callback, set when the context is made, for every node of its
graph: unarmed, the tap declines every node (about a thousand Python calls a token, no
measurable cost: 60 decoded tokens 4.69 s with and without it); armed, it asks for that one
layer's output and copies its rows as each batch is computed.
"""

from __future__ import annotations

import ctypes
from collections.abc import Iterator
from contextlib import contextmanager

import llama_cpp
import numpy as np
from llama_cpp._ggml import libggml

libggml.ggml_get_name.restype = ctypes.c_char_p
libggml.ggml_get_name.argtypes = [ctypes.c_void_p]
libggml.ggml_nelements.restype = ctypes.c_int64
libggml.ggml_nelements.argtypes = [ctypes.c_void_p]
libggml.ggml_get_data.restype = ctypes.c_void_p
libggml.ggml_get_data.argtypes = [ctypes.c_void_p]


class LayerTap:
    """Collects the rows (one per token read) of one layer's output while armed by ``reading``.

    Args:
        width: the model's hidden width (each row's length).
        layers: the model's number of layers.
    """

    def __init__(self, width: int, layers: int) -> None:
        self.width, self.layers = width, layers
        self._wanted: bytes | None = None
        self._rows: list[np.ndarray] = []
        self._error: str | None = None
        self.callback = llama_cpp.ggml_backend_sched_eval_callback(self._on_tensor)

    @contextmanager
    def reading(self, layer: int) -> Iterator[list[np.ndarray]]:
        """Arm the tap for ``layer`` (0-based); yields the list the rows of each computed batch go to.

        Raises:
            ValueError: no such layer, or the last one (llama.cpp keeps only its output rows: read
                the final states instead).
            RuntimeError: a row could not be copied.
        """
        if not 0 <= layer < self.layers - 1:
            raise ValueError(f"layer {layer} cannot be tapped: the model has layers 0-{self.layers - 1} "
                             "and the last one is read as the final states")
        self._wanted, self._rows, self._error = f"l_out-{layer}".encode(), [], None
        try:
            yield self._rows
        finally:
            self._wanted = None
        if self._error:
            raise RuntimeError(f"layer {layer} could not be read: {self._error}")

    def _on_tensor(self, tensor: int, ask: bool, _user_data: int) -> bool:
        # An exception must not escape into C (ctypes would return False: asked, "not needed";
        # after compute, "stop the graph"), so it is kept for ``reading`` to raise.
        try:
            if self._wanted is None or libggml.ggml_get_name(tensor) != self._wanted:
                return not ask
            if ask:
                return True
            count = libggml.ggml_nelements(tensor)
            data = ctypes.cast(libggml.ggml_get_data(tensor), ctypes.POINTER(ctypes.c_float))
            self._rows.append(np.ctypeslib.as_array(data, shape=(count // self.width, self.width)).copy())
        except Exception as exc:  # noqa: BLE001 - reported by ``reading``
            self._error = repr(exc)
        return True
