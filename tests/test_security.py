"""sgllint never imports or executes the code it lints, never touches the
network, safe-loads YAML and caps what it reads from model ``config.json``
files. Every test here runs the CLI in process (`sgllint.hosts.cli.main`) with
sockets blocked."""

from __future__ import annotations

import builtins
import re
import socket
import sys
from pathlib import Path

import pytest

from sgllint.hosts import cli
from sgllint.resolve import modelinfo

ROOT = Path(__file__).resolve().parent.parent


class NetworkBlocked(AssertionError):
    pass


@pytest.fixture(autouse=True)
def no_network(monkeypatch):
    def refuse(*args, **kwargs):
        raise NetworkBlocked("sgllint tried to use the network")

    class BlockedSocket(socket.socket):  # a class, so modules may still subclass it (ssl)
        def __init__(self, *args, **kwargs):
            refuse()

    monkeypatch.setattr(socket, "socket", BlockedSocket)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    monkeypatch.setattr(socket, "gethostbyname", refuse)


def _check(capsys, *args) -> tuple[int, str, str]:
    code = cli.main(["check", "--output-format", "concise", "--no-cache", "--jobs", "1", *args])
    out, err = capsys.readouterr()
    assert "NetworkBlocked" not in err and "Traceback" not in err, err
    return code, out, err


def test_the_examples_lint_without_network(capsys):
    code, out, _ = _check(capsys, str(ROOT / "examples"))
    assert code == 1 and "SGL" in out


def test_linted_code_is_never_imported_or_run(tmp_path, capsys, monkeypatch):
    marker = tmp_path / "MARKER"
    py = tmp_path / "evil_module_sgllint_test.py"
    py.write_text(
        "import os, subprocess, sys\n"
        f"open({str(marker)!r} + '.py', 'w').write('imported')\n"
        f"os.system('touch {marker}.system')\n"
        "import sglang as sgl\n"
        "sgl.Engine(model_path='m', enable_metric=True)\n"
        "subprocess.Popen([sys.executable, '-m', 'sglang.launch_server', '--model-path', 'm', '--enable_metrics'])\n"
    )
    sh = tmp_path / "evil.sh"
    sh.write_text(
        f"touch {marker}.sh\n"
        f"python -m sglang.launch_server --model-path \"$(touch {marker}.subst)\" --tp `touch {marker}.tick` \\\n"
        f"  --port $((1+$(touch {marker}.arith; echo 1)))\n"
        f"bash -c 'touch {marker}.bashc; python -m sglang.launch_server --model-path m'\n"
    )
    yml = tmp_path / "evil.yaml"
    yml.write_text(
        f"boom: !!python/object/apply:os.system ['touch {marker}.yaml']\n"
        f"also: !!python/object/new:subprocess.Popen [['touch', '{marker}.yaml2']]\n"
        "spec:\n  containers:\n    - command: [python3, -m, sglang.launch_server]\n      args: [--model-path, m, --enable_metrics]\n"
    )
    cfg = tmp_path / "cfg.yaml"
    cfg.write_text(f"model-path: m\ntp-size: !!python/object/apply:os.system ['touch {marker}.config']\n")
    (tmp_path / "uses_config.sh").write_text(f"python -m sglang.launch_server --config {cfg}\n")
    md = tmp_path / "README.md"
    md.write_text(f"```python\nopen({str(marker)!r} + '.md', 'w')\nimport sglang\nsglang.Engine(model_path='m')\n```\n")
    monkeypatch.chdir(tmp_path)
    code, out, err = _check(capsys, str(tmp_path))
    assert code == 1, (out, err)
    assert "evil_module_sgllint_test" not in sys.modules
    assert sorted(p.name for p in tmp_path.glob("MARKER*")) == [], "linted code ran"
    for name in ("evil_module_sgllint_test.py", "evil.sh", "evil.yaml"):
        assert name in out, out  # every file was really linted


def test_yaml_is_only_ever_safe_loaded():
    """No unsafe PyYAML entry point anywhere in sgllint."""
    unsafe = re.compile(r"yaml\.(?:load|load_all|unsafe_load|full_load|unsafe_load_all|full_load_all)\s*\(|Loader\s*=\s*yaml\.(?:Loader|UnsafeLoader|FullLoader)|\byaml\.(?:Unsafe|Full)?Loader\b")
    offenders = []
    for p in sorted((ROOT / "sgllint").rglob("*.py")) + sorted((ROOT / "rules").rglob("*.py")):
        for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1):
            if unsafe.search(line):
                offenders.append(f"{p.relative_to(ROOT)}:{i}: {line.strip()}")
    assert offenders == []


def test_python_tags_are_refused_not_constructed(tmp_path, capsys):
    import yaml

    constructed = []
    original = yaml.constructor.FullConstructor.construct_python_object_apply

    def spy(self, *args, **kwargs):  # pragma: no cover - must never run
        constructed.append(args)
        return original(self, *args, **kwargs)

    yaml.constructor.FullConstructor.construct_python_object_apply = spy
    try:
        f = tmp_path / "k8s.yaml"
        f.write_text("x: !!python/object/apply:os.getcwd []\ncommand: [python3, -m, sglang.launch_server, --model-path, m]\n")
        _check(capsys, str(f))
    finally:
        yaml.constructor.FullConstructor.construct_python_object_apply = original
    assert constructed == []


def test_huge_config_json_is_not_read(tmp_path, capsys, monkeypatch):
    model = tmp_path / "model"
    model.mkdir()
    big = model / "config.json"
    with open(big, "w") as f:
        f.write('{"architectures": ["DeepseekV3ForCausalLM"], "pad": "')
        f.write("x" * (10 * 1024 * 1024))
        f.write('"}')
    assert big.stat().st_size > modelinfo.MAX_CONFIG_BYTES
    (tmp_path / "serve.sh").write_text("python -m sglang.launch_server --model-path ./model --attention-backend fa3 --enable-deterministic-inference\n")
    opened = []
    real_open = builtins.open

    def spy(file, *args, **kwargs):
        if str(file).endswith("config.json"):
            opened.append(str(file))
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", spy)
    monkeypatch.setattr(Path, "read_text", lambda self, *a, **k: (opened.append(str(self)) if self.name == "config.json" else None) or real_open(self, encoding=k.get("encoding", "utf-8"), errors=k.get("errors")).read())
    monkeypatch.chdir(tmp_path)
    _check(capsys, "--show-context", str(tmp_path / "serve.sh"))
    assert opened == [], f"read a {big.stat().st_size}-byte config.json"
    assert modelinfo.read_config_json(big) is None


def test_lsp_reads_only_given_documents():
    pytest.importorskip("pygls", reason="sgllint lsp needs pygls: the LSP's file-access test runs where it is installed")
    from sgllint.hosts.lsp import server as lsp  # noqa: F401

    # The server lints the text the client sent (workspace.get_text_document)
    # and reads configuration only through sgllint.engine.config's discovery.
    source = (ROOT / "sgllint" / "hosts" / "lsp" / "server.py").read_text(encoding="utf-8")
    assert "urlopen" not in source and "requests" not in source
