#!/usr/bin/env bash
# A clean single-node launch: sgllint reports nothing here.
set -euo pipefail

MODEL=Qwen/Qwen2.5-7B-Instruct
PORT=${PORT:-30000}

python3 -m sglang.launch_server \
  --model-path "$MODEL" \
  --host 0.0.0.0 \
  --port "$PORT" \
  --tp-size 2 \
  --mem-fraction-static 0.85 \
  --attention-backend flashinfer \
  --enable-metrics
