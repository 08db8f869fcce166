"""``sgllint check --add-noqa`` through the real CLI: a comment per finding
in each format's syntax, on the launch's first line where it can go;
``check`` is clean afterwards and a second run changes nothing."""

from __future__ import annotations

import pytest

LAUNCH = "python -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct"
V = ("--sglang-version", "0.5.23")

FILES = {
    # a one-line launch with two findings: one comment, both codes
    "one.sh": f"#!/bin/sh\n{LAUNCH} --enable_metrics --tp 2\n",
    # continued with backslashes: only the last line can take a comment
    "continued.sh": f"#!/bin/sh\n{LAUNCH} \\\n  --enable_metrics \\\n  --port 30000\n",
    # a multi-line Python call: the launch's first line
    "app.py": (
        "import sglang as sgl\n"
        "engine = sgl.Engine(\n"
        '    model_path="Qwen/Qwen2.5-7B-Instruct",\n'
        "    tensor_parallel_size=2,\n"
        "    mem_fraction_statc=0.8,\n"
        ")\n"
    ),
    "k8s.yaml": (
        "containers:\n  - name: s\n    command:\n"
        "      - python\n      - -m\n      - sglang.launch_server\n      - --model-path\n"
        "      - Qwen/Qwen2.5-7B-Instruct\n      - --enable_metrics\n"
    ),
    "mise.toml": f'[tasks.serve]\nrun = "{LAUNCH} --enable_metrics"\n',
    "Dockerfile": f"FROM lmsysorg/sglang:v0.5.4\nCMD {LAUNCH} \\\n    --enable_metrics\n",
    "README.md": f"# Serving\n\n```sh\n{LAUNCH} \\\n  --enable_metrics\n```\n",
    # an existing noqa comment is extended, not duplicated
    "partial.sh": f"{LAUNCH} --enable_metrics --tp 2  # noqa: SGL101\n",
}


@pytest.fixture
def tree(tmp_path):
    for name, text in FILES.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    return tmp_path


def test_add_noqa_then_check_is_clean_and_idempotent(tree, run_cli):
    before = run_cli("check", ".", "--output-format", "concise", "--no-cache", *V)
    assert before.returncode == 1
    assert {line.split(":")[0] for line in before.stdout.splitlines()} == set(FILES)
    r = run_cli("check", ".", "--add-noqa", *V)
    assert r.returncode == 0, r.stderr
    assert "Added " in r.stderr and " noqa directives." in r.stderr
    after = run_cli("check", ".", "--output-format", "concise", "--no-cache", *V)
    assert after.returncode == 0 and after.stdout == "", after.stdout
    texts = {name: (tree / name).read_text(encoding="utf-8") for name in FILES}
    again = run_cli("check", ".", "--add-noqa", *V)
    assert again.returncode == 0 and "Added 0 noqa directives." in again.stderr
    assert {name: (tree / name).read_text(encoding="utf-8") for name in FILES} == texts


def test_add_noqa_places_and_syntax(tree, run_cli):
    run_cli("check", ".", "--add-noqa", *V)
    read = lambda name: (tree / name).read_text(encoding="utf-8")  # noqa: E731
    assert read("one.sh") == f"#!/bin/sh\n{LAUNCH} --enable_metrics --tp 2  # noqa: SGL101, SGL109\n"
    assert read("continued.sh") == f"#!/bin/sh\n{LAUNCH} \\\n  --enable_metrics \\\n  --port 30000  # noqa: SGL101\n"
    assert read("app.py").splitlines()[1] == "engine = sgl.Engine(  # noqa: SGL101"
    assert "      - python  # noqa: SGL101\n" in read("k8s.yaml")  # the launch's first line
    assert read("mise.toml").endswith('--enable_metrics"  # noqa: SGL101\n')
    assert "# noqa: SGL101" in read("Dockerfile")
    assert read("README.md") == f"# Serving\n\n<!-- noqa: SGL101 -->\n```sh\n{LAUNCH} \\\n  --enable_metrics\n```\n"
    assert read("partial.sh") == f"{LAUNCH} --enable_metrics --tp 2  # noqa: SGL101, SGL109\n"
