"""`sgllint explain FILE[:LINE]` (issue 17 item 6): effective values (given with the token,
default, rewritten with where and why), the facts used with their provenance, the definite
rejection and the Unknown outcomes -- on a stand-in evaluator with the contract's shape, so the
command's own behaviour is pinned whether or not the evaluator is installed."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from sgllint.hosts import cli, explain
from sgllint.semantics import launch_validation as lv

SH = ("# sgllint: gpu=H100\n"
      "SGLANG_X=1 python -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp-size 2 --dp-size 1\n"
      "\n"
      "python -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp-size $TP\n")


class Fake:
    def __init__(self):
        rw = SimpleNamespace(field="dp_size", user_value=1, final_value=2, file="sglang/srt/server_args.py", line=812,
                             reason="dp attention sets it")
        hit = SimpleNamespace(id="r123", file="sglang/srt/server_args.py", line=90, end_line=90,
                              message="needs the GPU count", facts=("gpu:count",), why="the GPU count is not known")
        self.verdict = SimpleNamespace(rejection=None, possible=[hit], rewrites=[rw], degraded=None, notes=[])
        self.LaunchFacts = lambda **k: SimpleNamespace(**k)
        self.GpuFacts = lambda **k: SimpleNamespace(**k)

    def evaluate(self, facts):
        return self.verdict


@pytest.fixture
def serve(tmp_path, monkeypatch):
    monkeypatch.setattr(lv, "evaluator", lambda: Fake())
    p = tmp_path / "serve.sh"
    p.write_text(SH)
    return p


def _json(capsys, *argv):
    assert cli.main(["explain", *argv, "--sglang-version", "0.5.23", "--output-format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_effective_values_facts_and_unknowns(serve, capsys):
    (rep,) = _json(capsys, f"{serve}:2")
    args = {r["field"]: r for r in rep["arguments"]}
    assert args["tp_size"]["how"] == "given" and args["tp_size"]["token"] == "--tp-size 2"
    assert args["tp_size"]["at"] == f"{serve}:2:{SH.splitlines()[1].index('--tp-size') + 1}"
    dp = args["dp_size"]
    assert (dp["how"], dp["value"], dp["user_value"], dp["by"]) == ("rewritten", 2, 1, "sglang/srt/server_args.py:812")
    assert args["pp_size"] == {"field": "pp_size", "flag": "--pp-size", "value": 1, "how": "default"}
    assert rep["facts"]["gpu"].startswith("H100 (SM90) from pragma")
    assert rep["facts"]["environment"] == {"SGLANG_X": f"set at {serve}:2"}
    assert "model facts are Unknown" in rep["facts"]["model_config"]
    assert rep["unknown"] == [{"id": "r123", "site": "sglang/srt/server_args.py:90", "message": "needs the GPU count",
                               "why": "the GPU count is not known"}]
    assert "rejection" not in rep


def test_whole_file_and_unevaluable_launch(serve, capsys):
    reps = _json(capsys, str(serve))
    assert [r["line"] for r in reps] == [2, 4]
    assert reps[1]["evaluated"] is False and "not known statically" in reps[1]["not_evaluated"]


def test_text_and_hover(serve, capsys):
    assert cli.main(["explain", f"{serve}:2", "--sglang-version", "0.5.23"]) == 0
    out = capsys.readouterr().out
    assert "--dp-size = 2  [rewritten from your 1 by sglang/srt/server_args.py:812: dp attention sets it]" in out
    assert "unknown outcomes (1):" in out and "defaults (--all-defaults lists them)" in out


def test_no_launch_at_line(serve, capsys):
    assert cli.main(["explain", f"{serve}:3", "--sglang-version", "0.5.23"]) == 1
    assert "no SGLang launch" in capsys.readouterr().err


def test_hover_lines(serve):
    from sgllint.engine.pipeline import Options, lint_source

    res = lint_source(str(serve), SH, Options(sglang_version="0.5.23", use_environment=False, rules=[]))
    assert explain.hover_lines(res.launches[0], "dp_size") == [
        "SGLang 0.5.23 runs with --dp-size = 2 (rewritten from 1 by sglang/srt/server_args.py:812: dp attention sets it)"]


def test_lsp_hover_shows_the_effective_value(serve):
    pytest.importorskip("pygls")
    from sgllint.engine.pipeline import Options, lint_source
    from sgllint.hosts.lsp.server import hover_markdown

    res = lint_source(str(serve), SH, Options(sglang_version="0.5.23", use_environment=False, rules=[]))
    launch = res.launches[0]
    text = hover_markdown(launch, launch.last("dp_size"))
    assert "SGLang 0.5.23 runs with --dp-size = 2 (rewritten from 1 by sglang/srt/server_args.py:812" in text
    assert "runs with --tp-size = 2 (given)" in hover_markdown(launch, launch.last("tp_size"))


def test_model_facts_say_what_is_missing(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(lv, "evaluator", lambda: Fake())
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'deploy'\n")
    (tmp_path / "models" / "ft").mkdir(parents=True)
    (tmp_path / "models" / "ft" / "config.json").write_text(json.dumps(
        {"architectures": ["FooForCausalLM"], "model_type": "foo", "num_attention_heads": 16, "torch_dtype": "bfloat16"}))
    serve = tmp_path / "serve.sh"
    serve.write_text("python -m sglang.launch_server --model-path my-org/private-finetune --tp-size 3\n"
                     "python -m sglang.launch_server --model-path ./models/ft --tp-size 2\n"
                     "python -m sglang.launch_server --model-path openai/gpt-oss-20b --tp-size 2\n")
    unknown, local, known = (r["facts"]["model_facts"] for r in _json(capsys, str(serve)))
    assert unknown.startswith("none: 'my-org/private-finetune' has no config.json") and "stay silent" in unknown
    assert "attention heads 16" in local and "config.json" in local
    assert "missing: context length (needed by the --context-length check: no verdict); parameter count" in local
    assert "parameter count 20.91B" in known and "missing" not in known and "gpt_oss_20b.json" in known
