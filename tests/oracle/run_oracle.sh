#!/usr/bin/env bash
# Produce tests/data/option_strings/sglang-<v>.json from the real parsers.
# Usage: tests/oracle/run_oracle.sh 0.4.3.post4 0.4.10.post2 ...   (exact PyPI versions)
# Env: VENV (default /tmp/sgl-oracle-venv), WHEELS (default /tmp/sgl-wheels),
#      ORACLE_TORCH (default 2.13.0: the CPU build on this disk; 2.14.1: torch 2.14.1 +
#      torchvision 0.29.1 (CUDA build, ~5.5 GB), needed from 0.5.13 on, whose transformers
#      pin imports torchvision -- use a separate VENV for it).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
VENV="${VENV:-/tmp/sgl-oracle-venv}"
ORACLE_TORCH="${ORACLE_TORCH:-2.13.0}"
WHEELS="${WHEELS:-/tmp/sgl-wheels}"
if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv "$VENV"
  if [ "$ORACLE_TORCH" = "2.14.1" ]; then
    "$VENV/bin/pip" install -q torch==2.14.1 torchvision==0.29.1
  else
    "$VENV/bin/pip" install -q torch==2.13.0
  fi
  "$VENV/bin/pip" install -q numpy orjson msgspec pydantic psutil requests packaging pyzmq fastapi \
      uvicorn aiohttp pybase64 setproctitle pillow tqdm einops huggingface_hub transformers pyyaml \
      uvloop prometheus-client python-multipart interegular partial-json-parser openai tiktoken blobfile dill
  "$VENV/bin/pip" install -q --no-deps xgrammar
  # xgrammar >= 0.2 imports tvm_ffi (0.5.19 imports xgrammar while building the parser)
  "$VENV/bin/pip" install -q "apache-tvm-ffi>=0.1.11" || true
fi
mkdir -p "$WHEELS"
for full in "$@"; do
  base="$(echo "$full" | sed -E 's/^([0-9]+(\.[0-9]+)*).*/\1/')"
  whl="$(ls "$WHEELS"/sglang-"$full"-*.whl 2>/dev/null | head -1 || true)"
  if [ -z "$whl" ]; then
    pip download --no-deps -q "sglang==$full" -d "$WHEELS"
    whl="$(ls "$WHEELS"/sglang-"$full"-*.whl | head -1)"
  fi
  target="/tmp/sgl-oracle-site/$full"
  rm -rf "$target"
  "$VENV/bin/pip" install -q --no-deps --target "$target" "$whl"
  # The release pins transformers; older pins need the matching version
  # (installed with its own deps into the release's private site dir).
  pin="$(unzip -p "$whl" '*.dist-info/METADATA' | sed -nE 's/^Requires-Dist: transformers==([0-9][^ ;]*).*/\1/p' | head -1)"
  if [ -n "$pin" ]; then
    "$VENV/bin/pip" install -q --target "$target" "transformers==$pin"
  fi
  (cd /tmp && PYTHONPATH="$target" "$VENV/bin/python" "$here/dump_option_strings.py" \
      --wheel "$(basename "$whl")" --out "$repo/tests/data/option_strings/sglang-$base.json")
done
