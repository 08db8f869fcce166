"""What one `sgllint check` imports (issue 21): a file's run pays only for
the parsers its format needs. Import graphs, not timings: speed lives in
benchmarks/latency.py."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("libcst", "tree_sitter", "tree_sitter_bash", "multiprocessing", "pygls", "lsprotocol")

PROBE = """
import io, json, sys
from contextlib import redirect_stdout
from sgllint.hosts.cli import main
with redirect_stdout(io.StringIO()):
    main(["check", "--no-cache", sys.argv[1]])
print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] in %r)))
"""


def imported(path: Path) -> set[str]:
    out = subprocess.run(
        [sys.executable, "-c", PROBE % (HEAVY,), str(path)], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    return {m.split(".")[0] for m in json.loads(out.splitlines()[-1])}


@pytest.mark.parametrize(
    "path, needs",
    [
        ("examples/serve_qwen.sh", {"tree_sitter", "tree_sitter_bash"}),
        ("examples/k8s/deepseek-deterministic.yaml", set()),
        ("examples/rl_rollout.py", {"libcst"}),
        ("examples/README.md", set()),
    ],
)
def test_one_file_imports_only_its_formats_parser(path, needs):
    # a shell file never loads libcst, YAML/Markdown neither parser; no run of
    # one file starts worker processes or loads the language server
    assert imported(ROOT / path) == needs


def test_a_file_without_a_launch_loads_no_parser(tmp_path):
    f = tmp_path / "notes.py"
    f.write_text("print('no server here')\n")
    assert imported(f) == set()


#: what no one-file run of these formats needs: the other formats' parsers,
#: the result cache with --no-cache, the ignore-file matcher for a named file
#: (no ignore file is read), and the language server
NEVER = ("libcst", "yaml", "tree_sitter", "tree_sitter_bash", "pathspec", "sgllint.engine.cache",
         "sgllint.hosts.lsp", "pygls", "lsprotocol", "multiprocessing")

LOADED = """
import io, json, sys
from contextlib import redirect_stdout
from sgllint.hosts.cli import main
with redirect_stdout(io.StringIO()):
    main(["check", "--no-cache", sys.argv[1]])
names = json.loads(sys.argv[2])
print(json.dumps(sorted(n for n in names if n in sys.modules)))
"""


def loaded(path: Path, names) -> set[str]:
    out = subprocess.run(
        [sys.executable, "-c", LOADED, str(path), json.dumps(list(names))], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    return set(json.loads(out.splitlines()[-1]))


@pytest.mark.parametrize(
    "path, needs",
    [
        ("examples/serve_qwen.sh", {"tree_sitter", "tree_sitter_bash"}),  # no YAML reader: --shm-size alone needs it
        ("examples/k8s/deepseek-deterministic.yaml", {"yaml"}),
        ("examples/rl_rollout.py", {"libcst"}),
        ("examples/README.md", set()),
    ],
)
def test_one_file_loads_no_other_formats_reader_nor_the_cache(path, needs):
    assert loaded(ROOT / path, NEVER) == needs


@pytest.mark.parametrize("path", ["examples/serve_qwen.sh", "examples/k8s/deepseek-deterministic.yaml"])
def test_the_derived_validation_interpreter_loads_only_when_it_runs(path, monkeypatch):
    # while the evaluator is not LINT_READY (and SGLLINT_DERIVED_VALIDATION is not 1)
    # a lint asks only whether it is on: the interpreter (~130 ms of imports) stays unloaded
    monkeypatch.delenv("SGLLINT_DERIVED_VALIDATION", raising=False)
    from sgllint.semantics import validation

    if getattr(validation, "LINT_READY", False):
        pytest.skip("the evaluator runs in every lint")
    assert loaded(ROOT / path, ("sgllint.semantics.validation.evaluator", "sgllint.semantics.validation.interp")) == set()


def test_without_sglang_metadata_importlib_metadata_is_not_imported(tmp_path):
    # asking importlib.metadata for sglang's version imports email, zipfile,
    # csv and socket; with no sglang-*.dist-info/.egg-info on sys.path the
    # answer is known without it
    from sgllint.resolve.context import _may_be_installed

    if _may_be_installed("sglang"):
        pytest.skip("sglang's metadata is on sys.path here")
    assert loaded(ROOT / "examples/serve_qwen.sh", ["importlib.metadata", "email"]) == set()


def test_a_check_builds_only_the_check_subcommands_parser():
    from sgllint.hosts.cli_args import COMMANDS, build_parser

    def subcommands(parser):
        return next(a for a in parser._actions if a.dest == "command").choices

    assert list(subcommands(build_parser("check"))) == ["check"]
    assert list(subcommands(build_parser())) == list(COMMANDS)
    assert list(subcommands(build_parser("chek"))) == list(COMMANDS)  # a typo gets the full list to choose from
