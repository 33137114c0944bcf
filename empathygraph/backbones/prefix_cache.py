"""The embedded model's reading of the system prompt, kept on disk between processes.

Every prompt starts with the same system message (~420 tokens with the default one), which
the 1.5B model reads in ~6.5 s on 2 cores: the first turn of every new process (``run``,
``chat``, a ``serve`` worker, a benchmark) paid it again. Its KV-cache entries are 12 MB and
load in ~10 ms, giving the same logits as reading it. A file is named by everything that
shapes those entries (llama.cpp's version, the model file, the context size, the tokens), so
a changed prompt or model simply misses; a file that cannot be loaded is removed and the
tokens are read as before. Only the ``KEEP`` files used last are kept (a changed prompt or model
leaves its old file behind).
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import llama_cpp
import numpy as np

SEQUENCE = 0  # the one sequence a Llama uses
KEEP = 8  # files kept: the ones used last (a restore marks a file used)


class PrefixCache:
    """KV-cache entries of prompt prefixes, one file each under ``folder``."""

    def __init__(self, folder: Path, keep: int = KEEP) -> None:
        self.folder, self.keep = folder, keep

    def path_for(self, llama: Any, tokens: Sequence[int]) -> Path:
        """The file for ``tokens`` read by ``llama`` (its llama.cpp version, model file and context size)."""
        model = Path(llama.model_path)
        stat = model.stat()
        digest = hashlib.sha256()
        for part in (llama_cpp.__version__, model.name, stat.st_size, stat.st_mtime_ns, llama.n_ctx()):
            digest.update(f"{part}\0".encode())
        digest.update(np.asarray(tokens, dtype=np.int32).tobytes())
        return self.folder / f"{model.stem[:40]}-{digest.hexdigest()[:24]}.kv"

    def restore(self, llama: Any, tokens: Sequence[int]) -> bool:
        """Put the saved entries of ``tokens`` into ``llama``'s empty context; False when there are none
        or they do not load (the file is then removed and the context left empty)."""
        path = self.path_for(llama, tokens)
        try:
            data = path.read_bytes()
        except OSError:
            return False
        buffer = (ctypes.c_uint8 * len(data)).from_buffer_copy(data)
        if llama_cpp.llama_state_seq_set_data(llama.ctx, buffer, len(data), SEQUENCE) != len(data):
            llama._ctx.kv_cache_seq_rm(-1, 0, -1)
            path.unlink(missing_ok=True)
            return False
        llama.input_ids[: len(tokens)] = tokens
        llama.n_tokens = len(tokens)
        try:
            os.utime(path)
        except OSError:  # removed by another process's pruning meanwhile: the entries are loaded anyway
            pass
        return True

    def save(self, llama: Any, tokens: Sequence[int]) -> None:
        """Keep the entries of ``tokens``, which must be all that ``llama``'s context holds (written whole,
        then renamed, so a reader in another process never sees half a file)."""
        if llama.n_tokens != len(tokens):
            raise ValueError(f"the context holds {llama.n_tokens} tokens, not the {len(tokens)} to keep")
        size = llama_cpp.llama_state_seq_get_size(llama.ctx, SEQUENCE)
        buffer = (ctypes.c_uint8 * size)()
        written = llama_cpp.llama_state_seq_get_data(llama.ctx, buffer, size, SEQUENCE)
        path = self.path_for(llama, tokens)
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path.parent, suffix=".part", delete=False) as part:
            part.write(bytes(buffer[:written]))
        os.replace(part.name, path)
        self.prune()

    def prune(self) -> None:
        """Remove all but the ``keep`` files used last."""
        def used(path: Path) -> float:
            try:
                return path.stat().st_mtime
            except OSError:
                return float("inf")  # gone already

        for stale in sorted(self.folder.glob("*.kv"), key=used, reverse=True)[self.keep:]:
            stale.unlink(missing_ok=True)
