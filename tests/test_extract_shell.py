"""The shell extractor on realistic scripts (tests/fixtures/shell/).

Every token of every fixture is checked against the text it was written as,
so a wrong offset (bytes vs code points, CRLF, tabs, embedded strings) shows
up as a readable diff.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sgllint.formats.shell import extractor as shell
from sgllint.formats.shell.extractor import extract, extract_embedded
from sgllint.model.facts import FileFacts, Source, SourceMap, Token, Unresolved

FIXTURES = Path(__file__).parent / "fixtures" / "shell"
LAUNCH_SERVER = "python -m sglang.launch_server"


def load(name: str) -> Source:
    # decode as the engine does: bytes, UTF-8 with replacement, newlines kept
    return Source(str(FIXTURES / name), (FIXTURES / name).read_bytes().decode("utf-8", "replace"))


def facts_of(name: str) -> FileFacts:
    return extract(load(name))


class U:
    """Matches an `Unresolved` whose reason contains ``reason``."""

    def __init__(self, reason: str = "", prefix: str = ""):
        self.reason = reason
        self.prefix = prefix

    def __eq__(self, other):
        return isinstance(other, Unresolved) and self.reason in other.reason and other.known_prefix == self.prefix

    def __repr__(self):
        return f"U({self.reason!r}, prefix={self.prefix!r})"


def written(tokens: list[Token]) -> list[tuple]:
    """Each token as (value, the source text its span covers)."""
    return [(t.value, t.span.source.text[t.span.start : t.span.end]) for t in tokens]


def env_of(site) -> dict:
    return {e.name: e.value for e in site.env}


# ---------------------------------------------------------------------------
# Every token of every fixture, as written
# ---------------------------------------------------------------------------

EXPECTED_TOKENS = {
    "serve_basic.sh": [
        [
            ("--model-path", "--model-path"),
            ("meta-llama/Llama-3.1-8B-Instruct", '"$MODEL_PATH"'),
            ("--tp-size=2", "--tp-size=$TP"),
            ("--port", "--port"),
            ("30000", "${PORT}"),
            ("--context-length", "--context-length"),
            (U("environment variable with default '32768'"), "${CTX_LEN:-32768}"),
            ("--attention-backend=flashinfer", '"--attention-backend=flashinfer"'),
            ("--json-model-override-args", "--json-model-override-args"),
            ('{"rope_scaling": {"type": "yarn"}}', """'{"rope_scaling": {"type": "yarn"}}'"""),
            ("--host", "--host"),
            ("0.0.0.0", "0.0.0.0"),
        ]
    ],
    "arrays.sh": [
        [
            ("--model-path", "--model-path"),
            ("Qwen/Qwen2.5-7B-Instruct", '"$MODEL"'),
            ("--trust-remote-code", "--trust-remote-code"),
            ("--tp", "--tp"),
            ("2", "2"),
            ("--mem-fraction-static", "--mem-fraction-static"),
            ("0.85", "0.85"),
            ("--port", "--port"),
            ("30000", "30000"),
            ("--host", "--host"),
            ("0.0.0.0", "0.0.0.0"),
            ("--log-level", "--log-level"),
            ("info", "info"),
        ],
        [
            ("--model-path", "--model-path"),
            ("Qwen/Qwen2.5-7B-Instruct", '"$MODEL"'),
            (U("array 'EXTRA' is changed in a branch or loop"), '"${EXTRA[@]}"'),
        ],
        [
            ("--model-path", "--model-path"),
            ("Qwen/Qwen2.5-7B-Instruct", '"$MODEL"'),
            (U("array 'USER_ARGS' is not assigned"), '"${USER_ARGS[@]}"'),
        ],
    ],
    "docker_run.sh": [
        [
            ("--model-path", "--model-path"),
            ("deepseek-ai/DeepSeek-V3", "deepseek-ai/DeepSeek-V3"),
            ("--tp", "--tp"),
            ("8", "8"),
            ("--trust-remote-code", "--trust-remote-code"),
        ],
        [
            ("--model-path", "--model-path"),
            ("/models/Llama 3", '\\"/models/Llama 3\\"'),
            ("--port", "--port"),
            (U("variable 'PORT' is not set"), "\\$PORT"),
            ("--host", "--host"),
            ("0.0.0.0", "0.0.0.0"),
        ],
    ],
    "severed.sh": [
        [("--model-path", "--model-path"), ("deepseek-ai/DeepSeek-V3", "deepseek-ai/DeepSeek-V3")],
        [("--model-path", "--model-path"), ("Qwen/Qwen2-7B", "Qwen/Qwen2-7B")],
        [("--model-path", "--model-path"), ("meta-llama/Llama-3.1-8B", "meta-llama/Llama-3.1-8B")],
        [("--model-path", "--model-path"), ("glued/backslash ", "glued/backslash\\ ")],
    ],
    "control_flow.sh": [
        [
            ("--model-path", "--model-path"),
            ("/models/llama", "/models/llama"),
            ("--port", "--port"),
            (U("positional parameter $1"), '"$port"'),
            ("--disaggregation-mode", "--disaggregation-mode"),
            (U("positional parameter $1"), '"$mode"'),
        ],
        [
            ("--model-path", "--model-path"),
            ("/models/llama", "/models/llama"),
            ("--disaggregation-mode", "--disaggregation-mode"),
            ("prefill", "prefill"),
            ("--tp", "--tp"),
            ("4", "$NUM_GPUS"),
        ],
        [
            ("--model-path", "--model-path"),
            ("/models/llama", "/models/llama"),
            ("--disaggregation-mode", "--disaggregation-mode"),
            ("decode", "decode"),
            ("--port", "--port"),
            (U("loop variable", prefix="3000"), "3000$i"),
        ],
        [
            ("--model-path", "--model-path"),
            ("/models/llama", "/models/llama"),
            ("--enable-dp-attention", "--enable-dp-attention"),
        ],
    ],
    "wrappers.sh": [
        [("--model-path", "--model-path"), ("m1", "m1"), ("--port", "--port"), ("1", "1")],
        [("--model-path", "--model-path"), ("m2", "m2")],
        [("--model-path", "--model-path"), ("m3", "m3"), ("--tp", "--tp"), ("8", "8")],
        [("--model-path", "--model-path"), ("m4", "m4")],
        [("--model-path", "--model-path"), ("m5", "m5"), ("--tp", "--tp"), ("2", "2")],
        [
            ("--model-path", "--model-path"),
            ("m6", "m6"),
            ("--dp-size", "--dp-size"),
            ("2", "2"),
            ("--router-policy", "--router-policy"),
            ("round_robin", "round_robin"),
        ],
        [("--worker-urls", "--worker-urls"), ("http://a:1", "http://a:1")],
    ],
    "variables.sh": [
        [
            ("--model-path", "--model-path"),
            (U("positional parameter $1"), "$1"),
            ("--tp", "--tp"),
            (U("arithmetic expansion"), "$TP"),
            ("--mem-fraction-static", "--mem-fraction-static"),
            (U("variable 'MEM' has different values"), "$MEM"),
            ("--dtype", "--dtype"),
            ("bfloat16", '"$DTYPE"'),
            ("--served-model-name", "--served-model-name"),
            ("/models/llama-3-70b", '"$MODEL"'),
            ("--dist-init-addr", "--dist-init-addr"),
            (U("variable 'MASTER_ADDR' is not set"), '"${MASTER_ADDR}:5000"'),
            (U("arithmetic expansion", prefix="--tp-size="), "--tp-size=$TP"),
            # $HEAD_NODE_ARGS is "" and unquoted: it expands to no word at all
            (U("variable 'EXTRA_ARGS' is not set"), "$EXTRA_ARGS"),
            (U("command substitution", prefix="--kv-cache-dtype="), "--kv-cache-dtype=$(cat kv.txt)"),
            ("--download-dir", "--download-dir"),
            (U("home directory"), "~/models"),
            ("--cuda-graph-bs", "--cuda-graph-bs"),
            (U("brace expansion"), "{1,2,4}"),
            ("--chat-template", "--chat-template"),
            (U("glob pattern"), "*.jinja"),
            (U("the script's arguments"), '"$@"'),
        ]
    ],
    "heredoc.sh": [
        [
            ("--model-path", "--model-path"),
            ("/models/bash-heredoc", "/models/bash-heredoc"),
            ("--port", "--port"),
            ("31000", "31000"),
        ],
    ],
    "unicode.sh": [
        [
            ("--model-path", "--model-path"),
            ("/data/模型/qwen", '"/data/模型/qwen"'),
            ("--tp", "--tp"),
            ("2", "2"),
            ("--served-model-name", "--served-model-name"),
            ("qwen-😀", "'qwen-😀'"),
            ("--port", "--port"),
            ("30000", "30000"),
        ],
        [
            ("--model-path", "--model-path"),
            ("x", "x"),
            ("--chat-template=模板\t😀", "--chat-template=$'模板\\t😀'"),
        ],
    ],
    "crlf.sh": [
        [
            ("--model-path", "--model-path"),
            ("meta-llama/Llama-3.1-8B", '"$MODEL"'),
            ("--tp", "--tp"),
            ("2", "2"),
            ("--port", "--port"),
            ("30000", "30000"),
        ]
    ],
    "functions.sh": [
        [
            ("--model-path", "--model-path"),
            (U("positional parameter $1"), '"$model"'),
            ("--tp", "--tp"),
            ("4", "4"),
            ("--chunked-prefill-size=8192", '"--chunked-prefill-size=8192"'),
            ("--port", "--port"),
            ("30000", "30000"),
        ],
        [
            # words split from $CMD (assigned one literal) are where the assignment writes them
            ("--model-path", "--model-path"),
            ("Qwen/Qwen2-7B", "Qwen/Qwen2-7B"),
            ("--port", "--port"),
            ("30001", "30001"),
        ],
        [
            # eval re-parses the string; $CMD is kept whole for the inner parse
            ("--model-path", "$CMD"),
            ("Qwen/Qwen2-7B", "$CMD"),
            ("--log-level", "--log-level"),
            ("debug", "debug"),
        ],
        [
            ("--model-path", "--model-path"),
            ("m", "m"),
            ("--capture-layers", "--capture-layers"),
            (U("array 'capture_layers' is read at run time"), '"${capture_layers[@]}"'),
        ],
        [
            ("--model-path", "--model-path"),
            ("nested", "nested"),
            ("--tp", "--tp"),
            (U("variable 'TP' is not set"), "\\$TP"),
        ],
    ],
    "broken.sh": [
        [
            ("--model-path", "--model-path"),
            ("ok/before-error", "ok/before-error"),
            ("--port", "--port"),
            ("30000", "30000"),
        ],
    ],
}


def test_every_fixture_has_expectations():
    assert sorted(EXPECTED_TOKENS) == sorted(p.name for p in FIXTURES.glob("*.sh"))


@pytest.mark.parametrize("name", sorted(EXPECTED_TOKENS))
def test_every_token_is_located_as_written(name):
    facts = facts_of(name)
    assert [written(site.tokens) for site in facts.sites] == EXPECTED_TOKENS[name]


@pytest.mark.parametrize("name", sorted(EXPECTED_TOKENS))
def test_value_maps_point_inside_their_token(name):
    """A sub-span of a token's value (``--flag=value``) stays inside the
    token, and literal characters map to themselves."""
    for site in facts_of(name).sites:
        for tok in site.tokens:
            if tok.value_map is None:
                if isinstance(tok.value, str):
                    assert tok.span.text == tok.value
                continue
            n = len(tok.value) if isinstance(tok.value, str) else len(tok.value.known_prefix)
            for i in range(n):
                sub = tok.sub_span(i, i + 1)
                assert tok.span.start <= sub.start < sub.end <= tok.span.end, (tok, i)


def test_flag_value_sub_spans_are_exact():
    (site,) = facts_of("serve_basic.sh").sites
    by_value = {t.value: t for t in site.tokens if isinstance(t.value, str)}
    backend = by_value["--attention-backend=flashinfer"]
    assert backend.sub_span(len("--attention-backend="), len(backend.value)).text == "flashinfer"
    assert backend.sub_span(0, len("--attention-backend")).text == "--attention-backend"
    tp = by_value["--tp-size=2"]
    assert tp.sub_span(0, len("--tp-size")).text == "--tp-size"
    # a one-character expansion maps to the start of its reference
    assert tp.sub_span(10, 11).text == "$"
    port = by_value["30000"]
    assert port.sub_span(0, 5).text == "${PORT}"
    json_value = by_value['{"rope_scaling": {"type": "yarn"}}']
    assert json_value.sub_span(0, len(json_value.value)).text == '{"rope_scaling": {"type": "yarn"}}'
    assert json_value.sub_span(18, 24).text == '"type"'


def test_unresolved_known_prefix_sub_span_in_quotes():
    source = Source("q.sh", 'python -m sglang.launch_server "--tp-size=$TP" --port 1\n')
    (site,) = extract(source).sites
    tok = site.tokens[0]
    assert tok.value == U("not set", prefix="--tp-size=")
    assert tok.sub_span(0, len("--tp-size")).text == "--tp-size"


# ---------------------------------------------------------------------------
# Per-fixture facts
# ---------------------------------------------------------------------------


def test_serve_basic():
    facts = facts_of("serve_basic.sh")
    (site,) = facts.sites  # the commented-out launch is not a launch
    assert site.entry == LAUNCH_SERVER
    assert site.entry_span.text == "python3 -m sglang.launch_server"
    assert site.form == "argv"
    assert site.span.text.startswith("SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1 \\\n")
    assert "nohup python3" in site.span.text and site.span.text.endswith("--host 0.0.0.0")
    assert env_of(site) == {
        "SGLANG_ENABLE_TORCH_COMPILE": "1",
        "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN": "1",
        "CUDA_VISIBLE_DEVICES": "0,1",
    }
    cuda = site.env[-1]
    assert cuda.span.text == "CUDA_VISIBLE_DEVICES=0,1" and cuda.value_span.text == "0,1"
    assert site.opaque == [] and site.severed is None


def test_comments_are_collected_with_outer_offsets():
    source = load("serve_basic.sh")
    comments = dict(extract(source).comments)
    for offset, text in comments.items():
        assert source.text[offset : offset + len(text)] == text
    texts = list(comments.values())
    assert "# sgllint: ignore[SGL101]" in texts
    assert any(t.startswith("# python -m sglang.launch_server") for t in texts)
    pragma_offset = next(o for o, t in comments.items() if "ignore[SGL101]" in t)
    assert source.line_col(pragma_offset)[0] == source.line_col(extract(source).sites[0].span.end)[0]


def test_comments_come_only_from_the_file():
    text = 'CMD="python -m sglang.launch_server --tp 2 # sgllint: ignore"\neval "$CMD"  # real\n'
    facts = extract(Source("e.sh", text))
    (site,) = facts.sites
    assert [t.value for t in site.tokens] == ["--tp", "2"]  # eval re-parsed the value: "#..." was a comment there
    assert facts.comments == [(text.index("# real"), "# real")]


def test_arrays():
    full, conditional, unknown = facts_of("arrays.sh").sites
    assert full.entry_span.text == "python -m sglang.launch_server"
    # launcher tokens live at the array definition, the site at the use
    assert full.span.text == '"${cmd[@]}" "${COMMON_ARGS[@]}" --log-level info'
    assert full.entry_span.start < full.span.start
    assert full.opaque == []
    assert conditional.opaque == ["array 'EXTRA' is changed in a branch or loop"]
    assert unknown.opaque == ["array 'USER_ARGS' is not assigned in this file"]


def test_array_in_function_and_args_after_it():
    sites = facts_of("functions.sh").sites
    in_function = sites[0]
    assert in_function.span.text == '"${cmd[@]}" --port 30000'
    assert in_function.opaque == []  # SERVER_ARGS is set at top level before the call
    chunked = in_function.tokens[4]
    assert chunked.sub_span(len("--chunked-prefill-size="), len(chunked.value)).text == "8192"
    scalar_cmd = sites[1]
    # the words of an unquoted $CMD live at the assignment, like an array's
    assert scalar_cmd.entry_span.text == "python -m sglang.launch_server"
    assert scalar_cmd.span.text == "$CMD --port 30001"
    via_eval = sites[2]
    assert via_eval.span.text == "$CMD --log-level debug" and via_eval.entry_span.text == "$CMD"
    read_array = sites[3]
    assert read_array.opaque == ["array 'capture_layers' is read at run time"]


def test_docker_run():
    direct, via_bash = facts_of("docker_run.sh").sites
    assert direct.entry_span.text == "python3 -m sglang.launch_server"
    assert direct.span.text.startswith("docker run --rm --gpus")
    assert env_of(direct) == {"HF_TOKEN": "hf_dummy", "SGLANG_USE_MODELSCOPE": "false"}
    assert direct.env[1].span.text == '"SGLANG_USE_MODELSCOPE=false"'
    assert direct.env[1].value_span.text == "false"
    (hint,) = [h for h in direct.hints if h.kind == "sglang-image"]
    (gpus,) = [h for h in direct.hints if h.kind == "gpu-count"]
    assert (gpus.value, gpus.span.text) == (2, "'\"device=0,1\"'")
    image = "lmsysorg/sglang:v0.5.4.post1"
    assert (hint.kind, hint.value, hint.span.text) == ("sglang-image", image, image)
    # docker's own flags (--gpus, -p, -v, --shm-size) are not server tokens
    assert all(not str(t.value).startswith(("--gpus", "--shm", "-p", "-v")) for t in direct.tokens)

    assert via_bash.entry_span.text == "python3 -m sglang.launch_server"
    assert env_of(via_bash) == {"SGLANG_LOG_LEVEL": "debug"}
    model = via_bash.tokens[1]
    assert model.sub_span(0, len(model.value)).text == "/models/Llama 3"


def test_severed_continuations():
    comment, space, comment_line, glued = facts_of("severed.sh").sites
    text = load("severed.sh").text
    assert "\\ \n" in text, "severed.sh lost the trailing space after a backslash (an editor stripped it?)"

    assert comment.severed.backslash.text == "\\"
    assert comment.severed.trailing is None  # a comment follows: deleting spaces would not repair it
    assert [t.value for t in comment.severed.lost] == ["--tp", "8", "--trust-remote-code"]
    assert [t.span.text for t in comment.severed.lost] == ["--tp", "8", "--trust-remote-code"]

    assert space.severed.backslash.text == "\\"
    assert space.severed.trailing.text == " "
    assert [t.value for t in space.severed.lost] == ["--port", "30001", "--enable-metrics"]
    # the escaped space is not a server token
    assert [t.value for t in space.tokens] == ["--model-path", "Qwen/Qwen2-7B"]

    assert comment_line.severed.backslash.text == "\\"
    assert [t.value for t in comment_line.severed.lost] == ["--port", "30002"]

    assert glued.severed.backslash.text == "\\"
    assert [t.value for t in glued.severed.lost] == ["--mem-fraction-static", "0.8"]


def test_control_flow():
    worker, prefill, decode, serve = facts_of("control_flow.sh").sites
    assert "start_worker" not in worker.span.text and worker.span.text.startswith("python -m")
    assert prefill.tokens[3].value == "prefill" and decode.tokens[3].value == "decode"
    assert list(env_of(decode)) == ["CUDA_VISIBLE_DEVICES"]
    assert env_of(decode)["CUDA_VISIBLE_DEVICES"] == U("loop variable")
    assert serve.entry == "sglang serve"
    assert serve.span.text.startswith("exec sglang serve")
    # `$(pgrep -f sglang.launch_server ...)` is not a launch
    assert len(facts_of("control_flow.sh").sites) == 4


def test_wrappers():
    sites = facts_of("wrappers.sh").sites
    assert [s.entry for s in sites] == [LAUNCH_SERVER] * 4 + [
        "sglang serve", "python -m sglang_router.launch_server", "python -m sglang_router.launch_router"
    ]  # fmt: skip
    exec_site, setsid, srun, uv, sh_c, router, router_only = sites
    assert exec_site.entry_span.text == "python -u -m sglang.launch_server"
    assert exec_site.span.text.startswith("exec python")
    assert env_of(setsid) == {"CUDA_VISIBLE_DEVICES": "2,3", "NCCL_DEBUG": "INFO"}
    assert srun.span.text.startswith("srun --ntasks=1") and srun.entry_span.text == "python -m sglang.launch_server"
    assert uv.span.text.startswith("uv run")
    assert sh_c.span.text == "sglang serve --model-path m5 --tp 2"
    assert sh_c.entry_span.text == "sglang serve"


def test_variables_and_opaque():
    (site,) = facts_of("variables.sh").sites
    assert site.opaque == [
        "unquoted $EXTRA_ARGS may expand to any number of arguments",
        "\"$@\" passes the script's arguments through",
    ]


def test_default_values_stay_unresolved():
    source = Source(
        "d.sh",
        "PORT=8000\n"
        "python -m sglang.launch_server --port ${PORT:-30000} --host ${HOST:-0.0.0.0} \\\n"
        "  --model-path ${MODEL:=/m}\n",
    )
    (site,) = extract(source).sites
    assert site.tokens[1].value == "8000"  # the file's assignment wins
    assert site.tokens[3].value == Unresolved("${HOST:-0.0.0.0}", "environment variable with default '0.0.0.0'")
    assert site.tokens[5].value == U("environment variable with default '/m'")
    assert site.opaque == []


def test_heredocs():
    facts = facts_of("heredoc.sh")
    (site,) = facts.sites  # only the heredoc fed to bash
    assert site.tokens[1].value == "/models/bash-heredoc"
    assert site.span.text.startswith("python -m sglang.launch_server --model-path /models/bash-heredoc")


def test_unicode_offsets_are_code_points():
    source = load("unicode.sh")
    first, second = extract(source).sites
    model = first.tokens[1]
    line, col = source.line_col(model.span.start)
    assert source.line_text(line)[col - 1 :].startswith('"/data/模型/qwen"')
    assert model.sub_span(0, len(model.value)).text == "/data/模型/qwen"
    assert env_of(second) == {"MSG": "你好"}
    template = second.tokens[2]
    assert template.sub_span(0, len("--chat-template")).text == "--chat-template"


def test_crlf_line_endings():
    source = load("crlf.sh")
    assert "\r\n" in source.text
    (site,) = extract(source).sites
    assert [source.line_col(t.span.start) for t in site.tokens] == [(5, 3), (5, 16), (6, 3), (6, 8), (7, 3), (7, 10)]
    assert all("\r" not in str(t.value) for t in site.tokens)
    assert site.severed is None


def test_parse_problems_still_extract_what_parsed():
    facts = facts_of("broken.sh")
    (site,) = facts.sites  # the launch inside the unterminated string is text
    messages = sorted(p.message for p in facts.problems)
    assert messages == ["unexpected token 'fi'", "unterminated quoted string"]
    fi = next(p for p in facts.problems if "fi" in p.message)
    assert fi.span.text == "fi" and fi.span.start_line_col() == (7, 1)


# ---------------------------------------------------------------------------
# Embedding, robustness, cost
# ---------------------------------------------------------------------------


def test_extract_embedded_maps_through_an_outer_file():
    """A YAML ``run: |`` block: the inner text is the block without its
    indentation; every span must land in the YAML file."""
    yaml_text = (
        "steps:\n"
        "  - run: |\n"
        "      export SGLANG_X=1\n"
        "      python -m sglang.launch_server \\\n"
        '        --model-path "$MODEL" --tp 2  # noqa: SGL101\n'
    )
    source = Source("ci.yaml", yaml_text)
    indent = "      "
    block_start = yaml_text.index(indent + "export")
    inner, offsets = [], []
    pos = block_start
    for line in yaml_text[block_start:].splitlines(keepends=True):
        body = line[len(indent) :] if line.startswith(indent) else line.lstrip(" ")
        first = pos + (len(line) - len(body))
        inner.append(body)
        offsets += range(first, first + len(body))
        pos += len(line)
    offsets.append(len(yaml_text))
    facts = FileFacts(source, "yaml")
    extract_embedded("".join(inner), SourceMap(source, 0, offsets), facts, env={"MODEL": "org/model"})
    (site,) = facts.sites
    assert site.entry_span.text == "python -m sglang.launch_server"
    assert written(site.tokens) == [
        ("--model-path", "--model-path"),
        ("org/model", '"$MODEL"'),
        ("--tp", "--tp"),
        ("2", "2"),
    ]
    assert env_of(site) == {"SGLANG_X": "1"}
    ((offset, comment),) = facts.comments
    assert yaml_text[offset:].startswith("# noqa: SGL101") and comment == "# noqa: SGL101"


def test_import_is_cheap():
    code = "import sys, sgllint.formats.shell.extractor; print('tree_sitter' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=Path(__file__).parent.parent)
    assert out.stdout.strip() == "False", out.stderr


def test_four_byte_characters_after_a_brace_do_not_crash_the_parser():
    """tree-sitter-bash 0.25 reads out of bounds on ``{`` + a 4-byte
    character (tree-sitter/tree-sitter-bash#337) and segfaults on Linux;
    run in a child process so a crash fails this test, not the session."""
    code = (
        "from sgllint.model.facts import Source\n"
        "from sgllint.formats.shell.extractor import extract\n"
        "for cp in list(range(0x30000, 0x110000, 4099)) + [0x1F600, 0x10FFFF]:\n"
        "    for pre in ('{', 'echo {', 'x={', 'echo ${a:-{'):\n"
        "        for _ in range(10):\n"
        "            text = pre + chr(cp) + ' python -m sglang.launch_server --x ' + chr(cp)\n"
        "            facts = extract(Source('x.sh', text))\n"
        "facts = extract(Source('x.sh', 'python -m sglang.launch_server --name {\\U0001F600}'))\n"
        "print(facts.sites[0].tokens[1].value)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=Path(__file__).parent.parent)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "{\U0001F600}"  # values still come from the real text


def test_internal_errors_become_problems(monkeypatch):
    def boom(self, *args):
        raise RuntimeError("boom")

    monkeypatch.setattr(shell._ShellScript, "_launch_env", boom)
    facts = facts_of("wrappers.sh")
    assert facts.sites == []
    assert facts.problems and all("RuntimeError: boom" in p.message for p in facts.problems)
    monkeypatch.setattr(shell._ShellScript, "extract", boom)
    facts = facts_of("wrappers.sh")
    (problem,) = facts.problems
    assert problem.span.start == 0 and "boom" in problem.message


def test_two_hundred_lines_extract_quickly():
    names = ("serve_basic.sh", "arrays.sh", "control_flow.sh", "variables.sh", "functions.sh")
    text = "\n".join(load(n).text for n in names)
    health = 'curl -sf "http://localhost:${PORT:-3000}/health" >/dev/null'
    filler = "\n".join(f"check_{i}() {{ {health} || sleep {i % 5}; }}" for i in range(100))
    source = Source("big.sh", text + "\n" + filler)
    assert len(source.text.splitlines()) >= 200
    extract(source)  # load tree-sitter once
    best = min(_timed(lambda: extract(source)) for _ in range(5))
    assert best < 0.05, f"{best * 1000:.1f} ms"  # a few ms normally; loose for busy CI machines


def _timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def _assert_spans_inside(facts: FileFacts) -> None:
    n = len(facts.source.text)

    def inside(span):
        assert 0 <= span.start <= span.end <= n, (span.start, span.end, n)

    for site in facts.sites:
        inside(site.span)
        inside(site.entry_span)
        for tok in site.tokens:
            inside(tok.span)
            if isinstance(tok.value, str) and tok.value:
                inside(tok.sub_span(0, len(tok.value)))
        for var in site.env:
            inside(var.span)
            if var.value_span is not None:
                inside(var.value_span)
        if site.severed is not None:
            inside(site.severed.backslash)
            for tok in site.severed.lost:
                inside(tok.span)
    for problem in facts.problems:
        inside(problem.span)
        assert "extractor failed" not in problem.message, problem.message
    for offset, _ in facts.comments:
        assert 0 <= offset < n and facts.source.text[offset] == "#"


SHELLISH = st.lists(
    st.sampled_from(
        [
            "python -m sglang.launch_server ", "sglang serve ", "--tp ", "2 ", "--x=", '"', "'", "$'", "\\", "\\ ",
            "\\\n", "\n", "\r\n", "\t", " ", "$", "${", "}", "$(", ")", "(", "`", "#", "# c\n", "<<EOF\n", "EOF\n",
            "cmd=(", '"${cmd[@]}" ', "bash -c ", "|", "&", ";", "&&", "if ", "then ", "fi", "\x00", "😀", "模型",
            "A=1 ", "export B=2\n", "*", "{a,b}", "~", "docker run -e X=1 img ",
        ]
    ),
    max_size=80,
).map("".join)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(SHELLISH)
def test_shellish_text_never_raises(text):
    _assert_spans_inside(extract(Source("fuzz.sh", text)))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(sorted(EXPECTED_TOKENS)),
    st.lists(st.tuples(st.floats(0, 1), st.integers(0, 8), st.text(max_size=6)), max_size=12),
)
def test_mutated_fixtures_never_raise(name, edits):
    text = load(name).text
    for where, cut, insert in edits:
        at = int(where * len(text))
        text = text[:at] + insert + text[at + cut :]
    _assert_spans_inside(extract(Source(name, text)))


def test_huge_line_and_nul_bytes():
    text = "python -m sglang.launch_server " + "--tp 2 " * 20000 + "\x00 '" + "x" * 50000 + "\n"
    facts = extract(Source("huge.sh", text))
    _assert_spans_inside(facts)
    assert facts.sites and len(facts.sites[0].tokens) >= 40000
