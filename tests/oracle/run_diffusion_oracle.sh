#!/usr/bin/env bash
# Verdicts of SGLang's real diffusion dispatch (sglang serve / sglang generate) for generated
# launches: tests/data/oracle/diffusion/sglang-<release>.json (replayed by
# tests/test_diffusion_oracle.py).
# Usage: tests/oracle/run_diffusion_oracle.sh 0.5.23 0.5.19 0.5.10.post1   (exact PyPI versions)
# Env: VENV (the torch-2.13.0 CPU oracle venv of README.md for releases < 0.5.13; the
#      torch-2.14.1 + torchvision one for 0.5.13+, whose transformers pins need torchvision),
#      USE_VENV_TRANSFORMERS=1 (skip the release's transformers pin: 0.5.23 was run so, with
#      the venv's 5.24.0), WHEELS (default /tmp/sgl-wheels), SITE (per-release
#      --target dirs, default /tmp/sgl-diffusion-site), EXTRA (a --target dir with `diffusers`
#      installed --no-deps, default $SITE/_diffusers), PYTHON (sgllint's).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
VENV="${VENV:-/tmp/sgl-oracle-venv}"
WHEELS="${WHEELS:-/tmp/sgl-wheels}"
SITE="${SITE:-/tmp/sgl-diffusion-site}"
EXTRA="${EXTRA:-$SITE/_diffusers}"
PYTHON="${PYTHON:-python}"
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
mkdir -p "$WHEELS" "$repo/tests/data/oracle/diffusion"
[ -d "$EXTRA/diffusers" ] || "$VENV/bin/pip" install -q --no-deps --target "$EXTRA" diffusers
for full in "$@"; do
  base="$(echo "$full" | sed -E 's/^([0-9]+(\.[0-9]+)*).*/\1/')"
  whl="$(ls "$WHEELS"/sglang-"$full"-*.whl 2>/dev/null | head -1 || true)"
  if [ -z "$whl" ]; then
    pip download --no-deps -q "sglang==$full" -d "$WHEELS"
    whl="$(ls "$WHEELS"/sglang-"$full"-*.whl | head -1)"
  fi
  target="$SITE/$full"
  if [ ! -d "$target/sglang" ]; then
    "$VENV/bin/pip" install -q --no-deps --target "$target" "$whl"
  fi
  # the transformers the release pins (a newer one can refuse its config registrations)
  pin="$(unzip -p "$whl" '*.dist-info/METADATA' | sed -nE 's/^Requires-Dist: transformers==([0-9][^ ;]*).*/\1/p' | head -1)"
  if [ -n "$pin" ] && [ ! -d "$target/transformers-$pin.dist-info" ] && [ "${USE_VENV_TRANSFORMERS:-0}" != 1 ]; then
    "$VENV/bin/pip" install -q --target "$target" "transformers==$pin"
  fi
  cases="$(mktemp)"
  (cd "$repo" && "$PYTHON" -m tests.oracle.diffusion_cases "$base" > "$cases")
  (cd /tmp && PYTHONPATH="$target:$EXTRA" "$VENV/bin/python" "$here/diffusion_oracle.py" \
      --wheel "$whl" --cases "$cases" --out "$repo/tests/data/oracle/diffusion/sglang-$base.json")
  rm -f "$cases"
done
