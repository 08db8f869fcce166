#!/usr/bin/env bash
# Two-node tensor parallelism with an array of shared arguments.
set -euo pipefail

NODE_RANK=${NODE_RANK:?set NODE_RANK}
COMMON_ARGS=(
  --model-path meta-llama/Llama-3.1-405B-Instruct
  --tp-size 16
  --nnodes 2
  --dist-init-addr 10.0.0.1:5000
)

exec sglang serve "${COMMON_ARGS[@]}" \
  --node-rank "$NODE_RANK" \
  --port 30000 --port 30001
