"""SGL400/SGL401 on the evaluator's contract (issue 17 item 5): the launch's facts handed to
`evaluate`, the verdict cached per launch, messages, primary and related locations, check ids in
noqa and `ignore-sglang-checks`, curated rules winning, silence without the evaluator.

The evaluator here is a stand-in with the contract's shape (LaunchFacts/GpuFacts/evaluate ->
Verdict), so these tests pin the rules' own behaviour whether or not h17eval's evaluator is
installed; the site ids and file:line are real 0.5.23 sites from the generated data."""

from __future__ import annotations

import textwrap
from types import SimpleNamespace

import pytest

from sgllint.engine.config import Config, parse_table
from sgllint.engine.pipeline import Options, lint_source
from sgllint.model.rule import builtin_rules
from sgllint.semantics import launch_validation as lv

RULES = {r.code: r for r in builtin_rules()}
SITE = SimpleNamespace(file="sglang/srt/arg_groups/validation_hook.py", line=179, end_line=179, id="a058129756e",
                       message="tp_size must be divisible by number of nodes", facts=(), exc="AssertionError", why="")
CMD = "# sgllint: gpu=H100\nEXPORTS python -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp-size 3 --nnodes 2"


class FakeEvaluator:
    def __init__(self, rejection=None, rewrites=(), degraded=None):
        self.calls = []
        self.verdict = SimpleNamespace(rejection=rejection, possible=[], rewrites=list(rewrites), degraded=degraded, notes=[])
        self.LaunchFacts = lambda **k: SimpleNamespace(**k)
        self.GpuFacts = lambda **k: SimpleNamespace(**k)

    def evaluate(self, facts):
        self.calls.append(facts)
        return self.verdict


@pytest.fixture
def fake(monkeypatch):
    def install(**kw):
        ev = FakeEvaluator(**kw)
        monkeypatch.setattr(lv, "evaluator", lambda: ev)
        monkeypatch.setattr(lv, "covered_checks", lambda rules=None: set())  # SGL205 covers SITE: tested apart
        return ev
    return install


def lint(text, codes=("SGL400", "SGL401"), config=None, path="serve.sh", version="0.5.23"):
    opts = Options(config=config or Config(), sglang_version=version, use_environment=False, rules=[RULES[c] for c in codes])
    return lint_source(path, textwrap.dedent(text), opts)


def test_facts_handed_to_the_evaluator_once_per_launch(fake):
    ev = fake(rejection=SITE)
    res = lint(CMD.replace("EXPORTS ", "SGLANG_X=1 "))
    assert [d.code for d in res.diagnostics] == ["SGL400"]
    assert len(ev.calls) == 1  # SGL400 and SGL401 share one verdict
    f = ev.calls[0]
    assert f.release == "0.5.23" and f.entry == "cli"
    assert f.user_args == {"model_path": "Qwen/Qwen3-8B", "tp_size": 3, "nnodes": 2}
    assert (f.gpu.vendor, f.gpu.sm, f.gpu.name) == ("nvidia", 90, "H100")
    assert f.env == {"SGLANG_X": "1"}
    assert f.model_config is None  # a registry architecture is not a config.json


def test_message_why_and_locations(fake):
    fake(rejection=SITE)
    (d,) = lint(CMD.replace("EXPORTS ", "")).diagnostics
    assert d.message == "SGLang 0.5.23 rejects this launch at start-up: tp_size must be divisible by number of nodes"
    assert d.span.text == "2"  # the last user-set flag the condition read: --nnodes
    assert [r.span.text for r in d.related] == ["3", "2"]
    assert "--tp-size = 3" in d.help and "--nnodes = 2" in d.help and "--pp-size = 1 (default)" in d.help
    assert "sglang/srt/arg_groups/validation_hook.py:179" in d.help and "SGL400[a058129756e]" in d.help
    assert d.context["sglang_check"] == "a058129756e"


def test_only_defaults_involved_points_at_the_command(fake):
    fake(rejection=SimpleNamespace(**{**SITE.__dict__, "id": "zz", "file": "sglang/srt/server_args.py", "line": 1}))
    (d,) = lint("python -m sglang.launch_server --model-path Qwen/Qwen3-8B\n").diagnostics
    assert d.span.text == "python -m sglang.launch_server"


def test_engine_entry_from_python(fake):
    ev = fake()
    lint("import sglang as sgl\nllm = sgl.Engine(model_path='Qwen/Qwen3-8B', tp_size=2)\n", path="serve.py")
    assert ev.calls[0].entry == "engine" and ev.calls[0].user_args["tp_size"] == 2


def test_noqa_names_one_check(fake):
    fake(rejection=SITE)
    line = CMD.replace("EXPORTS ", "")
    assert lint(line + "  # noqa: SGL400[a058129756e]\n").diagnostics == []
    assert [d.code for d in lint(line + "  # noqa: SGL400[r0000000000]\n").diagnostics] == ["SGL400"]
    assert lint(line + "  # noqa: SGL101, SGL400[r0000000000,a058129756e]\n").diagnostics == []


def test_ignore_sglang_checks_setting(fake):
    fake(rejection=SITE)
    cfg = parse_table({"ignore-sglang-checks": ["a058129756e"]}, None)
    assert lint(CMD.replace("EXPORTS ", ""), config=cfg).diagnostics == []
    other = parse_table({"ignore-sglang-checks": ["r0000000000"]}, None)
    assert len(lint(CMD.replace("EXPORTS ", ""), config=other).diagnostics) == 1


def test_curated_rule_wins(fake, monkeypatch):
    fake(rejection=SITE)
    monkeypatch.setattr(lv, "covered_checks", lambda rules=None: {"a058129756e"})
    assert lint(CMD.replace("EXPORTS ", "")).diagnostics == []
    curated = SimpleNamespace(sglang_checks=("a058129756e",), sglang_rewrites=("page_size",))
    assert lv.covered_checks([curated]) == {"a058129756e"} and lv.covered_rewrites([curated]) == {"page_size"}


def test_sgl401_rewrite_at_the_value(fake):
    rw = SimpleNamespace(field="dp_size", user_value=1, final_value=2, file="sglang/srt/server_args.py", line=812,
                         reason="--enable-dp-attention sets dp_size from tp_size")
    fake(rewrites=[rw])
    (d,) = lint("python -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp-size 2 --dp-size 1\n").diagnostics
    assert d.code == "SGL401" and d.span.text == "1"
    assert d.message == ("SGLang 0.5.23 will run with --dp-size = 2, not your 1, because --enable-dp-attention sets "
                         "dp_size from tp_size (sglang/srt/server_args.py:812)")


def test_unknown_outcomes_and_unevaluable_launches_are_silent(fake):
    ev = fake(degraded="an unknown value")
    assert lint(CMD.replace("EXPORTS ", "")).diagnostics == []
    ev.calls.clear()
    assert lint("python -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp-size $TP\n").diagnostics == []
    assert ev.calls == []  # an unresolved value: not evaluated at all


def test_silent_without_the_evaluator(monkeypatch):
    monkeypatch.setattr(lv, "evaluator", lambda: None)
    assert lint(CMD.replace("EXPORTS ", "")).diagnostics == []


def test_evaluator_runs_in_lints_only_when_ready(monkeypatch):
    import sys
    import types

    mod = types.ModuleType("sgllint.semantics.validation")
    mod.evaluate = lambda facts: None
    monkeypatch.setitem(sys.modules, "sgllint.semantics.validation", mod)
    import sgllint.semantics

    monkeypatch.setattr(sgllint.semantics, "validation", mod, raising=False)  # `from pkg import mod` reads the attribute
    monkeypatch.delenv(lv.FORCE_ENV, raising=False)
    assert lv.evaluator() is None  # installed but not LINT_READY: seconds per release, not in every lint
    monkeypatch.setenv(lv.FORCE_ENV, "1")
    assert lv.evaluator() is mod
    monkeypatch.delenv(lv.FORCE_ENV)
    mod.LINT_READY = True
    assert lv.evaluator() is mod


def test_declared_checks_exist_in_the_generated_data():
    from sgllint.catalog import validation as data

    known = {s["id"] for v in data.available() for s in data.read_manifest(v)["sites"]}
    declared = lv.covered_checks()
    assert declared, "no curated rule declares the SGLang checks it covers"
    assert declared <= known, sorted(declared - known)
    assert "page_size" in lv.covered_rewrites()
