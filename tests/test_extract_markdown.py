"""Markdown extractor: fenced blocks with their real positions."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sgllint.formats.registry as extract_pkg
from sgllint.engine.pipeline import Options, lint_source
from sgllint.formats.markdown.extractor import extract
from sgllint.formats.remap import remap_facts
from sgllint.model.facts import (
    ContextHint,
    EnvVar,
    FileFacts,
    Kwarg,
    LaunchSite,
    ParseProblem,
    Severed,
    Source,
    SourceMap,
    Span,
    Token,
    Unresolved,
)

FIXTURES = Path(__file__).parent / "fixtures" / "markdown"


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
        assert site.source is source
        spans = [site.span, site.entry_span] + [h.span for h in site.hints if h.span]
        spans += [e.span for e in site.env] + [k.name_span for k in site.kwargs] + [k.value_span for k in site.kwargs]
        for span in spans:
            assert span.source is source and 0 <= span.start <= span.end <= n
        for token in site.tokens:
            assert token.span.source is source and 0 <= token.span.start < token.span.end <= n
            if isinstance(token.value, Unresolved):
                continue
            inner = token.sub_span(0, len(token.value))
            assert inner.source is source and token.span.start <= inner.start <= inner.end <= token.span.end
            if exact and "$" not in token.span.text:
                assert _normal(inner.text).lstrip("-") == _normal(token.value).lstrip("-"), (token.value, inner.text)
        for kw in site.kwargs:
            assert kw.name_span.text == kw.name
    for problem in facts.problems:
        assert 0 <= problem.span.start <= problem.span.end <= n
    for offset, _ in facts.comments:
        assert 0 <= offset <= n


def sites_on(facts, first: int, last: int):
    return [s for s in facts.sites if first <= s.span.start_line_col()[0] <= last]


def test_readme_blocks():
    source, facts = load("README.md")
    check_positions(source, facts)
    lines = [s.entry_span.start_line_col()[0] for s in facts.sites]
    # never the inline code on line 3 nor the prose launch on line 5, nor the
    # bash example inside the ````markdown block (line 58)
    assert 3 not in lines and 5 not in lines and 58 not in lines
    assert [14, 17, 24, 50] == [n for n in lines if n not in range(31, 46) and n < 60]


def test_console_block_prompts_and_continuation():
    source, facts = load("README.md")
    launch, rooted = sites_on(facts, 11, 18)
    assert launch.entry_span.start_line_col() == (14, 3)  # after the "$ " prompt
    assert written(launch) == [
        ("--model-path", "--model-path"),
        ("Qwen/Qwen2.5-7B-Instruct", "Qwen/Qwen2.5-7B-Instruct"),
        ("--tp", "--tp"),  # on the "> " continuation line
        ("2", "2"),
        ("--port", "--port"),
        ("30000", "30000"),
    ]
    assert launch.tokens[2].span.start_line_col() == (15, 5)
    # "# " is a root prompt: the command after it is linted too
    assert rooted.entry_span.text == "python3 -m sglang.launch_server"
    assert [(e.name, e.value) for e in rooted.env] == [("CUDA_VISIBLE_DEVICES", "0,1")]


def test_bash_block_in_a_list_item():
    source, facts = load("README.md")
    [site] = sites_on(facts, 20, 30)
    assert site.entry_span.start_line_col() == (24, 4)
    assert written(site) == [
        ("--model-path", "--model-path"),
        ("<your-model>", "<your-model>"),
        ("--mem-fraction-static", "--mem-fraction-static"),
        ("0.8", "0.8"),
        ("--port", "--port"),
        ("{{ port }}", "{{ port }}"),
    ]
    assert site.tokens[1].value.reason == "documentation placeholder"
    assert site.tokens[5].value.reason == "template expression"
    assert [(e.name, e.value) for e in site.env] == [("SGLANG_LOG_LEVEL", "debug")]
    assert (source.line_col(next(o for o, t in facts.comments if t == "# set the port in your template"))) == (27, 25)


def test_yaml_block_uses_the_yaml_extractor_when_registered():
    source, facts = load("README.md")
    found = sites_on(facts, 31, 46)
    if "yaml" not in extract_pkg.EXTRACTORS:
        assert found == []
        return
    [site] = found
    check_positions(source, facts)
    assert "--model-path" in [t.value for t in site.tokens]
    assert all(31 <= t.span.start_line_col()[0] <= 46 for t in site.tokens)


def test_python_block_when_registered():
    source, facts = load("README.md")
    found = sites_on(facts, 61, 66)
    if "python" not in extract_pkg.EXTRACTORS:
        assert found == []
        return
    [site] = found
    assert [(k.name, k.name_span.text, k.value_span.text) for k in site.kwargs] == [
        ("model_path", "model_path", '"Qwen/Qwen2.5-7B-Instruct"'),
        ("tp_size", "tp_size", "2"),
    ]
    assert site.kwargs[0].name_span.start_line_col() == (64, 18)


def test_html_ignore_comment_covers_the_next_block():
    source, facts = load("README.md")
    covered = sorted({source.line_col(o)[0] for o, t in facts.comments if t == "# sgllint: ignore[SGL101]"})
    assert covered == [49, 50, 51]
    result = lint_source(source.path, source.text, Options(sglang_version="0.5.23", use_environment=False))
    assert not any(d.code == "SGL101" for d in result.diagnostics)
    # without the comment the unknown flag is reported
    text = source.text.replace("<!-- sgllint: ignore[SGL101] -->", "<!-- nothing to see -->")
    result = lint_source(source.path, text, Options(sglang_version="0.5.23", use_environment=False))
    assert [d.span.start_line_col() for d in result.diagnostics if d.code == "SGL101"] == [(50, 70)]


def test_pragma_comment_reaches_the_engine():
    source, facts = load("README.md")
    assert (source.offset_of(7, 1), "<!-- sgllint: sglang=0.5.4 -->") in facts.comments
    result = lint_source(source.path, source.text, Options(use_environment=False))
    assert all(launch.context.version.value == "0.5.4" for launch in result.launches)


def test_mdx_tabs_toml_dockerfile_and_session():
    source, facts = load("guide.mdx")
    check_positions(source, facts)
    toml_task, profile, docker, session = facts.sites
    assert toml_task.entry_span.start_line_col() == (14, 10)
    assert written(toml_task)[1] == ("Qwen/Qwen2.5-7B-Instruct", '\\"Qwen/Qwen2.5-7B-Instruct\\"')
    assert toml_task.tokens[1].sub_span(0, 4).text == "Qwen"
    assert profile.entry_span.text == "[profiles.dev.sglang]"
    assert [t.value for t in profile.tokens] == ["--model-path", "Qwen/Qwen2.5-0.5B-Instruct", "--enable-metrics"]
    assert docker.entry_span.text == '"python3", "-m", "sglang.launch_server"'
    assert docker.hints[0].span.text == "lmsysorg/sglang:v0.5.4-cu126"
    assert [(e.name, e.span.text) for e in docker.env] == [("SGLANG_LOG_LEVEL", "SGLANG_LOG_LEVEL=info")]
    assert session.entry == "sglang serve" and session.entry_span.start_line_col() == (35, 10)
    # ```text blocks are not linted
    assert not sites_on(facts, 39, 41)


def test_mdx_comment_ignore_file():
    source, facts = load("guide.mdx")
    assert (source.offset_of(7, 1), "{/* sgllint: ignore-file[SGL109] */}") in facts.comments
    result = lint_source(source.path, source.text, Options(sglang_version="0.5.23", use_environment=False))
    assert not any(d.code == "SGL109" for d in result.diagnostics)


def test_bash_block_with_dollar_prompts_is_a_transcript():
    text = "```bash\n$ python -m sglang.launch_server --model-path m --tp 2\nINFO started --not-a-flag\n```\n"
    [site] = extract(Source("t.md", text)).sites
    assert site.entry_span.start_line_col() == (2, 3)
    assert [t.value for t in site.tokens] == ["--model-path", "m", "--tp", "2"]


def test_fence_rules():
    text = (
        "```bash\n"
        "python -m sglang.launch_server --tp 1\n"
        "~~~\n"  # not a closing fence for ```
        "python -m sglang.launch_server --tp 2\n"
        "```\n"
        "    ```sh\n"
        "    python -m sglang.launch_server --tp 3\n"
        "    ```\n"
        "```Bash extra words {1,3}\n"
        "python -m sglang.launch_server --tp 4\n"
        # unclosed: runs to the end
    )
    facts = extract(Source("f.md", text))
    assert [t.value for s in facts.sites for t in s.tokens] == ["--tp", "1", "--tp", "2", "--tp", "3", "--tp", "4"]
    assert facts.sites[2].entry_span.start_line_col() == (7, 5)


# ---------------------------------------------------------------------------
# Remapping another extractor's findings
# ---------------------------------------------------------------------------


def _fake_yaml(source: Source) -> FileFacts:
    """Stands in for the YAML extractor: one of every kind of span."""
    text = source.text

    def at(word: str) -> Span:
        i = text.index(word)
        return Span(source, i, i + len(word))

    quoted = at('"--tp-size"')
    token = Token("--tp-size", quoted, SourceMap(source, 0, list(range(quoted.start + 1, quoted.end))))
    facts = FileFacts(source, "yaml")
    facts.sites.append(
        LaunchSite(
            source=source,
            span=at("command"),
            entry="python -m sglang.launch_server",
            entry_span=at('"python3", "-m", "sglang.launch_server"'),
            form="argv",
            tokens=[token, Token("1", at('"1"'), SourceMap(source, at('"1"').start + 1))],
            kwargs=[Kwarg("tp_size", 1, at("image"), at("lmsysorg"))],
            env=[EnvVar("X", "1", at("name: server"), at("server"))],
            hints=[ContextHint("sglang-image", "lmsysorg/sglang:v0.5.4", at("lmsysorg/sglang:v0.5.4"))],
            severed=Severed(at("args"), [Token("--model-path", at('"--model-path"'))]),
        )
    )
    facts.problems.append(ParseProblem(at("apiVersion"), "fake problem"))
    facts.comments.append((text.index("kind"), "# fake comment"))
    return facts


def test_remap_moves_every_span_into_the_markdown_file(monkeypatch):
    real = extract_pkg.extractor
    monkeypatch.setitem(extract_pkg.EXTRACTORS, "yaml", "fake:yaml")
    monkeypatch.setattr(extract_pkg, "extractor", lambda fmt: _fake_yaml if fmt == "yaml" else real(fmt))
    source, facts = load("README.md")
    [site] = sites_on(facts, 31, 46)
    assert site.source is source
    assert site.span.text == "command"
    assert site.entry_span.text == '"python3", "-m", "sglang.launch_server"'
    assert site.entry_span.start_line_col() == (43, 24)
    assert [t.span.text for t in site.tokens] == ['"--tp-size"', '"1"']
    assert site.tokens[0].sub_span(0, 9).text == "--tp-size"
    assert site.tokens[0].sub_span(2, 4).text == "tp"
    assert site.tokens[1].sub_span(0, 1).text == "1"
    assert (site.kwargs[0].name_span.text, site.kwargs[0].value_span.text) == ("image", "lmsysorg")
    assert (site.env[0].span.text, site.env[0].value_span.text) == ("name: server", "server")
    assert site.hints[0].span.text == "lmsysorg/sglang:v0.5.4"
    assert site.severed.backslash.text == "args" and site.severed.lost[0].span.text == '"--model-path"'
    [problem] = [p for p in facts.problems if p.message == "fake problem"]
    assert problem.span.text == "apiVersion" and problem.span.start_line_col() == (33, 4)
    [offset] = [o for o, t in facts.comments if t == "# fake comment"]
    assert source.text[offset : offset + 4] == "kind"


def test_remap_through_a_composed_map():
    outer = Source("o.md", "xx\n  ab\\\"c\n")
    inner = Source("o.md", 'ab\\"c\n')
    smap = SourceMap(outer, 0, [5, 6, 7, 8, 9, 10, 11])
    facts = FileFacts(inner, "shell")
    token = Token('ab"c', Span(inner, 0, 5), SourceMap(inner, 0, [0, 1, 3, 4, 5]))
    facts.sites.append(LaunchSite(inner, Span(inner, 0, 5), "e", Span(inner, 0, 2), "argv", [token]))
    into = FileFacts(outer, "markdown")
    remap_facts(facts, smap, into)
    [moved] = into.sites[0].tokens
    assert moved.span.text == 'ab\\"c'
    assert moved.sub_span(2, 4).text == '"c'


# ---------------------------------------------------------------------------
# Properties
# ---------------------------------------------------------------------------

_fragments = st.sampled_from([
    "```bash\n", "```console\n", "~~~sh\n", "````\n", "```\n", "~~~\n", "   ```toml\n", "```dockerfile\n",
    "```yaml\n", "```python\n", "$ ", "# ", "> ", "python -m sglang.launch_server --tp 2 ", "\\\n", "\n",
    "<!-- sgllint: ignore[SGL101] -->\n", "<!-- ", " -->", "{/* sgllint: ignore */}", "`inline`", "{{ x }}",
    "<model>", '"', "'", "[sglang]\ntp-size = 2\n", 'CMD ["python3", "-m", "sglang.launch_server"]\n',
    "é", "\r\n", "\t",
])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_fragments, max_size=40))
def test_property_random_input_never_raises(parts):
    text = "".join(parts)
    facts = extract(Source("r.md", text))
    check_positions(facts.source, facts, exact=False)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(p.name for p in FIXTURES.iterdir())), st.data())
def test_property_mutated_fixtures_never_raise(name, data):
    text = (FIXTURES / name).read_text()
    for _ in range(data.draw(st.integers(1, 4))):
        i = data.draw(st.integers(0, len(text)))
        j = data.draw(st.integers(i, min(len(text), i + 60)))
        insert = data.draw(st.sampled_from(["", "`", "~~~", "\n", "$ ", "<!--", "-->", text[i:j] * 2]))
        text = text[:i] + insert + text[j:]
    facts = extract(Source(name, text))
    check_positions(facts.source, facts, exact=False)
