#!/usr/bin/env bash
# Written for SGLang 0.5.4, now deployed on the newest image.
# `sgllint check --show-context` shows which release each launch is judged against.
python -m sglang.launch_server \
  --model-path deepseek-ai/DeepSeek-R1 \
  --tp 8 \
  --enable-ep-moe \
  --cuda-graph-max-bs 128
