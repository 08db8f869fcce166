"""Launches through a wrapper (Dynamo, the SGLang router) are judged by the
wrapper's generated parser first, then SGLang's.

The fixtures are written here in the shapes real repositories use: Dynamo's
``launch/agg.sh`` / ``disagg.sh`` scripts, a DynamoGraphDeployment-style
manifest with a runtime image, router PD scripts, a requirements pin.
"""

from __future__ import annotations

import textwrap

import pytest

from sgllint.catalog import wrappers as wrapper_data
from sgllint.engine.pipeline import Options, lint_file, lint_source
from sgllint.model.kinds import Provenance


def _lint(text, path="launch.sh", **kw):
    return lint_source(path, textwrap.dedent(text).lstrip(), Options(use_environment=False, **kw))


def _codes(result):
    return [(d.code, d.span.text) for d in result.diagnostics]


AGG_SH = """\
#!/bin/bash
set -e
trap 'echo Cleaning up...; kill 0' EXIT

python -m dynamo.frontend --http-port=8000 &

python -m dynamo.sglang \\
  --model-path Qwen/Qwen3-0.6B \\
  --served-model-name Qwen/Qwen3-0.6B \\
  --page-size 16 \\
  --tp-size 1 \\
  --trust-remote-code \\
  --skip-tokenizer-init \\
  --endpoint dyn://dynamo.backend.generate \\
  --dyn-reasoning-parser qwen3 \\
  --dyn-tool-call-parser hermes
"""


def test_dynamo_agg_script_is_clean_and_judged_by_the_pinned_sglang():
    result = _lint(AGG_SH)
    assert _codes(result) == []
    (launch,) = result.launches
    ctx = launch.context
    newest = wrapper_data.versions("ai-dynamo")[-1]
    assert ctx.wrapped.package == "ai-dynamo" and ctx.wrapped.version == newest
    assert ctx.version.source is Provenance.WRAPPER_PIN
    assert ctx.catalog.version == wrapper_data.load("ai-dynamo", newest).sglang_pin.split(".post")[0]
    # Dynamo's own flags are taken by its parser, never given to SGLang
    own = {o.spelling for o in ctx.wrapped.own}
    assert {"--endpoint", "--dyn-reasoning-parser", "--dyn-tool-call-parser"} <= own
    assert not {a.spelling for a in launch.args} & own
    # SGLang's flags behind the wrapper are SGLang's args, with their fields
    assert launch.value("tp_size") == 1 and launch.value("page_size") == 16


def test_sglang_flags_behind_dynamo_get_every_sglang_check():
    text = AGG_SH.replace("--tp-size 1", "--tp 1 --enable_metrics --attention-backend flashinferr")
    codes = _codes(_lint(text))
    assert ("SGL101", "--enable_metrics") in codes
    assert ("SGL109", "--tp") in codes
    assert ("SGL103", "flashinferr") in codes


def test_dynamo_own_typo_is_reported_with_a_dynamo_suggestion():
    result = _lint(AGG_SH.replace("--dyn-reasoning-parser", "--dyn-reasoning-parsr"))
    (d,) = [d for d in result.diagnostics if d.code == "SGL101"]
    assert d.span.text == "--dyn-reasoning-parsr" and "--dyn-reasoning-parser" in d.help
    assert "ai-dynamo" in d.message


def test_dynamo_release_from_requirements_pin(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "requirements.txt").write_text("ai-dynamo[sglang]==0.6.1\n")
    script = tmp_path / "agg.sh"
    script.write_text(AGG_SH.replace("  --dyn-tool-call-parser hermes\n", "  --migration-limit 3\n"))
    result = lint_file(str(script), Options(use_environment=False))
    (launch,) = result.launches
    assert launch.context.wrapped.version == "0.6.1"
    assert launch.context.catalog.version == "0.5.3"  # ai-dynamo 0.6.1 pins sglang==0.5.3.post2
    assert "--migration-limit" in {o.spelling for o in launch.context.wrapped.own}
    assert [d.code for d in result.diagnostics] == []


def test_explicit_sglang_version_wins_over_the_wrapper_pin():
    result = _lint(AGG_SH, sglang_version="0.5.10")
    (launch,) = result.launches
    assert launch.context.catalog.version == "0.5.10" and launch.context.version.source is Provenance.COMMAND_LINE


DGD = """\
apiVersion: nvidia.com/v1alpha1
kind: DynamoGraphDeployment
metadata:
  name: sglang-agg
spec:
  services:
    decode:
      dynamoNamespace: sglang-agg
      componentType: worker
      replicas: 1
      resources:
        limits:
          gpu: "1"
      extraPodSpec:
        mainContainer:
          image: nvcr.io/nvidia/ai-dynamo/sglang-runtime:0.7.0
          workingDir: /workspace/components/backends/sglang
          command:
            - python3
            - -m
            - dynamo.sglang
          args:
            - --model-path
            - Qwen/Qwen3-0.6B
            - --page-size
            - "16"
            - --tp
            - "1"
            - --trust-remote-code
            - --skip-tokenizer-init
"""


def test_dynamo_runtime_image_tag_is_dynamo_release_not_sglang():
    result = _lint(DGD, path="agg.yaml")
    (launch,) = result.launches
    assert launch.context.wrapped.version == "0.7.0"
    assert "image tag" in launch.context.wrapped.source
    assert launch.context.catalog.version == "0.5.4"  # ai-dynamo 0.7.0 pins sglang==0.5.4.post3
    assert [d.code for d in result.diagnostics] == ["SGL109"]


def test_0_4_era_worker_forms():
    text = """\
    # sgllint: ai-dynamo=0.4.0
    python3 -m dynamo.sglang.worker --model-path deepseek-ai/DeepSeek-R1-Distill-Llama-8B --tp-size 1 --skip-tokenizer-init
    python3 -m dynamo.sglang.decode_worker --model-path deepseek-ai/DeepSeek-R1-Distill-Llama-8B --disaggregation-mode decode --tp-size 1
    """
    result = _lint(text)
    assert [launch.context.wrapped.version for launch in result.launches] == ["0.4.0", "0.4.0"]
    assert {launch.context.catalog.version for launch in result.launches} == {"0.4.9"}
    assert _codes(result) == []


PD_ROUTER = """\
#!/bin/bash
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --disaggregation-mode prefill --port 30000 &
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --disaggregation-mode decode --port 30001 --base-gpu-id 1 &
python -m sglang_router.launch_router --pd-disaggregation \\
    --prefill http://127.0.0.1:30000 \\
    --decode http://127.0.0.1:30001 \\
    --host 0.0.0.0 --port 8000 --policy cache_aware
"""


def test_router_only_entry_is_judged_by_the_router_parser():
    result = _lint(PD_ROUTER)
    assert _codes(result) == []
    router = result.launches[-1]
    assert router.context.target == "router" and router.args == []
    assert {"--pd-disaggregation", "--prefill", "--decode", "--policy"} <= {o.spelling for o in router.context.wrapped.own}


def test_router_only_errors_are_the_routers():
    result = _lint(PD_ROUTER.replace("--policy cache_aware", "--polizy cache_aware --tp-size 2"))
    codes = _codes(result)
    assert ("SGL116", "--polizy") in codes and ("SGL116", "--tp-size") in codes
    assert not [c for c, _ in codes if c != "SGL116"]  # never SGLang's missing model path or unknown flag


def test_router_console_script_subcommands():
    clean = _lint("sglang-router launch --pd-disaggregation --prefill http://p:30000 --decode http://d:30001\n")
    assert _codes(clean) == [] and clean.launches[0].context.target == "router"
    server = _lint("sglang-router server --model-path Qwen/Qwen3-8B --dp-size 2 --router-policy cache_aware --tp 2\n")
    assert _codes(server) == [("SGL109", "--tp")]
    bad = _lint("sglang-router --pd-disaggregation --prefill http://p:30000\n")
    assert [c for c, _ in _codes(bad)] == ["SGL116"]


def test_router_launch_server_splits_router_flags_from_server_flags():
    text = "python -m sglang_router.launch_server --model-path Qwen/Qwen2.5-7B-Instruct --dp-size 2 --router-policy fastest --router-polcy x\n"
    codes = _codes(_lint(text))
    assert ("SGL118", "fastest") in codes
    (unknown,) = [d for d in _lint(text).diagnostics if d.code == "SGL101"]
    assert unknown.span.text == "--router-polcy" and "--router-policy" in unknown.help


@pytest.mark.parametrize(
    "text",
    [
        "pip install sglang-router\n",
        "pip install 'ai-dynamo[sglang]==0.6.1'\n",
        "docker run --name sglang-router lmsysorg/sglang:v0.5.10 nvidia-smi\n",
        "python -m dynamo.frontend --http-port 8000  # dynamo.sglang workers register here\n",
        "echo 'run sglang-router launch later'\n",
    ],
)
def test_look_alikes_are_not_launches(text):
    result = _lint(text)
    assert result.launches == [] and result.diagnostics == []


# ---------------------------------------------------------------------------
# Agreement with the replayed wrapper parsers
# ---------------------------------------------------------------------------

#: the codes that stand for "a parser refuses the words" (SGLang's or the wrapper's)
PARSE_CODES = {"SGL101", "SGL102", "SGL103", "SGL104", "SGL105", "SGL106", "SGL111", "SGL116", "SGL117", "SGL118", "SGL119"}


def _wrapper_launches(wrapper, entry, sglang, count, seed):
    import random

    rng = random.Random(seed)
    by_string = {s: o for p in wrapper.parsers.values() for o in p.options for s in o.strings if o.action not in ("help", "version")}
    own = sorted(s for s in wrapper.own_option_strings(entry) if s.startswith("--") and s in by_string)
    theirs = ["--tp-size 2", "--page-size 16", "--trust-remote-code", "--attention-backend fa3", "--port 30000"]
    sglang_too = wrapper.entry(entry).includes_sglang
    for n in range(count):
        words = ["launch" if "subcommands" in wrapper.entry(entry).raw else None]
        words = [w for w in words if w] + (["--model-path", "Qwen/Qwen3-8B"] if sglang_too and not words[0] else [])
        for flag in rng.sample(own, min(3, len(own))):
            opt = by_string[flag]
            words.append(flag)
            if opt.takes_value:
                value = str(opt.choices[0]) if opt.choices else {"int": "2", "float": "0.5"}.get(opt.type, "x")
                words.extend([value] * (opt.nargs if isinstance(opt.nargs, int) and opt.nargs > 0 else 1))
        if sglang_too and words[:1] != ["launch"]:
            words += rng.choice(theirs).split()
        pool = own or ["--tp-size", "--page-size"]
        mutation = n % 4
        if mutation == 1:
            words.append("--" + rng.choice(pool).lstrip("-")[:-1] + "zz")
        elif mutation == 2:
            words.append(pool[n % len(pool)] + "s")
        elif mutation == 3:
            valued = [o for o in by_string.values() if o.takes_value and o.nargs is None and o.strings[0].startswith("--")]
            if valued:
                words.append(rng.choice(valued).strings[0])
        yield words


@pytest.mark.parametrize(
    "package,version,entry",
    [
        ("sglang-router", "0.3.2", "python -m sglang_router.launch_router"),
        ("sglang-router", "0.3.2", "python -m sglang_router.launch_server"),
        ("sglang-router", "0.1.9", "python -m sglang_router.launch_router"),
        ("ai-dynamo", "1.6.1", "python -m dynamo.sglang"),
        ("ai-dynamo", "0.6.1", "python -m dynamo.sglang"),
    ],
)
def test_lint_errors_agree_with_the_wrapper_parser(package, version, entry):
    from sgllint import catalog as catalogs
    from sgllint.resolve.wrapped import pinned_sglang

    wrapper = wrapper_data.load(package, version)
    sglang_version = pinned_sglang(wrapper) or catalogs.latest()
    catalog = catalogs.load(sglang_version)
    outcomes = set()
    for words in _wrapper_launches(wrapper, entry, catalog, 60, seed=sum(map(ord, package + version))):
        verdict = wrapper.judge(entry, words, catalog)
        text = f"# sgllint: {package}={version}\n{entry} " + " ".join(f"'{w}'" for w in words) + "\n"
        result = _lint(text, sglang_version=sglang_version)
        errors = [d for d in result.diagnostics if d.code in PARSE_CODES and d.severity.name == "ERROR"]
        rejected = verdict.outcome is wrapper_data.Outcome.REJECTED
        assert rejected == bool(errors), (words, verdict, [(d.code, d.message) for d in errors])
        outcomes.add(rejected)
    assert outcomes == {True, False}


DGD_V1BETA1 = """\
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata:
  name: qwen-disagg
spec:
  components:
  - name: prefill
    type: prefill
    replicas: 1
    podTemplate:
      spec:
        containers:
        - name: main
          image: nvcr.io/nvidia/ai-dynamo/sglang-runtime:1.3.1
          args:
          - --model-path
          - Qwen/Qwen3-8B
          - --tp-size
          - "2"
          - --disaggregation-mode
          - prefill
          - --dyn-reasoning-parser
          - qwen3
          - --disaggregation-transfer-backend
          - nixll
          command: [python3, -m, dynamo.sglang]
          resources:
            limits:
              nvidia.com/gpu: "2"
  - name: decode
    type: decode
    replicas: 1
    podTemplate:
      spec:
        containers:
        - name: main
          image: nvcr.io/nvidia/ai-dynamo/sglang-runtime:1.3.1
          command: ["/bin/sh", "-c"]
          args:
          - >-
            python3 -m dynamo.sglang --model-path Qwen/Qwen3-8B --tp-size 2
            --disaggregation-mode decode --dyn-reasoning-parser qwen3
"""


def test_dynamo_graph_deployment_components_carry_worker_args():
    result = _lint(DGD_V1BETA1, path="disagg.yaml")
    assert [launch.context.wrapped.version for launch in result.launches] == ["1.3.1", "1.3.1"]
    assert {launch.context.catalog.version for launch in result.launches} == {"0.5.14"}
    # the Dynamo flag is Dynamo's; the SGLang value typo is SGLang's, at its line
    assert [(c, t) for c, t in _codes(result)] == [("SGL103", "nixll")]
    (d,) = result.diagnostics
    assert d.span.start_line_col() == (25, 13)


RUN_PY = """\
import subprocess

PREFILL = "http://127.0.0.1:30000"


def start_router(decode_url: str):
    cmd = ["python3", "-m", "sglang_router.launch_router", "--pd-disaggregation",
           "--prefill", PREFILL, "--decode", decode_url, "--policy", "cache_aware"]
    return subprocess.Popen(cmd)


def start_worker():
    return subprocess.Popen(["python3", "-m", "dynamo.sglang", "--model-path", "Qwen/Qwen3-0.6B",
                             "--endpoint", "dyn://dynamo.backend.generate", "--tp-size", "1"])
"""


def test_python_argv_lists_of_wrappers():
    result = _lint(RUN_PY, path="launch.py")
    assert [(launch.entry, launch.context.target) for launch in result.launches] == [
        ("python -m sglang_router.launch_router", "router"),
        ("python -m dynamo.sglang", "sglang"),
    ]
    assert _codes(result) == []
    bad = _lint(RUN_PY.replace('"--policy", "cache_aware"', '"--policy", "fastest"'), path="launch.py")
    assert _codes(bad) == [("SGL118", '"fastest"')]
