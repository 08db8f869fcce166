"""Rule docs generated from the rules (docs/rules.md), every URL any output
format prints resolving to a file and anchor in this repository, and the
paths SARIF and GitLab report relative to the repository root."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from sgllint.hosts.docs import RULES_PAGE, anchors, rule_section, rules_page
from sgllint.model.rule import all_codes

ROOT = Path(__file__).resolve().parent.parent
REPO = "https://github.com/sgllint/sgllint"
SCHEMA = ROOT / "tests" / "data" / "sarif-schema-2.1.0.json"
LAUNCH = "python -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct"


def resolve(url: str) -> None:
    """Fail unless ``url`` names this repository, a file in it at main and,
    with a fragment, an anchor that file defines."""
    assert url == REPO or url.startswith(REPO + "/blob/main/"), url
    if url == REPO:
        return
    path, _, fragment = url[len(REPO + "/blob/main/"):].partition("#")
    target = ROOT / path
    assert target.is_file(), f"{url}: {path} is not in the repository"
    if fragment:
        assert fragment in anchors(target.read_text(encoding="utf-8")), f"{url}: no anchor #{fragment} in {path}"


def test_rules_page_is_current():
    current = (ROOT / RULES_PAGE).read_text(encoding="utf-8")
    assert current == rules_page(), "docs/rules.md is stale: run `python -m sgllint.hosts.docs`"


def test_every_code_url_resolves():
    for code, rule in all_codes().items():
        resolve(rule.url())


def test_rule_command_prints_the_page_section(run_cli):
    page = (ROOT / RULES_PAGE).read_text(encoding="utf-8")
    r = run_cli("rule", "SGL101")
    assert r.returncode == 0
    section = rule_section(all_codes()["SGL101"])
    assert r.stdout.startswith(section) and section in page
    assert '<a id="sgl101"></a>\n\n' + section in page
    r = run_cli("rule", "--all", "--output-format", "json")
    items = json.loads(r.stdout)
    assert [i["code"] for i in items] == list(all_codes())
    assert all(i["explanation"] in page for i in items)
    assert run_cli("rule").returncode == 2  # neither a code nor --all


URL_RE = re.compile(r"https?://[^\s\"'<>)\]]+")


def test_every_url_in_every_format_resolves(tmp_path, run_cli):
    from sgllint.output import FORMATS

    (tmp_path / "serve.sh").write_text(f"{LAUNCH} --enable_metrics --tp 2 --port 1 --port 2 --attention-backend flash_infer\n")
    (tmp_path / "app.py").write_text("import sglang as sgl\nsgl.Engine(model_path='m/x', tensor_parallel_size=2)\n")
    (tmp_path / "README.md").write_text(f"```sh\n{LAUNCH} --enable-deterministic-inference --attention-backend torch_native\n```\n")
    seen = set()
    for fmt in FORMATS:
        r = run_cli("check", ".", "--output-format", fmt, "--sglang-version", "0.5.23", "--no-cache")
        assert r.returncode == 1, (fmt, r.stderr)
        for url in URL_RE.findall(r.stdout.replace("\\/", "/")):
            url = url.rstrip(".,")
            if url == "https://json.schemastore.org/sarif-2.1.0.json":
                continue  # SARIF's $schema: the standard's, not ours
            if not url.startswith(REPO):
                continue  # an address inside a rule's example launch (--prefill http://p:30000), not a link
            seen.add(url)
            resolve(url)
    assert {u.rsplit("#", 1)[-1] for u in seen if "#" in u} >= {"sgl101", "sgl103", "sgl108", "sgl109"}


def test_sarif_has_rule_help_encoded_uris_from_the_repository_root(tmp_path, run_cli):
    jsonschema = pytest.importorskip("jsonschema")
    (tmp_path / ".git").mkdir()
    sub = tmp_path / "my dir"
    sub.mkdir()
    (sub / "s\u00e9rve #1.sh").write_text(f"{LAUNCH} --enable_metrics\n")
    r = run_cli("check", ".", "--output-format", "sarif", "--sglang-version", "0.5.23", cwd=sub)
    log = json.loads(r.stdout)
    jsonschema.Draft7Validator(json.loads(SCHEMA.read_text(encoding="utf-8"))).validate(log)
    run = log["runs"][0]
    assert run["originalUriBaseIds"] == {"%SRCROOT%": {"uri": tmp_path.resolve().as_uri() + "/"}}
    loc = run["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert loc == {"uri": "my%20dir/s%C3%A9rve%20%231.sh", "uriBaseId": "%SRCROOT%"}
    rule = run["tool"]["driver"]["rules"][0]
    assert rule["help"]["markdown"] == rule_section(all_codes()["SGL101"])
    assert rule["help"]["text"].startswith("A flag or keyword that SGLang does not accept")
    resolve(rule["helpUri"])


def test_gitlab_paths_are_relative_to_the_repository_root(tmp_path, run_cli):
    (tmp_path / ".git").mkdir()
    sub = tmp_path / "deploy"
    sub.mkdir()
    (sub / "serve.sh").write_text(f"{LAUNCH} --enable_metrics\n")
    r = run_cli("check", ".", "--output-format", "gitlab", "--sglang-version", "0.5.23", cwd=sub)
    assert [i["location"]["path"] for i in json.loads(r.stdout)] == ["deploy/serve.sh"]
