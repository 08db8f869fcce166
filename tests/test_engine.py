"""The engine never dies on a file, and keeps linting the others."""

from __future__ import annotations

from sgllint.engine.pipeline import Options
from sgllint.engine.runner import lint_paths
from sgllint.model.rule import ERROR, Rule, builtin_rules

LAUNCH = "python -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct --enable_metrics\n"


class Exploding(Rule):
    code = "SGL990"
    name = "exploding-test-rule"
    severity = ERROR

    def check(self, launch):
        if "boom" in launch.source.path:
            raise RuntimeError("kaboom")
        return ()


def test_crashing_rule_yields_sgl999_and_others_still_run(tmp_path):
    (tmp_path / "boom.sh").write_text(LAUNCH)
    (tmp_path / "fine.sh").write_text(LAUNCH)
    options = Options(sglang_version="0.5.23", use_environment=False, rules=builtin_rules() + [Exploding])
    results = {r.path.rsplit("/", 1)[-1]: r for r in lint_paths([str(tmp_path)], options)}
    boom = [(d.code, d.message) for d in results["boom.sh"].diagnostics]
    assert ("SGL999", "rule SGL990 (exploding-test-rule) failed: RuntimeError: kaboom") in boom
    assert any(c == "SGL101" for c, _ in boom)  # the other rules still ran on it
    assert [d.code for d in results["fine.sh"].diagnostics] == ["SGL101"]


def test_crashing_extractor_yields_sgl000(tmp_path, monkeypatch):
    import sgllint.formats.registry as extract

    def broken(source):
        raise ValueError("parser exploded")

    (tmp_path / "a.sh").write_text(LAUNCH)
    (tmp_path / "b.sh").write_text(LAUNCH)
    real = extract.extractor

    def pick(fmt):
        return lambda src: broken(src) if src.path.endswith("a.sh") else real(fmt)(src)

    monkeypatch.setattr("sgllint.engine.pipeline.extractor", pick)
    results = {r.path.rsplit("/", 1)[-1]: r for r in lint_paths([str(tmp_path)], Options(sglang_version="0.5.23"))}
    a = results["a.sh"].diagnostics
    assert [d.code for d in a] == ["SGL000"] and "parser exploded" in a[0].message
    assert [d.code for d in results["b.sh"].diagnostics] == ["SGL101"]


def test_unreadable_and_binary_files_are_skipped(tmp_path):
    (tmp_path / "bin.sh").write_bytes(b"\0\1\2sglang")
    (tmp_path / "ok.sh").write_text(LAUNCH)
    (tmp_path / "dangling.sh").symlink_to(tmp_path / "missing.sh")
    results = {r.path.rsplit("/", 1)[-1]: r for r in lint_paths([str(tmp_path)], Options(sglang_version="0.5.23"))}
    assert results["bin.sh"].skipped == "binary file"
    assert [d.code for d in results["ok.sh"].diagnostics] == ["SGL101"]
    assert "dangling.sh" not in results


def test_invalid_utf8_still_linted(tmp_path):
    (tmp_path / "x.sh").write_bytes(b"# caf\xe9\n" + LAUNCH.encode())
    results = list(lint_paths([str(tmp_path / "x.sh")], Options(sglang_version="0.5.23")))
    assert [d.code for d in results[0].diagnostics] == ["SGL101"]
