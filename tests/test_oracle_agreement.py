"""sgllint's verdicts equal SGLang's own on every recorded oracle case, or
the difference is listed with its reason (tests/oracle/agreement.py), and the
published table (tests/oracle/AGREEMENT.md) is current."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.oracle import agreement

pytestmark = pytest.mark.skipif(not list(agreement.DATA.glob("deterministic-*.json")), reason="no oracle data")


def test_every_disagreement_is_explained():
    table, problems = agreement.compare()
    assert not problems, "\n".join(problems[:30])
    assert "0.5.23" in table and table["0.5.23"]["cases"] > 0


#: releases whose SGLang verdicts are recorded (tests/oracle/README.md): 0.5.23 and
#: older releases across the history of the check (sglang.md section 2.4)
ORACLE_RELEASES = ("0.5.4", "0.5.5", "0.5.10", "0.5.13", "0.5.15", "0.5.17", "0.5.19", "0.5.23")


def test_the_oracle_covers_the_history():
    table, _ = agreement.compare()
    assert set(ORACLE_RELEASES) <= set(table), sorted(set(ORACLE_RELEASES) - set(table))
    for rel in ORACLE_RELEASES:
        assert table[rel]["cases"] >= 500 and table[rel]["disagree"] == 0, (rel, dict(table[rel]))


def test_harness_errors_are_not_verdicts_and_are_explained():
    table, problems = agreement.compare()
    assert not [p for p in problems if "harness error" in p]
    for rel, counts in table.items():
        explained = sum(v for k, v in counts.items() if k.startswith("harness: "))
        assert explained == counts["harness errors (not SGLang verdicts)"], rel


def test_agreement_table_is_current():
    table, _ = agreement.compare()
    published = (Path(agreement.__file__).parent / "AGREEMENT.md").read_text()
    assert published == agreement.markdown(table), "run: python -m tests.oracle.agreement > tests/oracle/AGREEMENT.md"
