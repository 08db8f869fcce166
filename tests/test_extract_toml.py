"""TOML extractor: task-runner commands, launch-profile tables, positions."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sgllint.engine.pipeline import Options, lint_source
from sgllint.formats.toml.extractor import PROFILE_ENTRY, extract
from sgllint.formats.toml.scan import TArray, TScalar, TString, scan, tomllib
from sgllint.model.facts import Source, Unresolved

FIXTURES = Path(__file__).parent / "fixtures" / "toml"


def load(name: str):
    path = FIXTURES / name
    source = Source(str(path), path.read_text())
    return source, extract(source)


def written(site) -> list[tuple[object, str]]:
    return [(t.value if isinstance(t.value, str) else t.value.raw, t.span.text) for t in site.tokens]


def _normal(text: str) -> str:
    """Text with quotes, backslashes and leading dashes removed: what a
    written word and its value have in common."""
    return re.sub(r"[\\\"']", "", text).lstrip("-")


def check_positions(source: Source, facts, exact: bool = True) -> None:
    """Every span inside the text; every token's span is the word as written
    and its value's character map lands on the value as written."""
    n = len(source.text)
    for site in facts.sites:
        for span in [site.span, site.entry_span] + [h.span for h in site.hints if h.span]:
            assert 0 <= span.start <= span.end <= n
        for token in site.tokens:
            assert 0 <= token.span.start < token.span.end <= n
            if isinstance(token.value, Unresolved):
                assert not exact or _normal(token.value.raw) == _normal(token.span.text)
                continue
            inner = token.sub_span(0, len(token.value))
            assert token.span.start <= inner.start <= inner.end <= token.span.end
            if not exact:
                continue
            if "$" in token.span.text or _normal(inner.text) == _normal(token.value):
                continue
            # else a TOML value of a profile: a table or list as JSON, a scalar as str()
            assert site.entry == PROFILE_ENTRY, (token.value, inner.text)
            toml_value = tomllib.loads("v = " + token.span.text)["v"]
            if isinstance(toml_value, (dict, list)):
                assert json.loads(token.value) == toml_value
            else:
                assert str(toml_value) == token.value
        for kw in site.kwargs:
            assert _normal(kw.name_span.text) == _normal(kw.name)
        for var in site.env:
            assert var.span.text.startswith(var.name)
    for problem in facts.problems:
        assert 0 <= problem.span.start <= problem.span.end <= n
    for offset, text in facts.comments:
        assert source.text[offset:].startswith(text) or text.startswith("#")


# ---------------------------------------------------------------------------
# Fixtures
# ---------------------------------------------------------------------------


def test_pyproject_poe_taskipy_and_profiles():
    source, facts = load("pyproject.toml")
    check_positions(source, facts)
    entries = [(s.entry, s.form) for s in facts.sites]
    assert entries == [
        ("python -m sglang.launch_server", "argv"),  # poe string task
        ("python -m sglang.launch_server", "argv"),  # poe cmd, multi-line basic string
        ("python -m sglang.launch_server", "argv"),  # poe shell
        ("python -m sglang.launch_server", "argv"),  # taskipy literal string
        (PROFILE_ENTRY, "argv"),  # [profiles.prod.sglang]
        (PROFILE_ENTRY, "kwargs"),  # [tool.sglang]
    ]  # not: description prose, bench_serving, [vllm], the sglang dependency
    serve, big, shell, dev, prod, tool = facts.sites
    assert written(serve) == [
        ("--model-path", "--model-path"),
        ("Qwen/Qwen2.5-7B-Instruct", "Qwen/Qwen2.5-7B-Instruct"),
        ("--tp", "--tp"),
        ("2", "2"),
    ]
    assert [(e.name, e.value) for e in serve.env] == [("HF_HOME", "/data/hf")]


def test_poe_multiline_basic_string_with_escapes():
    source, facts = load("pyproject.toml")
    big = facts.sites[1]
    assert big.entry_span.text == "python3 -m sglang.launch_server"
    assert written(big)[:4] == [
        ("--model-path", "--model-path"),
        ("deepseek-ai/DeepSeek-V3", '\\"deepseek-ai/DeepSeek-V3\\"'),
        ("--tp-size", "--tp-size"),
        ("8", "8"),
    ]
    model = big.tokens[1]
    assert model.sub_span(0, len(model.value)).text == "deepseek-ai/DeepSeek-V3"
    override = big.tokens[5]
    assert override.value == '{"rope_scaling": {"factor": 4}}'
    assert override.span.text == "'{\\\"rope_scaling\\\": {\\\"factor\\\": 4}}'"
    assert override.sub_span(0, len(override.value)).text == '{\\"rope_scaling\\": {\\"factor\\": 4}}'
    assert override.sub_span(2, 14).text == 'rope_scaling'
    port = big.tokens[7]
    assert isinstance(port.value, Unresolved) and port.span.text == "${port}"  # a poe task argument
    # `\\` then a line break in TOML is a backslash-newline for the shell:
    # the continuation holds, --tp-size is on the same command
    assert [(e.name, e.value) for e in big.env] == [
        ("HF_HOME", "/data/hf"),
        ("SGLANG_LOG_LEVEL", "debug"),
        ("NCCL_DEBUG", "WARN"),
    ]
    assert big.env[1].value_span.text == '"debug"'


def test_poe_shell_and_taskipy_literal_string():
    source, facts = load("pyproject.toml")
    shell, dev = facts.sites[2], facts.sites[3]
    assert written(shell) == [
        ("--model-path", "--model-path"),
        ("meta-llama/Llama-3.1-8B", "'meta-llama/Llama-3.1-8B'"),
        ("--enable-metrics", "--enable-metrics"),
    ]
    assert ("CUDA_VISIBLE_DEVICES", "0,1") in [(e.name, e.value) for e in shell.env]
    # a literal string keeps backslashes; the shell then removes them
    assert written(dev)[1] == ("C:modelsqwen", "C:\\models\\qwen")


def test_profile_table_dash_keys_is_argv():
    source, facts = load("pyproject.toml")
    prod = facts.sites[4]
    assert prod.entry_span.text == "[profiles.prod.sglang]"
    assert prod.span.text.startswith("[profiles.prod.sglang]") and prod.span.text.endswith("0.88")
    assert [t.value for t in prod.tokens] == [
        "--model-path", "Qwen/Qwen2.5-72B-Instruct",
        "--tp-size", "4",
        "--enable-metrics",  # true: a bare flag
        # disable-radix-cache = false: left out
        "--cuda-graph-bs", "1", "2", "4", "8",
        "--mem-fraction-static", "0.88",
    ]
    flag = prod.tokens[0]
    assert flag.span.text == "model-path"
    assert flag.sub_span(0, len(flag.value)).text == "model-path"
    assert flag.sub_span(2, 7).text == "model"
    quoted = prod.tokens[4]
    assert quoted.span.text == '"enable-metrics"' and quoted.sub_span(0, len(quoted.value)).text == "enable-metrics"


def test_profile_table_field_names_is_kwargs():
    source, facts = load("pyproject.toml")
    tool = facts.sites[5]
    assert tool.entry_span.text == "[tool.sglang]"
    assert [(k.name, k.value, k.value_span.text) for k in tool.kwargs] == [
        ("model_path", "Qwen/Qwen2.5-7B-Instruct", '"Qwen/Qwen2.5-7B-Instruct"'),
        ("tp_size", 2, "2"),
        ("enable_metrics", False, "false"),  # kwargs keep false: ServerArgs(enable_metrics=False)
        ("json_model_override_args", {"rope_scaling": {"factor": 2}}, "{ rope_scaling = { factor = 2 } }"),
    ]


def test_comments_collected():
    source, facts = load("pyproject.toml")
    texts = [t for _, t in facts.comments]
    assert "# prose, not a launch" in texts and "# a plain string task" in texts
    for offset, text in facts.comments:
        assert source.text[offset : offset + len(text)] == text


def test_mise_run_array_and_templates():
    source, facts = load("mise.toml")
    check_positions(source, facts)
    serve, router = facts.sites
    assert serve.entry == "python -m sglang.launch_server"
    model = serve.tokens[1]
    assert isinstance(model.value, Unresolved) and model.value.reason == "template expression"
    assert model.span.text == "{{vars.model}}"
    assert written(serve)[2:] == [("--tp-size", "--tp-size"), ("2", "2")]
    assert [(e.name, e.value) for e in serve.env] == [("HF_HOME", "/mnt/hf"), ("SGLANG_PORT", "30000")]
    assert router.entry == "python -m sglang_router.launch_server"
    assert router.tokens[1].span.text == "{{ vars.model }}"
    assert ("SGLANG_LOG_LEVEL", "info") in [(e.name, e.value) for e in router.env]


def test_pixi_cmd_array_is_argv():
    source, facts = load("pixi.toml")
    check_positions(source, facts)
    array, string = facts.sites
    assert array.entry_span.text == '"python", "-m", "sglang.launch_server"'
    assert written(array) == [
        ("--model-path", '"--model-path"'),
        ("Qwen/Qwen2.5-7B-Instruct", '"Qwen/Qwen2.5-7B-Instruct"'),
        ("--port", '"--port"'),
        ("$PORT", '"$PORT"'),
    ]
    assert isinstance(array.tokens[3].value, Unresolved)
    assert [(e.name, e.value) for e in array.env] == [("PORT", "30000")]
    assert [t.value for t in string.tokens][-2:] == ["--attention-backend", "fa3"]


def test_cargo_make_command_plus_args():
    source, facts = load("Makefile.toml")
    check_positions(source, facts)
    joined, script = facts.sites
    assert joined.entry_span.text.startswith('"python3"') and joined.entry_span.text.endswith('"sglang.launch_server"')
    assert [t.value if isinstance(t.value, str) else t.value.raw for t in joined.tokens] == [
        "--model-path", "Qwen/Qwen2.5-7B-Instruct", "--tp-size", "2", "${@}",
    ]
    assert joined.opaque  # ${@} passes the task's arguments through
    assert [(e.name, e.value) for e in joined.env] == [("SGLANG_ENABLE_TORCH_COMPILE", "1")]
    assert [t.value for t in script.tokens] == ["--model-path", "Qwen/Qwen2.5-7B-Instruct", "--enable-torch-compile"]


def test_syntax_error_is_one_problem_at_its_position():
    source, facts = load("broken.toml")
    assert facts.sites == []
    [problem] = facts.problems
    assert problem.span.start_line_col() == (2, 47)
    assert problem.message.startswith("TOML syntax error")


def test_syntax_error_without_sglang_is_silent():
    facts = extract(Source("x.toml", "a = [1,\n"))
    assert facts.problems == []


def test_roles_under_a_profile_are_separate_launches():
    text = "[sglang.prefill]\ntp-size = 2\ndisaggregation-mode = 'prefill'\n\n[sglang.decode]\ntp-size = 4\n"
    facts = extract(Source("p.toml", text))
    assert [[t.value for t in s.tokens] for s in facts.sites] == [
        ["--tp-size", "2", "--disaggregation-mode", "prefill"],
        ["--tp-size", "4"],
    ]
    assert [s.entry_span.text for s in facts.sites] == ["[sglang.prefill]", "[sglang.decode]"]


def test_inline_profile_and_flag_spelled_keys():
    text = 'profile = "x"\nsglang = { "--tp-size" = 2, enable-metrics = true, trust-remote-code = false }\n'
    facts = extract(Source("p.toml", text))
    [site] = facts.sites
    assert site.entry_span.text == "sglang"
    assert [(t.value, t.span.text) for t in site.tokens] == [
        ("--tp-size", '"--tp-size"'),
        ("2", "2"),
        ("--enable-metrics", "enable-metrics"),
    ]


def test_engine_lints_toml_profiles_and_tasks():
    source, _ = load("pyproject.toml")
    result = lint_source(source.path, source.text, Options(sglang_version="0.5.23", use_environment=False))
    codes = {(d.code, d.span.start_line_col()[0]) for d in result.diagnostics}
    assert ("SGL109", 15) in codes  # --tp in the string task


# ---------------------------------------------------------------------------
# The scanner against tomllib
# ---------------------------------------------------------------------------


def _python(node):
    if isinstance(node, (TString, TScalar)):
        return node.value
    if isinstance(node, TArray):
        return [_python(item) for item in node.items]
    out: dict = {}
    for entry in node.entries:
        _put(out, entry.key.parts, _python(entry.value))
    return out


def _put(d, parts, value):
    for part in parts[:-1]:
        d = d.setdefault(part, {})
        if isinstance(d, list):
            d = d[-1]
    d[parts[-1]] = value


def _document(text: str) -> dict:
    root: dict = {}
    for table in scan(text).tables:
        target = root
        if table.path:
            d = root
            for part in table.path[:-1]:
                d = d.setdefault(part, {})
                if isinstance(d, list):
                    d = d[-1]
            if table.array:
                d.setdefault(table.path[-1], []).append({})
                target = d[table.path[-1]][-1]
            else:
                target = d.setdefault(table.path[-1], {})
        for entry in table.entries:
            _put(target, entry.key.parts, _python(entry.value))
    return root


def _same(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


SCANNER_CASES = [
    'a = "x\\ty\\u00e9\\U0001F600\\"q\\\\"',
    'a = """\nline \\\n    joined\\n\n"quoted" ""inner"" """"',
    "a = '''\nraw \\n ''inner'' '''''",
    "a = 'C:\\path'\n'quoted key' = 1\n\"k.x\".y = 2",
    "[[t]]\nv = 1\n[[t]]\nv = 2\n[t.sub]\nw = 3",
    "d = 1979-05-27 07:32:00Z\nl = 1979-05-27T07:32:00\nt = 07:32:00\nday = 1979-05-27",
    "i = [0x1F, 0o17, 0b11, 1_000, +5, -0]\nf = [1e3, -2.5E-3, inf, -inf, nan, 6.02e+23]",
    "a = [ # c1\n  1, # c2\n  [2, 3], {x = 'y'},\n]\n",
    "a.b . c = { d = [ { e = \"f\" } ] }",
    "s = \"\"\"\r\nwindows\r\nlines\"\"\"\r\nt = '''\r\nx\r\n'''",
]


@pytest.mark.parametrize("text", SCANNER_CASES)
def test_scanner_agrees_with_tomllib(text):
    assert _same(_document(text), tomllib.loads(text))


def test_scanner_string_offsets_point_at_the_written_characters():
    text = 'a = "x\\"y"\nb = """\nz \\\n  w"""\n'
    doc = scan(text)
    a, b = (e.value for e in doc.tables[0].entries)
    assert [text[o] for o in a.offsets[:-1]] == ["x", '"', "y"]  # \" maps to its quote
    assert a.value == 'x"y' and text[a.start : a.end] == '"x\\"y"'
    assert b.value == "z w" and [text[o] for o in b.offsets[:-1]] == ["z", " ", "w"]


# ---------------------------------------------------------------------------
# Properties
# ---------------------------------------------------------------------------

_key = st.one_of(
    st.from_regex(r"[A-Za-z0-9_-]{1,8}", fullmatch=True),
    st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=6).map(lambda s: '"' + _escape(s) + '"'),
)
_string_chars = st.characters(blacklist_categories=("Cs",), blacklist_characters="\x7f")


def _escape(s: str) -> str:
    out = []
    for ch in s:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ord(ch) < 0x20:
            out.append("\\u%04x" % ord(ch))
        else:
            out.append(ch)
    return "".join(out)


def _string_literal(s: str, style: int) -> str:
    literal_ok = "'" not in s and not any(ord(c) < 0x20 and c != "\t" for c in s)
    if style == 1 and literal_ok:
        return "'" + s + "'"
    if style == 2:
        return '"""\n' + _escape(s).replace("\\n", "\n") + '"""'
    return '"' + _escape(s) + '"'


_scalar = st.one_of(
    st.integers(-(2**40), 2**40).map(str),
    st.booleans().map(lambda b: "true" if b else "false"),
    st.floats(allow_nan=False, allow_infinity=False, width=32).map(repr),
    st.tuples(st.text(_string_chars, max_size=12), st.integers(0, 2)).map(lambda t: _string_literal(*t)),
)
_value = st.recursive(
    _scalar,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4).map(lambda xs: "[" + ", ".join(xs) + "]"),
        st.dictionaries(st.from_regex(r"[a-z]{1,4}", fullmatch=True), inner, max_size=3).map(
            lambda d: "{" + ", ".join(f"{k} = {v}" for k, v in d.items()) + "}"
        ),
    ),
    max_leaves=6,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(_key, _value, max_size=6), st.booleans())
def test_property_scanner_matches_tomllib_on_valid_toml(entries, with_header):
    text = ("[profiles.x.sglang]\n" if with_header else "") + "".join(f"{k} = {v}  # c\n" for k, v in entries.items())
    try:
        expected = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return  # e.g. two keys that decode to the same name
    assert _same(_document(text), expected)
    facts = extract(Source("p.toml", text))
    check_positions(facts.source, facts)


_fragments = st.sampled_from([
    "[tool.poe.tasks]\n", "[sglang]\n", "[profiles.a.sglang]\n", "[[x]]\n", "serve = ", "cmd = ", "run = ",
    '"python -m sglang.launch_server --tp 2"', "'python -m sglang.launch_server'", '"""\n', "'''\n",
    "\\", '\\"', "\\n", "{{ x }}", "$X", "[", "]", "{", "}", ",", "=", "#", "\n", " ", "tp-size = 2\n",
    "enable-metrics = true\n", '["python", "-m", "sglang.launch_server", "--port", "1"]', "a.b = 1\n", "é", "\r\n",
])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_fragments, max_size=40))
def test_property_random_input_never_raises(parts):
    text = "".join(parts)
    facts = extract(Source("r.toml", text))
    check_positions(facts.source, facts, exact=False)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(p.name for p in FIXTURES.glob("*.toml"))), st.data())
def test_property_mutated_fixtures_never_raise(name, data):
    text = (FIXTURES / name).read_text()
    for _ in range(data.draw(st.integers(1, 4))):
        i = data.draw(st.integers(0, len(text)))
        j = data.draw(st.integers(i, min(len(text), i + 40)))
        insert = data.draw(st.sampled_from(["", '"', "'", "\\", "\n", "[", "]", "#", "=", text[i:j] * 2]))
        text = text[:i] + insert + text[j:]
    facts = extract(Source(name, text))
    check_positions(facts.source, facts, exact=False)
