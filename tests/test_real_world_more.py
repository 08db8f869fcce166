"""More launch forms real repositories write (issue 18, items 4, 5 and 7):
Python building argv indirectly, `eval` of a literal command, templates in
YAML. Each fixture is written for this project in the shape public
repositories use; each has a look-alike whose mistakes are still reported
at their exact positions.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

from sgllint.engine.pipeline import Options, lint_source

FIXTURES = Path(__file__).parent / "fixtures" / "real_world"


def _lint(name: str, version: Optional[str] = "0.5.23"):
    path = FIXTURES / name
    return lint_source(str(path), path.read_text(), Options(sglang_version=version, use_environment=False))


def findings(name: str, levels=("error", "warning")) -> list[tuple[str, int, int]]:
    out = []
    for d in _lint(name).diagnostics:
        if getattr(d.severity, "value", str(d.severity)) in levels:
            out.append((d.code, *d.span.start_line_col()))
    return sorted(out)


def launches(name: str) -> list[tuple[int, dict]]:
    """(line, {field: value}) of each launch; unknown values as None."""
    out = []
    for launch in _lint(name).launches:
        values = {a.field: (a.value if isinstance(a.value, (str, int, float, bool)) else None) for a in launch.args if a.field}
        out.append((launch.span.start_line_col()[0], values))
    return out


def test_python_argv_built_by_helpers_is_read():
    # a list returned by a function of the file, with the call's argument
    # bound to its parameter; a dict turned into flags by a loop over
    # .items(); shlex.split of a literal; f-strings glued to flags
    got = launches("python_indirect.py")
    start_server = {"model_path": "meta-llama/Llama-3.1-8B-Instruct", "tp_size": None, "port": None}
    assert got == [
        # `if quantization:` and `if metrics:` extend the list: one launch per path
        (21, {**start_server, "quantization": None, "enable_metrics": True}),
        (21, {**start_server, "enable_metrics": True}),
        (21, {**start_server, "quantization": None}),
        (21, start_server),
        (29, {"model_path": "Qwen/Qwen2.5-7B-Instruct", "tp_size": 2, "mem_fraction_static": 0.8}),
        (32, {"model_path": "Qwen/Qwen3-8B", "tp_size": 4}),
        (33, {"model_path": "Qwen/Qwen3-8B", "port": 30001, "tp_size": 2}),
    ]
    assert findings("python_indirect.py") == []


def test_python_argv_helpers_look_alike_is_reported():
    # the typo'd dict key (reported where the loop glues it to `--`), the
    # helper called with a word for an int, a glued f-string flag with a
    # typo, a shlex.split literal with a bad value
    assert findings("python_indirect_bad.py") == [
        ("SGL101", 17, 17),
        ("SGL101", 23, 92),
        ("SGL104", 22, 26),
        ("SGL104", 24, 94),
    ]


def test_templates_in_yaml_are_not_values():
    # `${{ matrix.x }}`, `{{ .Values.x }}`, `%(x)s`, `$VAR`, `<placeholder>`
    # and `{x}`, in a workflow's script and in a container's exec-form list,
    # are filled in later: no value error because of one
    assert findings("yaml_templates.yaml") == []
    got = launches("yaml_templates.yaml")
    assert got == [
        (10, {"model_path": None, "tp_size": None, "dtype": None, "port": 30000}),
        (
            22,
            {
                "model_path": None,
                "tp_size": None,
                "quantization": None,
                "mem_fraction_static": None,
                "kv_cache_dtype": None,
                "context_length": None,
                "port": None,
            },
        ),
    ]


def test_yaml_template_look_alike_is_reported():
    # literal values in the same places are checked; a misspelt flag next to
    # a template is still reported (that check needs no value); `{port`
    # is no template
    assert findings("yaml_templates_bad.yaml") == [
        ("SGL101", 7, 42),
        ("SGL103", 7, 33),
        ("SGL103", 26, 15),
        ("SGL103", 30, 15),
        ("SGL104", 7, 21),
        ("SGL104", 24, 15),
        ("SGL104", 28, 15),
        ("SGL104", 32, 15),
        ("SGL104", 34, 15),
    ]


def test_eval_of_a_literal_string_is_read_where_the_string_is_written():
    # `eval "$CMD"` and an unquoted `$SERVER_FLAGS` of variables assigned
    # one literal: the launch is read from the string
    assert findings("eval_literal.sh") == []
    assert launches("eval_literal.sh") == [
        (3, {"model_path": "Qwen/Qwen3-8B", "tp_size": 2, "port": 30000}),
        (8, {"model_path": "Qwen/Qwen3-8B", "port": 30001, "mem_fraction_static": 0.85, "chunked_prefill_size": 8192}),
    ]


def test_eval_look_alike_is_reported_inside_the_assignment():
    # each finding is at its word inside the assigned string, not at `$CMD`
    assert findings("eval_literal_bad.sh") == [
        ("SGL101", 3, 79),
        ("SGL101", 6, 42),
        ("SGL104", 3, 75),
        ("SGL104", 6, 37),
    ]


def test_helper_calls_in_helpers_are_bounded():
    # each helper calls the one below 60 times: evaluating results is capped
    # in depth and count, so the file costs little, and a later shallow call
    # is still read
    lines = ["import subprocess", "def f0():", '    return ["python", "-m", "sglang.launch_server", "--model-path", "m"]']
    for i in range(1, 6):
        lines.append(f"def f{i}():")
        lines += [f"    a{j} = f{i - 1}()" for j in range(60)]
        lines.append(f"    return f{i - 1}()")
    lines += ["subprocess.run(f5())", "subprocess.run(f0())", ""]
    result = lint_source("deep.py", "\n".join(lines), Options(sglang_version="0.5.23", use_environment=False))
    assert [(launch.span.start_line_col()[0], launch.last("model_path").value) for launch in result.launches] == [(len(lines) - 1, "m")]


def test_a_comment_at_the_eval_still_suppresses():
    # the finding moved into the assignment; `# noqa` where the string runs
    # (as users wrote it before) still silences it, and only that code
    text = (
        'CMD="python -m sglang.launch_server --model-path m --tp-size two --prot 1"\n'
        'echo "$CMD"\n'
        'eval "$CMD"  # noqa: SGL104\n'
    )
    result = lint_source("run.sh", text, Options(sglang_version="0.5.23", use_environment=False))
    assert [(d.code, *d.span.start_line_col()) for d in result.diagnostics] == [("SGL101", 1, 66)]


def test_python_keys_set_after_a_field_probe_reach_only_releases_with_the_field():
    # `if "x" in [f.name for f in dataclasses.fields(ServerArgs)]:` and
    # `hasattr(ServerArgs, "x")` guard a key: a release without the field
    # never receives it (no SGL101 on 0.5.2), a release with it gets every
    # check; the same key set without a probe is still reported on 0.5.2
    for version in ("0.5.2", "0.5.23"):
        got = [(d.code, *d.span.start_line_col()) for d in _lint("field_probe.py", version).diagnostics]
        assert got == ([("SGL101", 31, 10)] if version == "0.5.2" else [])
    probed = _lint("field_probe.py", "0.5.23").launches
    assert {a.field for launch in probed for a in launch.args} >= {"enable_weights_cpu_backup", "enable_return_routed_experts"}
