# shellcheck shell=bash
# Sourced by run_deterministic_oracle.sh and run_rulepack_oracle.sh (after `set -euo pipefail`,
# with $repo and $SITE set): the oracle venvs, the wheel cache and each release's --target dir.
# Env: VENV, VENV_TV, WHEELS (documented in those scripts).
VENV="${VENV:-/tmp/sgl-oracle-venv}"
VENV_TV="${VENV_TV:-/tmp/sgl-oracle-venv-tv}"
WHEELS="${WHEELS:-/tmp/sgl-wheels}"
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
mkdir -p "$WHEELS" "$repo/tests/data/oracle"

# oracle_release FULL (an exact PyPI version): sets
#   base    the release (0.5.10 for 0.5.10.post1),
#   venv    $VENV for releases < 0.5.13, else $VENV_TV (exits when it is missing),
#   whl     the wheel, downloaded into $WHEELS once,
#   target  $SITE/FULL: the wheel --no-deps plus the transformers==X it pins, installed once.
oracle_release() {
  full="$1"
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
}
