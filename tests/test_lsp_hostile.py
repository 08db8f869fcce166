"""`sgllint lsp` against a broken or hostile client and a hostile workspace
(issue 15), spoken to over stdio like an editor would.

The server runs under a *witness*: a wrapper that installs its own audit hook
before sgllint starts and logs every file opened, directory listed and
program started. The server logs each read it refuses ("not reading PATH");
what the witness saw and the server did not refuse was read. So "nothing
outside was read" is checked from outside the server's own bookkeeping.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("pygls")
pytest.importorskip("lsprotocol")

from tests.test_lsp import LAUNCH, Client  # noqa: E402

MARKER_ARCH = "MarkerArchForCausalLM"

WITNESS = r'''
import os, sys
log = open(sys.argv[1], "w", buffering=1, encoding="utf-8", errors="backslashreplace")
READS = ("open", "os.listdir", "os.scandir")
PROGRAMS = ("subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork", "os.forkpty", "pty.spawn")

def witness(event, args):
    if event in READS:
        path = args[0] if args else None
        if isinstance(path, (str, bytes, os.PathLike)):
            log.write("read\t" + os.fsdecode(path) + "\n")
    elif event.startswith(PROGRAMS):
        log.write("program\t" + event + "\t" + repr(args)[:300] + "\n")

sys.addaudithook(witness)
sys.path[0] = os.getcwd()  # what `python -m sgllint lsp` started in the workspace has
sys.argv = ["sgllint", "lsp"]
import runpy
runpy.run_module("sgllint", run_name="__main__", alter_sys=True)
'''


class Witnessed:
    """A server started under the witness; `stop` returns what it read."""

    def __init__(self, cwd: Path, scratch: Path):
        scratch.mkdir(parents=True, exist_ok=True)
        wrapper = scratch / "witness.py"
        wrapper.write_text(WITNESS)
        self.log = scratch / "witness.log"
        self.client = Client(cwd, argv=[sys.executable, str(wrapper), str(self.log)])
        self.stderr = ""

    def stop(self) -> "Witnessed":
        client = self.client
        try:
            if client.proc.poll() is None:
                client.request("shutdown", None)
                client.notify("exit", None)
                client.proc.wait(timeout=10)
            self.stderr = client.proc.stderr.read().decode("utf-8", "replace")
        finally:
            client.close()
        return self

    def _entries(self, kind: str) -> list[str]:
        return [line.split("\t", 1)[1] for line in self.log.read_text().splitlines() if line.startswith(kind + "\t")]

    def reads(self) -> set[str]:
        """Paths opened or listed and not refused (resolved)."""
        attempts = Counter(self._entries("read"))
        refused = Counter(re.findall(r"not reading (.*?): outside the workspace$", self.stderr, re.M))
        return {os.path.realpath(p) for p, n in attempts.items() if n > refused[p]}

    def programs(self) -> list[str]:
        return self._entries("program")


def _inside(path: str, directory: Path) -> bool:
    d = os.path.realpath(directory)
    return path == d or path.startswith(d + os.sep)


def _initialize(client: Client, params: dict):
    """Send ``initialize``; the reply (a result or an error)."""
    client.next_id += 1
    rid = client.next_id
    base = {"processId": None, "capabilities": {}, "initializationOptions": {"debounce": 0.05}}
    client.send({"jsonrpc": "2.0", "id": rid, "method": "initialize", "params": {**base, **params}})
    reply = client.wait(lambda m: m.get("id") == rid and "method" not in m)
    client.notify("initialized", {})
    return reply


def _open(client: Client, path: Path, text: str, language: str) -> str:
    path.write_text(text)
    uri = path.as_uri()
    client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": language, "version": 1, "text": text}})
    return uri


# ---------------------------------------------------------------------------
# Nothing from the tree runs
# ---------------------------------------------------------------------------


def test_a_hostile_workspace_runs_nothing(tmp_path):
    """A workspace whose .git/config names a program (core.fsmonitor, a
    hooks path, an alias) and which holds modules named like sgllint's
    dependencies, served with ``python -m sgllint lsp`` started inside it:
    linting every format, saving, asking for actions, hover and completion
    starts no program but the interpreter and imports nothing from the tree."""
    ws = tmp_path / "ws"
    (ws / ".git" / "hooks").mkdir(parents=True)
    marker = tmp_path / "RAN"
    script = ws / "evil.sh"
    script.write_text(f"#!/bin/sh\ntouch {marker}\n")
    script.chmod(0o755)
    (ws / ".git" / "config").write_text(f"[core]\n\tfsmonitor = {script}\n\thooksPath = {ws}\n[alias]\n\tls-files = !{script}\n")
    (ws / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    for module in ("yaml", "libcst", "pygls", "lsprotocol", "cattrs", "tomllib", "tree_sitter", "difflib", "json"):
        (ws / f"{module}.py").write_text(f"open({str(marker)!r}, 'w').write({module!r})\n")
    (ws / ".sgllint.toml").write_text('sglang-version = "0.5.23"\n')
    docs = [
        ("serve.sh", "shellscript", f"#!/bin/sh\n{LAUNCH} --tp 2\n"),
        ("launch.py", "python", f'import subprocess\nsubprocess.run("{LAUNCH} --tp 2".split())\n'),
        ("k8s.yaml", "yaml", f"containers:\n  - name: s\n    command: [\"{LAUNCH.replace(' ', chr(34) + ', ' + chr(34))}\", \"--tp\", \"2\"]\n"),
        ("pyproject.toml", "toml", f'[tool.poe.tasks]\nserve = "{LAUNCH} --tp 2"\n'),
        ("Dockerfile", "dockerfile", f'FROM lmsysorg/sglang:v0.5.2\nCMD {LAUNCH} --tp 2\n'),
        ("README.md", "markdown", f"```bash\n{LAUNCH} --tp 2\n```\n"),
    ]
    server = Witnessed(ws, tmp_path / "witness")
    client = server.client
    try:
        _initialize(client, {"rootUri": ws.as_uri()})
        for name, language, text in docs:
            uri = _open(client, ws / name, text, language)
            found = client.diagnostics(uri)
            client.notify("textDocument/didSave", {"textDocument": {"uri": uri}})
            client.diagnostics(uri)
            end = {"line": len(text.splitlines()), "character": 0}
            whole = {"start": {"line": 0, "character": 0}, "end": end}
            client.request("textDocument/codeAction", {"textDocument": {"uri": uri}, "range": whole, "context": {"diagnostics": found}})
            client.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 1, "character": 3}})
            client.request("textDocument/completion", {"textDocument": {"uri": uri}, "position": end})
            assert "SGL109" in [d["code"] for d in found], (name, found)
    finally:
        server.stop()
    assert not marker.exists()
    started = [p for p in server.programs() if not (p.startswith("subprocess.Popen") and repr(sys.executable) in p)]
    assert started == []


# ---------------------------------------------------------------------------
# Workspace confinement fails closed
# ---------------------------------------------------------------------------


@pytest.fixture
def tree(tmp_path):
    """outer/ (a repository) holds a config ignoring SGL101, an sglang==0.5.4
    pin, a model and a --config YAML; outer/ws/ has a config of its own that
    ignores SGL109, a symlink ``up`` to outer/, and a second workspace
    outer/ws2/ has none."""
    outer = tmp_path / "outer"
    ws = outer / "ws"
    (outer / ".git").mkdir(parents=True)
    (outer / "model").mkdir()
    (outer / "ws2").mkdir()
    ws.mkdir()
    (outer / ".sgllint.toml").write_text('ignore = ["SGL101"]\n')
    (outer / "requirements.txt").write_text("sglang==0.5.4\n")
    (outer / "model" / "config.json").write_text(json.dumps({"architectures": [MARKER_ARCH], "model_type": "llama"}))
    (outer / "conf.yaml").write_text("tp-size: 2\nenable-metricz-marker: true\n")
    (ws / ".sgllint.toml").write_text('ignore = ["SGL109"]\n')
    (ws / "file.txt").write_text("not a directory\n")
    (ws / "up").symlink_to(outer, target_is_directory=True)
    return outer


def _launch(outer: Path) -> str:
    return f"#!/bin/sh\npython -m sglang.launch_server --model-path {outer / 'model'} --config {outer / 'conf.yaml'} --tp 2 --enable_metrics\n"


def _lint(client: Client, path: Path, text: str) -> list[str]:
    path.write_text(text)
    uri = path.as_uri()
    client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "shellscript", "version": 1, "text": text}})
    # the two findings a config would hide (whatever else a refused --config
    # or model path adds)
    codes = sorted(d["code"] for d in client.diagnostics(uri) if d["code"] in ("SGL101", "SGL109"))
    line = text.splitlines()[1]
    hover = client.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 1, "character": line.index("--tp") + 2}})
    assert MARKER_ARCH not in json.dumps(hover) and "0.5.4" not in json.dumps(hover)
    return codes


def _ws_uri(outer: Path, tail: str = "") -> str:
    return (outer / "ws").as_uri() + tail


def _odd_sessions(outer: Path):
    """(name, initialize params, what to send after initialize)."""
    ws = outer / "ws"
    ws_folder = {"uri": ws.as_uri(), "name": "ws"}
    return [
        ("initialize handler fails", {"rootUri": ws.as_uri(), "workspaceFolders": [ws_folder, {"uri": "file://[::1/x", "name": "x"}]}, []),
        ("no workspace named", {"rootUri": None}, []),
        ("non-file URI", {"rootUri": "vscode-vfs://github" + str(ws)}, []),
        ("'..' segment", {"rootUri": _ws_uri(outer, "/..")}, []),
        ("percent-encoded '..'", {"rootUri": _ws_uri(outer, "%2F..")}, []),
        ("root does not exist", {"rootUri": (ws / "gone").as_uri()}, []),
        ("root is a file", {"rootUri": (ws / "file.txt").as_uri()}, []),
        ("rootUri and workspaceFolders disagree", {"rootUri": outer.as_uri(), "workspaceFolders": [ws_folder]}, []),
        ("relative rootPath", {"rootUri": None, "rootPath": ".."}, []),
        ("symlinked root", {"rootUri": (ws / "up").as_uri()}, []),
        ("the file-system root", {"rootUri": "file:///"}, []),
        (
            "initialize sent twice",
            {"rootUri": ws.as_uri()},
            [{"jsonrpc": "2.0", "id": 99, "method": "initialize", "params": {"processId": None, "capabilities": {}, "rootUri": outer.as_uri()}}],
        ),
        (
            "a folder added later is odd",
            {"rootUri": ws.as_uri(), "workspaceFolders": [ws_folder]},
            [{"jsonrpc": "2.0", "method": "workspace/didChangeWorkspaceFolders", "params": {"event": {"added": [{"uri": _ws_uri(outer, "/.."), "name": "up"}], "removed": []}}}],
        ),
    ]


ODD_NAMES = [name for name, _, _ in _odd_sessions(Path("/x"))]


@pytest.mark.parametrize("name", ODD_NAMES)
def test_an_odd_workspace_lints_buffers_only(tree, tmp_path, name):
    """Whatever is odd about the workspace, the open document is linted from
    its text alone: neither the workspace's config (which would hide SGL109)
    nor anything above it (SGL101, the pin, the model) is read."""
    _, params, after = next(s for s in _odd_sessions(tree) if s[0] == name)
    server = Witnessed(tree / "ws", tmp_path / "witness")
    try:
        _initialize(server.client, params)
        for message in after:
            server.client.send(message)
        codes = _lint(server.client, tree / "ws" / "serve.sh", _launch(tree))
    finally:
        server.stop()
    assert codes == ["SGL101", "SGL109"], (codes, server.stderr[-3000:])
    read = [p for p in server.reads() if _inside(p, tmp_path) and not _inside(p, tmp_path / "witness")]
    assert read == [], server.stderr[-3000:]
    assert "linting open documents only, reading nothing from disk" in server.stderr


@pytest.mark.parametrize("folders", [["ws"], ["ws", "ws2"]])
def test_a_sound_workspace_is_read_and_nothing_above_it(tree, tmp_path, folders):
    """The control: one or several plain folders are read (the config in ws
    hides SGL109), nothing above them is."""
    params = {"rootUri": (tree / folders[0]).as_uri(), "workspaceFolders": [{"uri": (tree / f).as_uri(), "name": f} for f in folders]}
    server = Witnessed(tree / "ws", tmp_path / "witness")
    try:
        reply = _initialize(server.client, params)
        assert "error" not in reply
        codes = _lint(server.client, tree / "ws" / "serve.sh", _launch(tree))
        other = _lint(server.client, tree / "ws2" / "serve.sh", _launch(tree)) if "ws2" in folders else None
    finally:
        server.stop()
    assert codes == ["SGL101"]
    assert other in (None, ["SGL101", "SGL109"])  # ws2 has no config, and the one above it is not read
    read = server.reads()
    assert os.path.realpath(tree / "ws" / ".sgllint.toml") in read
    outside = [p for p in read if _inside(p, tmp_path) and not any(_inside(p, tree / f) for f in folders) and not _inside(p, tmp_path / "witness")]
    assert outside == []
    assert "reading nothing from disk" not in server.stderr


def test_a_document_outside_the_workspace_reads_no_workspace_file_either(tree, tmp_path):
    """A buffer from elsewhere whose launch names a file inside the
    workspace: linted from its text only, the workspace file is not read."""
    ws = tree / "ws"
    (ws / "conf.yaml").write_text("enable-metricz-marker: true\n")
    (ws / "model").mkdir()
    (ws / "model" / "config.json").write_text(json.dumps({"architectures": [MARKER_ARCH]}))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    text = f"#!/bin/sh\npython -m sglang.launch_server --model-path {ws / 'model'} --config {ws / 'conf.yaml'} --tp 2\n"
    server = Witnessed(ws, tmp_path / "witness")
    try:
        _initialize(server.client, {"rootUri": ws.as_uri()})
        assert _lint(server.client, elsewhere / "serve.sh", text) == ["SGL109"]
    finally:
        server.stop()
    read = server.reads()
    assert os.path.realpath(ws / "conf.yaml") not in read
    assert os.path.realpath(ws / "model" / "config.json") not in read


def test_workspace_policy(tree):
    """`workspace_roots` in-process, for every shape a client may send:
    plain folders are resolved, anything odd is refused with a reason."""
    from sgllint.hosts.lsp.confine import NoWorkspace, UncertainWorkspace, workspace_roots

    ws, ws2 = tree / "ws", tree / "ws2"
    real = os.path.realpath
    folder = lambda p: p.as_uri()  # noqa: E731
    assert workspace_roots(ws.as_uri(), None, []) == (real(ws),)
    assert workspace_roots(None, str(ws), []) == (real(ws),)
    assert workspace_roots(ws.as_uri(), str(ws) + "/", [folder(ws2), folder(ws)]) == tuple(sorted((real(ws), real(ws2))))
    assert workspace_roots(None, None, [folder(ws)]) == (real(ws),)
    spaced = tree / "a b%"
    spaced.mkdir()
    assert workspace_roots(spaced.as_uri(), None, []) == (real(spaced),)  # percent-encoding decoded
    with pytest.raises(NoWorkspace):
        workspace_roots(None, None, [])
    odd = [
        (ws.as_uri() + "/..", None, []),
        (ws.as_uri() + "/%2E%2E", None, []),
        (ws.as_uri() + "%2F..", None, []),
        (ws.as_uri() + "/./", None, []),
        ((ws / "gone").as_uri(), None, []),
        ((ws / "file.txt").as_uri(), None, []),
        ((ws / "up").as_uri(), None, []),
        ("file:///", None, []),
        ("file://otherhost" + str(ws), None, []),
        ("file://[::1" + str(ws), None, []),
        (ws.as_uri() + "?x=1", None, []),
        (ws.as_uri() + "%FF", None, []),
        (ws.as_uri() + "%00", None, []),
        ("vscode-vfs://github" + str(ws), None, []),
        ("untitled:Untitled-1", None, []),
        (None, "..", []),
        (None, "", []),
        (ws.as_uri(), str(tree), []),
        (tree.as_uri(), None, [folder(ws)]),
        (None, None, [folder(ws), "untitled:Untitled-1"]),
        (None, None, [folder(ws), 5]),
    ]
    for root_uri, root_path, folders in odd:
        with pytest.raises(UncertainWorkspace) as refused:
            workspace_roots(root_uri, root_path, folders)
        assert not isinstance(refused.value, NoWorkspace), (root_uri, root_path, folders)


# ---------------------------------------------------------------------------
# Malformed frames and messages
# ---------------------------------------------------------------------------


def _frame(body: bytes, header: bytes = None) -> bytes:
    return (header if header is not None else b"Content-Length: %d\r\n\r\n" % len(body)) + body


def _json(message) -> bytes:
    return json.dumps(message).encode("utf-8")


BAD_FRAMES = [
    ("non-numeric Content-Length", _frame(b'{"jsonrpc": "2.0", "method": "x"}', b"Content-Length: abc\r\n\r\n")),
    ("negative Content-Length", _frame(b'{"jsonrpc": "2.0", "method": "x"}', b"Content-Length: -5\r\n\r\n")),
    ("missing Content-Length", _frame(_json({"jsonrpc": "2.0", "id": 500, "method": "shutdown"}), b"Content-Type: application/json\r\n\r\n")),
    ("huge Content-Length", _frame(b'{"jsonrpc": "2.0", "method": "x"}', b"Content-Length: 99999999999999999999\r\n\r\n")),
    ("Content-Length past the body", _frame(b'{"jsonrpc": "2.0", "method": "x"}', b"Content-Length: 4000\r\n\r\n")),
    ("Content-Length short of the body", _frame(b'{"jsonrpc": "2.0", "method": "x"}', b"Content-Length: 3\r\n\r\n")),
    ("no header at all", b"hello\r\n\r\n" + b"x" * 20000),
    ("not JSON", _frame(b"{not json")),
    ("not UTF-8", _frame(b'{"jsonrpc": "2.0", "id": 501, "method": "\xff"}')),
    ("deeply nested JSON", _frame(b"[" * 100000 + b"]" * 100000)),
    ("a JSON array", _frame(b"[1, 2, 3]")),
    ("a JSON number", _frame(b"42")),
    ("unknown notification", _frame(_json({"jsonrpc": "2.0", "method": "sgllint/nothing", "params": {}}))),
    ("notification with params of the wrong shape", _frame(_json({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": [1, 2]}))),
    (
        "didChange of a document never opened",
        _frame(_json({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {"textDocument": {"uri": "file:///nowhere.sh", "version": 2}, "contentChanges": [{"text": "x"}]}})),
    ),
]

#: requests that must get an error reply with their id, not silence
BAD_REQUESTS = [
    ("unknown method", {"jsonrpc": "2.0", "id": 601, "method": "sgllint/nothing", "params": {}}, -32601),
    ("params of the wrong shape", {"jsonrpc": "2.0", "id": 602, "method": "textDocument/hover", "params": {"textDocument": 5}}, -32602),
    ("params a string", {"jsonrpc": "2.0", "id": 603, "method": "textDocument/completion", "params": "x"}, -32602),
    ("not JSON-RPC 2.0", {"jsonrpc": "1.0", "id": 604, "method": "textDocument/hover", "params": {}}, -32600),
]


def test_malformed_frames_and_messages_are_skipped_and_the_next_one_answered(tmp_path):
    """After each bad frame or message the server answers the next good
    request; a bad request gets an error reply; the log names each skip."""
    client = Client(tmp_path)
    try:
        _initialize(client, {"rootUri": tmp_path.as_uri()})
        text = f"{LAUNCH} --tp 2\n"
        uri = (tmp_path / "serve.sh").as_uri()
        client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "shellscript", "version": 1, "text": text}})
        assert [d["code"] for d in client.diagnostics(uri)] == ["SGL109"]
        hover = {"textDocument": {"uri": uri}, "position": {"line": 0, "character": len(LAUNCH) + 3}}
        for name, raw in BAD_FRAMES:
            client.proc.stdin.write(raw)
            client.proc.stdin.flush()
            answer = client.request("textDocument/hover", hover)
            assert "--tp" in answer["contents"]["value"], name
        for name, message, code in BAD_REQUESTS:
            client.send(message)
            reply = client.wait(lambda m, i=message["id"]: m.get("id") == i)
            assert reply["error"]["code"] == code, (name, reply)
            assert "--tp" in client.request("textDocument/hover", hover)["contents"]["value"], name
        client.request("shutdown", None)
        client.notify("exit", None)
        assert client.proc.wait(timeout=10) == 0
        stderr = client.proc.stderr.read().decode("utf-8", "replace")
    finally:
        client.close()
    for expected in (
        "bad Content-Length 'abc'",
        "bad Content-Length '-5'",
        "no Content-Length header",
        "Content-Length 99999999999999999999 is over",
        "Content-Length 4000 runs into the next message",
        "not JSON",
        "a JSON list, not an object",
        "a JSON int, not an object",
        "not JSON-RPC 2.0",
        "its parameters do not fit",
    ):
        assert expected in stderr, (expected, stderr[-3000:])


@pytest.mark.parametrize("chunk", [1, 7, 65536])
def test_frame_reader_skips_each_bad_frame_and_keeps_the_good_ones(chunk):
    """In-process, with the stream cut into chunks of every size: after each
    bad frame the reader stands at the next good one, memory stays bounded."""
    import io

    from sgllint.hosts.lsp.frames import FrameReader

    good = [_json({"id": i}) for i in range(len(BAD_FRAMES) + 1)]
    stream = io.BytesIO(b"".join(_frame(good[i]) + raw for i, (_, raw) in enumerate(BAD_FRAMES)) + _frame(good[-1]))
    reader = FrameReader(lambda n: stream.read(min(n, chunk)))
    bodies = []
    while (body := reader.next_body()) is not None:
        bodies.append(body)
    # the bodies that frame well but are not messages reach the dispatcher
    assert [b for b in bodies if b.startswith(b'{"id"')] == good
    assert len(reader._buf) == 0


# ---------------------------------------------------------------------------
# Bounded output, linear scanners
# ---------------------------------------------------------------------------


def test_published_diagnostics_are_capped_with_a_summary(tmp_path):
    """One line with 2,000 flags, every one a finding: the editor gets the
    first thousand and one summary, not a publish that grows with the line
    (8,000 such flags made 1.9 GB of ``full`` output)."""
    (tmp_path / ".sgllint.toml").write_text('sglang-version = "0.5.23"\n')
    client = Client(tmp_path)
    try:
        _initialize(client, {"rootUri": tmp_path.as_uri()})
        text = LAUNCH + " --tp 1" * 1000 + "\n"
        uri = _open(client, tmp_path / "serve.sh", text, "shellscript")
        diags = client.diagnostics(uri)
        # the code actions for the whole line stay bounded too
        line = {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": len(text) - 1}}
        actions = client.request("textDocument/codeAction", {"textDocument": {"uri": uri}, "range": line, "context": {"diagnostics": []}})
    finally:
        client.close()
    assert len(diags) == 1001  # sgllint.hosts.lsp.server.MAX_PUBLISHED and the summary
    summary = diags[-1]
    assert summary["severity"] == 3 and "code" not in summary
    assert summary["message"].startswith("999 more sgllint findings in this file are not shown")
    assert summary["range"]["start"]["character"] >= diags[-2]["range"]["start"]["character"]  # where the hidden ones begin
    assert len(json.dumps(diags)) < 1_000_000
    assert 0 < len(actions) <= 3 * 25  # three actions each for sgllint.hosts.lsp.server.MAX_ACTION_DIAGNOSTICS


def test_completion_on_a_megabyte_line_answers(tmp_path):
    """The completion scanners are linear: a value holding a 1 MB run of
    dashes that ends in a character no flag has (the worst case for the old
    ``(--[\\w-]+)[\\s"',]+$``: minutes at 10 KB, days at 1 MB) still gets
    an answer, and so does the next request."""
    (tmp_path / ".sgllint.toml").write_text('sglang-version = "0.5.23"\n')
    client = Client(tmp_path)
    try:
        _initialize(client, {"rootUri": tmp_path.as_uri()})
        line = f'{LAUNCH} --served-model-name "a' + "-" * 1_000_000 + '." '
        uri = _open(client, tmp_path / "serve.sh", line + "\n", "shellscript")
        assert client.diagnostics(uri) == []
        result = client.request("textDocument/completion", {"textDocument": {"uri": uri}, "position": {"line": 0, "character": len(line)}})
        assert result is None  # no flag before the cursor: nothing to offer, but an answer
        hover = client.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 0, "character": len(LAUNCH) + 4}})
        assert "--served-model-name" in hover["contents"]["value"]
    finally:
        client.close()


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet="--a_ \"',\n.=1\u00e9\u00a0\u2028", max_size=16))
def test_flag_before_the_cursor_is_what_the_old_regex_found(text):
    from sgllint.hosts.lsp.complete import flag_before as _flag_before

    found = re.search(r"(--[\w-]+)[\s\"',]+$", text)
    assert _flag_before(text, len(text)) == (found.group(1) if found else None)


# ---------------------------------------------------------------------------
# Deep nesting
# ---------------------------------------------------------------------------


def test_deeply_nested_python_does_not_kill_the_server(tmp_path):
    """~2,000 nested brackets (a native-stack overflow in the parser) get
    SGL000 for that document; the server lives on and lints the next one."""
    (tmp_path / ".sgllint.toml").write_text('sglang-version = "0.5.23"\n')
    client = Client(tmp_path)
    try:
        _initialize(client, {"rootUri": tmp_path.as_uri()})
        deep = "import subprocess\nsubprocess.run(" + "[" * 2000 + "]" * 2000 + ")\n" + f'subprocess.run("{LAUNCH} --tp 2".split())\n'
        uri = _open(client, tmp_path / "deep.py", deep, "python")
        assert "SGL000" in [d["code"] for d in client.diagnostics(uri)]
        after = _open(client, tmp_path / "serve.sh", f"{LAUNCH} --tp 2\n", "shellscript")
        assert [d["code"] for d in client.diagnostics(after)] == ["SGL109"]
    finally:
        client.close()
