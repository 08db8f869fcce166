"""The rule pack agrees with SGLang's own verdicts on the committed oracle data
(``tests/data/oracle/rulepack-*.json``, made by ``tests/oracle/run_rulepack_oracle.sh``).
No SGLang or oracle venv is needed: the SGLang side is recorded, the sgllint side
is recomputed here."""

from __future__ import annotations

import pytest

from tests.oracle import rulepack_agreement as ra
from tests.oracle import rulepack_cases as rc

pytestmark = pytest.mark.skipif(not ra.CASES.exists(), reason="no rule-pack oracle data (run tests/oracle/run_rulepack_oracle.sh)")


@pytest.fixture(scope="module")
def compared():
    return ra.compare()


def test_no_unexplained_disagreement(compared):
    _, _, problems, _ = compared
    assert not problems, "sgllint and SGLang disagree (fix the rule or add a reason to ACCEPTED):\n" + "\n".join(problems)


def test_every_rule_pack_rule_has_oracle_cases_or_a_citation(compared):
    cases, table, _, _ = compared
    judged = {rule for (rule, _rel), row in table.items() if row["cases"]}
    missing = [r.code for r in rc.rulepack_rules() if r.code not in judged and r.code not in ra.OUTSIDE]
    assert not missing, (
        f"rule-pack rules without SGLang verdicts on their examples and without an 'outside the oracle' citation: {missing}; "
        "rerun tests/oracle/run_rulepack_oracle.sh"
    )


def test_every_release_of_the_matrix_was_run(compared):
    cases, table, _, _ = compared
    ran = {rel for (_r, rel), row in table.items() if row["cases"] or row["harness errors"]}
    assert set(cases["releases"]) <= ran, f"releases without oracle data: {sorted(set(cases['releases']) - ran)}"
