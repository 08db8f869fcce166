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
SITE="${SITE:-/tmp/sgl-det-site}"
# shellcheck source=_oracle_env.sh
. "$here/_oracle_env.sh"
for full in "$@"; do
  oracle_release "$full"
  # shellcheck disable=SC2086
  (cd /tmp && PYTHONPATH="$target" "$venv/bin/python" "$here/deterministic_oracle.py" \
      --wheel "$(basename "$whl")" --out "$repo/tests/data/oracle/deterministic-$base.json" ${ORACLE_ARGS:-})
done
