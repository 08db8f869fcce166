"""Valid bash is never a parse error (issue 18, "SGL000 only when the file's
own tool refuses it"): a corpus of scripts written for this project with the
constructs real launch scripts use (`case` per role, loops per GPU,
heredocs, arithmetic, nested `$( )`, process substitution, `[[ =~ ]]`,
arrays, functions, comments inside `\\` continuations, `${X:-default}`).
`bash -n` must accept each one; sgllint must give no SGL000 and find the
launches where they are written. The look-alike, with the mistakes bash
rejects, still gets SGL000.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from sgllint.engine.pipeline import Options, lint_source

FIXTURES = Path(__file__).parent / "fixtures" / "real_world"
CORPUS = sorted((FIXTURES / "valid_bash").glob("*.sh"))

needs_bash = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash to judge the scripts")

#: per script: (line, entry, the --model-path word as written) of each launch
LAUNCHES = {
    "arithmetic_defaults.sh": [(10, "python -m sglang.launch_server", "Qwen/Qwen3-8B")],
    "arrays_functions.sh": [(25, "python -m sglang.launch_server", "meta-llama/Llama-3.1-70B-Instruct")],
    "comments_in_continuations.sh": [
        (5, "python -m sglang.launch_server", "Qwen/Qwen3-8B"),
        (11, "python -m sglang.launch_server", "Qwen/Qwen3-8B"),
    ],
    "edge_grammar.sh": [(27, "python -m sglang.launch_server", "Qwen/Qwen3-8B")],
    # the script fed to `bash <<EOF` is a launch; the quoted README heredoc is text
    "heredocs.sh": [(18, "python -m sglang.launch_server", "Qwen/Qwen3-8B"), (27, "python -m sglang.launch_server", None)],
    "misc_grammar.sh": [(21, "python -m sglang.launch_server", '"Qwen/${name}"')],
    "pd_roles.sh": [
        (21, "python -m sglang.launch_server", '"${MODEL_PATH}"'),
        (30, "python -m sglang.launch_server", '"${MODEL_PATH}"'),
        (35, "python -m sglang_router.launch_router", None),
    ],
    "per_gpu_loop.sh": [(9, "python -m sglang.launch_server", "Qwen/Qwen2.5-7B-Instruct")],
    "substitutions.sh": [(16, "python -m sglang.launch_server", '"$(realpath "${CKPT_DIR:-/ckpt}/$(ls "${CKPT_DIR:-/ckpt}" | tail -1)")"')],
}

#: what is reported besides: only real problems of the scripts
FINDINGS = {
    # the `# --enable-torch-compile \` line ends the command: --port never reaches the server
    "comments_in_continuations.sh": [("SGL001", 6, 30)],
    "substitutions.sh": [("SGL109", 21, 3)],
}


def _lint(path: Path):
    return lint_source(str(path), path.read_text(), Options(sglang_version="0.5.23", use_environment=False))


def _model_word(launch):
    arg = launch.last("model_path")
    if arg is None:
        return None
    return getattr(arg.value, "raw", arg.value)


def test_the_corpus_is_the_one_described():
    assert sorted(p.name for p in CORPUS) == sorted(LAUNCHES)


@needs_bash
@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.name)
def test_a_script_bash_accepts_is_no_parse_error(path):
    check = subprocess.run(["bash", "-n", str(path)], capture_output=True, text=True)
    assert check.returncode == 0, check.stderr
    result = _lint(path)
    found = sorted((d.code, *d.span.start_line_col()) for d in result.diagnostics)
    assert not [f for f in found if f[0] == "SGL000"], [d.message for d in result.diagnostics]
    assert found == FINDINGS.get(path.name, [])
    launches = [(launch.span.start_line_col()[0], launch.entry, _model_word(launch)) for launch in result.launches]
    assert launches == LAUNCHES[path.name]


@needs_bash
def test_the_look_alike_bash_rejects_is_a_parse_error():
    path = FIXTURES / "invalid_bash.sh"
    assert subprocess.run(["bash", "-n", str(path)], capture_output=True).returncode != 0
    found = sorted((d.code, *d.span.start_line_col()) for d in _lint(path).diagnostics if d.code == "SGL000")
    # the `case` never closed, and the backtick comment never closed
    assert found == [("SGL000", 3, 1), ("SGL000", 6, 43)]


@needs_bash
def test_the_arithmetic_look_alike_bash_rejects_is_a_parse_error():
    # the same `${X:-$((48 << 30))}` default as arithmetic_defaults.sh, its
    # closing brace missing: bash reads to the end of the file for it
    path = FIXTURES / "invalid_arithmetic.sh"
    assert subprocess.run(["bash", "-n", str(path)], capture_output=True).returncode != 0
    found = [(d.code, *d.span.start_line_col()) for d in _lint(path).diagnostics if d.code == "SGL000"]
    assert found == [("SGL000", 2, 8)]


def test_a_comment_in_backticks_is_nothing():
    # `` `# why` `` in a continued command expands to nothing; non-ASCII text
    # in it keeps every later position exact
    from sgllint.formats.shell.extractor import extract
    from sgllint.model.facts import Source

    text = "python -m sglang.launch_server --model-path m `# tête 🚀` \\\n --port 1 --served-model-name é\n"
    facts = extract(Source("x.sh", text))
    assert not facts.problems
    words = [(t.value, t.span.start_line_col()) for t in facts.sites[0].tokens]
    assert words == [("--model-path", (1, 32)), ("m", (1, 45)), ("--port", (2, 2)), ("1", (2, 9)), ("--served-model-name", (2, 11)), ("é", (2, 31))]
