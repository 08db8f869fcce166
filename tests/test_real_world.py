"""Launches in the shapes real repositories write them (issue 18): what is
valid stays silent, and a look-alike with a real problem in the same file is
still reported, at its exact position.

Fixtures are written for this project in the shapes public repositories use
(documentation with logs and transcripts, placeholders, scripts using the
whole bash grammar); none is copied.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Optional

import pytest

from sgllint.engine.pipeline import Options, lint_source

FIXTURES = Path(__file__).parent / "fixtures" / "real_world"


def findings(name: str, version: Optional[str] = "0.5.23", levels=("error", "warning")) -> list[tuple[str, int, int]]:
    path = FIXTURES / name
    result = lint_source(str(path), path.read_text(), Options(sglang_version=version, use_environment=False))
    out = []
    for d in result.diagnostics:
        if str(d.severity) in levels or getattr(d.severity, "value", None) in levels:
            line, col = d.span.start_line_col()
            out.append((d.code, line, col))
    return sorted(out)


def test_logs_tracebacks_and_transcripts_are_not_commands():
    # log lines, a traceback, ps rows, an nvidia-smi table and a multi-line
    # quoted curl body are output or arguments, never launches or parse
    # errors; the transcript's real launch is still checked where it is written
    assert findings("console_logs.md") == [("SGL107", 35, 86), ("SGL207", 35, 84)]


def test_documentation_placeholders_are_unknown_values():
    # `...`, `…`, `[other OPTIONS]` and `<model_path>` standing for arguments
    # are no leftover words and no missing model; a flag missing its value is
    # still an error and a placeholder value still gets the value-free checks
    assert findings("placeholders.md") == [
        ("SGL105", 23, 116),
        ("SGL107", 16, 17),
        ("SGL107", 23, 77),
        ("SGL107", 24, 77),
        ("SGL108", 23, 116),
        ("SGL207", 24, 75),
    ]


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash to confirm the fixture is valid")
def test_valid_bash_is_never_a_parse_error():
    path = FIXTURES / "hard_constructs.sh"
    assert subprocess.run(["bash", "-n", str(path)], capture_output=True).returncode == 0
    # a lone `$` before `:5757`, a script ending in `\`, nested `$( )`,
    # process substitution, `[[ =~ ]]`, heredocs, arrays, `case`
    assert findings("hard_constructs.sh") == [("SGL107", 32, 116), ("SGL207", 32, 114)]
    # associative arrays, `;;&`, `<<-`, here-strings, `coproc`, `select`,
    # `$'..'`, nested backticks, `${a//b/c}`, `(( ))`, `>( )`
    path = FIXTURES / "hard_constructs_2.sh"
    assert subprocess.run(["bash", "-n", str(path)], capture_output=True).returncode == 0
    assert findings("hard_constructs_2.sh") == [("SGL107", 37, 48)]


def test_a_lone_dollar_is_a_literal_character():
    text = 'python -m sglang.launch_server --model-path m --served-model-name "a$/b" --port 1\n'
    from sgllint.formats.shell.extractor import extract
    from sgllint.model.facts import Source

    facts = extract(Source("x.sh", text))
    assert not facts.problems
    assert [t.value for t in facts.sites[0].tokens][2:4] == ["--served-model-name", "a$/b"]


def test_a_file_that_patches_sglang_gets_its_new_flags_as_info():
    # the patch step (a script or `git apply` naming sglang and a patch) may
    # add options: they are told, not errors; a near-miss of a real option is
    # still a typo, and a patch only named in a comment patches nothing
    assert findings("patched_sglang.md") == [("SGL101", 17, 3)]
    assert findings("patched_sglang.md", levels=("info",)) == [("SGL101", 15, 3), ("SGL101", 16, 3)]
    assert findings("patched_sglang.sh") == []
    assert findings("patched_sglang.sh", levels=("info",)) == [("SGL101", 5, 59), ("SGL101", 5, 83)]
    assert findings("unpatched.sh") == [("SGL101", 3, 59)]


def test_a_python_file_that_checks_for_a_patched_sglang_gets_its_new_flags_as_info():
    # a test gated on `_patched_sglang()` launches the patched build: the
    # patch's flags are told; a typo of a real option is still an error, and
    # the same launch in a file that never names a patch is all errors
    assert findings("patched_sglang_gate.py") == [("SGL101", 31, 13)]
    assert findings("patched_sglang_gate.py", levels=("info",)) == [("SGL101", 27, 13), ("SGL101", 28, 13)]
    assert findings("unpatched_gate.py") == [("SGL101", 26, 13), ("SGL101", 27, 13), ("SGL101", 30, 13)]


def test_sglang_doc_patch_helpers_are_no_patched_sglang():
    # SGLang's own notebooks import launch_server_cmd from sglang.test.doc_patch
    text = (
        "from sglang.test.doc_patch import launch_server_cmd\n"
        "server_process, port = launch_server_cmd(\"python -m sglang.launch_server --model-path m --enable-capture\")\n"
    )
    result = lint_source("notebook.py", text, Options(sglang_version="0.5.23", use_environment=False))
    assert [(d.code, str(getattr(d.severity, "value", d.severity))) for d in result.diagnostics] == [("SGL101", "error")]


def test_output_pasted_in_a_shell_fence_is_one_documentation_problem():
    # a benchmark report in a `shell` fence does not parse: one warning at the
    # fence's first broken line, not one per line of output; the launches of
    # the page's other fences are still read and their mistakes reported
    assert findings("output_in_shell_fence.md") == [("SGL000", 12, 1), ("SGL101", 31, 84)]
    assert findings("output_in_shell_fence.md", levels=("error",)) == [("SGL101", 31, 84)]


def test_a_runtime_command_is_completed_by_each_config_args():
    # llmaz-like runtime: `command` plus `recommendedConfigs[].args` are one
    # launch per config (the model path is in the config); a command with no
    # args anywhere is still missing its model
    assert findings("runtime_configs.yaml") == [("SGL107", 29, 11), ("SGL110", 37, 7), ("SGL207", 28, 11)]


def test_an_unparseable_code_block_is_a_documentation_warning():
    # an excerpt that is not valid Python is the document's flaw (warning);
    # the launch in the next block is still checked
    assert findings("broken_fences.md") == [("SGL000", 8, 4), ("SGL107", 15, 97), ("SGL207", 15, 95)]
    assert findings("broken_fences.md", levels=("error",)) == [("SGL207", 15, 95)]


def test_toml_dependency_strings_are_not_commands():
    # requirement strings (extras, version ranges, direct URLs, markers) are
    # dependencies; the task commands next to them are still launches
    assert findings("dependencies.toml") == [("SGL107", 13, 92), ("SGL110", 14, 9), ("SGL207", 13, 90)]


def judged(name: str) -> list[tuple[str, str, int]]:
    """(release, why, line of the pin) of each launch of a fixture, with no
    release forced and no environment."""
    path = FIXTURES / name
    result = lint_source(str(path), path.read_text(), Options(use_environment=False))
    out = []
    for launch in result.launches:
        fact = launch.context.version
        out.append((launch.context.catalog.version, fact.source, fact.span.start_line_col()[0] if fact.span else 0))
    return out


@pytest.mark.parametrize(
    "name, expected",
    [
        # modal: the registry image and the pip pin of the image build
        ("pins/modal_registry.py", [("0.5.10", "image tag", 6)]),
        ("pins/modal_pip.py", [("0.5.10", "image pip pin", 7)]),
        # Truss base_image.image, llmaz image + version, a dated nightly
        ("pins/truss_config.yaml", [("0.5.10", "image tag", 3)]),
        ("pins/llmaz_runtime.yaml", [("0.5.10", "image tag", 10)]),
        ("pins/nightly_runtime.yaml", [("0.5.7", "image tag", 9)]),
        ("pins/modal_latest.py", [("0.5.23", "image tag", 5)]),
        # a Helm chart's templates: .Values references filled from the chart's values.yaml
        ("chart/templates/runtime.yaml", [("0.5.10", "chart values", 10), ("0.5.23", "chart values", 29)]),
    ],
)
def test_release_pins_where_the_file_states_them(name, expected):
    assert judged(name) == expected


def test_a_pinned_launch_is_judged_as_its_release():
    # --cuda-graph-max-bs is fine up to 0.5.19 and ambiguous in 0.5.23;
    # nano_v3 is a reasoning parser of 0.5.7 to 0.5.9 only
    for name in ("modal_registry.py", "modal_pip.py", "truss_config.yaml", "llmaz_runtime.yaml", "nightly_runtime.yaml"):
        assert findings("pins/" + name, version=None) == [], name
    assert findings("pins/modal_latest.py", version=None) == [("SGL102", 11, 96)]
    assert findings("chart/templates/runtime.yaml", version=None) == [("SGL102", 30, 95)]


def test_nightly_dates_come_from_the_wheels():
    from sgllint.resolve.context import image_version, release_after

    assert image_version("lmsysorg/sglang:nightly-dev-20251215-4449c170") == release_after("2025-12-15") == "0.5.7"
    assert image_version("rocm/sgl-dev:v0.5.10.post1-rocm720-mi30x-20260427") == "0.5.10.post1"
    assert image_version("lmsysorg/sglang:dev-pr-15207") == "dev"  # no day: the newest


#: SGLang wheels to test against, when SGLLINT_WHEEL_CACHE names a directory of them
WHEELS = sorted(Path(os.environ["SGLLINT_WHEEL_CACHE"]).glob("sglang-*.whl")) if os.environ.get("SGLLINT_WHEEL_CACHE") else []


@pytest.mark.skipif(not WHEELS, reason="needs the SGLang wheels")
def test_release_dates_are_generated_from_the_wheels():
    import json

    from sgllint.catalog import _gen_dates

    assert _gen_dates.build(WHEELS) == json.loads(_gen_dates.OUT.read_text())


def test_hydra_overrides_in_shell_and_yaml_configure_the_engine():
    # verl: `+actor_rollout_ref.rollout.engine_kwargs.sglang.<field>=<value>`
    # words of a shell command, and `engine_kwargs: {sglang: {...}}` in a
    # Hydra config, are ServerArgs keyword arguments; valid ones stay silent
    assert findings("verl_overrides.sh") == [("SGL101", 18, 53), ("SGL103", 17, 71)]
    assert findings("verl_rollout.yaml") == [("SGL103", 22, 28)]


def test_untagged_fences_are_read_for_their_launch_commands():
    # a block naming no language is read by content: its launch lines (with
    # the `A=1 \` line before and the continuation lines after) are shell;
    # logs, installs and a curl mentioning `sglang serve` in its body are not
    assert findings("untagged_fences.md") == [("SGL106", 9, 3), ("SGL107", 20, 54), ("SGL207", 20, 52)]


def test_slime_sglang_prefixed_flags_are_sglang_flags():
    # `--sglang-<option>` words of a trainer command (arrays included) are
    # SGLang options at the place written; slime's own --sglang-router-ip /
    # --sglang-server-concurrency are not; tp is the trainer's GPU count
    assert findings("slime_prefixed.sh") == [("SGL101", 22, 4), ("SGL102", 11, 4), ("SGL103", 21, 31), ("SGL107", 12, 4)]
    path = FIXTURES / "slime_prefixed.sh"
    text = path.read_text().replace("--rollout-num-gpus-per-engine 2", "--rollout-num-gpus-per-engine 3")
    result = lint_source(str(path), text, Options(sglang_version="0.5.23", use_environment=False))
    assert [(d.code, d.span.start_line_col()) for d in result.diagnostics if d.code == "SGL207"] == [("SGL207", (13, 21))]


def test_slime_own_sglang_flags_are_not_sglang_options():
    # slime registers no --sglang- form for the ServerArgs it skips
    # (config, trust_remote_code, ...): --sglang-config is its deployment
    # YAML, not SGLang's --config (no SGL114), and --sglang-trust-remote-code
    # is not SGLang's flag; a misspelt prefixed option is still reported
    assert findings("slime_deployment_yaml.sh") == [("SGL101", 15, 4)]


def test_a_container_patch_runs_the_image_of_the_container_it_patches():
    # an RBG role's templatePatch container takes the image of the
    # roleTemplates container of the same name (containers merge by name):
    # judged as 0.5.2 (--enable-deepep-moe only deprecated there); the role
    # whose container has another name runs no known image: the newest release
    path = FIXTURES / "rbg_template_patch.yaml"
    result = lint_source(str(path), path.read_text(), Options(use_environment=False))
    assert [(launch.span.start_line_col()[0], launch.context.version.value) for launch in result.launches] == [(27, "0.5.2"), (46, "0.5.23")]
    assert sorted((d.code, *d.span.start_line_col()) for d in result.diagnostics) == [("SGL106", 53, 13), ("SGL107", 34, 13)]


def test_framework_configs_carry_server_args():
    # AReaL's top-level `sglang:` (with its model path, OmegaConf `${...}`
    # values unknown) and ROLL's `strategy_name: sglang` + `strategy_config`
    # are ServerArgs kwargs; a Helm values `sglang:` section is not
    assert findings("framework_configs.yaml") == [("SGL103", 15, 22), ("SGL103", 26, 24)]


def test_one_comment_suppresses_a_multi_line_launch():
    # alone on the line above, or at the end of the last line: the whole
    # launch; separated by a blank line or sharing a line with another
    # command: nothing
    codes = [(c, line) for c, line, _ in findings("suppress_multiline.sh") if c != "SGL107"]
    assert codes == [("SGL207", 13), ("SGL207", 16)]


def test_template_fields_in_docs_are_unknown_values():
    # `{model}`, `{args.backend}`, `%(mem)s`, `{{ ... }}` are filled in later:
    # never an invalid value; shell's `${PORT}` and `{0..3}` are not fields
    assert findings("templates.md") == [("SGL103", 15, 87), ("SGL104", 15, 63)]


def test_the_pre_commit_hook_selects_every_format_sgllint_reads(tmp_path):
    # pre-commit picks files by identify's tags: every suffix sgllint reads
    # that identify tags (.mdx included) and an executable extension-less
    # shebang script must carry one of the hook's types
    identify = pytest.importorskip("identify.identify")
    import yaml

    from sgllint.formats.registry import _SUFFIXES

    hooks = yaml.safe_load((Path(__file__).parent.parent / ".pre-commit-hooks.yaml").read_text())

    def selected(hook, tags) -> bool:  # pre-commit: every `types`, any `types_or`
        return set(hook.get("types", ())) <= tags and (not hook.get("types_or") or bool(tags & set(hook["types_or"])))

    for hook in hooks:
        for suffix in _SUFFIXES:
            tags = identify.tags_from_filename("x" + suffix)
            # identify tags neither .ksh nor .command: no hook type can name them
            assert not tags or selected(hook, tags | {"file", "text"}), (hook["id"], suffix)
        script = tmp_path / "serve"
        script.write_text("#!/usr/bin/env bash\npython -m sglang.launch_server --model-path m\n")
        script.chmod(0o755)
        assert selected(hook, identify.tags_from_path(str(script))), hook["id"]
        assert selected(hook, identify.tags_from_filename("Dockerfile") | {"file", "text"})


def test_merge_conflicts_are_reported_once_and_each_side_is_linted():
    # one SGL000 at each `<<<<<<<`; ours and theirs are both linted at their
    # own lines (a diff3 base section belongs to neither); a launch outside
    # the conflict is reported once; a Markdown setext `=======` is a heading
    assert findings("conflict.sh") == [("SGL000", 3, 1), ("SGL101", 6, 52), ("SGL103", 8, 72), ("SGL107", 4, 76), ("SGL207", 4, 74)]
    assert findings("conflict.yaml") == [("SGL000", 15, 1), ("SGL101", 22, 15), ("SGL103", 17, 15)]
    assert findings("setext.md") == [("SGL103", 5, 79)]


def test_a_conflict_inside_a_continued_command_leaves_each_side_continued():
    # the marker lines and the other side are left out of each version, not
    # blanked: a blank line after `\\` would end the command on both sides;
    # the real `\\ ` (backslash, space) of the second container is reported
    assert findings("conflict_continuation.yaml") == [("SGL000", 18, 1), ("SGL001", 34, 38)]
    path = FIXTURES / "conflict_continuation.yaml"
    result = lint_source(str(path), path.read_text(), Options(sglang_version="0.5.23", use_environment=False))
    sides = [sorted(a.spelling for a in launch.args) for launch in result.launches if launch.span.start_line_col()[0] == 15]
    assert sorted(sides) == [
        ["--enable-metrics", "--host", "--log-requests", "--model-path", "--port", "--tp-size"],
        ["--enable-metrics", "--host", "--model-path", "--port", "--tp-size"],
    ]


def test_benchmark_config_base_flags_complete_the_server_command():
    # `server_command` + `base_server_flags` (model path among them) is one
    # launch; each `search_space` candidate is checked as its flag's value
    assert findings("autobench.yaml") == [("SGL103", 16, 44), ("SGL110", 27, 21)]


@pytest.mark.parametrize(
    "name, text",
    [
        ("blank.md", "```bash\npython -m sglang.launch_server" + " " * 200_000 + "x\n```\n"),
        ("quoted.md", "```console\n$ curl -d '\n" + "x\n" * 100_000 + "'\n```\n"),
        ("untagged.md", "```\npython -m sglang.launch_server --served-model-name '\n" + "x\n" * 100_000 + "'\n```\n"),
        ("deps.toml", 'dependencies = ["sglang' + " " * 200_000 + 'x"]\n'),
    ],
)
def test_long_inputs_stay_linear(name, text):
    # a quadratic scan takes minutes on these; linear work takes well under a second
    import time

    started = time.monotonic()
    lint_source(name, text, Options(sglang_version="0.5.23", use_environment=False))
    assert time.monotonic() - started < 10


def test_set_dash_dash_gives_the_script_arguments():
    # `set -- ...` then `"$@"`: the launch gets those words (checked at
    # their place); inside a function "$@" is the function's arguments, and a
    # `set -- "$@" ...` that refers to itself stays unknown
    assert findings("set_arguments.sh") == [("SGL101", 10, 37), ("SGL107", 3, 59), ("SGL207", 3, 57)]


def test_a_joined_argv_built_in_a_loop_stands_for_its_arguments():
    # `" ".join(cmd)` of a list a dict loop extended is a shell string whose
    # joined part may hold any flags (no missing model, no default dp); a
    # joined list that is fully known is still checked
    assert findings("python_joined.py") == [("SGL107", 7, 53), ("SGL110", 15, 12)]


def test_toml_template_fields_are_unknown_values():
    # a harness's task strings and argv lists with `{model}`, `{tp}`,
    # `%(b)s`: unknown values, never invalid ones; a literal stays checked
    assert findings("toml_templates.toml") == [("SGL103", 3, 128), ("SGL107", 2, 115)]


def test_read_a_from_a_here_string_gives_the_array_its_words():
    # `read -r -a EXTRA <<< "..."`: the words of the string, each at its
    # place; from a string not known here the array stays unknown, so the
    # launch may hold flags not seen (no default attention-DP width to judge)
    got = findings("read_array.sh")
    assert got == [("SGL101", 5, 105), ("SGL107", 2, 47), ("SGL107", 5, 83), ("SGL207", 2, 45)]


def test_echo_substitution_and_unseen_flags():
    # `$(echo ...)` of literal words gives those words at their place; a
    # launch that may hold flags not seen (`$(echo -n ...)`, `$EXTRA_ARGS`)
    # has no known --tp-size default to divide
    codes = [f for f in findings("echo_substitution.sh") if f[0] != "SGL107"]
    assert codes == [("SGL103", 4, 118), ("SGL207", 2, 88)]
