"""All rules at once, through the real CLI and JSON output: each INVALID
example reports exactly its rule's code at exactly its span, and no VALID
example of any rule triggers any rule."""

from __future__ import annotations

import json
from collections import defaultdict

from sgllint import catalog as catalogs
from sgllint.formats.registry import supported_formats
from sgllint.model.rule import builtin_rules, iter_examples

FORMAT_OF_EXAMPLE = {"sh": "shell", "py": "python", "yaml": "yaml", "toml": "toml", "dockerfile": "dockerfile", "md": "markdown"}
SUFFIX = {"sh": ".sh", "py": ".py", "yaml": ".yaml", "toml": ".toml", "dockerfile": ".Dockerfile", "md": ".md"}


def _evaluator_ready() -> bool:
    from sgllint.semantics import launch_validation

    return launch_validation.evaluator() is not None


def _examples(valid: bool):
    ready = _evaluator_ready()
    for rule in builtin_rules():
        if getattr(rule, "needs_evaluator", False) and not ready:
            continue  # SGL400/SGL401 are silent until the evaluator is LINT_READY (tests/test_rules.py gates them the same way)
        for test_id, ex in iter_examples(rule):
            if ex.valid == valid and FORMAT_OF_EXAMPLE[ex.fmt] in supported_formats():
                yield rule, test_id, ex


#: rules off by default (`Rule.default_enabled`): their examples are linted
#: with them selected, every other example without them
OPT_IN = sorted(r.code for r in builtin_rules() if not r.default_enabled)


def _write_by_version(tmp_path, examples):
    """One directory per target release (under ``opt-in/`` for the examples
    of rules off by default); returns {path: (rule, example)}."""
    placed = {}
    for rule, test_id, ex in examples:
        version = ex.sglang or catalogs.latest()
        name = ex.path if ex.path and ex.fmt == "dockerfile" else test_id + SUFFIX[ex.fmt]
        top = f"opt-in/{version}" if rule.code in OPT_IN else version
        d = tmp_path / top / test_id
        d.mkdir(parents=True)
        (d / name).write_text(ex.source)
        placed[f"{top}/{test_id}/{name}"] = (rule, ex)
    return placed


def _run_all(tmp_path, run_cli, placed):
    by_path = defaultdict(list)
    for top in sorted({p.rsplit("/", 2)[0] for p in placed}):
        version = top.rsplit("/", 1)[-1]
        extra = ("--extend-select", ",".join(OPT_IN)) if top.startswith("opt-in/") else ()
        r = run_cli("check", top, "--output-format", "json", "--sglang-version", version,
                    "--no-environment", "--isolated", *extra, cwd=tmp_path)
        assert r.returncode in (0, 1), r.stderr
        for item in json.loads(r.stdout):
            by_path[item["path"]].append(item)
    return by_path


def _offset(text: str, line: int, column: int) -> int:
    lines = text.splitlines(keepends=True)
    return sum(len(l) for l in lines[: line - 1]) + column - 1


def test_invalid_examples_report_exactly_their_code_and_span(tmp_path, run_cli):
    placed = _write_by_version(tmp_path, _examples(valid=False))
    found = _run_all(tmp_path, run_cli, placed)
    problems = []
    for path, (rule, ex) in placed.items():
        items = found.get(path, [])
        codes = [i["code"] for i in items]
        if codes != [rule.code] * ex.count:
            problems.append(f"{path}: expected {[rule.code] * ex.count}, got {[(i['code'], i['message']) for i in items]}")
            continue
        start, end = ex.at_span()
        first = items[0]
        got = (_offset(ex.source, first["line"], first["column"]), _offset(ex.source, first["end_line"], first["end_column"]))
        if got != (start, end):
            problems.append(f"{path}: span {got} != expected {(start, end)} ({ex.source[start:end]!r})")
    assert not problems, "\n".join(problems)


def test_valid_examples_report_nothing_from_any_rule(tmp_path, run_cli):
    placed = _write_by_version(tmp_path, _examples(valid=True))
    found = _run_all(tmp_path, run_cli, placed)
    noisy = {p: [(i["code"], i["message"]) for i in items] for p, items in found.items()}
    assert not noisy, "\n".join(f"{p}: {v}" for p, v in noisy.items())
