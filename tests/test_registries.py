"""Adding an input format or an output format is one module plus one registry
line: a toy format (tests/toy_format.py) and a toy output format
(tests/toy_output.py), registered here at run time, work end to end through
the CLI, the language server and the pre-commit hooks, and nothing else in
sgllint names a format."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
import yaml

from sgllint import output
from sgllint.formats import registry
from sgllint.hosts import cli
from tests import toy_format

ROOT = Path(__file__).resolve().parent.parent
BAD = "# a toy file\npython -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct --tp-sizee 2\n"
AT = BAD.splitlines()[1].index("--tp-sizee")  # 0-based column of the finding, on line 2


@pytest.fixture
def toy():
    registry.register(toy_format.TOY)
    output.register("toy", "tests.toy_output")
    yield
    registry.unregister("toy")
    output.unregister("toy")


@pytest.fixture
def project(tmp_path, monkeypatch):
    (tmp_path / ".sgllint.toml").write_text('sglang-version = "0.5.23"\n')
    (tmp_path / "serve.toy").write_text(BAD)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_the_toy_format_through_the_cli(toy, project, capsys):
    assert cli.main(["check", "--no-cache", "--output-format", "json", "."]) == 1  # found by the walk
    (d,) = json.loads(capsys.readouterr().out)
    assert (d["code"], d["path"], d["line"], d["column"]) == ("SGL101", "serve.toy", 2, AT + 1)
    # the format's comments reach suppression
    (project / "serve.toy").write_text(BAD.replace("2\n", "2  # sgllint: ignore[SGL101]\n"))
    assert cli.main(["check", "--no-cache", "serve.toy"]) == 0


def test_the_toy_formats_byte_shapes_drive_the_prefilter(toy, project, capsys):
    """The prefilter's shapes are the registry line's: a file without them is
    rejected unread (reported clean), one with them is parsed."""
    from dataclasses import replace

    from sgllint.engine.prefilter import may_launch
    from sgllint.formats.shapes import Shapes

    assert may_launch("toy", BAD.encode()) and may_launch("toy", BAD)
    assert not may_launch("toy", b"# sglang, mentioned\nlaunch_router\n")
    registry.register(replace(toy_format.TOY, shapes=Shapes(((rb"launch_router", False),))))
    assert not may_launch("toy", BAD.encode())
    assert cli.main(["check", "--no-cache", "--output-format", "json", "serve.toy"]) == 0
    assert json.loads(capsys.readouterr().out) == []
    registry.register(replace(toy_format.TOY, shapes=None))  # no shapes: the word sglang suffices
    assert may_launch("toy", b"sglang") and not may_launch("toy", b"launch_server")


def test_without_its_registry_line_the_toy_file_is_not_linted(project, capsys):
    assert registry.detect_format("serve.toy") is None
    assert cli.main(["check", "--no-cache", "--output-format", "json", "."]) == 0
    assert json.loads(capsys.readouterr().out) == []


def test_the_toy_output_through_the_cli(toy, project, capsys):
    assert cli.main(["check", "--no-cache", "--output-format", "toy", "--output", "toy:report.txt", "serve.toy"]) == 1
    assert capsys.readouterr().out == "SGL101@serve.toy:2\n"
    assert (project / "report.txt").read_text() == "SGL101@serve.toy:2\n"


def test_the_toy_format_through_the_language_server(project):
    """A server process whose registry has the toy line (its only change)
    publishes the toy file's finding and offers the ignore comment in the
    toy's own comment syntax."""
    from tests.test_lsp import Client, initialize, open_doc

    pytest.importorskip("pygls")
    boot = (
        "import sys; from tests import toy_format; from sgllint.formats import registry; "
        "registry.register(toy_format.TOY); from sgllint.hosts.cli import main; sys.exit(main(['lsp']))"
    )
    client = Client(project, [sys.executable, "-c", boot])
    try:
        initialize(client, project)
        uri = open_doc(client, project / "serve.toy", BAD, "toy")
        (d,) = client.diagnostics(uri)
        assert d["code"] == "SGL101" and d["range"]["start"] == {"line": 1, "character": AT}
        actions = client.request(
            "textDocument/codeAction",
            {"textDocument": {"uri": uri}, "range": d["range"], "context": {"diagnostics": [d]}},
        )
        ignore = next(a for a in actions if a["title"] == "Ignore SGL101 on this line")
        (edit,) = ignore["edit"]["changes"][uri]
        assert edit["newText"].strip() == "# sgllint: ignore[SGL101]"
    finally:
        client.close()


def test_the_toy_format_through_the_pre_commit_hooks(toy, project, capsys):
    """Each hook of .pre-commit-hooks.yaml selects the toy file by its
    pre-commit types (identify's tags of the real file) and its entry, run on
    the file as pre-commit runs it, reports the finding: a format needs no
    line in the hooks."""
    identify = pytest.importorskip("identify.identify")
    tags = identify.tags_from_path(str(project / "serve.toy"))
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    for hook in hooks:
        assert set(hook.get("types", ())) <= tags, hook["id"]
        assert not hook.get("types_or") or set(hook["types_or"]) & tags, hook["id"]
        (project / "serve.toy").write_text(BAD)
        entry = hook["entry"].split()
        assert entry[0] == "sgllint"
        assert cli.main([*entry[1:], "--no-cache", "serve.toy"]) == 1, hook["id"]
        assert "serve.toy:2:" in capsys.readouterr().out


def test_the_language_server_and_the_hooks_read_only_the_registry():
    """No host keeps its own list of formats (the registry's names appear in
    no other module's tables)."""
    lsp = (ROOT / "sgllint" / "hosts" / "lsp" / "server.py").read_text(encoding="utf-8")
    assert '"shellscript"' not in lsp and "LANGUAGE_FORMATS" not in lsp
    assert all(registry.format_of_language(lang) == f.name for f in registry.FORMATS.values() for lang in f.languages)
    assert os.path.basename(registry.EXTRACTORS["shell"].split(":")[0].replace(".", "/")) == "extractor"
