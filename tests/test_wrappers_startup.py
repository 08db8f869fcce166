"""The wrapper's own start-up checks (SGL120): generated from the wheel's
code with the conditions the launch's options decide, evaluated in
three-valued logic, reported at the token only when the words decide them."""

from __future__ import annotations

import json
import textwrap
import zipfile

import pytest

from sgllint.catalog import _gen_wrappers as gen
from sgllint.catalog import wrappers as wrapper_data
from sgllint.catalog.wrappers import check_dests, evaluate_check
from sgllint.model.unknown import UNKNOWN
from sgllint.engine.pipeline import Options, lint_source


def _lint(text, path="launch.sh"):
    return lint_source(path, textwrap.dedent(text).lstrip(), Options(use_environment=False))


def _sgl120(result):
    return [(d.span.text, d.message) for d in result.diagnostics if d.code == "SGL120"]


# --- the evaluator ----------------------------------------------------------


def _values(**kw):
    return lambda dest: kw.get(dest, UNKNOWN)


def test_three_valued_logic():
    both = {"and": [{"opt": "a"}, {"opt": "b"}]}
    assert evaluate_check(both, _values(a=True, b=True)) is True
    assert evaluate_check(both, _values(a=True, b=False)) is False
    assert evaluate_check(both, _values(a=True)) is UNKNOWN
    assert evaluate_check(both, _values(a=False)) is False  # False decides an "and"
    either = {"or": [{"opt": "a"}, {"unknown": "os.path.isfile(x)"}]}
    assert evaluate_check(either, _values(a=True)) is True
    assert evaluate_check(either, _values(a=False)) is UNKNOWN
    assert evaluate_check({"not": {"unknown": "x"}}, _values()) is UNKNOWN
    low = {"and": [{"cmp": "is not", "left": {"opt": "n"}, "right": {"const": None}},
                   {"cmp": "<", "left": {"opt": "n"}, "right": {"const": 1}}]}
    assert evaluate_check(low, _values(n=0)) is True
    assert evaluate_check(low, _values(n=None)) is False
    assert evaluate_check(low, _values(n=3)) is False
    assert evaluate_check(low, _values(n="x")) is UNKNOWN  # str < int: not a guess
    pair = {"xor": [{"cmp": "is not", "left": {"opt": "a"}, "right": {"const": None}},
                    {"cmp": "is not", "left": {"opt": "b"}, "right": {"const": None}}]}
    assert evaluate_check(pair, _values(a="x.yaml", b=None)) is True
    assert evaluate_check(pair, _values(a="x.yaml", b="prefill")) is False
    assert evaluate_check(pair, _values(a="x.yaml")) is UNKNOWN
    assert check_dests(pair) == ["a", "b"]


# --- the generator ----------------------------------------------------------

_ARGS_PY = '''
import argparse
import logging
import os
import sys
import types


class Config:
    workers: int = 1

    @classmethod
    def from_cli_args(cls, ns):
        obj = cls()
        for k, v in vars(ns).items():
            setattr(obj, k, v)
        return obj

    def validate(self):
        if self.workers < 1:
            raise ValueError("--workers must be positive")


def parse_args(args):
    parser = argparse.ArgumentParser()
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--alpha", action="store_true")
    parser.add_argument("--beta", action="store_true")
    parser.add_argument("--gamma", action="store_true")
    parser.add_argument("--template", default=None)
    parser.add_argument("--mode", default=os.environ.get("DYN_MODE", "agg"))
    parser.add_argument("--rewritten", action="store_true")
    parsed = parser.parse_args(args)
    config = Config.from_cli_args(parsed)
    config.validate()
    if parsed.alpha and parsed.beta:
        logging.error("Cannot use --alpha and --beta together.")
        sys.exit(1)
    if parsed.mode == "disagg":
        if parsed.gamma:
            raise ValueError("--gamma needs --mode agg")
    if parsed.template and not os.path.isfile(parsed.template):
        raise FileNotFoundError("no template")
    for name in ("alpha", "beta"):
        if getattr(parsed, name) and parsed.gamma:
            raise ValueError("in a loop")
    try:
        if parsed.gamma and parsed.beta:
            raise ValueError("caught")
    except ValueError:
        pass
    parsed.rewritten = True
    if parsed.rewritten and parsed.alpha:
        raise ValueError("rewritten by the wrapper")
    stub = types.SimpleNamespace()
    if getattr(stub, "alpha", False):
        raise ValueError("not the namespace")
    if parsed.template == "early":
        return parsed
    if parsed.gamma:
        raise ValueError("after a return")
    return parsed
'''

_MAIN_PY = '''
import sys
from dynamo.sglang.args import parse_args

if __name__ == "__main__":
    parse_args(sys.argv[1:])
'''


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory):
    path = tmp_path_factory.mktemp("wheels") / "ai_dynamo-9.9.9-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("dynamo/__init__.py", "")
        z.writestr("dynamo/sglang/__init__.py", "")
        z.writestr("dynamo/sglang/__main__.py", _MAIN_PY)
        z.writestr("dynamo/sglang/args.py", _ARGS_PY)
        z.writestr("ai_dynamo-9.9.9.dist-info/METADATA", "Metadata-Version: 2.1\nName: ai-dynamo\nVersion: 9.9.9\n")
    data = gen.build(path, None)
    (entry,) = data["entry_points"].values()
    return {r["message"]: r for r in entry["rejections"]}


def test_generated_checks_keep_only_what_the_options_decide(synthetic):
    checks = {m: r.get("check") for m, r in synthetic.items()}
    # a method of the config the namespace is copied into
    assert checks["--workers must be positive"] == {
        "cmp": "<", "left": {"opt": "workers"}, "right": {"const": 1}}
    # a logged error then sys.exit(1)
    assert checks["Cannot use --alpha and --beta together."] == {"and": [{"opt": "alpha"}, {"opt": "beta"}]}
    # the enclosing if is part of the check; --mode's default comes from the environment
    assert checks["--gamma needs --mode agg"] == {"and": [
        {"cmp": "==", "left": {"opt": "mode"}, "right": {"const": "disagg"}}, {"opt": "gamma"}]}
    assert synthetic["--gamma needs --mode agg"]["env"] == ["mode"]
    # never decided by the options: a file test, a loop, a handler, a value the
    # wrapper rewrites, an object that is not the namespace, after a return
    for message in ("no template", "in a loop", "caught", "rewritten by the wrapper",
                    "not the namespace", "after a return"):
        assert checks.get(message) is None, message


# --- the shipped data -------------------------------------------------------


def _shipped_checks():
    for version in wrapper_data.versions("ai-dynamo"):
        for name, entry in wrapper_data.load("ai-dynamo", version).entries.items():
            for r in entry.rejections:
                if r.get("check"):
                    yield version, name, r


def test_shipped_checks_read_options_of_their_release():
    found = list(_shipped_checks())
    assert {v for v, _, _ in found} >= {"0.6.0", "0.9.1", "1.6.1"}
    for version, name, r in found:
        wrapper = wrapper_data.load("ai-dynamo", version)
        own = {o.dest for p in wrapper.parsers.values() for o in p.options}
        assert r["file"].endswith(".py") and r["line"] > 0
        assert check_dests(r["check"]), (version, r)
        assert set(r.get("env") or ()) <= own, (version, r)
        json.dumps(r["check"])  # plain data


# --- linting ----------------------------------------------------------------

DYN = "python -m dynamo.sglang --model-path Qwen/Qwen3-8B"


def test_value_check_at_the_value():
    assert _sgl120(_lint(f"{DYN} --gateway-workers 0\n")) == [
        ("0", "python -m dynamo.sglang (ai-dynamo 1.6.1) refuses this at start-up "
              "(dynamo/sglang/backend_args.py:255): --gateway-workers must be a positive integer")]
    assert _sgl120(_lint(f"{DYN} --gateway-workers 1\n")) == []
    assert _sgl120(_lint(f"{DYN} --gateway-workers $N\n")) == []


def test_check_follows_the_release():
    # --gateway-workers is checked from 1.6.0; 1.5.1 has no such option
    older = _lint(f"# sgllint: ai-dynamo=1.5.1\n{DYN} --tcp-tls-handshake-timeout 0\n")
    assert [t for t, _ in _sgl120(older)] == ["0"]
    assert _sgl120(_lint(f"# sgllint: ai-dynamo=1.4.2\n{DYN} --engine-request-limit 0\n")) != []
    pair = "--custom-jinja-template t.jinja --use-sglang-tokenizer"
    assert [t for t, _ in _sgl120(_lint(f"# sgllint: ai-dynamo=0.6.0\n{DYN} {pair}\n"))] == ["--use-sglang-tokenizer"]
    # 1.x expands the template path before the check: not decided by the words
    assert _sgl120(_lint(f"{DYN} {pair}\n")) == []


def test_environment_defaults_stay_undecided():
    # --disagg-config-key's default comes from DYN_* in the environment
    assert _sgl120(_lint(f"{DYN} --disagg-config disagg.yaml\n")) == []
    # --enable-multimodal may come from the environment, --dedicated-mm-encoder is written
    result = _lint(f"{DYN} --frontend-decoding --dedicated-mm-encoder\n")
    assert [t for t, _ in _sgl120(result)] == ["--dedicated-mm-encoder"]


def test_launch_refused_by_a_parser_is_left_to_the_parser_rules():
    result = _lint(f"{DYN} --gateway-workers 0 --no-such-flag\n")
    assert _sgl120(result) == []
    assert "SGL101" in {d.code for d in result.diagnostics} or "SGL116" in {d.code for d in result.diagnostics}


def test_dynamo_graph_deployment_args_are_checked():
    text = """\
    apiVersion: nvidia.com/v1alpha1
    kind: DynamoGraphDeployment
    metadata:
      name: agg
    spec:
      services:
        SGLangWorker:
          componentType: worker
          extraPodSpec:
            mainContainer:
              image: nvcr.io/nvidia/ai-dynamo/sglang-runtime:1.6.1
              command: ["python3", "-m", "dynamo.sglang"]
              args:
                - --model-path
                - Qwen/Qwen3-8B
                - --rerank-worker
                - --embedding-worker
    """
    assert [t for t, _ in _sgl120(_lint(text, "agg.yaml"))] == ["--embedding-worker"]
