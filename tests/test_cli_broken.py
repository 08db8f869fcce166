"""Issue 20, "Broken today": each point as a user meets it, through the real
CLI (`run_cli` runs ``python -m sgllint`` in a subprocess)."""

from __future__ import annotations

import json

LAUNCH = "python -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct"
BAD = f"#!/bin/bash\n{LAUNCH} --enable_metrics\n"
GOOD = f"{LAUNCH} --tp-size 2\n"


def _write(root, name, text):
    p = root / name
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")
    return p


# 1. a missing path is an error ---------------------------------------------


def test_missing_path_exits_two_with_message(tmp_path, run_cli):
    _write(tmp_path, "ok.sh", GOOD)
    r = run_cli("check", "no-such-dir/", "--sglang-version", "0.5.23")
    assert r.returncode == 2, r.stdout + r.stderr
    assert "sgllint: error: no-such-dir/: no such file or directory" in r.stderr
    assert r.stdout == ""


def test_missing_path_among_good_ones_still_lints_the_others(tmp_path, run_cli):
    _write(tmp_path, "bad.sh", BAD)
    r = run_cli("check", "bad.sh", "typo.sh", "--output-format", "concise", "--sglang-version", "0.5.23")
    assert r.returncode == 2
    assert r.stdout.startswith("bad.sh:2:")  # the existing path was linted
    assert "typo.sh: no such file or directory" in r.stderr
    # --exit-zero does not hide a path that is not there
    r = run_cli("check", "bad.sh", "typo.sh", "--exit-zero", "--sglang-version", "0.5.23")
    assert r.returncode == 2


# 2. --statistics keeps machine output valid ---------------------------------

TWO_BAD = f"{LAUNCH} --enable_metrics --tp 2\n{LAUNCH} --enable_metricz\n"


def test_statistics_json_is_rufflike_json(tmp_path, run_cli):
    _write(tmp_path, "bad.sh", TWO_BAD)
    r = run_cli("check", "bad.sh", "--output-format", "json", "--statistics", "--sglang-version", "0.5.23")
    assert r.returncode == 1
    stats = json.loads(r.stdout)  # ruff: --statistics with json prints the counts as JSON
    assert stats[0] == {"code": "SGL101", "name": "unknown-flag", "count": 2, "fixable_count": 0, "unsafe_fixable_count": 2}
    assert {"code": "SGL109", "name": "abbreviated-flag", "count": 1, "fixable_count": 1, "unsafe_fixable_count": 0} in stats
    r = run_cli("check", "bad.sh", "--output-format", "json-lines", "--statistics", "--sglang-version", "0.5.23")
    assert [json.loads(line)["code"] for line in r.stdout.splitlines()] == ["SGL101", "SGL109"]


def test_statistics_with_sarif_and_other_machine_formats_goes_to_stderr(tmp_path, run_cli):
    _write(tmp_path, "bad.sh", TWO_BAD)
    for fmt in ("sarif", "gitlab", "lsp"):
        r = run_cli("check", "bad.sh", "--output-format", fmt, "--statistics", "--sglang-version", "0.5.23")
        json.loads(r.stdout)  # still one valid document
        assert "    2\tSGL101\t[unknown-flag]" in r.stderr
    r = run_cli("check", "bad.sh", "--output-format", "junit", "--statistics", "--sglang-version", "0.5.23")
    import xml.etree.ElementTree as ET

    ET.fromstring(r.stdout.encode())
    assert "SGL109" in r.stderr


# 4. did-you-mean for codes and options --------------------------------------


def test_did_you_mean_code_is_code_aware(tmp_path, run_cli):
    r = run_cli("check", ".", "--select", "SGL1O1")  # a letter O for a zero
    assert r.returncode == 2
    assert "did you mean 'SGL101'?" in r.stderr, r.stderr
    r = run_cli("check", ".", "--ignore", "SGL1011")
    assert "did you mean 'SGL101'?" in r.stderr, r.stderr
    r = run_cli("check", ".", "--extend-select", "unknwon-flag")
    assert "did you mean 'unknown-flag'?" in r.stderr, r.stderr


def test_did_you_mean_code_in_configuration(tmp_path, run_cli):
    _write(tmp_path, ".sgllint.toml", 'ignore = ["SGLl09"]\n')
    r = run_cli("check", ".")
    assert r.returncode == 2 and "did you mean 'SGL109'?" in r.stderr, r.stderr


def test_did_you_mean_option(tmp_path, run_cli):
    r = run_cli("check", ".", "--output-fromat", "json")
    assert r.returncode == 2
    assert "unrecognized arguments: --output-fromat" in r.stderr
    assert "did you mean '--output-format'?" in r.stderr, r.stderr
    r = run_cli("check", "--statistic")
    assert "did you mean '--statistics'?" in r.stderr, r.stderr
    # a mistyped subcommand or choice too
    r = run_cli("chek", ".")
    assert r.returncode == 2 and "did you mean 'check'?" in r.stderr, r.stderr
    r = run_cli("check", "--output-format", "jsn")
    assert r.returncode == 2 and "did you mean 'json'?" in r.stderr, r.stderr


def test_code_distance_unit():
    from sgllint.resolve.didyoumean import closest_code

    codes = ["SGL101", "SGL102", "SGL110", "SGL211", "SGL999"]
    assert closest_code("SGL1O1", codes) == "SGL101"
    assert closest_code("sgl1l0", codes) == "SGL110"
    assert closest_code("SGL10l", codes) == "SGL101"
    assert closest_code("SGL121", codes) in ("SGL101", "SGL211")  # one digit off
    assert closest_code("XYZ", codes) is None


# 3. a release newer than the newest catalog is said, once, per format -------

NEWER = "sglang 0.6.0 is newer than the newest release sgllint knows ({latest}): checking against {latest}"


def _latest():
    from sgllint.catalog import latest

    return latest()


def test_newer_release_said_once_on_stderr(tmp_path, run_cli):
    _write(tmp_path, "a.sh", BAD)
    _write(tmp_path, "b.sh", BAD)
    for fmt in ("full", "concise", "json"):
        r = run_cli("check", "a.sh", "b.sh", "--sglang-version", "0.6.0", "--output-format", fmt)
        assert r.returncode == 1
        assert r.stderr.count(NEWER.format(latest=_latest())) == 1, r.stderr
    if fmt == "json":
        json.loads(r.stdout)
    # a known release, a post release of the newest and "latest" say nothing
    for version in (_latest(), _latest() + ".post1", "latest"):
        r = run_cli("check", "a.sh", "--sglang-version", version)
        assert "newer than" not in r.stderr


def test_newer_release_from_an_image_tag_and_a_pin(tmp_path, run_cli):
    _write(tmp_path, "k8s.yaml", (
        "containers:\n  - image: lmsysorg/sglang:v0.6.0-cu129\n"
        "    command: [python, -m, sglang.launch_server, --model-path, Qwen/Qwen2.5-7B-Instruct, --tp-size, '2']\n"
    ))
    for _ in ("cold", "from the cache"):  # a cached result keeps what its launches asked for
        r = run_cli("check", "k8s.yaml")
        assert r.returncode == 0, r.stdout + r.stderr
        assert r.stderr.count(NEWER.format(latest=_latest())) == 1, r.stderr
    # a project pin, linted by worker processes
    _write(tmp_path, "svc/requirements.txt", "sglang[all]==0.6.1\n")
    for i in range(40):
        _write(tmp_path, f"svc/s{i}.sh", GOOD)
    r = run_cli("check", "svc", "--no-cache", "-j", "2")
    assert r.returncode == 0, r.stderr
    assert r.stderr.count("sglang 0.6.1 is newer than the newest release") == 1, r.stderr


def test_newer_release_is_a_sarif_run_property_and_a_github_notice(tmp_path, run_cli):
    _write(tmp_path, "a.sh", BAD)
    r = run_cli("check", "a.sh", "--sglang-version", "0.6.0", "--output-format", "sarif")
    run = json.loads(r.stdout)["runs"][0]
    assert run["properties"]["notices"] == [NEWER.format(latest=_latest())]
    assert "newer than" not in r.stderr  # the document says it
    r = run_cli("check", "a.sh", "--sglang-version", "0.6.0", "--output-format", "github")
    assert r.stdout.splitlines()[0] == "::notice title=sgllint::" + NEWER.format(latest=_latest())


# 6. JUnit: test counts and control characters --------------------------------


def _junit(text):
    import xml.etree.ElementTree as ET

    return ET.fromstring(text.split("?>", 1)[1])


def test_junit_counts_test_cases(tmp_path, run_cli):
    _write(tmp_path, "ok.sh", GOOD)
    r = run_cli("check", ".", "--output-format", "junit", "--sglang-version", "0.5.23")
    root = _junit(r.stdout)
    cases = root.findall(".//testcase")
    assert root.get("tests") == str(len(cases)) == "1" and root.get("failures") == "0"
    _write(tmp_path, "bad.sh", TWO_BAD)
    r = run_cli("check", ".", "--output-format", "junit", "--sglang-version", "0.5.23")
    root = _junit(r.stdout)
    assert root.get("tests") == str(len(root.findall(".//testcase"))) == root.get("failures") == "3"
    for suite in root.findall("testsuite"):
        assert suite.get("tests") == str(len(suite.findall("testcase")))


def test_junit_with_control_characters_in_path_and_text(tmp_path, run_cli):
    name = "a\x01b\x1b.sh"
    _write(tmp_path, name, f'{LAUNCH} --served-model-name "x\x0by\x7f" --enable_metrics\n')
    r = run_cli("check", ".", "--output-format", "junit", "--sglang-version", "0.5.23")
    assert r.returncode == 1
    root = _junit(r.stdout)  # parses: no character XML 1.0 forbids
    suite = root.find("testsuite")
    assert suite.get("name") == "a\\x01b\\x1b.sh"
    assert suite.find("testcase").get("classname") == "a\\x01b\\x1b.sh"
