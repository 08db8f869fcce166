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
