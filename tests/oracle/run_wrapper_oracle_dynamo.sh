#!/usr/bin/env bash
# Verdicts of Dynamo's real `python -m dynamo.sglang` parsing for generated launches:
# tests/data/oracle/wrappers/ai-dynamo-<v>.json (replayed by tests/test_wrapper_oracle.py).
# Usage: tests/oracle/run_wrapper_oracle_dynamo.sh 1.6.1=0.5.21 0.8.1=0.5.6.post2 0.4.1=0.5.1.post3
#        (ai-dynamo version = the exact SGLang version installed beside it: the wheel's pin, or,
#        where the pin has no shipped catalog (0.5.0rc2), the nearest release that has one)
# Env: VENV (the torch-2.13.0 CPU SGLang oracle venv of README.md), WHEELS (default /tmp/sgl-wheels),
#      SITE (per-pair --target dirs, default /tmp/sgl-dynamo-site), PYTHON (sgllint's).
# Each --target dir holds: ai-dynamo and ai-dynamo-runtime (the same version, --no-deps: the
# runtime's compiled dynamo._core/dynamo.llm/dynamo.runtime are real, never stubbed), the SGLang
# wheel --no-deps and the transformers==X it pins (when it pins one).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
VENV="${VENV:-/tmp/sgl-oracle-venv}"
WHEELS="${WHEELS:-/tmp/sgl-wheels}"
SITE="${SITE:-/tmp/sgl-dynamo-site}"
PYTHON="${PYTHON:-python}"
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
mkdir -p "$WHEELS" "$repo/tests/data/oracle/wrappers"
wheel() {  # wheel DIST VERSION -> path of the wheel in $WHEELS (downloaded once)
  local found
  found="$(ls "$WHEELS"/"$(echo "$1" | tr - _)"-"$2"-*.whl 2>/dev/null | head -1 || true)"
  if [ -z "$found" ]; then
    pip download --no-deps -q "$1==$2" -d "$WHEELS"
    found="$(ls "$WHEELS"/"$(echo "$1" | tr - _)"-"$2"-*.whl | head -1)"
  fi
  echo "$found"
}
for pair in "$@"; do
  v="${pair%%=*}" sv="${pair#*=}"
  dwhl="$(wheel ai-dynamo "$v")" rwhl="$(wheel ai-dynamo-runtime "$v")" swhl="$(wheel sglang "$sv")"
  target="$SITE/$v-$sv"
  if [ ! -d "$target/sglang" ]; then
    "$VENV/bin/pip" install -q --no-deps --target "$target" "$dwhl" "$rwhl" "$swhl"
    pin="$(unzip -p "$swhl" '*.dist-info/METADATA' | sed -nE 's/^Requires-Dist: transformers==([0-9][^ ;]*).*/\1/p' | head -1)"
    if [ -n "$pin" ]; then "$VENV/bin/pip" install -q --target "$target" "transformers==$pin"; fi
  fi
  cases="$(mktemp)"
  (cd "$repo" && "$PYTHON" -m tests.oracle.wrapper_cases ai-dynamo "$v" "python -m dynamo.sglang" > "$cases")
  (cd /tmp && PYTHONPATH="$target" "$VENV/bin/python" "$here/wrapper_oracle.py" --package ai-dynamo \
      --version "$v" --wheel "$dwhl" --sglang-wheel "$swhl" --cases "$cases" \
      --out "$repo/tests/data/oracle/wrappers/ai-dynamo-$v.json")
  rm -f "$cases"
done
