"""Facts of the generated wrapper data (data/wrappers), read through the loader."""

from __future__ import annotations

from sgllint.catalog import wrappers


def test_versions_supported():
    assert wrappers.versions("ai-dynamo")[0] == "0.4.0"
    assert wrappers.versions("ai-dynamo")[-1] == "1.6.1"
    assert wrappers.versions("sglang-router")[0] == "0.0.5"
    assert wrappers.versions("sglang-router")[-1] == "0.3.2"


def test_dynamo_040_worker_cuts_migration_limit_by_hand():
    w = wrappers.load("ai-dynamo", "0.4.0")
    stages = w.entry("python -m dynamo.sglang.worker").raw["stages"]
    assert stages[0]["kind"] == "remove_pair" and stages[0]["strings"] == ["--migration-limit"]
    assert w.entry("python -m dynamo.sglang.worker").includes_sglang
    # the value does not convert: both words stay and SGLang's parser refuses them
    assert w.judge("python -m dynamo.sglang.worker", ["--migration-limit", "x"]).reason is wrappers.Reason.UNRECOGNIZED
    assert w.judge("python -m dynamo.sglang.worker", ["--migration-limit", "3"]).outcome is wrappers.Outcome.ACCEPTED


def test_dynamo_041_worker_forms_are_deprecated_aliases():
    w = wrappers.load("ai-dynamo", "0.4.1")
    assert "deprecated" in (w.entry("python -m dynamo.sglang.decode_worker").deprecated or "")
    assert w.entry("python -m dynamo.sglang").deprecated is None
    assert w.sglang_pin == "0.5.0rc2"


def test_dynamo_1x_splits_with_parse_known_args():
    w = wrappers.load("ai-dynamo", "1.6.1")
    kinds = [s["kind"] for s in w.entry("python -m dynamo.sglang").raw["stages"]]
    assert kinds == ["parse_known", "parse_known", "parse"]
    assert w.sglang_pin == "0.5.21"
    assert "--disagg-config-key" in w.own_option_strings("python -m dynamo.sglang")
    last = w.parsers[w.entry("python -m dynamo.sglang").raw["stages"][-1]["parser"]]
    assert last.choice_extensions == {"load_format": ("gms",)}
    messages = [r["message"] for r in w.entry("python -m dynamo.sglang").rejections]
    assert any("must be provided together" in m for m in messages)


def test_router_only_entry_has_pd_flags_and_no_server_options():
    w = wrappers.load("sglang-router", "0.3.2")
    entry = "python -m sglang_router.launch_router"
    assert {"--pd-disaggregation", "--prefill", "--decode"} <= w.own_option_strings(entry)
    assert not w.entry(entry).includes_sglang
    assert w.entry("python -m sglang_router.launch_server").includes_sglang
    assert set(w.entry("sglang-router").raw["subcommands"]) == {"launch", "server"}
