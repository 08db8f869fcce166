#!/usr/bin/env bash
# Verdicts of sglang-router's real parsers for generated launches:
# tests/data/oracle/wrappers/sglang-router-<v>.json (replayed by tests/test_wrapper_oracle.py).
# Usage: tests/oracle/run_wrapper_oracle.sh 0.3.2 0.2.4 ...   (exact PyPI versions)
# Env: VENV (a venv with setproctitle, fastapi, uvicorn, aiohttp, orjson, requests: the
#      SGLang oracle venv of README.md has them), WHEELS (default /tmp/sgl-wheels),
#      SITE (per-release --target dirs, default /tmp/sgl-router-site), PYTHON (sgllint's),
#      LAUNCH_SERVER_SGLANG (an exact SGLang version: then only `python -m sglang_router.launch_server`
#      is run, with that SGLang installed --no-deps in $SGLANG_SITE/<version> (default
#      /tmp/sgl-diffusion-site) beside the router; written to sglang-router-<v>-launch_server.json).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
VENV="${VENV:-/tmp/sgl-oracle-venv}"
WHEELS="${WHEELS:-/tmp/sgl-wheels}"
SITE="${SITE:-/tmp/sgl-router-site}"
PYTHON="${PYTHON:-python}"
mkdir -p "$WHEELS" "$repo/tests/data/oracle/wrappers"
for v in "$@"; do
  whl="$(ls "$WHEELS"/sglang_router-"$v"-*.whl 2>/dev/null | head -1 || true)"
  if [ -z "$whl" ]; then
    pip download --no-deps -q "sglang-router==$v" -d "$WHEELS"
    whl="$(ls "$WHEELS"/sglang_router-"$v"-*.whl | head -1)"
  fi
  target="$SITE/$v"
  [ -d "$target/sglang_router" ] || "$VENV/bin/pip" install -q --no-deps --target "$target" "$whl"
  entries=("python -m sglang_router.launch_router")
  if unzip -Z1 "$whl" | grep -c "sglang_router/cli.py" > /dev/null; then entries+=("sglang-router"); fi
  path="$target" out="$repo/tests/data/oracle/wrappers/sglang-router-$v.json" extra=()
  if [ -n "${LAUNCH_SERVER_SGLANG:-}" ]; then
    SGLANG_SITE="${SGLANG_SITE:-/tmp/sgl-diffusion-site}"
    swhl="$(ls "$WHEELS"/sglang-"$LAUNCH_SERVER_SGLANG"-*.whl 2>/dev/null | head -1 || true)"
    if [ -z "$swhl" ]; then
      pip download --no-deps -q "sglang==$LAUNCH_SERVER_SGLANG" -d "$WHEELS"
      swhl="$(ls "$WHEELS"/sglang-"$LAUNCH_SERVER_SGLANG"-*.whl | head -1)"
    fi
    if [ ! -d "$SGLANG_SITE/$LAUNCH_SERVER_SGLANG/sglang" ]; then
      "$VENV/bin/pip" install -q --no-deps --target "$SGLANG_SITE/$LAUNCH_SERVER_SGLANG" "$swhl"
      # the transformers the SGLang wheel pins (older releases do not import with today's)
      pin="$(unzip -p "$swhl" '*.dist-info/METADATA' | sed -nE 's/^Requires-Dist: transformers==([0-9][^ ;]*).*/\1/p' | head -1)"
      if [ -n "$pin" ]; then "$VENV/bin/pip" install -q --target "$SGLANG_SITE/$LAUNCH_SERVER_SGLANG" "transformers==$pin"; fi
    fi
    entries=("python -m sglang_router.launch_server")
    path="$target:$SGLANG_SITE/$LAUNCH_SERVER_SGLANG" out="${out%.json}-launch_server.json" extra=(--sglang-wheel "$swhl")
  fi
  cases="$(mktemp)"
  (cd "$repo" && "$PYTHON" -m tests.oracle.wrapper_cases sglang-router "$v" "${entries[@]}" > "$cases")
  (cd /tmp && HF_HUB_OFFLINE=1 PYTHONPATH="$path" "$VENV/bin/python" "$here/wrapper_oracle.py" --package sglang-router \
      --version "$v" --wheel "$whl" --cases "$cases" --out "$out" "${extra[@]}")
  rm -f "$cases"
done
