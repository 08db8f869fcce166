#!/usr/bin/env bash
# The random differential's oracle (see README.md, "Oracle: random differential"):
# tests/data/oracle/random/random-<release>.json.gz, SGLang's own verdict on the seeded random
# launches of tests/oracle/random_launches.py, per release.
# Usage: tests/oracle/run_random_oracle.sh [0.5.23 0.5.19 0.5.15.post1 0.5.10.post1 0.5.4.post3 0.4.10.post2]
#        (exact PyPI versions: the catalogs' `source` wheels)
# Env:
#   VENV      venv with torch 2.13.0 CPU          (default /tmp/sgl-oracle-venv; releases < 0.5.13)
#   VENV_TV   venv with torch 2.14.1+torchvision  (default /tmp/sgl-oracle-venv-tv; releases >= 0.5.13)
#   WHEELS    wheel cache (default /tmp/sgl-wheels);  SITE  per-release --target dirs (default /tmp/sgl-rp-site)
#   ORACLE_ARGS  extra arguments for random_oracle.py (default "--jobs 2"; e.g. "--n 200 --gpus H100")
#   OUT_DIR   where the fixtures go (default tests/data/oracle/random)
# Both venvs are created by run_oracle.sh (ORACLE_TORCH=2.14.1 VENV=$VENV_TV for the second one).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
SITE="${SITE:-/tmp/sgl-rp-site}"
# shellcheck source=_oracle_env.sh
. "$here/_oracle_env.sh"
if [ "$#" -eq 0 ]; then set -- 0.5.23 0.5.19 0.5.15.post1 0.5.10.post1 0.5.4.post3 0.4.10.post2; fi
OUT_DIR="${OUT_DIR:-$repo/tests/data/oracle/random}"
mkdir -p "$OUT_DIR"
for full in "$@"; do
  t0=$(date +%s)
  oracle_release "$full"
  # shellcheck disable=SC2086
  (cd /tmp && PYTHONPATH="$target" "$venv/bin/python" "$here/random_oracle.py" --release "$base" \
      --wheel "$(basename "$whl")" --out "$OUT_DIR/random-$base.json.gz" ${ORACLE_ARGS:---jobs 2})
  echo "[$full] $(( $(date +%s) - t0 ))s"
done
