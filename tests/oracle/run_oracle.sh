#!/usr/bin/env bash
# Produce tests/data/option_strings/sglang-<v>.json from the real parsers.
# Usage: tests/oracle/run_oracle.sh 0.4.3.post4 0.4.10.post2 ...   (exact PyPI versions)
# Env: VENV (default /tmp/sgl-oracle-venv), WHEELS (default /tmp/sgl-wheels).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
VENV="${VENV:-/tmp/sgl-oracle-venv}"
WHEELS="${WHEELS:-/tmp/sgl-wheels}"
if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q torch==2.13.0
  "$VENV/bin/pip" install -q numpy orjson msgspec pydantic psutil requests packaging pyzmq fastapi \
      uvicorn aiohttp pybase64 setproctitle pillow tqdm einops huggingface_hub transformers pyyaml \
      uvloop prometheus-client python-multipart interegular partial-json-parser openai tiktoken blobfile dill
  "$VENV/bin/pip" install -q --no-deps xgrammar
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
