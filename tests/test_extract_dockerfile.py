"""Dockerfile extractor: Docker's line rules, exec and shell form, stages."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sgllint.engine.pipeline import Options, lint_source
from sgllint.formats.dockerfile.extractor import extract
from sgllint.formats.registry import detect_format
from sgllint.model.facts import Source, Unresolved

FIXTURES = Path(__file__).parent / "fixtures" / "dockerfile"


def load(name: str):
    path = FIXTURES / name
    source = Source(str(path), path.read_text())
    return source, extract(source)


def written(site) -> list[tuple[object, str]]:
    return [(t.value if isinstance(t.value, str) else t.value.raw, t.span.text) for t in site.tokens]


def _normal(text: str) -> str:
    return re.sub(r"[\\\"']", "", text)


def check_positions(source: Source, facts, exact: bool = True) -> None:
    n = len(source.text)
    for site in facts.sites:
        spans = [site.span, site.entry_span] + [h.span for h in site.hints if h.span]
        spans += [e.span for e in site.env] + [e.value_span for e in site.env if e.value_span]
        for span in spans:
            assert 0 <= span.start <= span.end <= n
        for token in site.tokens:
            assert 0 <= token.span.start < token.span.end <= n
            if isinstance(token.value, Unresolved):
                continue
            inner = token.sub_span(0, len(token.value))
            assert token.span.start <= inner.start <= inner.end <= token.span.end
            if not exact:
                continue
            if "$" not in token.span.text:
                assert _normal(inner.text) == _normal(token.value), (token.value, inner.text)
    for problem in facts.problems:
        assert 0 <= problem.span.start <= problem.span.end <= n
    for offset, _ in facts.comments:
        assert 0 <= offset <= n


def test_detect_format_by_name():
    for name in ("Dockerfile", "docker/Dockerfile.rocm", "gpu.Dockerfile", "Containerfile", "dockerfile"):
        assert detect_format(name) == "dockerfile"
    assert detect_format("Dockerfiles") is None
    assert detect_format("Dockerfile.md") == "markdown"


def test_exec_entrypoint_plus_cmd_is_one_argv():
    source, facts = load("Dockerfile")
    check_positions(source, facts)
    server = facts.sites[0]
    assert server.entry == "python -m sglang.launch_server"
    assert server.entry_span.text == '"python3", "-m", "sglang.launch_server"'
    assert server.span.text.startswith("ENTRYPOINT [") and server.span.text.endswith('"$MODEL_DIR"]')
    assert written(server) == [
        ("--model-path", '"--model-path"'),
        ("Qwen/Qwen2.5-7B-Instruct", '"Qwen/Qwen2.5-7B-Instruct"'),
        ("--tp", '"--tp"'),
        ("2", '"2"'),
        ("--json-model-override-args", '"--json-model-override-args"'),
        ('{"rope_scaling": {"type": "yarn"}}', '"{\\"rope_scaling\\": {\\"type\\": \\"yarn\\"}}"'),
        ("--tokenizer-path", '"--tokenizer-path"'),
        ("$MODEL_DIR", '"$MODEL_DIR"'),  # exec form: Docker does not expand ENV
    ]
    override = server.tokens[5]
    assert override.sub_span(0, len(override.value)).text == '{\\"rope_scaling\\": {\\"type\\": \\"yarn\\"}}'
    assert override.sub_span(2, 14).text == "rope_scaling"
    assert server.opaque == []


def test_stage_env_and_image_hint():
    source, facts = load("Dockerfile")
    server = facts.sites[0]
    # ENV of the parent stage, and ENV written after CMD: the container's environment
    assert [(e.name, e.value) for e in server.env] == [
        ("HF_HOME", "/root/.cache/huggingface"),
        ("SGLANG_LOG_LEVEL", "info"),
        ("MODEL_DIR", "/models/llama 3"),
        ("SGLANG_ENABLE_JIT_DEEPGEMM", "0"),
    ]
    assert server.env[1].span.text == 'SGLANG_LOG_LEVEL="info"' and server.env[1].value_span.text == '"info"'
    assert server.env[2].span.text == "MODEL_DIR /models/llama 3"
    [hint] = server.hints
    assert (hint.kind, hint.value) == ("sglang-image", "lmsysorg/sglang:v0.5.4-cu126")
    assert hint.span.text == "${BASE}:${SGLANG_TAG}"


def test_only_the_last_cmd_of_a_stage_counts():
    source, facts = load("Dockerfile")
    cuda = facts.sites[1]
    assert cuda.span.start_line_col()[0] == 23  # not the --help CMD on line 22
    assert cuda.entry_span.text == "python3 -m sglang.launch_server"
    assert written(cuda) == [
        ("--model-path", "--model-path"),
        ('"$MODEL"', '\\"$MODEL\\"'),
        ("--port", "--port"),
        ("${PORT:-30000}", "${PORT:-30000}"),
    ]
    assert cuda.hints == [] and cuda.env == []  # nvidia/cuda is not an SGLang image


def test_exec_entrypoint_without_cmd_takes_docker_run_arguments():
    source, facts = load("Dockerfile")
    docs = facts.sites[2]
    assert docs.tokens == []
    assert docs.opaque == ["arguments given to `docker run` are appended to the exec-form ENTRYPOINT"]
    assert docs.hints[0].value == "lmsysorg/sglang:v0.5.3.post3"


def test_pragma_above_instruction_covers_its_lines():
    source, facts = load("Dockerfile")
    lines = sorted(source.line_col(o)[0] for o, t in facts.comments if "ignore[SGL109]" in t)
    assert lines == [13, 14]  # the comment itself, then ENTRYPOINT's line


def test_shell_form_cmd_continuations_and_dropped_comment():
    source, facts = load("shell_form.Dockerfile")
    check_positions(source, facts)
    run, cmd, copied, heredoc = facts.sites
    assert cmd.entry_span.text == "python3 -m sglang.launch_server"
    assert written(cmd) == [
        ("--model-path", "--model-path"),
        ("${MODEL:-deepseek-ai/DeepSeek-V3}", "${MODEL:-deepseek-ai/DeepSeek-V3}"),
        ("--tp", "--tp"),
        ("4", "$TP"),  # ENV TP=4, expanded by /bin/sh at run time
        # the commented-out --json-model-override-args is dropped by Docker;
        # the blank line and `\ ` with a trailing blank still continue
        ("--grammar-backend", "--grammar-backend"),
        ("llguidance", "llguidance"),
        ("--host", "--host"),
        ("0.0.0.0", "0.0.0.0"),
    ]
    assert [t.span.start_line_col()[0] for t in cmd.tokens] == [11, 11, 13, 13, 15, 15, 16, 16]
    assert [(e.name, e.value) for e in cmd.env] == [("TP", "4"), ("SGLANG_USE_MODELSCOPE", "false")]
    assert cmd.hints[0].value == "lmsysorg/sglang:latest"
    comment = next(t for o, t in facts.comments if "json-model-override-args" in t)
    assert comment.startswith("# --json-model-override-args")


def test_run_sees_build_args_and_heredocs_are_scripts():
    source, facts = load("shell_form.Dockerfile")
    run, cmd, copied, heredoc = facts.sites
    assert written(run)[:2] == [("--model-path", "--model-path"), ("Qwen/Qwen2.5-0.5B-Instruct", "$BUILD_MODEL")]
    assert "BUILD_MODEL" in [e.name for e in run.env]
    assert "BUILD_MODEL" not in [e.name for e in cmd.env]  # ARG is gone at run time
    assert copied.span.start_line_col()[0] == 20  # COPY <<EOF /start.sh
    assert written(copied)[1] == ('"$MODEL"', '"$MODEL"')
    assert heredoc.entry_span.start_line_col() == (23, 2)  # <<- strips the tab
    assert [t.value for t in heredoc.tokens] == ["--model-path", "Qwen/Qwen2.5-7B", "--disable-radix"]


def test_escape_directive_backtick():
    source, facts = load("Dockerfile.escape")
    check_positions(source, facts)
    [site] = facts.sites
    assert written(site) == [
        ("--model-path", "--model-path"),
        ("/models/qwen", "/models/qwen"),
        ("--chat-template", "--chat-template"),
        ("C:\\templates\\chatml.jinja", '"C:\\templates\\chatml.jinja"'),
        ("--tp", "--tp"),
        ("2", "2"),
    ]


def test_exec_form_keeps_dollar_literal_and_sh_c_expands_env():
    text = (
        "FROM lmsysorg/sglang:v0.5.4\n"
        "ENV TP=2\n"
        'ENTRYPOINT ["/bin/sh", "-c"]\n'
        'CMD ["python3 -m sglang.launch_server --model-path m --tp $TP"]\n'
    )
    [site] = extract(Source("Dockerfile", text)).sites
    assert [(t.value, t.span.text) for t in site.tokens][-1] == ("2", "$TP")
    assert site.env[0].name == "TP"


def test_shell_entrypoint_ignores_cmd():
    text = 'FROM x\nENTRYPOINT python3 -m sglang.launch_server --model-path m\nCMD ["--tp", "2"]\n'
    [site] = extract(Source("Dockerfile", text)).sites
    assert [t.value for t in site.tokens] == ["--model-path", "m"]


def test_child_stage_cmd_uses_parent_entrypoint():
    text = (
        "FROM lmsysorg/sglang:v0.5.4 AS base\n"
        'ENTRYPOINT ["python3", "-m", "sglang.launch_server"]\n'
        "FROM base\n"
        'CMD ["--model-path", "m"]\n'
    )
    facts = extract(Source("Dockerfile", text))
    assert [[t.value for t in s.tokens] for s in facts.sites] == [[], ["--model-path", "m"]]
    assert facts.sites[1].hints[0].value == "lmsysorg/sglang:v0.5.4"


def test_unknown_instruction_and_unterminated_heredoc_are_problems():
    facts = extract(Source("Dockerfile", "FROM x\nFROB y\nRUN <<EOF\necho sglang\n"))
    assert [p.message for p in facts.problems] == ["heredoc 'EOF' is never terminated", "unknown instruction: FROB"]


def test_engine_suppression_on_instruction_lines():
    source, _ = load("Dockerfile")
    result = lint_source(source.path, source.text, Options(sglang_version="0.5.23", use_environment=False))
    assert not any(d.code == "SGL109" and d.span.start_line_col()[0] == 14 for d in result.diagnostics)
    source, _ = load("shell_form.Dockerfile")
    result = lint_source(source.path, source.text, Options(sglang_version="0.5.23", use_environment=False))
    assert any(d.code == "SGL109" and d.span.start_line_col()[0] == 13 for d in result.diagnostics)  # --tp


# ---------------------------------------------------------------------------
# Properties
# ---------------------------------------------------------------------------

_fragments = st.sampled_from([
    "FROM lmsysorg/sglang:v0.5.4 AS a\n", "FROM a\n", "ARG X=1\n", "ENV A=1 B=\"2 3\"\n", "ENV C d e\n",
    "CMD ", "ENTRYPOINT ", "RUN ", "COPY <<EOF /s.sh\n", "<<EOF\n", "EOF\n", "SHELL [\"pwsh\", \"-c\"]\n",
    '["python3", "-m", "sglang.launch_server", "--tp", "2"]\n', "python3 -m sglang.launch_server --tp $X ",
    "\\\n", "`\n", "# escape=`\n", "# comment \\\n", "\n", " ", '"', "'", "[", "]", ",", "\\u00e9", '"\\ud83d\\ude00"',
    "${X:-y}", "$", "é", "\r\n", "\t",
])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_fragments, max_size=40))
def test_property_random_input_never_raises(parts):
    text = "".join(parts)
    facts = extract(Source("Dockerfile", text))
    check_positions(facts.source, facts, exact=False)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(p.name for p in FIXTURES.iterdir())), st.data())
def test_property_mutated_fixtures_never_raise(name, data):
    text = (FIXTURES / name).read_text()
    for _ in range(data.draw(st.integers(1, 4))):
        i = data.draw(st.integers(0, len(text)))
        j = data.draw(st.integers(i, min(len(text), i + 40)))
        insert = data.draw(st.sampled_from(["", '"', "\\", "\n", "[", "]", "#", "$", text[i:j] * 2]))
        text = text[:i] + insert + text[j:]
    facts = extract(Source(name, text))
    check_positions(facts.source, facts, exact=False)
