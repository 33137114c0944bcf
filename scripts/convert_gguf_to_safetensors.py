"""Convert a GGUF model to a bf16 safetensors folder that vLLM can serve.

vLLM's CPU build cannot read GGUF. This dequantizes the GGUF with transformers
(which needs the ``gguf`` and ``accelerate`` packages) and writes a plain
Hugging Face folder. Run it with the Python of the vLLM environment:

    .vllm-venv/bin/python scripts/convert_gguf_to_safetensors.py GGUF_FILE OUT_DIR
"""

from __future__ import annotations

import argparse
from pathlib import Path

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer


def convert(gguf: Path, out_dir: Path) -> Path:
    """Write ``out_dir`` (config, tokenizer, bf16 weights) from ``gguf``; return it."""
    model = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name, dtype=torch.bfloat16)
    tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
    # The weights are dequantized now; without this, save_pretrained would record the
    # GGUF quantizer in config.json and vLLM would try to load a GGUF checkpoint.
    model.hf_quantizer = None
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    out_dir.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out_dir, safe_serialization=True)
    tokenizer.save_pretrained(out_dir)
    return out_dir


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("gguf", type=Path)
    parser.add_argument("out_dir", type=Path)
    args = parser.parse_args()
    print(convert(args.gguf, args.out_dir))


if __name__ == "__main__":
    main()
