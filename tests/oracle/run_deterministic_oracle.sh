#!/usr/bin/env bash
# Produce tests/data/oracle/deterministic-<v>.json: SGLang's own verdict on a matrix of
# deterministic-inference launches (see deterministic_oracle.py and README.md).
# Usage: tests/oracle/run_deterministic_oracle.sh 0.5.23 0.5.4.post3 ...   (exact PyPI versions)
# Env:
#   VENV      venv with torch 2.13.0 CPU          (default /tmp/sgl-oracle-venv; releases < 0.5.13)
#   VENV_TV   venv with torch 2.14.1+torchvision  (default /tmp/sgl-oracle-venv-tv; releases >= 0.5.13,
#             whose transformers pin needs a torchvision that loads)
#   WHEELS    wheel cache (default /tmp/sgl-wheels);  SITE  per-release --target dirs (default /tmp/sgl-det-site)
#   ORACLE_ARGS  extra arguments for deterministic_oracle.py (e.g. "--gpus H100,B200 --jobs 2")
# Both venvs are created by run_oracle.sh (ORACLE_TORCH=2.14.1 VENV=$VENV_TV for the second one).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
VENV="${VENV:-/tmp/sgl-oracle-venv}"
VENV_TV="${VENV_TV:-/tmp/sgl-oracle-venv-tv}"
WHEELS="${WHEELS:-/tmp/sgl-wheels}"
SITE="${SITE:-/tmp/sgl-det-site}"
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
mkdir -p "$WHEELS" "$repo/tests/data/oracle"
for full in "$@"; do
  base="$(echo "$full" | sed -E 's/^([0-9]+(\.[0-9]+)*).*/\1/')"
  minor="$(echo "$base" | cut -d. -f3)"
  venv="$VENV"
  if [ "$(echo "$base" | cut -d. -f1-2)" = "0.5" ] && [ "${minor:-0}" -ge 13 ]; then venv="$VENV_TV"; fi
  if [ ! -x "$venv/bin/python" ]; then
    echo "missing venv $venv: create it with run_oracle.sh (see README.md)" >&2; exit 1
  fi
  whl="$(ls "$WHEELS"/sglang-"$full"-*.whl 2>/dev/null | head -1 || true)"
  if [ -z "$whl" ]; then
    pip download --no-deps -q "sglang==$full" -d "$WHEELS"
    whl="$(ls "$WHEELS"/sglang-"$full"-*.whl | head -1)"
  fi
  target="$SITE/$full"
  if [ ! -d "$target/sglang" ]; then
    "$venv/bin/pip" install -q --no-deps --target "$target" "$whl"
    pin="$(unzip -p "$whl" '*.dist-info/METADATA' | sed -nE 's/^Requires-Dist: transformers==([0-9][^ ;]*).*/\1/p' | head -1)"
    if [ -n "$pin" ]; then
      "$venv/bin/pip" install -q --target "$target" "transformers==$pin"
    fi
  fi
  # shellcheck disable=SC2086
  (cd /tmp && PYTHONPATH="$target" "$venv/bin/python" "$here/deterministic_oracle.py" \
      --wheel "$(basename "$whl")" --out "$repo/tests/data/oracle/deterministic-$base.json" ${ORACLE_ARGS:-})
done
