"""`sgllint lsp` reads only the documents it was given and files inside the
workspace (issue #10, security). Spoken to over stdio like an editor would:
every file outside the workspace below holds a *marker* that would change
what the server says if it were read — `sgllint check` on the same files
shows each marker, the server shows none and logs each refusal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("pygls")
pytest.importorskip("lsprotocol")

from tests.test_lsp import Client, LAUNCH  # noqa: E402

MARKER_ARCH = "MarkerArchForCausalLM"


@pytest.fixture
def layout(tmp_path):
    """outer/ (not the workspace) holds a config that ignores SGL101, an
    ``sglang==0.5.4`` pin, a model directory and a ``--config`` YAML;
    outer/ws/ is the workspace, without a config of its own."""
    outer = tmp_path / "outer"
    ws = outer / "ws"
    model = outer / "model"
    ws.mkdir(parents=True)
    model.mkdir()
    (outer / ".sgllint.toml").write_text('ignore = ["SGL101"]\n')
    (outer / "requirements.txt").write_text("sglang==0.5.4\n")
    (model / "config.json").write_text(json.dumps({"architectures": [MARKER_ARCH], "model_type": "llama"}))
    (outer / "conf.yaml").write_text("tp-size: 2\nenable-metricz-marker: true\n")
    return outer, ws, model


def _launcher(model: Path, conf: Path) -> str:
    return f"#!/bin/sh\npython -m sglang.launch_server --model-path {model} --config {conf} --enable_metrics\n"


def _open_shell(client: Client, path: Path, text: str) -> str:
    uri = path.as_uri()
    client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "shellscript", "version": 1, "text": text}})
    return uri


def _start(ws: Path) -> Client:
    client = Client(ws)
    client.request(
        "initialize",
        {"processId": None, "rootUri": ws.as_uri(), "capabilities": {}, "initializationOptions": {"debounce": 0.05}},
    )
    client.notify("initialized", {})
    return client


def _hover(client: Client, uri: str, text: str, needle: str):
    line = next(i for i, ln in enumerate(text.splitlines()) if needle in ln)
    col = text.splitlines()[line].index(needle) + 2
    return client.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": line, "character": col}})


def _stop(client: Client) -> str:
    """Shut the server down; its log (stderr)."""
    try:
        client.request("shutdown", None)
        client.notify("exit", None)
        client.proc.wait(timeout=10)
        return client.proc.stderr.read().decode("utf-8", "replace")
    finally:
        client.close()


def test_cli_reads_every_marker(layout, run_cli):
    """The markers work: outside the LSP, each one changes the result."""
    outer, ws, model = layout
    serve = ws / "serve.sh"
    serve.write_text(_launcher(model, outer / "conf.yaml"))
    proc = run_cli("check", "--no-cache", "--show-context", "--output-format", "concise", str(serve), cwd=ws)
    assert MARKER_ARCH in proc.stdout  # the model's config.json
    assert "SGLang 0.5.4" in proc.stdout  # the pin above the workspace
    assert "enable_metrics" not in proc.stdout  # the outer config ignores SGL101 ...
    assert "enable-metricz-marker" not in proc.stdout  # ... in the --config file too


def test_server_reads_nothing_outside_the_workspace(layout):
    outer, ws, model = layout
    text = _launcher(model, outer / "conf.yaml")
    serve = ws / "serve.sh"
    serve.write_text(text)
    client = _start(ws)
    try:
        uri = _open_shell(client, serve, text)
        diags = client.diagnostics(uri)
        # the outer .sgllint.toml (ignore = SGL101) was not discovered
        assert any(d["code"] == "SGL101" and "--enable_metrics" in d["message"] for d in diags), diags
        assert all("marker" not in json.dumps(d) for d in diags)
        hover = _hover(client, uri, text, "--enable_metrics")
        value = json.dumps(hover)
        assert MARKER_ARCH not in value  # the model's config.json was not read
        assert "0.5.4" not in value  # nor the pin above the workspace
    finally:
        stderr = _stop(client)
    # every attempt was refused, and logged: the model, the --config file,
    # the config above the workspace and the listing that looks for a pin
    for refused in (model / "config.json", outer / "conf.yaml", outer / ".sgllint.toml", outer):
        assert f"not reading {refused}:" in stderr, stderr[-3000:]
    assert f"not reading {outer / 'requirements.txt'}" not in stderr  # never reached


def test_document_outside_the_workspace_is_linted_from_its_text_only(layout, tmp_path):
    """A document the client opens from elsewhere is linted from the text it
    sent; nothing around it (a model's config.json next to it, a config
    above it) is read, and unopened files are never read."""
    outer, ws, model = layout
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "m").mkdir(parents=True)
    (elsewhere / "m" / "config.json").write_text(json.dumps({"architectures": [MARKER_ARCH]}))
    (elsewhere / ".sgllint.toml").write_text('ignore = ["SGL101"]\n')
    text = f"{LAUNCH.replace('Qwen/Qwen2.5-7B-Instruct', './m')} --enable_metrics\n"
    doc = elsewhere / "serve.sh"
    doc.write_text(text)
    secret = elsewhere / "secret.sh"
    secret.write_text(f"{LAUNCH} --tp 2  # marker\n")
    client = _start(ws)
    try:
        uri = doc.as_uri()
        client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "shellscript", "version": 1, "text": text}})
        diags = client.diagnostics(uri)
        assert [d["code"] for d in diags] == ["SGL101"]  # linted, without the config beside it
        assert MARKER_ARCH not in json.dumps(_hover(client, uri, text, "--enable_metrics"))
        # a request about a file the client never opened: nothing is read
        assert client.request("textDocument/hover", {"textDocument": {"uri": secret.as_uri()}, "position": {"line": 0, "character": 40}}) is None
        assert client.request("textDocument/codeAction", {"textDocument": {"uri": secret.as_uri()}, "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 5}}, "context": {"diagnostics": []}}) == []
    finally:
        stderr = _stop(client)
    assert f"not reading {elsewhere / 'm' / 'config.json'}" in stderr, stderr[-3000:]
    assert str(secret) not in stderr  # not even attempted


def test_files_inside_the_workspace_are_still_read(tmp_path):
    """Confinement keeps the workspace's own files: its config, a local
    model's config.json."""
    ws = tmp_path / "ws"
    (ws / "model").mkdir(parents=True)
    (ws / ".sgllint.toml").write_text('sglang-version = "0.5.23"\nignore = ["SGL101"]\n')
    (ws / "model" / "config.json").write_text(json.dumps({"architectures": [MARKER_ARCH], "model_type": "llama"}))
    text = f"{LAUNCH.replace('Qwen/Qwen2.5-7B-Instruct', str(ws / 'model'))} --enable_metrics --tp 2\n"
    serve = ws / "serve.sh"
    serve.write_text(text)
    client = _start(ws)
    try:
        uri = _open_shell(client, serve, text)
        assert [d["code"] for d in client.diagnostics(uri)] == ["SGL109"]  # SGL101 ignored by the workspace config
        assert MARKER_ARCH in json.dumps(_hover(client, uri, text, "--tp"))
    finally:
        stderr = _stop(client)
    assert "not reading" not in stderr
