"""`sgllint sglang-coverage`: the generator's site inventory per class, and which sites a launch's
facts can decide (issue 17 item 4)."""

import json

from sgllint.catalog import validation as data
from sgllint.hosts import cli, coverage


def _json(capsys, *argv):
    assert cli.main(["sglang-coverage", *argv, "--output-format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_counts_match_the_inventory(capsys):
    rep = _json(capsys, "--sglang-version", "0.5.23")
    rel = data.load("0.5.23")
    by_class = {c["class"]: c for c in rep["classes"]}
    assert {k: v["sites"] for k, v in by_class.items()} == rel.coverage()
    for c in rep["classes"]:
        assert c["decidable"] + c["undecidable"] == c["sites"]
        assert len(c["undecidable_sites"]) == c["undecidable"]
        assert sum(c["undecidable_reasons"].values()) == c["undecidable"]
    # internal invariants are never launch checks
    assert by_class["d"]["decidable"] == 0
    late = {s["id"] for s in rel.sites if s.get("reach") == "late"}
    listed = {s["id"] for c in rep["classes"] for s in c["undecidable_sites"]}
    assert late <= listed
    amg = rep["args_model_gpu"]
    assert amg["sites"] == by_class["a"]["sites"] + by_class["b"]["sites"]


def test_runtime_facts_are_not_decidable():
    site = {"class": "c", "facts": ["field:port", "runtime:ports"], "reach": "startup"}
    assert coverage.site_decidable(site) == (False, coverage.UNCARRIED["runtime:ports"])
    env = {"class": "c", "facts": ["runtime:env"], "reach": "startup"}
    assert coverage.site_decidable(env) == (True, "")


def test_post_release_maps_to_its_base_and_text_lists_sites(capsys):
    assert cli.main(["sglang-coverage", "--sglang-version", "0.4.10.post2", "--sites"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("SGLang 0.4.10: start-up rejection sites")
    assert "args + model/GPU (a, b):" in out


def test_without_the_evaluator_it_says_so(capsys, monkeypatch):
    monkeypatch.setattr(coverage, "_evaluator", lambda: None)
    rep = _json(capsys, "--sglang-version", "0.5.4")
    assert rep["evaluator"] is False and "not installed" in rep["note"]


def test_unknown_version_is_a_usage_error(capsys):
    assert cli.main(["sglang-coverage", "--sglang-version", "0.3.0"]) == 2
