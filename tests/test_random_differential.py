"""The random differential, replayed without SGLang (issue 17).

SGLang's own verdicts on seeded random launches are recorded per release in
``tests/data/oracle/random/`` (``tests/oracle/run_random_oracle.sh``); here
sgllint's derived validation judges the same launches
(``tests/oracle/random_agreement.py``): 0 false errors, 0 false rewrites,
>= 95% of SGLang's rejections at the same site, every other disagreement class
listed with its cause, and the published table current.

The fixture checks run always; the comparison needs
``sgllint.semantics.validation`` and is skipped, with the reason, only while
that package does not import.
"""

from __future__ import annotations

import gzip
import json

import pytest

from tests.oracle import random_agreement as ra
from tests.oracle import random_launches as rl

EVALUATOR_MISSING = ra.evaluator_import_error()
#: run the full replay although the evaluator does not declare itself ready
FULL_ENV = "SGLLINT_FULL_DIFFERENTIAL"


def _full_replay_gate() -> str | None:
    """Why the full 6 x 2,000 replay is not a gate of this run, or None.

    The replay is issue 17's acceptance for the evaluator that SGL400/SGL401
    run on. Those rules stay silent until the evaluator sets ``LINT_READY``
    (`sgllint.semantics.launch_validation`), so the replay gates every run
    from the moment it does: the evaluator cannot reach users without
    passing it. Before that it runs on demand (the figures of a work-in-
    progress evaluator are published in issue 17's notes), and
    tests/test_validation_eval.py replays a recorded sample on every run."""
    import os

    if EVALUATOR_MISSING is not None:
        return EVALUATOR_MISSING
    from sgllint.semantics import validation

    if getattr(validation, "LINT_READY", False) or os.environ.get(FULL_ENV) == "1":
        return None
    return (f"the evaluator does not declare LINT_READY (SGL400/SGL401 stay silent), so the full replay gates "
            f"runs only from then on; run it now with {FULL_ENV}=1")


FULL_REPLAY_GATE = _full_replay_gate()
needs_evaluator = pytest.mark.skipif(FULL_REPLAY_GATE is not None, reason=FULL_REPLAY_GATE or "")


def test_releases_are_recorded():
    assert ra.recorded_releases(), "no fixture in tests/data/oracle/random/"
    assert "0.5.23" in ra.recorded_releases()


@pytest.mark.parametrize("release", ra.recorded_releases())
def test_fixture_is_a_full_regenerable_sample(release):
    fx = ra.load(release)
    assert fx["release"] == release
    assert fx["wheel"] == rl.catalog_source(release), "the oracle ran another wheel than the catalog's"
    assert len(fx["cases"]) >= ra.MIN_CASES
    assert ra.fixture_path(release).stat().st_size < 1024 * 1024
    # the recorded launches are the generator's, from the recorded seed and version
    assert fx["generator_version"] == rl.GENERATOR_VERSION, "regenerate the fixtures after changing the generator"
    regenerated = rl.generate(release, fx["n"], fx["seed"])
    assert [(c["id"], c["model"], c["gpu"], c["count"], c["argv"]) for c in fx["cases"]] == [
        (c["id"], c["model"], c["gpu"], c["count"], c["argv"]) for c in regenerated
    ]
    assert fx["models"] == {k: cfg for k, (cfg, _) in rl.MODELS.items()}
    verdicts = {c["v"] for c in fx["cases"]}
    assert verdicts <= {"accepted", "rejected", "harness-error"}
    for c in fx["cases"]:
        if c["v"] == "rejected" and c.get("stage") != "argparse":
            assert c["at"].startswith("sglang/") and c["exc"] and c["fn"], c
    # harness errors are a minority, each with its reason
    harness = [c for c in fx["cases"] if c["v"] == "harness-error"]
    assert all(c.get("err") for c in harness)
    assert len(harness) < len(fx["cases"]) / 4, ra.oracle_figures(release)["harness"]


def test_fixtures_name_no_machine_paths():
    for rel in ra.recorded_releases():
        with gzip.open(ra.fixture_path(rel), "rt", encoding="utf-8") as f:
            text = f.read()
        json.loads(text)
        for root in ("/tmp/", "/work/", "/root/", "/home/"):
            assert root not in text, (rel, root)


#: releases whose evaluation is fast enough to replay on every run (the
#: others, 0.5.19+, cost ~2.5 s per launch until the evaluator is sped up)
QUICK_RELEASES = ("0.4.10", "0.5.4", "0.5.10", pytest.param("0.5.15", marks=pytest.mark.xfail(
    strict=True, reason="known: case #324 is a false error (SGLang's registered post-process "
    "arg_groups/overrides.py:1569 snaps --page-size 48 to 64 for trtllm_mha, the evaluator keeps 48 and "
    "fails server_args.py:6611), and the missed checks at server_args.py:4266 have no stated cause yet")))
QUICK_CASES = 400


@pytest.mark.skipif(EVALUATOR_MISSING is not None, reason=EVALUATOR_MISSING or "")
@pytest.mark.parametrize("release", QUICK_RELEASES)
def test_no_false_error_on_the_first_recorded_launches(release):
    """Whether or not the evaluator is LINT_READY: never an error where SGLang
    accepted, and every disagreement class has a stated cause."""
    table, _ = ra.compare([release], limit=QUICK_CASES)
    row = table[release]
    assert row["counts"]["false error"] == 0, ra.compare([release], limit=QUICK_CASES, show={"false error"})
    unexplained = {k: n for k, n in row["classes"].items() if k[2] == "UNEXPLAINED"}
    assert not unexplained, unexplained


@needs_evaluator
def test_sgllint_agrees_with_sglang():
    table, problems = ra.compare()
    assert not problems, "\n".join(problems[:40])
    for rel in ra.RELEASES:
        assert rel in table, f"{rel}: no recorded random differential"


@needs_evaluator
def test_agreement_table_is_current():
    table, _ = ra.compare()
    assert ra.TABLE.read_text() == ra.markdown(table, None), "run: python -m tests.oracle.random_agreement --write"


# --------------------------------------------------------------------------
# The generator and the oracle's bookkeeping (no SGLang needed)
# --------------------------------------------------------------------------


def test_generator_is_seeded_and_samples_the_release_catalog():
    from sgllint import catalog as catalogs

    cases = rl.generate("0.5.23", 300, seed=5)
    assert cases == rl.generate("0.5.23", 300, seed=5)
    assert cases != rl.generate("0.5.23", 300, seed=6)
    strings = {s for o in catalogs.load("0.5.23").options for s in o.strings}
    for c in cases:
        assert c["argv"][:2] == ["--model-path", "{MODEL}"]
        assert {w for w in c["argv"] if w.startswith("--")} <= strings, c["argv"]
    assert {c["gpu"] for c in cases} == set(rl.GPUS) and {c["count"] for c in cases} == set(rl.GPU_COUNTS)
    assert {c["model"] for c in cases} == set(rl.MODELS)
    # the interacting groups are all exercised
    flags = {w for c in cases for w in c["argv"]}
    for flag in ("--speculative-algorithm", "--disaggregation-mode", "--enable-dp-attention", "--enable-lora",
                 "--enable-hierarchical-cache", "--pp-size", "--kv-cache-dtype", "--ep-size",
                 "--enable-deterministic-inference", "--attention-backend"):
        assert flag in flags, flag


def test_models_the_release_cannot_load_are_not_sampled():
    assert set(rl.models_for("0.4.10")) == set(rl.MODELS) - {"qwen3-next-80b-a3b", "gpt-oss-120b"}
    assert {c["model"] for c in rl.generate("0.4.10", 200)} <= set(rl.models_for("0.4.10"))


def test_frame_paths_are_portable():
    from tests.oracle import random_oracle as ro

    assert ro.portable_path("/root/.pyenv/versions/3.11.7/lib/python3.11/json/decoder.py:353") == "json/decoder.py:353"
    assert ro.portable_path("/s/0.5.23/sglang/srt/server_args.py:10") == "sglang/srt/server_args.py:10"
    assert ro.portable_path("/v/lib/python3.11/site-packages/transformers/x.py:3") == "transformers/x.py:3"
    assert ro.portable_path("/w/repo/tests/oracle/_harness.py:141") == "tests/oracle/_harness.py:141"


def test_rewrites_ignore_order_and_identity_noise():
    from tests.oracle import random_oracle as ro

    assert ro.same_value(["q_proj", "v_proj"], ["v_proj", "q_proj"])
    assert not ro.same_value(["q_proj"], ["q_proj", "v_proj"])
    assert not ro.same_value(256, 64)
    assert ro.jsonable({"a": (1, 2)}) == {"a": [1, 2]}
    assert "<uuid>" in ro.jsonable(type("Ref", (), {"__repr__": lambda s: "Ref(id='" + "ab" * 16 + "')"})())


def _raise_from(filename: str, body: str):
    """Run ``body`` as code whose frames claim to be in ``filename``."""
    code = compile(f"def site():\n    {body}\n", filename, "exec")
    ns: dict = {"json": json}
    exec(code, ns)
    try:
        ns["site"]()
    except BaseException as e:  # noqa: BLE001
        return e
    raise AssertionError("no exception")


def test_exceptions_are_classified_by_their_innermost_sglang_frame():
    from tests.oracle import random_oracle as ro

    e = _raise_from("/site/sglang/srt/arg_groups/x_hook.py", "raise ValueError('bad --flag')")
    assert ro.classify_exception(e) == {"v": "rejected", "exc": "ValueError", "msg": "bad --flag",
                                        "at": "sglang/srt/arg_groups/x_hook.py:2", "fn": "site"}
    e = _raise_from("/site/sglang/srt/configs/model_config.py", "json.loads('{not json')")
    got = ro.classify_exception(e)
    assert got["v"] == "rejected" and got["at"] == "sglang/srt/configs/model_config.py:2"
    assert got["in"].startswith("json/decoder.py:")
    e = _raise_from("/site/sglang/srt/server_args.py", "raise ImportError('no flashinfer')")
    assert ro.classify_exception(e)["v"] == "harness-error"
    e = _raise_from("/site/sglang/srt/utils.py", "raise AttributeError(\"module 'torch._C._cpu' has no attribute 'f'\")")
    assert ro.classify_exception(e)["v"] == "harness-error"  # the venv's torch lacks an API the release uses
    e = _raise_from("/site/torch/cuda/__init__.py", "raise RuntimeError('x')")
    assert ro.classify_exception(e)["v"] == "harness-error"  # no sglang frame
