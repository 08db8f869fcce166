"""Issue 20's LSP points over JSON-RPC on stdio, with the `Client` of
tests/test_lsp.py; `Recorder` also keeps the window notifications that
`Client.wait` skips."""

from __future__ import annotations

import time

import pytest

pytest.importorskip("pygls")

from tests.test_lsp import LAUNCH, Client, initialize, open_doc  # noqa: E402


class Recorder(Client):
    """A `Client` that records every server->client notification."""

    def __init__(self, cwd):
        self.seen: list = []
        super().__init__(cwd)
        put = self.inbox.put

        def record(msg):
            if isinstance(msg, dict) and "method" in msg:
                self.seen.append(msg)
            put(msg)

        self.inbox.put = record  # type: ignore[method-assign]

    def shown(self, method: str = "window/showMessage") -> list[str]:
        return [m["params"]["message"] for m in self.seen if m.get("method") == method]


@pytest.fixture
def recorder(tmp_path):
    c = Recorder(tmp_path)
    yield c
    c.close()


def test_newer_release_is_one_show_message(recorder, tmp_path):
    from sgllint.catalog import latest

    initialize(recorder, tmp_path)
    text = f"# sgllint: sglang=0.6.0\n{LAUNCH} --enable_metrics\n"
    uri = open_doc(recorder, tmp_path / "a.sh", text, "shellscript")
    recorder.diagnostics(uri)
    uri2 = open_doc(recorder, tmp_path / "b.sh", text, "shellscript")
    recorder.diagnostics(uri2)
    time.sleep(0.2)
    want = f"sgllint: sglang 0.6.0 is newer than the newest release sgllint knows ({latest()}): checking against {latest()}"
    assert recorder.shown().count(want) == 1, recorder.shown()


def test_configuration_error_is_a_diagnostic_and_a_message(recorder, tmp_path):
    config = tmp_path / ".sgllint.toml"
    config.write_text('sglang-version = "0.5.23"\nignores = ["SGL109"]\n')
    initialize(recorder, tmp_path)
    uri = open_doc(recorder, tmp_path / "serve.sh", f"{LAUNCH} --tp 2\n", "shellscript")
    on_config = recorder.diagnostics(config.as_uri())  # sent while the document is linted
    assert [d["code"] for d in recorder.diagnostics(uri)] == ["SGL109"]  # linted with the defaults
    assert len(on_config) == 1
    d = on_config[0]
    assert d["code"] == "SGL003" and d["severity"] == 1
    assert d["range"] == {"start": {"line": 1, "character": 0}, "end": {"line": 1, "character": len("ignores")}}
    assert "unknown key 'ignores'" in d["message"] and "did you mean 'ignore'?" in d["message"]
    time.sleep(0.2)
    errors = [m["params"] for m in recorder.seen if m.get("method") == "window/showMessage" and m["params"]["type"] == 1]
    assert len(errors) == 1 and "unknown key 'ignores'" in errors[0]["message"]
    # fixed and saved: the diagnostic on the config file goes away
    config.write_text('sglang-version = "0.5.23"\nignore = ["SGL109"]\n')
    recorder.notify("textDocument/didSave", {"textDocument": {"uri": uri}})
    assert recorder.diagnostics(config.as_uri()) == []
    assert recorder.diagnostics(uri) == []


def _complete(client, uri, text, needle=None):
    """Labels completed at the end of ``needle``'s line (default: the end of
    ``text``), after the document is published."""
    end = text.index(needle) + len(needle) if needle else len(text)
    line = text.count("\n", 0, end)
    character = end - (text.rfind("\n", 0, end) + 1)
    res = client.request("textDocument/completion", {"textDocument": {"uri": uri}, "position": {"line": line, "character": character}})
    return {i["label"]: i for i in (res or {}).get("items", [])}


def test_python_completion_keywords_values_and_argv(recorder, tmp_path):
    initialize(recorder, tmp_path)
    text = 'import sglang as sgl\nsgl.Engine(model_path="Qwen/Qwen2.5-7B-Instruct", tp)\n'
    uri = open_doc(recorder, tmp_path / "app.py", text, "python")
    recorder.diagnostics(uri)
    got = _complete(recorder, uri, text, ", tp")
    assert got["tp_size"]["insertText"] == "tp_size=" and "tensor_parallel_size" not in got
    # a keyword's choices
    text2 = 'import sglang as sgl\nsgl.Engine(model_path="Qwen/Qwen2.5-7B-Instruct", attention_backend="fl")\n'
    recorder.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": text2}]})
    recorder.diagnostics(uri, version=2)
    assert "flashinfer" in _complete(recorder, uri, text2, 'attention_backend="fl')
    # a call still being typed: no launch yet, the configured release's fields
    text3 = "from sglang.srt.server_args import ServerArgs\nargs = ServerArgs(mem_frac"
    recorder.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 3}, "contentChanges": [{"text": text3}]})
    recorder.diagnostics(uri, version=3)
    assert "mem_fraction_static" in _complete(recorder, uri, text3)
    # argv string lists: flag names and choices
    text4 = (
        'import subprocess\nsubprocess.run(["python", "-m", "sglang.launch_server", "--model-path", "m/x",\n'
        '    "--attention-backend", "tri", "--enable-metr"])\n'
    )
    recorder.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 4}, "contentChanges": [{"text": text4}]})
    recorder.diagnostics(uri, version=4)
    assert "triton" in _complete(recorder, uri, text4, '"tri')
    assert "--enable-metrics" in _complete(recorder, uri, text4, '"--enable-metr')


def test_yaml_completion_in_lists_and_config_files(recorder, tmp_path):
    initialize(recorder, tmp_path)
    text = (
        "containers:\n  - name: s\n    image: lmsysorg/sglang:v0.5.4\n    command:\n"
        "      - python\n      - -m\n      - sglang.launch_server\n      - --model-path\n      - Qwen/Qwen2.5-7B-Instruct\n"
        "      - --attention-backend\n      - fl\n      - --enable-metr\n"
    )
    uri = open_doc(recorder, tmp_path / "k8s.yaml", text, "yaml")
    recorder.diagnostics(uri)
    assert "flashinfer" in _complete(recorder, uri, text, "      - fl")  # the item after --attention-backend
    assert "--enable-metrics" in _complete(recorder, uri, text, "--enable-metr")
    # an SGLang --config file: keys without dashes, then their choices
    config = "model-path: Qwen/Qwen2.5-7B-Instruct\ntp-size: 2\nattention-backend: tri\nenable-metr\n"
    curi = open_doc(recorder, tmp_path / "server.yaml", config, "yaml")
    recorder.diagnostics(curi)
    keys = _complete(recorder, curi, config, "enable-metr")
    assert keys["enable-metrics"]["insertText"] == "enable-metrics: "
    assert "triton" in _complete(recorder, curi, config, "attention-backend: tri")
