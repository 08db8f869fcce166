"""The generated wrapper parsers against the wrappers' real parsers.

`tests/data/oracle/wrappers/*.json` holds the verdicts of each package's own
parser for generated launches (tests/oracle/run_wrapper_oracle.sh, run with
the real wheels); here the generated data (`sgllint.catalog.wrappers`)
replays every case without the packages and must reach the same verdict
for the same reason.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sgllint.catalog import load, resolve_version, wrappers

ORACLE_DIR = Path(__file__).parent / "data" / "oracle" / "wrappers"
FIXTURES = sorted(ORACLE_DIR.glob("*.json"))


def _load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def test_fixtures_exist():
    assert FIXTURES, "no recorded wrapper verdicts"


@pytest.mark.parametrize("path", FIXTURES, ids=[p.stem for p in FIXTURES])
def test_replay_matches_real_parser(path: Path):
    data = _load(path)
    w = wrappers.load(data["package"], data["version"])
    assert w.source == data["wheel"], "verdicts were recorded from another wheel than the data"
    # launch_server: the SGLang release installed beside the router joins its parser
    sglang = load(resolve_version(data["sglang"])) if data.get("sglang") else None
    if sglang is not None:
        assert sglang.source == data["sglang_wheel"]
    judged = [c for c in data["cases"] if c["verdict"] in ("accepted", "rejected", "exited")]
    per_entry: dict[str, int] = {}
    for c in judged:
        per_entry[c["entry"]] = per_entry.get(c["entry"], 0) + 1
    assert min(per_entry.values()) >= 200
    disagreements = []
    for case in judged:
        got = w.judge(case["entry"], case["argv"], sglang)
        expected_reason = case.get("reason")
        if got.outcome.value != case["verdict"] or (
            case["verdict"] == "rejected" and (got.reason.value if got.reason else None) != expected_reason
        ):
            disagreements.append((case["entry"], case["argv"], case["verdict"], expected_reason, got))
    assert not disagreements, disagreements[:5]


@pytest.mark.parametrize("path", FIXTURES, ids=[p.stem for p in FIXTURES])
def test_cases_cover_both_outcomes(path: Path):
    verdicts = {c["verdict"] for c in _load(path)["cases"]}
    assert {"accepted", "rejected"} <= verdicts
    reasons = {c.get("reason") for c in _load(path)["cases"] if c["verdict"] == "rejected"}
    assert {"unrecognized", "invalid_choice", "expected_value"} <= reasons
