"""JSON and SARIF stay valid documents with every option that combines with
a report: each option alone and every pair of them, run in process through
`sgllint.hosts.cli.main` on a fresh copy of a small tree. SARIF is validated
against the 2.1.0 schema, with rule help."""

from __future__ import annotations

import itertools
import json
import shutil
from pathlib import Path

import pytest

from sgllint.hosts.cli import main

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = ROOT / "tests" / "data" / "sarif-schema-2.1.0.json"
LAUNCH = "python -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct"

TREE = {
    "serve.sh": f"#!/bin/sh\n{LAUNCH} \\\n  --enable_metrics --tp 2 \\\n  --attention-backend flash_infer\n",
    "app.py": 'import sglang as sgl\nsgl.Engine(model_path="Qwen/Qwen2.5-7B-Instruct", tensor_parallel_size=2)\n',
    "deploy/k8s.yaml": (
        "containers:\n  - image: lmsysorg/sglang:v0.5.4\n"
        "    command: [python, -m, sglang.launch_server, --model-path, m/x, --port, '1', --port, '2']\n"
    ),
    "notes.txt": "not a launch\n",
    "vendor/serve.sh": f"{LAUNCH} --enable_metrics\n",
}

#: options that combine with a report (each a tuple of argv words)
OPTIONS = [
    ("--statistics",),
    ("--show-context",),
    ("-q",),
    ("-v",),
    ("--max-diagnostics", "1"),
    ("--sglang-version", "0.6.0"),
    ("--exit-zero",),
    ("--fix",),
    ("--fix", "--unsafe-fixes", "--show-fixes"),
    ("--exit-non-zero-on-fix", "--fix"),
    ("--select", "SGL1"),
    ("--ignore", "SGL101"),
    ("--per-file-ignores", "deploy/*:SGL108"),
    ("--extend-exclude", "vendor"),
    ("--force-exclude",),
    ("--fail-on", "info"),
    ("--no-cache",),
    ("--output", "sarif:out/extra.sarif"),
    ("--baseline", "base.json", "--show-stale-baseline"),
    ("--config", 'sglang-version = "0.5.10"'),
    ("--gpu", "H100"),
]
PAIRS = list(itertools.combinations(range(len(OPTIONS)), 2))
#: formats whose stdout is one JSON document
DOCUMENTS = ("json", "sarif", "gitlab", "lsp")


def _tree(base: Path) -> None:
    for name, text in TREE.items():
        p = base / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    (base / "base.json").write_text(json.dumps({"sgllint_baseline": 1, "findings": [{"fingerprint": "0" * 32, "code": "SGL101"}]}))


@pytest.fixture(scope="module")
def validator():
    jsonschema = pytest.importorskip("jsonschema")
    return jsonschema.Draft7Validator(json.loads(SCHEMA.read_text(encoding="utf-8")))


def _run(tmp_path, monkeypatch, capsys, fmt, words, n):
    work = tmp_path / f"run{n}"
    _tree(work)
    monkeypatch.chdir(work)
    capsys.readouterr()
    code = main(["check", ".", "--output-format", fmt, *words])
    return code, capsys.readouterr()


def _check_document(fmt, out, validator, words):
    if fmt == "json-lines":
        for line in out.splitlines():
            json.loads(line)
        return
    doc = json.loads(out)
    if fmt == "sarif":
        validator.validate(doc)
        for rule in doc["runs"][0]["tool"]["driver"]["rules"]:
            assert rule["help"]["text"] and rule["help"]["markdown"], rule["id"]
    if fmt == "json" and "--statistics" in words:
        assert all({"code", "count"} <= set(row) for row in doc)


@pytest.mark.parametrize("fmt", ["json", "sarif", "json-lines", "gitlab", "lsp"])
def test_each_option_and_pair_keeps_the_document_valid(fmt, tmp_path, monkeypatch, capsys, validator):
    combos = [(i,) for i in range(len(OPTIONS))] + (PAIRS if fmt in ("json", "sarif") else [])
    for n, combo in enumerate(combos):
        words = [w for i in combo for w in OPTIONS[i]]
        code, captured = _run(tmp_path, monkeypatch, capsys, fmt, words, n)
        assert code in (0, 1), (words, code, captured.err)
        try:
            _check_document(fmt, captured.out, validator, words)
        except Exception as e:  # name the combination that broke it
            raise AssertionError(f"{fmt} with {words}: {e}\n{captured.out[:500]}") from e
        if n % 20 == 19:
            shutil.rmtree(tmp_path, ignore_errors=True)
            tmp_path.mkdir()


def test_text_modes_refuse_machine_formats(tmp_path, monkeypatch, capsys):
    for mode in (["--diff"], ["--show-settings"], ["--show-files"], ["--compare-to", "0.5.4"]):
        code, captured = _run(tmp_path, monkeypatch, capsys, "sarif", mode, mode[0].strip("-"))
        assert code == 2 and captured.out == ""
        assert f"{mode[0]} prints text of its own" in captured.err
    code, captured = _run(tmp_path, monkeypatch, capsys, "json", ["--compare-to", "0.5.4"], "compare-json")
    json.loads(captured.out)  # the upgrade preview has a JSON form
