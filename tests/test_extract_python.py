"""The Python extractor on realistic files (tests/fixtures/python/): which
calls are launches, what each one passes, and that every span covers the
literal exactly as written."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sgllint.formats.python.extractor import extract
from sgllint.formats.registry import detect_format, extractor
from sgllint.model.facts import FileFacts, LaunchSite, Source, Span, Unresolved

FIXTURES = Path(__file__).parent / "fixtures" / "python"


def facts_of(name: str) -> FileFacts:
    path = FIXTURES / name
    return extract(Source(str(path), path.read_text(encoding="utf-8")))


def facts_for(text: str, path: str = "snippet.py") -> FileFacts:
    return extract(Source(path, text))


def written(site: LaunchSite) -> list[tuple[object, str]]:
    """(value, source text of its span) of every token, or for a keyword
    site (name, name text, value, value text) of every kwarg."""
    if site.form == "argv":
        return [(t.value, t.span.text) for t in site.tokens]
    return [(k.name, k.name_span.text, k.value, k.value_span.text) for k in site.kwargs]


def values(site: LaunchSite) -> list:
    return [t.value for t in site.tokens]


def unresolved(raw: str, reason: str, prefix: str = "") -> Unresolved:
    return Unresolved(raw, reason, prefix)


def only_site(facts: FileFacts, entry: str) -> LaunchSite:
    sites = [s for s in facts.sites if s.entry == entry]
    assert len(sites) == 1, [s.entry for s in facts.sites]
    return sites[0]


# ---------------------------------------------------------------------------
# Registration
# ---------------------------------------------------------------------------


def test_registered_for_py_files_only():
    assert detect_format("train/launch.py") == "python"
    assert detect_format("stubs/launch.pyi") is None
    assert extractor("python") is extract


# ---------------------------------------------------------------------------
# Keyword launches
# ---------------------------------------------------------------------------


def test_rl_engine_with_dict_splat_and_engine_kwargs():
    facts = facts_of("rl_engine_rollout.py")
    # the dict gets "speculative_algorithm" on one path through the branch
    # at line 32: one launch per path, each with the keys of its path
    speculative, plain = [s for s in facts.sites if s.entry == "sglang.Engine(...)"]
    assert speculative.form == "kwargs"
    assert speculative.entry_span.text == "sgl.Engine"
    assert speculative.span.text == plain.span.text == 'sgl.Engine(**args, **engine_kwargs, log_level="info")'
    param = "'{}' is a function parameter"
    head = [
        ("model_path", '"model_path"', unresolved("model_path", param.format("model_path")), "model_path"),
        ("tp_size", '"tp_size"', unresolved("tp_size", param.format("tp_size")), "tp_size"),
        # module constants: the span is the literal where the name is assigned
        ("mem_fraction_static", '"mem_fraction_static"', 0.85, "0.85"),
        ("attention_backend", '"attention_backend"', "fa3", '"fa3"'),
        ("enable_memory_saver", '"enable_memory_saver"', True, "True"),
    ]
    tail = [
        ("random_seed", '"random_seed"', 42, "42"),
        ("disable_cuda_graph", "disable_cuda_graph", False, "False"),
        ("chunked_prefill_size", "chunked_prefill_size", -1, "-1"),
        ("log_level", "log_level", "info", '"info"'),
    ]
    assert written(speculative) == head + [("speculative_algorithm", '"speculative_algorithm"', "EAGLE", '"EAGLE"')] + tail
    assert written(plain) == head + tail
    for engine in (speculative, plain):
        assert engine.opaque == ["**engine_kwargs may hold any arguments"]
        constant = next(k for k in engine.kwargs if k.name == "attention_backend")
        assert engine.source.line_col(constant.value_span.start)[0] == 17  # DEFAULT_ATTENTION_BACKEND = "fa3"
    assert [h.value for s in (speculative, plain) for h in s.hints if h.kind == "branch-path"] == [1, 2]


def test_engine_given_server_args_is_one_site():
    facts = facts_of("rl_engine_rollout.py")
    assert [s.entry for s in facts.sites] == ["sglang.Engine(...)", "sglang.Engine(...)", "ServerArgs(...)", "sglang.Runtime(...)"]
    server_args = only_site(facts, "ServerArgs(...)")
    assert server_args.entry_span.text == "SA"  # imported as an alias
    assert written(server_args) == [
        ("model_path", "model_path", unresolved("model", "'model' is a function parameter"), "model"),
        ("tp_size", "tp_size", 2, "2"),
        ("cuda_graph_bs", "cuda_graph_bs", [1, 2, 4, 8], "[1, 2, 4, 8]"),
        ("dtype", "dtype", "bfloat16", "'bfloat16'"),
    ]
    assert server_args.opaque == []


def test_runtime_drops_its_own_launch_timeout():
    runtime = only_site(facts_of("rl_engine_rollout.py"), "sglang.Runtime(...)")
    assert written(runtime) == [
        ("model_path", "model_path", "meta-llama/Llama-3.1-8B-Instruct", '"meta-llama/Llama-3.1-8B-Instruct"'),
        ("port", "port", 30010, "30010"),
    ]


def test_unrelated_engine_is_not_a_launch():
    facts = facts_of("unrelated_engine.py")
    assert facts.sites == []
    assert facts.problems == []


@pytest.mark.parametrize(
    "imports, call",
    [
        ("import sglang", "sglang.Engine"),
        ("import sglang as sgl", "sgl.Engine"),
        ("from sglang import Engine", "Engine"),
        ("from sglang import Engine as SGLEngine", "SGLEngine"),
        ("from sglang.srt.entrypoints.engine import Engine", "Engine"),
        ("import sglang.srt.entrypoints.engine as eng", "eng.Engine"),
        ("from sglang import *", "Engine"),
        ("try:\n    import sglang as sgl\nexcept ImportError:\n    sgl = None", "sgl.Engine"),
    ],
)
def test_engine_however_imported(imports, call):
    facts = facts_for(f"{imports}\n\ndef make():\n    return {call}(model_path='m', tp_size=2)\n")
    site = only_site(facts, "sglang.Engine(...)")
    assert site.entry_span.text == call
    assert [(k.name, k.value) for k in site.kwargs] == [("model_path", "m"), ("tp_size", 2)]


@pytest.mark.parametrize(
    "code",
    [
        "from vllm import Engine\nEngine(model_path='m')\n",
        "import sglang\nclass Engine:\n    pass\nEngine(model_path='m')\n",
        "import sglang\nEngine(model_path='m')\n",  # never imported
        "from sglang_router import Engine\nEngine(model_path='m')\n",
        "import sglang\nfrom sglang import Engine\ndef Engine(**kw):\n    pass\nEngine(model_path='m')\n",
    ],
)
def test_engine_not_from_sglang_is_not_a_launch(code):
    assert facts_for(code).sites == []


def test_dict_literal_and_its_writes_before_the_call():
    code = (
        "import sglang as sgl\n"
        "def start(extra):\n"
        "    kw = {'model_path': 'org/m', 'tp_size': 1}\n"
        "    kw['tp_size'] = 4\n"
        "    kw.update({'dp_size': 2}, enable_metrics=True)\n"
        "    kw.setdefault('port', 30000)\n"
        "    kw.pop('port')\n"
        "    engine = sgl.Engine(*extra, **kw)\n"
        "    kw['log_level'] = 'debug'  # after the call: not part of it\n"
        "    return engine\n"
    )
    site = only_site(facts_for(code), "sglang.Engine(...)")
    assert written(site) == [
        ("model_path", "'model_path'", "org/m", "'org/m'"),
        ("tp_size", "'tp_size'", 4, "4"),
        ("dp_size", "'dp_size'", 2, "2"),
        ("enable_metrics", "enable_metrics", True, "True"),
    ]
    assert site.opaque == ["*extra passes positional arguments"]


def test_opaque_dict_splat():
    site = only_site(facts_for("import sglang\nsglang.Engine(**load_config(), model_path='m')\n"), "sglang.Engine(...)")
    assert site.opaque == ["**load_config() may hold any arguments"]
    assert [k.name for k in site.kwargs] == ["model_path"]


# ---------------------------------------------------------------------------
# popen_launch_server
# ---------------------------------------------------------------------------


def test_popen_launch_server_with_branches():
    facts = facts_of("popen_server_tests.py")
    first, without_metrics = facts.sites[:2]
    assert first.entry == "popen_launch_server(...)" and first.form == "argv"
    assert first.entry_span.text == "popen_launch_server"
    # a value that differs by branch stays one unknown value; the flag added
    # on one path only makes a launch per path
    branch = "differs by a branch at line 24: 'triton' or 'fa3'"
    assert written(first) == [
        ("--model-path", "cls.model"),  # the synthetic flag points at the model
        (unresolved("DEFAULT_MODEL_NAME_FOR_TEST", "constant from sglang.test.test_utils"), "cls.model"),
        ("--enable-torch-compile", '"--enable-torch-compile"'),
        ("--cuda-graph-max-bs", '"--cuda-graph-max-bs"'),
        ("4", "4"),
        ("--mem-fraction-static", '"--mem-fraction-static"'),
        ("0.7", "0.7"),
        ("--attention-backend", '"--attention-backend"'),
        (unresolved('"triton"', branch), '"triton"'),
        ("--enable-metrics", '"--enable-metrics"'),
        ("--chunked-prefill-size", '"--chunked-prefill-size"'),
        ("-1", '"-1"'),
    ]
    assert written(without_metrics) == [w for w in written(first) if w[0] != "--enable-metrics"]
    for site in (first, without_metrics):
        assert site.opaque == []
        assert [(e.name, e.value, e.span.text, e.value_span.text) for e in site.env] == [
            ("SGLANG_ENABLE_JIT_DEEPGEMM", "0", '"SGLANG_ENABLE_JIT_DEEPGEMM": "0"', '"0"')
        ]


def test_popen_launch_server_positional_other_args_and_equal_branches():
    second = facts_of("popen_server_tests.py").sites[2]
    assert written(second) == [
        ("--model-path", '"meta-llama/Llama-3.1-8B-Instruct"'),
        ("meta-llama/Llama-3.1-8B-Instruct", '"meta-llama/Llama-3.1-8B-Instruct"'),
        # the same in both branches: known, at the first branch's literal
        ("--speculative-algorithm", '"--speculative-algorithm"'),
        ("EAGLE", '"EAGLE"'),
        ("--speculative-num-steps", '"--speculative-num-steps"'),
        (unresolved('"3"', "differs by a branch at line 52: '3' or '5'"), '"3"'),
        ("--tp", '"--tp"'),
        ("2", "2"),
        ("--cuda-graph-max-bs", '"--cuda-graph-max-bs"'),
        ("8", '"8"'),
    ]
    assert second.opaque == []


# ---------------------------------------------------------------------------
# subprocess / exec launches
# ---------------------------------------------------------------------------


def test_modal_worker_popen_with_sys_executable():
    facts = facts_of("modal_worker.py")
    serve, fast_boot_off = facts.sites[:2]
    assert serve.entry == "python -m sglang.launch_server"
    assert serve.entry_span.text == "subprocess.Popen"
    assert serve.span.text == 'subprocess.Popen(cmd, env={**os.environ, "HF_HUB_OFFLINE": "1"})'
    assert written(serve) == [
        ("--model-path", '"--model-path"'),
        ("Qwen/Qwen2.5-7B-Instruct", '"Qwen/Qwen2.5-7B-Instruct"'),
        ("--tp", '"--tp"'),
        ("2", "2"),  # str(N_GPU): the literal 2 of N_GPU = 2
        ("--host", '"--host"'),
        ("0.0.0.0", '"0.0.0.0"'),
        ("--port", '"--port"'),
        ("8000", "8000"),
        ("--mem-fraction-static=0.85", '"--mem-fraction-static=0.85"'),
        ("--load-format", '"--load-format"'),  # when FAST_BOOT is set (line 28)
        ("dummy", '"dummy"'),
        ("--attention-backend", '"--attention-backend"'),
        ("flashinfer", '"flashinfer"'),
    ]
    assert written(fast_boot_off) == written(serve)[:9] + written(serve)[11:]
    for site in (serve, fast_boot_off):
        assert site.opaque == []
        assert [(e.name, e.value, e.value_span.text) for e in site.env] == [("HF_HUB_OFFLINE", "1", '"1"')]


def test_runpod_worker_env_defaults_and_loop():
    # the loop over a dict of the file runs once per entry; each run's `if`
    # adds its flag on one path: four launches, one per combination
    workers = facts_of("modal_worker.py").sites[2:]
    assert len(workers) == 4
    worker = workers[-1]
    assert written(worker) == [
        ("--model-path", '"--model-path"'),
        (
            unresolved("os.getenv('MODEL_NAME')", "environment variable with default 'Qwen/Qwen2.5-0.5B-Instruct'"),
            'os.getenv("MODEL_NAME", "Qwen/Qwen2.5-0.5B-Instruct")',
        ),
        ("--host", '"--host"'),
        ("0.0.0.0", '"0.0.0.0"'),
        ("--port", '"--port"'),
        (unresolved("os.getenv('PORT')", "environment variable with default '30000'"), 'os.environ.get("PORT", "30000")'),
    ]
    assert [[t.value for t in w.tokens[6:] if isinstance(t.value, str)] for w in workers] == [
        ["--context-length", "--tp-size"],
        ["--tp-size"],
        ["--context-length"],
        [],
    ]
    context = workers[0].tokens[7]
    assert context.value == unresolved("os.getenv('CONTEXT_LENGTH')", "environment variable")
    assert context.span.text == "os.getenv(env_key)"
    assert all(w.opaque == [] for w in workers)


def test_value_map_points_at_each_character():
    serve = facts_of("modal_worker.py").sites[0]
    text = serve.source.text
    for tok in serve.tokens:
        if tok.value_map is not None:
            assert [text[tok.value_map.outer(i)] for i in range(len(tok.value))] == list(tok.value)


def test_flag_value_sub_span_is_exact():
    serve = facts_of("modal_worker.py").sites[0]
    token = next(t for t in serve.tokens if t.value == "--mem-fraction-static=0.85")
    assert token.sub_span(0, len("--mem-fraction-static")).text == "--mem-fraction-static"
    assert token.sub_span(len("--mem-fraction-static="), len(token.value)).text == "0.85"

    code = "import subprocess\nsubprocess.run(['sglang', 'serve', '--attention' '-backend=flash\\x69nfer'])\n"
    (site,) = facts_for(code).sites
    (tok,) = site.tokens
    assert tok.value == "--attention-backend=flashinfer"
    assert tok.span.text == "'--attention' '-backend=flash\\x69nfer'"
    assert tok.sub_span(20, 30).text == "flash\\x69nfer"
    assert tok.sub_span(0, 19).text == "--attention' '-backend"


def test_argv_forms():
    code = (
        "import asyncio, os, shlex, subprocess, sys\n"
        "PY = sys.executable\n"
        "BASE = [PY, '-m', 'sglang.launch_server']\n"
        "def a():\n"
        "    subprocess.check_call(BASE + ['--model-path', 'm', '--tp', str(2)])\n"
        "def b():\n"
        "    os.execvp('sglang', ['sglang', 'serve', 'org/model', '--port', 30000])\n"
        "async def c(extra):\n"
        "    argv = ['python3', '-u', '-m', 'sglang.launch_server', '--model', 'm']\n"
        "    await asyncio.create_subprocess_exec(*argv, *extra)\n"
        "def d():\n"
        "    subprocess.run(shlex.split(\"python -m sglang.launch_server --model-path 'a b' --tp=2\"))\n"
        "def e():\n"
        "    subprocess.run(['env', 'CUDA_VISIBLE_DEVICES=1', 'python', '-m', 'sglang_router.launch_server', '--model-path', 'm'])\n"
        "def f():\n"
        "    subprocess.run(['python', '-m', 'sglang.bench_serving', '--backend', 'sglang'])\n"
    )
    a, b, c, d, e = facts_for(code).sites
    assert a.entry == "python -m sglang.launch_server"
    assert written(a) == [("--model-path", "'--model-path'"), ("m", "'m'"), ("--tp", "'--tp'"), ("2", "2")]
    assert b.entry == "sglang serve"
    assert values(b) == ["org/model", "--port", "30000"]
    assert values(c) == ["--model", "m", unresolved("extra", "*extra may hold any number of arguments")]
    assert c.opaque == ["*extra may hold any number of arguments"]
    assert written(d) == [("--model-path", "--model-path"), ("a b", "'a b'"), ("--tp=2", "--tp=2")]
    assert d.tokens[1].sub_span(0, 3).text == "a b"
    assert e.entry == "python -m sglang_router.launch_server"
    assert [(v.name, v.value, v.value_span.text) for v in e.env] == [("CUDA_VISIBLE_DEVICES", "1", "1")]


def test_values_through_fstrings_format_and_str():
    code = (
        "import os, subprocess\n"
        "TP = 4\n"
        "def go(port, backend):\n"
        "    model = 'org/m'\n"
        "    subprocess.Popen([\n"
        "        'python', '-m', 'sglang.launch_server',\n"
        "        f'--model-path={model}', f'--tp-size={TP}', f'--port={port}',\n"
        "        '--dp-size={}'.format(2), '--chunked-prefill-size {}'.format(port),\n"
        "        '--mem-fraction-static', str(0.5), '--max-total-tokens', int('20'),\n"
        "        backend, 'x',\n"
        "    ])\n"
    )
    (site,) = facts_for(code).sites
    param = "'port' is a function parameter"
    assert written(site) == [
        ("--model-path=org/m", "f'--model-path={model}'"),
        ("--tp-size=4", "f'--tp-size={TP}'"),
        (unresolved("f'--port={port}'", param, "--port="), "f'--port={port}'"),
        ("--dp-size=2", "'--dp-size={}'.format(2)"),
        (unresolved("'--chunked-prefill-size {}'.format(port)", param, "--chunked-prefill-size "), "'--chunked-prefill-size {}'.format(port)"),
        ("--mem-fraction-static", "'--mem-fraction-static'"),
        ("0.5", "0.5"),
        ("--max-total-tokens", "'--max-total-tokens'"),
        ("20", "'20'"),  # int('20'): the literal the value comes from
        (unresolved("backend", "'backend' is a function parameter"), "backend"),
        ("x", "'x'"),
    ]
    assert site.opaque == ["backend is not known statically and may stand for flags"]
    tp = site.tokens[1]
    assert tp.sub_span(0, 9).text == "--tp-size"
    assert tp.sub_span(10, 11).text == "{"  # a substituted value points into its field {TP}
    port = site.tokens[2]
    assert port.sub_span(0, 6).text == "--port"


def test_glued_flags_are_one_token():
    code = (
        "import subprocess\n"
        "subprocess.run(['sglang', 'serve', '--model-path', 'm', '--disable-custom-all-reduce' + '--enable-mscclpp'])\n"
    )
    (site,) = facts_for(code).sites
    glued = site.tokens[-1]
    assert glued.value == "--disable-custom-all-reduce--enable-mscclpp"
    assert glued.span.text == "'--disable-custom-all-reduce' + '--enable-mscclpp'"
    assert glued.sub_span(27, 43).text == "--enable-mscclpp"


def test_module_list_extended_then_used_in_a_function():
    code = (
        "import os, subprocess\n"
        "ARGS = ['sglang', 'serve', '--model-path', 'm']\n"
        "ARGS += ['--tp', '2']\n"
        "if os.getenv('DEBUG'):\n"
        "    ARGS += ['--log-level', 'debug']\n"
        "def main():\n"
        "    subprocess.run(ARGS + ['--port', '1'])\n"
    )
    debug, plain = facts_for(code).sites
    assert values(debug) == ["--model-path", "m", "--tp", "2", "--log-level", "debug", "--port", "1"]
    assert values(plain) == ["--model-path", "m", "--tp", "2", "--port", "1"]
    assert debug.opaque == plain.opaque == []


def test_constants_assigned_twice_are_unknown_in_functions():
    code = (
        "import sglang\n"
        "A = 'x'\n"
        "B = 'y'\n"
        "B = 'z'\n"
        "C = 'same'\n"
        "C = 'same'\n"
        "def f():\n"
        "    return sglang.Engine(model_path=A, served_model_name=B, tokenizer_path=C)\n"
    )
    (site,) = facts_for(code).sites
    assert [(k.name, k.value, k.value_span.text) for k in site.kwargs] == [
        ("model_path", "x", "'x'"),
        ("served_model_name", unresolved("B", "'B' is assigned more than once"), "B"),
        ("tokenizer_path", "same", "'same'"),
    ]


# ---------------------------------------------------------------------------
# Command strings
# ---------------------------------------------------------------------------


def test_os_system_string_built_with_fstrings():
    facts = facts_of("lora_os_system.py")
    lora = facts.sites[0]
    assert len(facts.sites) == 3
    assert lora.entry == "python -m sglang.launch_server"
    assert lora.span.text == "os.system(cmd)"
    assert lora.entry_span.text == "os.system"
    glued_text = '--disable-custom-all-reduce"\n    cmd += "--enable-mscclpp'
    assert written(lora) == [
        ("--model", "--model"),
        ("meta-llama/Llama-2-7b-hf", "{base_path}"),  # substituted: the field that holds it
        ("--disable-radix", "--disable-radix"),
        ("--disable-cuda-graph", "--disable-cuda-graph"),
        ("--max-loras-per-batch", "--max-loras-per-batch"),
        (
            unresolved("{args.max_loras_per_batch}", "'args.max_loras_per_batch' is not known statically"),
            "{args.max_loras_per_batch}",
        ),
        # no space between the two += pieces: one word, from the first
        # piece's first character to the second piece's last
        ("--disable-custom-all-reduce--enable-mscclpp", glued_text),
    ]
    assert lora.opaque == []


def test_shell_scripts_inside_argv_and_unknown_parts():
    code = (
        "import subprocess, sys\n"
        "subprocess.run(['bash', '-lc', 'cd /srv && python -m sglang.launch_server --model-path inner'])\n"
        "subprocess.run(f\"sglang serve {sys.argv[1]} --tp '{sys.argv[2]}' $EXTRA\", shell=True)\n"
    )
    inner, serve = facts_for(code).sites
    assert inner.span.text.startswith("subprocess.run(['bash'")
    assert written(inner) == [("--model-path", "--model-path"), ("inner", "inner")]
    assert [t.span.text for t in serve.tokens] == ["{sys.argv[1]}", "--tp", "'{sys.argv[2]}'", "$EXTRA"]
    assert serve.tokens[0].value == unresolved("{sys.argv[1]}", "'sys.argv[1]' is not known statically")
    # the unquoted f-string field may split into several words, like $EXTRA
    assert serve.opaque == [
        "unquoted {sys.argv[1]} may expand to any number of arguments",
        "unquoted $EXTRA may expand to any number of arguments",
    ]


def test_comprehension_variables_shadow_the_scope():
    code = "import sglang as sgl\nm = 'outer'\nengines = [sgl.Engine(model_path=m) for m in ['a', 'b']]\n"
    (site,) = facts_for(code).sites
    assert site.kwargs[0].value == unresolved("m", "'m' is a loop variable")


def test_os_system_shell_syntax():
    router = facts_of("lora_os_system.py").sites[1]
    assert router.entry == "python -m sglang_router.launch_server"
    assert written(router) == [
        ("--model-path", "--model-path"),
        ("Qwen/Qwen2.5-7B", "'Qwen/Qwen2.5-7B'"),
        ("--dp-size", "--dp-size"),
        ("2", "2"),
        ("--router-policy", "--router-policy"),
        ("round_robin", "round_robin"),
    ]
    assert [(e.name, e.value) for e in router.env] == [("CUDA_VISIBLE_DEVICES", "0,1")]


def test_joined_argv_passed_to_a_shell():
    joined = facts_of("lora_os_system.py").sites[2]
    assert joined.span.text == 'subprocess.run(" ".join(argv), shell=True, check=True)'
    assert written(joined) == [
        ("--model-path", "--model-path"),
        (unresolved("model", "'model' is a function parameter"), "model"),
        ("--port", "--port"),
        ("30000", "30000"),
    ]


def test_shlex_joined_argv_keeps_each_element_one_word():
    code = (
        "import shlex, subprocess\n"
        "def launch(model):\n"
        "    cmd = ['python', '-m', 'sglang.launch_server', '--model-path', model,\n"
        "           '--chat-template', 'my template.jinja', '--port', '30000']\n"
        "    subprocess.run(shlex.join(cmd), shell=True)\n"
    )
    (site,) = facts_for(code).sites
    assert site.span.text == "subprocess.run(shlex.join(cmd), shell=True)"
    shown = [(v if isinstance(v, str) else type(v).__name__, text) for v, text in written(site)]
    # the parameter and the quoted element with a blank are one word each, never split at the blank
    assert shown == [
        ("--model-path", "--model-path"),
        ("Unresolved", "model"),
        ("--chat-template", "--chat-template"),
        ("Unresolved", "'my template.jinja'"),
        ("--port", "--port"),
        ("30000", "30000"),
    ]


def test_launch_server_cmd_splits_on_whitespace_only():
    facts = facts_of("notebook_launch.py")
    assert len(facts.sites) == 3
    first = facts.sites[0]
    assert first.entry == "python -m sglang.launch_server"
    assert first.entry_span.text == "launch_server_cmd"
    assert values(first) == [
        "--model-path",
        "qwen/qwen2.5-0.5b-instruct",
        "--host",
        "0.0.0.0",
        "--log-level",
        "warning",
        "--json-model-override-args",
        "'{\"rope_scaling\":",  # quotes stay; the JSON is cut at its spaces
        '{"type":',
        '"dynamic",',
        '"factor":',
        "2.0}}'",
    ]
    assert all(t.span.text == t.value for t in first.tokens)
    assert [(h.kind, h.value, h.span.text) for h in first.hints] == [
        ("launch-server-cmd-quote", "'{\"rope_scaling\":", "'{\"rope_scaling\":"),
        ("launch-server-cmd-quote", '"dynamic",', '"dynamic",'),
        ("launch-server-cmd-quote", '"factor":', '"factor":'),
        ("launch-server-cmd-quote", "2.0}}'", "2.0}}'"),
    ]


def test_launch_server_cmd_env_words_and_backslashes():
    _, vision, raw = facts_of("notebook_launch.py").sites
    assert [(e.name, e.value, e.span.text, e.value_span.text) for e in vision.env] == [
        ("SGLANG_VLM_CACHE_SIZE_MB", "0", "SGLANG_VLM_CACHE_SIZE_MB=0", "0")
    ]
    assert written(vision) == [
        ("--model-path", "--model-path"),
        ("Qwen/Qwen2.5-VL-7B-Instruct", "Qwen/Qwen2.5-VL-7B-Instruct"),
        ("--chat-template=qwen2-vl", "--chat-template=qwen2-vl"),
        ("--tp", "--tp"),
        ("2", "2"),
    ]
    # r"""...""": the backslashes reach launch_server_cmd, which makes them spaces
    assert values(raw) == ["--model-path", "meta-llama/Llama-3.2-1B-Instruct", "--tp-size", "1", "--mem-fraction-static", "0.6"]
    assert raw.hints == []


def test_launch_server_cmd_is_not_a_shell():
    code = (
        "from sglang.utils import launch_server_cmd\n"
        "launch_server_cmd('A=1 B=\"x y\" python -m sglang.launch_server --model-path m\\\\--tp 2 --port=\"30000\"')\n"
    )
    (site,) = facts_for(code).sites
    assert [(e.name, e.value) for e in site.env] == [("A", "1"), ("B", '"x')]
    assert site.entry == "python -m sglang.launch_server"
    # 'y"' is not KEY=VALUE, so it is the program SGLang runs (and fails to)
    assert values(site) == ["--model-path", "m", "--tp", "2", '--port="30000"']
    assert [(h.value, h.span.text) for h in site.hints] == [('"x', '"x'), ('y"', 'y"'), ('--port="30000"', '--port="30000"')]


# ---------------------------------------------------------------------------
# Hydra overrides
# ---------------------------------------------------------------------------


def test_hydra_overrides_in_a_list_and_a_string():
    facts = facts_of("verl_hydra_overrides.py")
    listed, scripted = facts.sites
    assert listed.entry == "hydra override" and listed.form == "kwargs"
    assert listed.span.text.startswith("[\n") and listed.span.text.endswith("]")
    assert written(listed) == [
        ("attention_backend", "attention_backend", "triton", "triton"),
        ("mem_fraction_static", "mem_fraction_static", 0.6, "0.6"),
        ("cuda_graph_bs", "cuda_graph_bs", [1, 2, 4], "[1,2,4]"),
        ("enable_torch_compile", "enable_torch_compile", False, "false"),
        ("json_model_override_args", "json_model_override_args", None, "null"),
    ]
    assert listed.opaque == ["the other engine arguments come from the Hydra config"]
    assert written(scripted) == [
        ("disable_cuda_graph", "disable_cuda_graph", True, "True"),
        ("chunked_prefill_size", "chunked_prefill_size", -1, "-1"),
    ]


# ---------------------------------------------------------------------------
# Spans, comments, parse problems, laziness
# ---------------------------------------------------------------------------

ALL_FIXTURES = sorted(p.name for p in FIXTURES.glob("*.py"))


@pytest.mark.parametrize("name", ALL_FIXTURES)
def test_every_span_is_inside_the_file_and_well_formed(name):
    facts = facts_of(name)
    check_spans(facts)


def check_spans(facts: FileFacts) -> None:
    n = len(facts.source.text)

    def ok(span: Span) -> None:
        assert span is not None and 0 <= span.start <= span.end <= n, span

    for site in facts.sites:
        ok(site.span)
        ok(site.entry_span)
        for tok in site.tokens:
            ok(tok.span)
            if isinstance(tok.value, str) and tok.value:
                whole = tok.sub_span(0, len(tok.value))
                ok(whole)
                assert tok.span.start <= whole.start and whole.end <= tok.span.end, (tok, whole)
        for kw in site.kwargs:
            ok(kw.name_span)
            ok(kw.value_span)
        for var in site.env:
            ok(var.span)
            if var.value_span is not None:
                ok(var.value_span)
        for hint in site.hints:
            ok(hint.span)
    for problem in facts.problems:
        ok(problem.span)
    for offset, text in facts.comments:
        assert facts.source.text[offset : offset + len(text)] == text


def test_comments_are_collected():
    facts = facts_of("rl_engine_rollout.py")
    texts = [t for _, t in facts.comments]
    assert "# sgllint: ignore[SGL108]" in texts
    offset, text = facts.comments[-1]
    assert facts.source.text[offset:].startswith(text)


def test_syntax_error_is_one_problem_at_its_position():
    facts = facts_of("syntax_error.py")
    assert facts.sites == []
    (problem,) = facts.problems
    assert problem.span.start_line_col() == (4, 10)  # the ':' of "def make(:"
    assert "invalid Python syntax" in problem.message


@pytest.mark.parametrize("code", ["import sglang\nx = (\n", "import sglang\nif x:\npass\n", 'import sglang\ns = "abc\n'])
def test_other_syntax_errors_never_crash(code):
    facts = facts_for(code)
    assert len(facts.problems) == 1 and facts.sites == []
    check_spans(facts)


def test_mixed_line_endings_keep_offsets():
    code = "import sglang\r\nTP = 2\nsglang.Engine(model_path='m', tp_size=TP)  # noqa: SGL101\r\n"
    facts = facts_for(code)
    (site,) = facts.sites
    assert [(k.name_span.text, k.value_span.text) for k in site.kwargs] == [("model_path", "'m'"), ("tp_size", "2")]
    ((offset, _),) = facts.comments
    assert code[offset:].startswith("# noqa: SGL101")


def test_files_without_sglang_are_never_parsed(monkeypatch):
    import libcst

    def refuse(*args, **kwargs):
        raise AssertionError("parsed a file that cannot hold a launch")

    monkeypatch.setattr(libcst, "parse_module", refuse)
    facts = facts_for("import subprocess\nsubprocess.run(['python', '-m', 'vllm.entrypoints.api_server'])\n")
    assert facts.sites == [] and facts.problems == [] and facts.comments == []


def test_files_without_candidate_calls_compute_no_positions(monkeypatch):
    import libcst.metadata

    def refuse(*args, **kwargs):
        raise AssertionError("resolved positions without a candidate call")

    monkeypatch.setattr(libcst.metadata, "MetadataWrapper", refuse)
    facts = facts_for("# uses sglang through the HTTP API only\nimport requests\nrequests.post(URL, json={})\n")
    assert facts.sites == [] and len(facts.comments) == 1


# ---------------------------------------------------------------------------
# Property: never raises, spans stay in the text
# ---------------------------------------------------------------------------

FIXTURE_TEXTS = [(FIXTURES / n).read_text(encoding="utf-8") for n in ALL_FIXTURES]
SNIPPETS = [
    "import sglang as sgl\n",
    "from sglang.utils import launch_server_cmd\n",
    "from sglang.test.test_utils import popen_launch_server\n",
    "import subprocess, os, sys\n",
    "sgl.Engine(model_path='m', **kw)\n",
    "subprocess.Popen([sys.executable, '-m', 'sglang.launch_server', *args])\n",
    "os.system(f'sglang serve {m} --tp {tp}')\n",
    "launch_server_cmd(\"python -m sglang.launch_server --model-path 'x y'\")\n",
    "popen_launch_server(M, U, 60, other_args=a + ['--tp', 2])\n",
    "args.append('--x')\n",
    "if c:\n    a = ['--a']\nelse:\n    a = []\n",
    "for i in range(3):\n    a += [f'--p{i}']\n",
    "d = {'k': 1}\nd['j'] = 2\n",
    "x = 'a.b.engine_kwargs.sglang.tp_size=2'\n",
    "def f(x):\n    return x\n",
    "class C:\n    y = 1\n",
]
PIECES = list("abc_XY019 \t\n\r'\"\\{}[]()*=+-.,:#fr") + ["é", "😀", "\r\n", "sglang", "Engine(", "\x0c", "    "]
FRAGMENT = st.lists(st.sampled_from(PIECES), max_size=12).map("".join)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(st.sampled_from(SNIPPETS), FRAGMENT), max_size=14))
def test_random_python_ish_text_never_raises(pieces):
    check_spans(facts_for("".join(pieces)))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(FIXTURE_TEXTS),
    st.lists(st.tuples(st.integers(0, 4000), st.integers(0, 8), FRAGMENT), max_size=4),
)
def test_mutated_fixtures_never_raise(text, edits):
    for at, delete, insert in edits:
        at = min(at, len(text))
        text = text[:at] + insert + text[at + delete :]
    check_spans(facts_for(text))
