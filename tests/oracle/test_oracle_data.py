"""Well-formedness of the deterministic-inference oracle data
(``tests/data/oracle/deterministic-<release>.json``, made by
``tests/oracle/deterministic_oracle.py``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parents[1] / "data" / "oracle"
FILES = sorted(DATA.glob("deterministic-*.json"))
VERDICTS = {"accepted", "rejected", "harness-error"}
MODES = {"flag", "rl_on_policy_target", "off"}


def _load(path: Path) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8"))


def test_there_is_oracle_data():
    assert FILES, f"no deterministic-*.json under {DATA}"


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_file_is_well_formed(path: Path):
    records = _load(path)
    assert isinstance(records, list) and records
    release = path.name[len("deterministic-") : -len(".json")]
    seen = set()
    for r in records:
        assert r["release"].startswith(release), r["release"]
        assert isinstance(r["arch"], str) and r["arch"]
        assert isinstance(r["gpu"], str) and r["gpu"]
        assert isinstance(r["sm"], list) and len(r["sm"]) == 2 and all(isinstance(x, int) for x in r["sm"])
        assert r["backend_arg"] is None or isinstance(r["backend_arg"], str)
        assert r["deterministic"] in MODES
        assert r["tp_size"] == 1
        assert r["verdict"] in VERDICTS
        assert isinstance(r["radix_disabled"], bool)
        if r["verdict"] == "accepted":
            assert isinstance(r["backend"], str) and r["backend"], r
            assert r["error"] is None
        elif r["verdict"] == "rejected":
            assert isinstance(r["error"], str) and r["error"], r
            assert r["error_class"]
            assert not r["error"].startswith("harness-error")
        else:
            assert isinstance(r["error"], str) and r["error"].startswith("harness-error"), r
        key = (r["gpu"], r["arch"], r["backend_arg"], r["deterministic"])
        assert key not in seen, f"duplicate case {key}"
        seen.add(key)


def test_seed_case_is_rejected():
    """The seed error: DeepSeek-V3 on H100, deterministic, --attention-backend flashinfer."""
    path = DATA / "deterministic-0.5.23.json"
    assert path.exists(), path
    hits = [
        r
        for r in _load(path)
        if r["arch"] == "DeepseekV3ForCausalLM"
        and r["sm"] == [9, 0]
        and r["backend_arg"] == "flashinfer"
        and r["deterministic"] in ("flag", "rl_on_policy_target")
    ]
    assert hits
    for r in hits:
        assert r["verdict"] == "rejected", r
        assert r["error"].startswith("Currently only"), r["error"]
        assert "absorbed-MLA" in r["error"]
