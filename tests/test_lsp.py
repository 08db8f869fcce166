"""`sgllint lsp` end to end: spawn the server, speak JSON-RPC over stdio
(Content-Length framing) the way an editor does, and check what it says."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Optional

import pytest

pytest.importorskip("pygls")
pytest.importorskip("lsprotocol")

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT = 30


class Client:
    def __init__(self, cwd: Path, argv: Optional[list] = None):
        env = dict(os.environ)
        env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
        self.proc = subprocess.Popen(
            argv or [sys.executable, "-m", "sgllint", "lsp"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env=env,
        )
        self.inbox: queue.Queue = queue.Queue()
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        out = self.proc.stdout
        while True:
            headers = {}
            while True:
                line = out.readline()
                if not line:
                    self.inbox.put(None)
                    return
                line = line.strip()
                if not line:
                    break
                k, _, v = line.decode("ascii").partition(":")
                headers[k.strip().lower()] = v.strip()
            body = out.read(int(headers["content-length"]))
            self.inbox.put(json.loads(body.decode("utf-8")))

    def send(self, message: dict):
        body = json.dumps(message).encode("utf-8")
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def notify(self, method: str, params: dict):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def request(self, method: str, params: dict):
        self.next_id += 1
        rid = self.next_id
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        msg = self.wait(lambda m: m.get("id") == rid and "method" not in m)
        assert "error" not in msg, msg
        return msg["result"]

    def wait(self, pred, timeout: float = TIMEOUT):
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"no matching message within {timeout}s; stderr: {self._stderr()}")
            try:
                msg = self.inbox.get(timeout=left)
            except queue.Empty:
                continue
            if msg is None:
                raise AssertionError(f"server exited: {self._stderr()}")
            if msg.get("method") == "window/logMessage" or msg.get("method") == "window/showMessage":
                continue
            if msg.get("id") is not None and "method" in msg:  # a server->client request
                self.send({"jsonrpc": "2.0", "id": msg["id"], "result": None})
                continue
            if pred(msg):
                return msg

    def diagnostics(self, uri: str, version=None):
        msg = self.wait(
            lambda m: m.get("method") == "textDocument/publishDiagnostics"
            and m["params"]["uri"] == uri
            and (version is None or m["params"].get("version") == version)
        )
        return msg["params"]["diagnostics"]

    def _stderr(self) -> str:
        if self.proc.poll() is None:
            return "(running)"
        return self.proc.stderr.read().decode("utf-8", "replace")[-2000:]

    def close(self):
        try:
            if self.proc.poll() is None:
                self.request("shutdown", None)
                self.notify("exit", None)
                self.proc.wait(timeout=10)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait(timeout=10)
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            try:
                stream.close()
            except OSError:
                pass


@pytest.fixture
def client(tmp_path):
    (tmp_path / ".sgllint.toml").write_text('sglang-version = "0.5.23"\n')
    c = Client(tmp_path)
    yield c
    c.close()


def initialize(client: Client, root: Path, encodings=None):
    caps: dict = {"textDocument": {"publishDiagnostics": {"relatedInformation": True}}}
    if encodings:
        caps["general"] = {"positionEncodings": encodings}
    result = client.request(
        "initialize",
        {"processId": os.getpid(), "rootUri": root.as_uri(), "capabilities": caps, "initializationOptions": {"debounce": 0.05}},
    )
    client.notify("initialized", {})
    return result


def open_doc(client: Client, path: Path, text: str, language: str, version: int = 1) -> str:
    path.write_text(text, encoding="utf-8")
    uri = path.as_uri()
    client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": language, "version": version, "text": text}})
    return uri


LAUNCH = "python -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct"
# an emoji (2 UTF-16 units, 4 UTF-8 bytes) and a CJK character (1 unit, 3 bytes) before the token
EMOJI_LINE = f'{LAUNCH} --served-model-name "🚀模" --enable_metrics\n'


def test_utf16_ranges_code_and_related(client, tmp_path):
    result = initialize(client, tmp_path)
    assert result["capabilities"]["positionEncoding"] == "utf-16"
    text = "#!/bin/sh\n" + EMOJI_LINE
    uri = open_doc(client, tmp_path / "serve.sh", text, "shellscript")
    diags = client.diagnostics(uri)
    d = next(x for x in diags if x["code"] == "SGL101")
    col = EMOJI_LINE.index("--enable_metrics")  # code points
    # the emoji counts two UTF-16 code units, the CJK character one
    assert d["range"] == {"start": {"line": 1, "character": col + 1}, "end": {"line": 1, "character": col + 1 + len("--enable_metrics")}}
    assert d["severity"] == 1 and d["source"] == "sgllint"
    assert d["codeDescription"]["href"].endswith("#sgl101")
    assert "--enable-metrics" in d["message"]

    # a duplicate flag carries its first occurrence as related information
    uri2 = open_doc(client, tmp_path / "dup.sh", f"{LAUNCH} --port 1 --port 2\n", "shellscript")
    dup = next(x for x in client.diagnostics(uri2) if x["code"] == "SGL108")
    rel = dup["relatedInformation"][0]
    assert rel["location"]["uri"] == uri2 and rel["message"] == "first given here"
    start = len(LAUNCH) + 1
    assert rel["location"]["range"]["start"] == {"line": 0, "character": start}


def test_utf8_encoding_when_client_prefers_it(client, tmp_path):
    result = initialize(client, tmp_path, encodings=["utf-8", "utf-16"])
    assert result["capabilities"]["positionEncoding"] == "utf-8"
    uri = open_doc(client, tmp_path / "serve.sh", EMOJI_LINE, "shellscript")
    d = next(x for x in client.diagnostics(uri) if x["code"] == "SGL101")
    prefix = EMOJI_LINE[: EMOJI_LINE.index("--enable_metrics")]
    assert d["range"]["start"] == {"line": 0, "character": len(prefix.encode("utf-8"))}


def test_change_is_debounced_and_relinted(client, tmp_path):
    initialize(client, tmp_path)
    uri = open_doc(client, tmp_path / "serve.sh", f"{LAUNCH} --tp 2\n", "shellscript")
    assert [d["code"] for d in client.diagnostics(uri)] == ["SGL109"]
    # three quick edits: one publish, for the last version
    for version, flag in ((2, "--tp-size 2 --enable_metrics"), (3, "--tp-size 2 --enable-metrics"), (4, "--tp-size 2 --enable_metric")):
        client.notify(
            "textDocument/didChange",
            {"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": f"{LAUNCH} {flag}\n"}]},
        )
    diags = client.diagnostics(uri, version=4)
    assert [d["code"] for d in diags] == ["SGL101"]
    assert "'--enable_metric'" in diags[0]["message"]
    # the save publishes at once
    client.notify("textDocument/didSave", {"textDocument": {"uri": uri}})
    assert [d["code"] for d in client.diagnostics(uri)] == ["SGL101"]


@pytest.mark.parametrize(
    "name, language, text, expect_line_edit",
    [
        ("serve.sh", "shellscript", f"{LAUNCH} --tp 2\n", "  # sgllint: ignore[SGL109]"),
        ("launch.py", "python", f'import subprocess\nsubprocess.run("{LAUNCH} --tp 2".split())\n', "  # sgllint: ignore[SGL109]"),
        ("k8s.yaml", "yaml", f"containers:\n  - name: s\n    image: lmsysorg/sglang:v0.5.2\n    command: [\"{LAUNCH.replace(' ', chr(34) + ', ' + chr(34))}\", \"--tp\", \"2\"]\n", "  # sgllint: ignore[SGL109]"),
        ("README.md", "markdown", f"# Serve\n\n```bash\n{LAUNCH} --tp 2\n```\n", "<!-- sgllint: ignore[SGL109] -->\n"),
    ],
)
def test_code_actions_fix_and_ignore(client, tmp_path, name, language, text, expect_line_edit):
    initialize(client, tmp_path)
    uri = open_doc(client, tmp_path / name, text, language)
    diags = client.diagnostics(uri)
    d = next(x for x in diags if x["code"] == "SGL109")
    actions = client.request(
        "textDocument/codeAction",
        {"textDocument": {"uri": uri}, "range": d["range"], "context": {"diagnostics": [d]}},
    )
    titles = [a["title"] for a in actions]
    assert "expand to --tp-size (SGL109)" in titles
    assert "Ignore SGL109 on this line" in titles
    assert "Ignore SGL109 in this file" in titles
    fix = next(a for a in actions if a["title"].startswith("expand"))
    (edit,) = fix["edit"]["changes"][uri]
    assert edit["newText"] == "--tp-size"
    lines = text.splitlines(keepends=True)
    rng = edit["range"]
    assert lines[rng["start"]["line"]][rng["start"]["character"] : rng["end"]["character"]] == "--tp"  # inside the quotes
    ignore = next(a for a in actions if a["title"] == "Ignore SGL109 on this line")
    (edit,) = ignore["edit"]["changes"][uri]
    assert edit["newText"] == expect_line_edit
    whole_file = next(a for a in actions if a["title"] == "Ignore SGL109 in this file")
    (edit,) = whole_file["edit"]["changes"][uri]
    assert "sgllint: ignore-file[SGL109]" in edit["newText"]


def test_hover_shows_help_type_choices_default_and_context(client, tmp_path):
    initialize(client, tmp_path)
    text = f"{LAUNCH} --attention-backend fa3 --tp-size 2\n"
    uri = open_doc(client, tmp_path / "serve.sh", text, "shellscript")
    client.diagnostics(uri)
    col = text.index("--attention-backend") + 3
    hover = client.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 0, "character": col}})
    value = hover["contents"]["value"]
    assert "**--attention-backend**" in value
    assert "choices:" in value and "`fa3`" in value and "`flashinfer`" in value
    assert "type: `str`" in value and "default:" in value
    assert "SGLang 0.5.23" in value and "gpu" in value.lower() and "arch" in value
    assert hover["range"]["start"] == {"line": 0, "character": text.index("--attention-backend")}
    # nothing to say between launches
    assert client.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 2}}) is None


def test_completion_of_flags_and_choices(client, tmp_path):
    initialize(client, tmp_path)
    text = f"{LAUNCH} --attention-back\n"
    uri = open_doc(client, tmp_path / "serve.sh", text, "shellscript")
    client.diagnostics(uri)
    res = client.request("textDocument/completion", {"textDocument": {"uri": uri}, "position": {"line": 0, "character": len(text) - 1}})
    assert "--attention-backend" in [i["label"] for i in res["items"]]
    text2 = f"{LAUNCH} --attention-backend fl\n"
    client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": text2}]})
    client.diagnostics(uri, version=2)
    res = client.request("textDocument/completion", {"textDocument": {"uri": uri}, "position": {"line": 0, "character": len(text2) - 1}})
    assert "flashinfer" in [i["label"] for i in res["items"]]


def test_output_format_lsp_matches_what_the_server_publishes(client, tmp_path, run_cli):
    initialize(client, tmp_path)
    text = "#!/bin/sh\n" + EMOJI_LINE + f"{LAUNCH} --port 1 --port 2\n"
    uri = open_doc(client, tmp_path / "serve.sh", text, "shellscript")
    published = client.diagnostics(uri)
    proc = run_cli("check", "--output-format", "lsp", str(tmp_path / "serve.sh"), cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    (file_entry,) = json.loads(proc.stdout)
    assert file_entry["uri"] == uri
    assert file_entry["diagnostics"] == published
