#!/usr/bin/env bash
# The rule pack's differential oracle, end to end (see README.md, "Oracle: rule pack"):
#   1. tests/data/oracle/rulepack-cases.json from the rules' examples (dev python, sgllint);
#   2. tests/data/oracle/rulepack-<v>.json: SGLang's own verdict per case, per release (oracle venvs);
#   3. tests/oracle/RULEPACK_AGREEMENT.md: sgllint vs SGLang, per rule x release.
# Usage: tests/oracle/run_rulepack_oracle.sh [0.5.23 0.5.10.post1 0.5.4.post3 0.5.19]   (exact PyPI versions)
# Env:
#   VENV      venv with torch 2.13.0 CPU          (default /tmp/sgl-oracle-venv; releases < 0.5.13)
#   VENV_TV   venv with torch 2.14.1+torchvision  (default /tmp/sgl-oracle-venv-tv; releases >= 0.5.13)
#   WHEELS    wheel cache (default /tmp/sgl-wheels);  SITE  per-release --target dirs (default /tmp/sgl-rp-site)
#   PYTHON    the python with sgllint installed (default: python)
#   ORACLE_ARGS  extra arguments for rulepack_oracle.py (default "--jobs 2")
# Both venvs are created by run_oracle.sh (ORACLE_TORCH=2.14.1 VENV=$VENV_TV for the second one).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
VENV="${VENV:-/tmp/sgl-oracle-venv}"
VENV_TV="${VENV_TV:-/tmp/sgl-oracle-venv-tv}"
WHEELS="${WHEELS:-/tmp/sgl-wheels}"
SITE="${SITE:-/tmp/sgl-rp-site}"
PYTHON="${PYTHON:-python}"
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
if [ "$#" -eq 0 ]; then set -- 0.5.23 0.5.10.post1 0.5.4.post3 0.5.19; fi
mkdir -p "$WHEELS" "$repo/tests/data/oracle"
(cd "$repo" && "$PYTHON" -m tests.oracle.rulepack_cases)
for full in "$@"; do
  t0=$(date +%s)
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
  (cd /tmp && PYTHONPATH="$target" "$venv/bin/python" "$here/rulepack_oracle.py" \
      --wheel "$(basename "$whl")" --cases "$repo/tests/data/oracle/rulepack-cases.json" \
      --out "$repo/tests/data/oracle/rulepack-$base.json" ${ORACLE_ARGS:---jobs 2})
  echo "[$full] $(( $(date +%s) - t0 ))s"
done
(cd "$repo" && "$PYTHON" -m tests.oracle.rulepack_agreement --write)
