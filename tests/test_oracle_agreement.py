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


def test_agreement_table_is_current():
    table, _ = agreement.compare()
    published = (Path(agreement.__file__).parent / "AGREEMENT.md").read_text()
    assert published == agreement.markdown(table), "run: python -m tests.oracle.agreement > tests/oracle/AGREEMENT.md"
