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


def test_warning_rules_agree_with_observed_rewrites(compared):
    """A rewrite warning (SGL241, SGL243-SGL246) fires on its own accepted cases
    exactly when SGLang's effective value differs from the explicit one."""
    warn_table, warn_problems, _ = ra.COMPARED["warnings"]
    assert not warn_problems, (
        "a warning rule and SGLang's effective values disagree (fix the rule or add a reason to WARN_ACCEPTED):\n"
        + "\n".join(warn_problems)
    )
    judged = {rule for (rule, _rel), row in warn_table.items() if row["cases"]}
    assert set(ra.REWRITES) <= judged, f"rewrite rules without accepted cases carrying effective values: {sorted(set(ra.REWRITES) - judged)}"
    missing = [rel for rel in compared[0]["releases"]
               if not any(row["cases"] for (_r, r2), row in warn_table.items() if r2 == rel)]
    assert not missing, f"no effective values recorded for {missing}: rerun tests/oracle/run_rulepack_oracle.sh"


def test_every_warning_rule_is_judged_or_explained(compared):
    cases = compared[0]
    warning_rules = sorted(code for code, meta in cases["rules"].items() if meta["severity"] == "warning")
    unjudged = [r for r in warning_rules if r not in ra.REWRITES and r not in ra.NOT_A_REWRITE]
    assert not unjudged, f"warning-severity rules neither in REWRITES nor in NOT_A_REWRITE: {unjudged}"
