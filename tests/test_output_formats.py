"""Every output format from one fixed, hand-built set of diagnostics
(goldens in tests/output/; regenerate with SGLLINT_UPDATE_GOLDENS=1), the
SARIF log validated against the official SARIF 2.1.0 JSON schema, and
several formats written in one CLI run."""

from __future__ import annotations

import json
import os
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from sgllint import __version__
from sgllint.model.diagnostic import Diagnostic, Edit, Fix, Related, Severity
from sgllint.model.facts import Source, Span
from sgllint.output import FORMATS, renderer

HERE = Path(__file__).resolve().parent
GOLDEN = HERE / "output"
SCHEMA = HERE / "data" / "sarif-schema-2.1.0.json"
URL = "https://github.com/sgllint/sgllint/blob/main/docs/rules.md#{}"

SHELL = (
    "#!/bin/sh\n"
    'python -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct --served-model-name "🚀模" --enable_metrics \\\n'
    "  --port 30000 --port 8000 --tp 2\n"
)
PYTHON = 'import sglang as sgl\nsgl.Engine(model_path="m/x", tensor_parallel_size=2)\n'


def _span(src: Source, needle: str, nth: int = 1) -> Span:
    i = -1
    for _ in range(nth):
        i = src.text.index(needle, i + 1)
    return Span(src, i, i + len(needle))


def diagnostics() -> list[Diagnostic]:
    sh = Source("deploy/serve.sh", SHELL)
    py = Source("app/launch.py", PYTHON)
    ctx = {"sglang_version": "0.5.23", "sglang_version_source": "command line"}
    out = [
        Diagnostic(
            "SGL101", "unknown-flag", Severity.ERROR,
            "'--enable_metrics' is not an option of SGLang 0.5.23; SGLang flags are spelled with dashes",
            _span(sh, "--enable_metrics"), help="use --enable-metrics",
            fix=Fix("replace --enable_metrics with --enable-metrics", (Edit(_span(sh, "--enable_metrics"), "--enable-metrics"),), "unsafe"),
            url=URL.format("sgl101"), context=ctx,
        ),
        Diagnostic(
            "SGL108", "duplicate-flag", Severity.WARNING,
            "--port is given more than once; the last value (8000) wins over --port 30000",
            _span(sh, "--port", 2), related=[Related(_span(sh, "--port 30000"), "first given here")],
            help="keep one of them",
            fix=Fix("remove the earlier --port", (Edit(_span(sh, "--port 30000"), ""),), "safe"),
            url=URL.format("sgl108"), context=ctx,
        ),
        Diagnostic(
            "SGL109", "abbreviated-flag", Severity.INFO,
            "'--tp' is an abbreviation of '--tp-size'", _span(sh, "--tp"),
            help="write --tp-size; 100% clear, a:b, c",
            fix=Fix("expand to --tp-size", (Edit(_span(sh, "--tp"), "--tp-size"),), "safe"),
            url=URL.format("sgl109"), context=ctx,
        ),
        Diagnostic(
            "SGL101", "unknown-flag", Severity.ERROR,
            "'tensor_parallel_size' is not a ServerArgs field in SGLang 0.5.23",
            _span(py, "tensor_parallel_size"), help="keyword arguments are ServerArgs field names: use tp_size=",
            url=URL.format("sgl101"), context=ctx,
        ),
    ]
    return sorted(out, key=Diagnostic.sort_key)


def _normalise(fmt: str, text: str) -> str:
    text = text.replace(f'"version": "{__version__}"', '"version": "<sgllint version>"')
    if fmt in ("lsp", "sarif"):
        text = text.replace(Path(os.getcwd()).as_uri(), "file:///CWD")
    return text


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_golden(fmt, monkeypatch):
    monkeypatch.chdir(HERE.parent)
    ext = {"json": "json", "sarif": "sarif", "gitlab": "json", "junit": "xml", "lsp": "json", "json-lines": "jsonl"}.get(fmt, "txt")
    golden = GOLDEN / f"{fmt}.{ext}"
    got = _normalise(fmt, renderer(fmt)(diagnostics()))
    if os.environ.get("SGLLINT_UPDATE_GOLDENS"):
        golden.parent.mkdir(exist_ok=True)
        golden.write_text(got, encoding="utf-8")
    assert got == golden.read_text(encoding="utf-8")


def test_empty_input_renders_valid_documents():
    for fmt in FORMATS:
        text = renderer(fmt)([])
        if fmt in ("json", "gitlab", "lsp"):
            assert json.loads(text) == []
        elif fmt == "sarif":
            assert json.loads(text)["runs"][0]["results"] == []
        elif fmt == "junit":
            ET.fromstring(text.split("?>", 1)[1])
        else:
            assert text == ""


def test_sarif_validates_against_the_official_schema():
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    log = json.loads(renderer("sarif")(diagnostics()))
    jsonschema.Draft7Validator.check_schema(schema)
    jsonschema.Draft7Validator(schema).validate(log)
    run = log["runs"][0]
    assert run["columnKind"] == "unicodeCodePoints"
    rules = run["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == ["SGL101", "SGL108", "SGL109"]
    assert rules[0]["defaultConfiguration"]["level"] == "error" and rules[0]["helpUri"].endswith("#sgl101")
    assert rules[0]["shortDescription"]["text"] and rules[0]["fullDescription"]["text"]
    res = {(r["ruleId"], r["locations"][0]["physicalLocation"]["region"]["startLine"]): r for r in run["results"]}
    unknown = res[("SGL101", 2)]
    assert rules[unknown["ruleIndex"]]["id"] == "SGL101"
    region = unknown["locations"][0]["physicalLocation"]["region"]
    # code points: the emoji and the CJK character count one column each
    assert region["startColumn"] == SHELL.splitlines()[1].index("--enable_metrics") + 1
    assert unknown["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "deploy/serve.sh"
    dup = res[("SGL108", 3)]
    assert dup["relatedLocations"][0]["message"]["text"] == "first given here"
    assert res[("SGL109", 3)]["level"] == "note"


def test_sarif_fingerprints_ignore_line_numbers():
    before = json.loads(renderer("sarif")(diagnostics()))["runs"][0]["results"]
    # the same findings two lines further down
    global SHELL
    saved = SHELL
    try:
        SHELL = "#!/bin/sh\n# a comment\n\n" + saved.split("\n", 1)[1]
        after = json.loads(renderer("sarif")(diagnostics()))["runs"][0]["results"]
    finally:
        SHELL = saved
    fp = lambda results: sorted(r["partialFingerprints"]["sgllint/v1"] for r in results)  # noqa: E731
    assert fp(before) == fp(after)
    assert len(set(fp(before))) == len(before)


def test_github_escaping():
    lines = renderer("github")(diagnostics()).splitlines()
    info = next(line for line in lines if "SGL109" in line)
    assert info.startswith("::notice file=deploy/serve.sh,line=3,col=")
    assert "title=SGL109 (abbreviated-flag)::" in info
    # the message: %, CR and LF escaped; ':' and ',' only in properties
    assert info.endswith("'--tp' is an abbreviation of '--tp-size'%0Ahelp: write --tp-size; 100%25 clear, a:b, c")
    assert lines[0].startswith("::error file=app/launch.py,line=2,col=")


def test_gitlab_code_quality_fields():
    items = json.loads(renderer("gitlab")(diagnostics()))
    assert {i["severity"] for i in items} == {"major", "minor", "info"}
    for i in items:
        assert set(i) >= {"description", "check_name", "fingerprint", "severity", "location"}
        assert i["location"]["positions"]["begin"]["line"] >= 1
    assert len({i["fingerprint"] for i in items}) == len(items)


def test_junit_is_valid_xml_with_one_case_per_finding():
    root = ET.fromstring(renderer("junit")(diagnostics()).split("?>", 1)[1])
    cases = root.findall("./testsuite/testcase")
    assert len(cases) == 4 and all(c.find("failure") is not None for c in cases)
    assert {s.get("name") for s in root.findall("testsuite")} == {"deploy/serve.sh", "app/launch.py"}


def test_json_lines_items_are_the_json_items():
    items = json.loads(renderer("json")(diagnostics()))
    lines = [json.loads(x) for x in renderer("json-lines")(diagnostics()).splitlines()]
    assert lines == items


def test_several_formats_in_one_run(run_cli, tmp_path):
    (tmp_path / ".sgllint.toml").write_text('sglang-version = "0.5.23"\n')
    (tmp_path / "serve.sh").write_text("python -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct --enable_metrics\n")
    proc = run_cli(
        "check", "--output-format", "github", "--output", "sarif:out/report.sarif", "--output", "junit:out/junit.xml",
        "--output", "json-lines:out/findings.jsonl", "serve.sh",
    )
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout.startswith("::error file=serve.sh,line=1,col=70,")
    sarif = json.loads((tmp_path / "out/report.sarif").read_text())
    assert sarif["runs"][0]["results"][0]["ruleId"] == "SGL101"
    assert ET.parse(tmp_path / "out/junit.xml").getroot().get("failures") == "1"
    assert json.loads((tmp_path / "out/findings.jsonl").read_text())["code"] == "SGL101"
    bad = run_cli("check", "--output", "nope:x", "serve.sh")
    assert bad.returncode == 2 and "FORMAT:PATH" in bad.stderr
