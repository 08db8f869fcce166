#!/usr/bin/env bash
# Three mistakes that would only show up on the GPU node, at start-up.
set -euo pipefail

MODEL=deepseek-ai/DeepSeek-V3

python3 -m sglang.launch_server \
  --model-path "$MODEL" \
  --tp-size 8 \
  --attention-backend flash_infer \
  --enable_metrics \
  --trust-remote-code \ 
  --mem-fraction-static 0.8 \
  --port 30000
