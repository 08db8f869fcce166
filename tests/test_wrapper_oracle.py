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


# --- coverage: which supported versions the recorded verdicts vouch for ---------------------

#: fields of a generated wrapper file that say which wheel it came from, not what its parsers do
_WHEEL_METADATA = frozenset({"notice", "version", "source"})

#: (package, entry point) -> versions whose parser no recorded verdict vouches for: neither that
#: version nor a version with identical parser data was run through the real package with this
#: entry. Kept exact, so the list shrinks when a fixture is added and a new release without
#: verdicts fails here until it is recorded (tests/oracle/run_wrapper_oracle*.sh) or listed.
KNOWN_UNVERIFIED: dict[tuple[str, str], tuple[str, ...]] = {
    ("ai-dynamo", "python -m dynamo.sglang.decode_worker"): (
        "0.4.0", "0.4.0.post0", "0.4.1", "0.5.0", "0.5.1",
    ),
    ("ai-dynamo", "python -m dynamo.sglang.worker"): (
        "0.4.0", "0.4.0.post0", "0.4.1", "0.5.0", "0.5.1",
    ),
    ("sglang-router", "python -m sglang_router.launch_server"): (
        "0.0.5", "0.0.6", "0.0.7", "0.0.8", "0.0.9", "0.0.10", "0.0.11", "0.1.0", "0.1.1", "0.1.2",
        "0.1.3", "0.1.4", "0.1.5", "0.1.6", "0.1.7", "0.1.8", "0.1.9", "0.2.0", "0.2.1", "0.2.2",
        "0.2.3", "0.3.0",
    ),
}


def _generated(package: str, version: str) -> dict:
    return json.loads((wrappers.DATA_DIR / f"{package}-{version}.json").read_text(encoding="utf-8"))


def _shape(data: dict) -> str:
    """The parser data without its wheel metadata: equal shapes judge every launch alike."""
    return json.dumps({k: v for k, v in data.items() if k not in _WHEEL_METADATA}, sort_keys=True)


def _unverified() -> set[tuple[str, str, str]]:
    # shape -> entry-point definitions that the real package judged for some version of that shape
    vouched: dict[str, list[dict]] = {}
    for path in FIXTURES:
        recorded = _load(path)
        data = _generated(recorded["package"], recorded["version"])
        entries = {c["entry"] for c in recorded["cases"] if c["verdict"] in ("accepted", "rejected", "exited")}
        vouched.setdefault(_shape(data), []).extend(data["entry_points"][e] for e in sorted(entries))
    missing = set()
    for package in wrappers.packages():
        for version in wrappers.versions(package):
            data = _generated(package, version)
            judged = vouched.get(_shape(data), [])
            for entry, definition in data["entry_points"].items():
                # console scripts bound to one function (amg, smg, sglang-router) share a definition
                if definition not in judged:
                    missing.add((package, version, entry))
    return missing


def test_every_supported_version_is_verified_or_a_known_gap():
    missing = _unverified()
    known = {(package, version, entry) for (package, entry), versions in KNOWN_UNVERIFIED.items() for version in versions}
    assert missing - known == set(), "versions without recorded verdicts, not listed as a gap"
    assert known - missing == set(), "listed as a gap but now verified: drop them from KNOWN_UNVERIFIED"
