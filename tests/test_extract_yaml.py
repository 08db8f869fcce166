"""The YAML extractor: launches, words and exact positions in Kubernetes,
compose, CI, SkyPilot, Helm and SGLang config files."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sgllint.formats.registry import detect_format
from sgllint.formats.yaml.extractor import CONFIG_ENTRY, extract
from sgllint.formats.yaml.scalars import decode_scalar, scalar_start
from sgllint.model.facts import FileFacts, Source, Unresolved
from sgllint.model.launchers import LAUNCH_SERVER, SERVE
from sgllint.model.kinds import Origin

FIXTURES = Path(__file__).parent / "fixtures" / "yaml"


def facts_of(name: str) -> FileFacts:
    path = FIXTURES / name
    return extract(Source(str(path), path.read_text(encoding="utf-8")))


def facts_from(text: str, path: str = "x.yaml") -> FileFacts:
    return extract(Source(path, text))


def values(site) -> list:
    return [t.value.raw if isinstance(t.value, Unresolved) else t.value for t in site.tokens]


def hints(site) -> list[tuple]:
    """The image/GPU hints (the deploy-* ones are tested in test_deployment.py)."""
    return [(h.kind, h.value) for h in site.hints if not h.kind.startswith("deploy-")]


def env(site) -> dict:
    return {e.name: e.value for e in site.env}


def line_col(facts: FileFacts, span) -> tuple[int, int]:
    return facts.source.line_col(span.start)


# ---------------------------------------------------------------------------
# Exact positions of every word
# ---------------------------------------------------------------------------


def _unquoted(text: str) -> set[str]:
    """The written word and its content without one layer of quotes."""
    out = {text}
    for quote in ('\\"', '"', "'"):
        if len(text) >= 2 * len(quote) and text.startswith(quote) and text.endswith(quote):
            out.add(text[len(quote) : -len(quote)])
    return out


def assert_exact_spans(facts: FileFacts) -> None:
    """Every token's span is the word as written; over its whole value the
    value map covers exactly the written text (without quotes)."""
    text = facts.source.text
    for site in facts.sites:
        for span in [site.span, site.entry_span] + [e.span for e in site.env] + [h.span for h in site.hints if h.span]:
            assert span.source is facts.source and 0 <= span.start <= span.end <= len(text)
        for token in site.tokens:
            span = token.span
            assert 0 <= span.start < span.end <= len(text), token
            value = token.value
            if isinstance(value, Unresolved):
                prefix = token.sub_span(0, len(value.known_prefix))
                assert span.start <= prefix.start <= prefix.end <= span.end
                continue
            if span.text == value:
                continue
            whole = token.sub_span(0, len(value))
            assert span.start <= whole.start <= whole.end <= span.end, (value, span, whole)
            assert whole.text in _unquoted(span.text), (value, span.text, whole.text)


ALL_FIXTURES = sorted(p.name for p in FIXTURES.glob("*.y*ml"))


@pytest.mark.parametrize("name", ALL_FIXTURES)
def test_every_token_span_is_the_word_as_written(name):
    facts = facts_of(name)
    assert facts.sites, name
    assert_exact_spans(facts)


def test_yaml_files_are_detected():
    assert detect_format("deploy/k8s.yaml") == "yaml"
    assert detect_format(".github/workflows/ci.YML") == "yaml"


# ---------------------------------------------------------------------------
# Kubernetes
# ---------------------------------------------------------------------------


def test_deployment_command_and_args_are_one_argv():
    facts = facts_of("k8s_deployment.yaml")
    (site,) = facts.sites
    assert site.entry == LAUNCH_SERVER and site.form == "argv"
    assert site.entry_span.text == '"python3", "-m", "sglang.launch_server"'
    assert values(site) == [
        "--model-path", "/models/DeepSeek-V3",
        "--tp-size", "8",
        "--host=0.0.0.0",
        "--port", "30000",
        "--tokenizer-path", "/models/DeepSeek-V3/tokenizer",
        "--dist-init-addr", "$(POD_IP):5000",
        "--mem-fraction-static", "0.85",
    ]  # fmt: skip
    assert [t.span.text for t in site.tokens[:4]] == ["--model-path", "$(MODEL_PATH)", "--tp-size", '"8"']
    # $(VAR) of a literal env value is substituted, of a valueFrom one unknown
    pod_ip = site.tokens[10].value
    assert isinstance(pod_ip, Unresolved) and "at run time" in pod_ip.reason
    assert env(site)["MODEL_PATH"] == "/models/DeepSeek-V3"
    assert env(site)["SGLANG_ENABLE_TORCH_COMPILE"] == "1"
    assert isinstance(env(site)["POD_IP"], Unresolved)
    assert hints(site) == [
        ("gpu-product", "NVIDIA-H200"),
        ("sglang-image", "lmsysorg/sglang:v0.5.4.post3-cu126"),
        ("gpu-count", 8),
    ]


def test_substituted_value_maps_to_the_reference():
    (site,) = facts_of("k8s_deployment.yaml").sites
    tokenizer = site.tokens[8]
    assert tokenizer.value == "/models/DeepSeek-V3/tokenizer"
    # the part that came from $(MODEL_PATH) points at the reference
    assert tokenizer.sub_span(0, 3).text == "$(MODEL_PATH)"
    assert tokenizer.sub_span(len("/models/DeepSeek-V3/"), len(tokenizer.value)).text == "tokenizer"


def test_flag_with_equals_in_a_quoted_item_splits_exactly():
    facts = facts_of("k8s_deployment.yaml")
    host = facts.sites[0].tokens[4]
    assert host.span.text == '"--host=0.0.0.0"'
    assert host.sub_span(0, len("--host")).text == "--host"
    assert host.sub_span(len("--host="), len(host.value)).text == "0.0.0.0"


def test_comments_including_commented_out_flags():
    facts = facts_of("k8s_deployment.yaml")
    texts = [t for _, t in facts.comments]
    assert texts == ["# DeepSeek-V3 on one 8xH200 node", "# tensor parallel over all GPUs", "# - --enable-dp-attention"]
    for offset, text in facts.comments:
        assert facts.source.text[offset : offset + len(text)] == text


def test_leader_worker_set_templates():
    facts = facts_of("lws.yaml")
    leader, worker = facts.sites
    assert values(leader)[:6] == ["--model-path", "deepseek-ai/DeepSeek-R1", "--tp", "16", "--dist-init-addr", "$(LWS_LEADER_ADDRESS):20000"]
    assert hints(leader) == [("gpu-product", "nvidia-h100-80gb"), ("sglang-image", "lmsysorg/sglang:v0.5.6"), ("gpu-count", 8)]
    # the worker's bash -c script is parsed as shell, positions in this file
    assert worker.entry_span.text == "python3 -m sglang.launch_server"
    assert line_col(facts, worker.entry_span) == (50, 17)
    rank = next(t for t in worker.tokens if t.span.text == "$(LWS_WORKER_INDEX)")
    assert isinstance(rank.value, Unresolved)
    assert "LWS_WORKER_INDEX" in env(worker) and ("sglang-image", "lmsysorg/sglang:v0.5.6") in hints(worker)
    assert (facts.source.text.index("# worker rank"), "# worker rank comes from the LWS index") in facts.comments


def test_one_line_sh_c_with_escapes():
    facts = facts_of("k8s_sh_c.yaml")
    (site,) = facts.sites
    assert values(site) == [
        "--model-path", "Qwen/Qwen3-8B",
        "--served-model-name", "qwen 3",
        "--json-model-override-args", '{"rope_scaling": null}',
    ]  # fmt: skip  (the escaped \n ends the shell command: --port is not part of it)
    name = site.tokens[3]
    assert name.span.text == '\\"qwen 3\\"' and name.sub_span(0, 6).text == "qwen 3"
    override = site.tokens[5]
    assert override.span.text == "'{\\\"rope_scaling\\\": null}'"
    assert override.sub_span(1, 14).text == '\\"rope_scaling'


def test_kubernetes_variables_inside_a_shell_script():
    text = (
        "containers:\n- name: s\n  env:\n  - {name: MODEL, value: /models/q}\n"
        "  command: [sh, -c, 'exec python3 -m sglang.launch_server --model-path $(MODEL) --port $PORT']\n"
    )
    facts = facts_from(text)
    (site,) = facts.sites
    assert values(site) == ["--model-path", "/models/q", "--port", "$PORT"]
    assert site.tokens[1].span.text == "$(MODEL)"
    assert env(site) == {"MODEL": "/models/q"}


def test_env_wrapper_and_compose_environment_list():
    text = (
        "services:\n  s:\n    environment:\n      - SGLANG_X=1\n      - HF_TOKEN\n"
        "    command: [env, 'CUDA_VISIBLE_DEVICES=0,1', python3, -m, sglang.launch_server, --tp, '2']\n"
    )
    (site,) = facts_from(text).sites
    assert values(site) == ["--tp", "2"]
    assert env(site)["SGLANG_X"] == "1" and env(site)["CUDA_VISIBLE_DEVICES"] == "0,1"
    assert isinstance(env(site)["HF_TOKEN"], Unresolved)


def test_anchors_and_merge_keys_point_at_the_definition():
    facts = facts_of("anchors.yaml")
    prefill, decode = facts.sites
    text = facts.source.text
    assert values(prefill) == ["--model-path", "Qwen/Qwen2.5-72B-Instruct", "--disaggregation-mode", "prefill", "--tp", "4"]
    model = prefill.tokens[1]
    assert model.span.start == text.index("Qwen/Qwen2.5-72B-Instruct")  # the &model definition
    assert prefill.entry_span.start == text.index("python3")  # the &launcher definition
    assert hints(prefill) == [("sglang-image", "lmsysorg/sglang:v0.5.3.post3")]
    assert values(decode) == ["--model-path", "Qwen/Qwen2.5-72B-Instruct", "--disaggregation-mode", "decode"]
    assert hints(decode) == [("sglang-image", "lmsysorg/sglang:v0.5.4")]  # the explicit key wins


# ---------------------------------------------------------------------------
# compose, GitHub Actions, SkyPilot
# ---------------------------------------------------------------------------


def test_compose_folded_command_and_interpolation():
    facts = facts_of("compose.yaml")
    sglang, router, flags_only = facts.sites
    assert router.entry == "python -m sglang_router.launch_router"
    assert values(sglang) == [
        "--model-path", "Qwen/Qwen2.5-7B-Instruct",
        "--context-length", "16384",
        "--host", "0.0.0.0", "--port", "30000",
        "--tp", "2",
        "${SGLANG_EXTRA_ARGS}",
    ]  # fmt: skip
    ctx = sglang.tokens[3]
    assert ctx.span.text == "${LLM_CTX_SIZE:-16384}" and ctx.sub_span(0, 5).text == "${LLM_CTX_SIZE:-16384}"
    assert line_col(facts, sglang.tokens[2].span) == (23, 7)  # a folded line keeps its own line
    assert any("SGLANG_EXTRA_ARGS" in reason for reason in sglang.opaque)
    assert hints(sglang) == [("sglang-image", "lmsysorg/sglang:v0.5.5"), ("gpu-count", 2)]
    assert env(sglang)["SGLANG_USE_MODELSCOPE"] == "false"
    assert isinstance(env(sglang)["HF_TOKEN"], Unresolved)  # compose substitutes it from the host
    # entrypoint list + flags-only command string, split like compose does
    assert flags_only.entry_span.text == '"python3", "-m", "sglang.launch_server"'
    assert values(flags_only) == ["--model-path", "/models/my model", "--tp-size", "2", "--api-key", "$SECRET"]
    assert flags_only.tokens[1].span.text == '"/models/my model"'


@pytest.mark.parametrize(
    ("service", "expected"),
    [
        ("entrypoint: python3 -m sglang.launch_server\n    command: --tp 2 --port 1", ["--tp", "2", "--port", "1"]),
        ("entrypoint: [/bin/bash]\n    command: -c 'python3 -m sglang.launch_server --tp 4'", ["--tp", "4"]),
        ("entrypoint: [/bin/sh, -c]\n    command: python3 -m sglang.launch_server --tp 4", ["--tp", "4"]),
        ("entrypoint: [/usr/bin/env, A=1]\n    command: python3 -m sglang.launch_server --tp 8", ["--tp", "8"]),
        ("entrypoint: sglang serve --model-path m", ["--model-path", "m"]),
    ],
)
def test_compose_entrypoint_and_command_shapes(service, expected):
    facts = facts_from(f"services:\n  a:\n    {service}\n")
    assert [values(s) for s in facts.sites] == [expected]
    assert_exact_spans(facts)


def test_router_is_its_own_entry_point():
    facts = facts_of("compose.yaml")
    (router,) = [s for s in facts.sites if "launch_router" in s.entry_span.text]
    assert router.entry == "python -m sglang_router.launch_router"  # judged by the router's parser, not SGLang's
    assert [t.value for t in router.tokens] == ["--worker-urls", "http://sglang:30000"]


def test_github_actions_run_block():
    facts = facts_of("github_workflow.yml")
    (site,) = facts.sites  # the bench_serving step is a client, not a launch
    text = facts.source.text
    assert values(site) == ["--model-path", "meta-llama/Llama-3.1-8B-Instruct", "--tp", "${{ matrix.tp }}", "--attention-backend", "fa3", "--port", "30000"]
    backend = site.tokens[4]
    assert line_col(facts, backend.span) == (26, 13)
    assert text.splitlines()[25][12:31] == "--attention-backend"
    tp = site.tokens[3]
    assert isinstance(tp.value, Unresolved) and tp.span.text == "${{ matrix.tp }}"
    assert env(site) == {"MODEL": "meta-llama/Llama-3.1-8B-Instruct", "SGLANG_LOG_LEVEL": "info"}
    assert hints(site) == [("sglang-image", "lmsysorg/sglang:v0.5.10")]
    assert (text.index("# start the server"), "# start the server in the background") in facts.comments


def test_skypilot_task():
    facts = facts_of("skypilot.yaml")
    (site,) = facts.sites
    assert values(site)[:4] == ["--model-path", "meta-llama/Llama-3.1-70B-Instruct", "--tp", "$SKYPILOT_NUM_GPUS_PER_NODE"]
    assert site.tokens[1].span.text == "$MODEL_NAME"
    assert hints(site) == [("sglang-image", "lmsysorg/sglang:v0.5.8"), ("gpu-product", "H100"), ("gpu-count", 8)]
    assert line_col(facts, site.tokens[-1].span) == (16, 5)


# ---------------------------------------------------------------------------
# Templates and invalid YAML
# ---------------------------------------------------------------------------


def test_helm_template_is_read_with_expressions_unknown():
    facts = facts_of("helm_deployment.yaml")
    assert not facts.problems
    (site,) = facts.sites
    assert values(site) == [
        "--model-path", "{{ .Values.model.path | quote }}",
        "--tp-size", '"{{ .Values.model.tp }}"',
        "--mem-fraction-static", '"{{ $model.runtime.memFrac | default $.Values.defaults.memFrac }}"',
        "--enable-metrics",
        "{{ . | quote }}",
    ]  # fmt: skip
    assert all(isinstance(t.value, Unresolved) for t in site.tokens if "{{" in t.span.text)
    assert any("range .Values.extraArgs" in r for r in site.opaque)


def test_template_that_is_not_yaml_is_scanned_line_by_line():
    facts = facts_of("helm_broken.yaml")
    assert not facts.problems
    args, router = facts.sites
    assert values(args) == ["--model-path", "{{ $model.path | quote }}", "--tp", '"{{ $model.tp }}"', "--enable-metrics", "--host", "0.0.0.0"]
    assert values(router) == ["--model-path", "{{ $model.path }}", "--port", "30001"]
    assert args.opaque and router.opaque
    assert ("# all interfaces" in [t for _, t in facts.comments])


def test_invalid_yaml_is_one_problem_at_the_error():
    text = "a: 1\nspec:\n  command: [python3, -m, sglang.launch_server\n  args: x: y\n"
    facts = facts_from(text)
    assert len(facts.problems) == 1 and facts.problems[0].message.startswith("invalid YAML")
    assert facts.source.line_col(facts.problems[0].span.start)[0] in (3, 4)


def test_documents_before_an_error_are_still_read():
    text = "command: [python3, -m, sglang.launch_server, --tp, '2']\n---\nx: [unclosed\n"
    facts = facts_from(text)
    assert [values(s) for s in facts.sites] == [["--tp", "2"]] and len(facts.problems) == 1


def test_multi_document_files():
    text = (
        "kind: ConfigMap\ndata:\n  image: lmsysorg/sglang:v0.5.2\n---\n"
        "kind: Pod\nspec:\n  containers:\n  - name: a\n    image: lmsysorg/sglang:v0.5.9\n"
        "    command: [sglang, serve, --model-path, m]\n---\n"
        "kind: Pod\nspec:\n  containers:\n  - name: b\n    command: [python3, -m, sglang.launch_server, --tp, '4']\n"
    )
    a, b = facts_from(text).sites
    assert a.entry == SERVE and values(a) == ["--model-path", "m"] and hints(a) == [("sglang-image", "lmsysorg/sglang:v0.5.9")]
    assert values(b) == ["--tp", "4"] and hints(b) == []


# ---------------------------------------------------------------------------
# Other engines, SGLang config files
# ---------------------------------------------------------------------------


def test_only_sglang_sections_are_read():
    (site,) = facts_of("engines.yaml").sites
    assert values(site) == ["--model-path", "Qwen/Qwen3-32B", "--tp", "2"]
    assert hints(site) == [("sglang-image", "lmsysorg/sglang:v0.5.23")]


def test_sglang_config_file_is_one_site():
    facts = facts_of("sglang_config.yaml")
    (site,) = facts.sites
    assert site.entry == CONFIG_ENTRY and site.form == "argv" and site.origin is Origin.CONFIG_FILE
    assert site.entry_span.text == "model-path"
    assert values(site) == [
        "--model-path", "meta-llama/Llama-3.1-8B-Instruct",
        "--tp-size", "2",
        "--mem_fraction_static", "0.8",
        "--enable-metrics",
        "--cuda-graph-bs", "1", "2", "4", "8",
        "--json-model-override-args", '{"rope_scaling": {"type": "yarn", "factor": 4.0}}',
        "--served-model-name", "llama '8b'",
    ]  # fmt: skip
    assert site.tokens[4].span.text == "mem_fraction_static"
    assert all(t.origin is Origin.CONFIG_FILE for t in site.tokens)


def test_a_mapping_with_model_path_but_other_keys_is_not_a_config():
    facts = facts_from("model_path: /m\nlearning_rate: 0.1\nbatch_size: 4\nepochs: 3\n")
    assert facts.sites == []


# ---------------------------------------------------------------------------
# Scalars: every style maps back character by character
# ---------------------------------------------------------------------------


SCALAR_CASES = [
    ('k: "a\\tb \\"c\\" \\x41\\u00e9"\n', "\\x41", "A"),
    ("k: 'it''s'\n", "''", "'"),
    ('k: "line one\n  line two"\n', "\n", " "),
    ("k: plain\n  folded\n", "\n", " "),
    ("k: >\n  one\n  two\n", "\n", " "),
    ("k: |\n  one\n  two\n", "\n", "\n"),
    ('k: "joined \\\n   here"\n', None, None),
]


@pytest.mark.parametrize(("text", "written", "decoded"), SCALAR_CASES)
def test_scalar_characters_map_to_their_source(text, written, decoded):
    node = yaml.compose(text).value[0][1]
    start = scalar_start(text, node.start_mark.index, node.end_mark.index)
    mapped = decode_scalar(text, start, node.end_mark.index, node.style, node.value)
    assert mapped is not None and mapped.text == node.value
    if written is not None:
        at = text.index(written, text.index("one") if "one" in text else start)
        i = next(i for i, s in enumerate(mapped.starts) if s == at)
        assert mapped.chars[i] == decoded and text[mapped.starts[i] : mapped.ends[i]] == written


def test_folded_space_maps_to_the_line_break():
    text = "run: >\n  python3 -m sglang.launch_server\n  --tp 2\n"
    node = yaml.compose(text).value[0][1]
    mapped = decode_scalar(text, node.start_mark.index, node.end_mark.index, ">", node.value)
    space = mapped.text.index(" --tp")
    assert text[mapped.starts[space]] == "\n"


def test_block_scalar_with_indentation_indicator():
    text = "items:\n  - |2\n     two extra\n    base\n"
    facts = facts_from(text.replace("two extra", "python3 -m sglang.launch_server --tp 2"))
    (site,) = facts.sites
    assert line_col(facts, site.tokens[0].span) == (3, 38)


# ---------------------------------------------------------------------------
# Robustness
# ---------------------------------------------------------------------------


def test_alias_bomb_is_read_once():
    lines = ["a0: &a0 [python3, -m, sglang.launch_server, --tp, '2']"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 20)]
    started = time.perf_counter()
    facts = facts_from("\n".join(lines) + "\n")
    assert time.perf_counter() - started < 5
    assert [values(s) for s in facts.sites] == [["--tp", "2"]]


def test_node_budget_stops_a_walk_that_keeps_growing(monkeypatch):
    from sgllint.formats.yaml import nodes as _yaml_nodes

    monkeypatch.setattr(_yaml_nodes.NodeReader, "allow", lambda self, n: setattr(self, "budget", 5))
    facts = facts_from("a: [1, 2, 3, 4, 5, 6, 7, 8]\nb: {c: {d: {e: 1}}}\n")
    assert [p.message for p in facts.problems if "alias" in p.message]


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 40), st.integers(2, 12), st.booleans())
def test_alias_bombs_of_any_shape_end_quickly(depth, fanout, as_mapping):
    if as_mapping:
        lines = ["a0: &a0 {command: [python3, -m, sglang.launch_server, --tp, '2']}"]
        lines += [f"a{i}: &a{i} {{" + ", ".join(f"k{j}: *a{i - 1}" for j in range(fanout)) + "}" for i in range(1, depth)]
    else:
        lines = ["a0: &a0 [sh, -c, 'python3 -m sglang.launch_server --tp 2']"]
        lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * fanout) + "]" for i in range(1, depth)]
    started = time.perf_counter()
    _check_robust("\n".join(lines) + "\n")
    assert time.perf_counter() - started < 10


def test_recursive_alias_does_not_loop():
    facts = facts_from("a: &a [*a, python3, -m, sglang.launch_server, --tp, '1']\n")
    assert all(0 <= t.span.start <= len(facts.source.text) for s in facts.sites for t in s.tokens)


def test_deep_nesting_is_an_error_not_a_crash():
    facts = facts_from("x: " + "[" * 60_000 + "]" * 60_000 + "\n")
    assert facts.problems and facts.sites == []


def test_huge_block_scalar_in_bounded_time():
    body = "".join(f"    echo {i}\n" for i in range(40_000))
    text = "run: |\n    python3 -m sglang.launch_server --tp 2 \\\n      --port 1\n" + body
    started = time.perf_counter()
    facts = facts_from(text)
    assert time.perf_counter() - started < 20
    assert values(facts.sites[0]) == ["--tp", "2", "--port", "1"]


def test_bom_crlf_and_tabs():
    text = "\ufeffcommand:\r\n  - python3\r\n  - -m\r\n  - sglang.launch_server\r\n  - \"--tp\\t\"\r\n  - '2'\r\n"
    facts = facts_from(text)
    (site,) = facts.sites
    assert values(site) == ["--tp\t", "2"]
    assert site.tokens[0].span.text == '"--tp\\t"' and site.tokens[1].span.text == "'2'"
    assert_exact_spans(facts)


_PIECES = [
    "python3 -m sglang.launch_server", "sglang serve", "--tp", "--model-path", "8", "$(VAR)", "${X:-1}",
    "{{ .Values.x }}", "${{ matrix.tp }}", "- ", ": ", "command:", "args:", "run: |", "run: >-", "|2", "\n",
    "\r\n", "\t", "  ", "    ", '"', "'", "\\", "\\n", "#", "# c", "[", "]", "{", "}", ",", "&a ", "*a", "<<: ",
    "---\n", "...", "?", "!tag ", "!!str ", "sh", "-c", "\ufeff", "é", "😀", "\x85", "\u2028", "=", "env:",
    "- name: V\n  value: x", "image: lmsysorg/sglang:v0.5.4", "services:", "entrypoint:",
]  # fmt: skip


def _check_robust(text: str) -> None:
    facts = facts_from(text)
    n = len(text)
    for site in facts.sites:
        spans = [site.span, site.entry_span] + [t.span for t in site.tokens] + [e.span for e in site.env]
        spans += [h.span for h in site.hints if h.span is not None]
        for token in site.tokens:
            length = len(token.value) if isinstance(token.value, str) else len(token.value.known_prefix)
            spans.append(token.sub_span(0, length))
        for span in spans:
            assert 0 <= span.start <= span.end <= n
    for problem in facts.problems:
        assert 0 <= problem.span.start <= problem.span.end <= n
    for offset, _ in facts.comments:
        assert 0 <= offset <= n


@settings(max_examples=300, deadline=3000, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(_PIECES) | st.text(max_size=4), max_size=60))
def test_random_yamlish_text_never_raises(pieces):
    _check_robust("".join(pieces))


_FIXTURE_TEXTS = [(FIXTURES / name).read_text(encoding="utf-8") for name in ALL_FIXTURES]


@settings(max_examples=200, deadline=3000, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(_FIXTURE_TEXTS),
    st.lists(st.tuples(st.floats(0, 1), st.integers(0, 6), st.sampled_from(_PIECES) | st.text(max_size=3)), max_size=8),
)
def test_mutated_fixtures_never_raise(text, edits):
    for where, cut, insert in edits:
        at = int(where * len(text))
        text = text[:at] + insert + text[at + cut :]
    _check_robust(text)


_STYLES = [None, '"', "'", "|", ">"]


@settings(max_examples=300, deadline=2000)
@given(st.text(st.characters(blacklist_categories=("Cs",)), max_size=40), st.sampled_from(_STYLES), st.integers(10, 80))
def test_dumped_scalars_map_back_exactly(value, style, width):
    """Whatever PyYAML writes, each decoded character maps to the source
    text that produced it."""
    try:
        text = yaml.dump({"k": [value]}, default_style=style, width=width, allow_unicode=True)
    except yaml.YAMLError:
        return
    for loader in (yaml.SafeLoader, yaml.CSafeLoader):
        try:
            node = yaml.compose(text, Loader=loader).value[0][1].value[0]
        except yaml.YAMLError:
            continue
        start = scalar_start(text, node.start_mark.index, node.end_mark.index)
        mapped = decode_scalar(text, start, node.end_mark.index, node.style, node.value)
        if mapped is None:
            assert loader is yaml.CSafeLoader, (text, node.style)  # libyaml may decode tabs differently
            continue
        assert mapped.text == node.value
        for ch, s, e in zip(mapped.chars, mapped.starts, mapped.ends):
            assert start <= s < e <= node.end_mark.index
            written = text[s:e]
            if not written.startswith("\\") and written not in ("''",) and not re.fullmatch(r"[\r\n\x85\u2028\u2029]+", written):
                assert written == ch, (text, ch, written)
