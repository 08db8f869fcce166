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
SITE="${SITE:-/tmp/sgl-rp-site}"
PYTHON="${PYTHON:-python}"
# shellcheck source=_oracle_env.sh
. "$here/_oracle_env.sh"
if [ "$#" -eq 0 ]; then set -- 0.5.23 0.5.10.post1 0.5.4.post3 0.5.19; fi
(cd "$repo" && "$PYTHON" -m tests.oracle.rulepack_cases)
for full in "$@"; do
  t0=$(date +%s)
  oracle_release "$full"
  # shellcheck disable=SC2086
  (cd /tmp && PYTHONPATH="$target" "$venv/bin/python" "$here/rulepack_oracle.py" \
      --wheel "$(basename "$whl")" --cases "$repo/tests/data/oracle/rulepack-cases.json" \
      --out "$repo/tests/data/oracle/rulepack-$base.json" ${ORACLE_ARGS:---jobs 2})
  echo "[$full] $(( $(date +%s) - t0 ))s"
done
(cd "$repo" && "$PYTHON" -m tests.oracle.rulepack_agreement --write)
