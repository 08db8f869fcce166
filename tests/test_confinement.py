"""Files a launch references are read only inside the project root (issue
15, finding 2).

A launch names other files - ``--config server.yaml``, a local model
directory - and sgllint looks for ``sglang==`` pins around it. The linted
text may be a stranger's pull request: a referenced file that resolves
(after symlinks and ``..``) outside the project root is never opened unless
the user passes ``--allow-outside PATH``; the launch gets SGL115 at the
reference instead. Every CLI test runs the real CLI in a subprocess under an
audit hook that records each file it opens and each directory it lists.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from sgllint.engine.config import Config, ConfigError, parse_table
from sgllint.engine.pipeline import Options, lint_file
from sgllint.model.kinds import Provenance
from sgllint.resolve import context

ROOT = Path(__file__).resolve().parent.parent
SECRET = "SECRET-TOKEN-123"

#: runs ``sgllint.hosts.cli.main(argv[2:])`` and writes every path it opened or
#: listed (absolute, symlinks resolved) as JSON to argv[1]
AUDITED = r"""
import json, os, sys
seen = []
def hook(event, args):
    if event in ("open", "os.listdir", "os.scandir") and args and isinstance(args[0], (str, bytes)):
        seen.append(os.path.realpath(os.fsdecode(args[0])))
sys.addaudithook(hook)
from sgllint.hosts.cli import main
from sgllint.model.kinds import Provenance
try:
    code = main(sys.argv[2:])
finally:
    paths = list(seen)
    with open(sys.argv[1], "w") as f:
        json.dump(paths, f)
sys.exit(code)
"""


def run_audited(tmp_path, *args, cwd, env=None, timeout=120):
    """(completed process, realpaths the CLI opened or listed)."""
    log = tmp_path / "opened.json"
    environ = dict(os.environ, **(env or {}))
    environ["PYTHONPATH"] = str(ROOT) + os.pathsep + environ.get("PYTHONPATH", "")
    proc = subprocess.run(
        [sys.executable, "-c", AUDITED, str(log), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=environ,
        timeout=timeout,
    )
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc, json.loads(log.read_text())


def touched_under(opened, directory: Path) -> list[str]:
    base = os.path.realpath(directory)
    return [p for p in opened if p == base or p.startswith(base + os.sep)]


@pytest.fixture
def tree(tmp_path):
    """``outside/`` (a secret config, a model directory, a pin) beside the
    project ``proj/`` (a git work tree)."""
    outside = tmp_path / "outside"
    (outside / "model").mkdir(parents=True)
    (outside / "secret.yaml").write_text(f"model-path: m\nbogus-flag: {SECRET}\ntp: 2\n")
    (outside / "model" / "config.json").write_text(json.dumps({"architectures": ["DeepseekV3ForCausalLM"], "kv_lora_rank": 512}))
    (outside / "requirements.txt").write_text("sglang==0.5.4\n")
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    (proj / "sub").mkdir()
    return tmp_path


def launch(proj: Path, reference: str, name="launch.sh") -> Path:
    script = proj / name
    script.write_text(f"python -m sglang.launch_server --config {reference} --port 30000\n")
    return script


def check_json(tree, *args, **kw):
    proc, opened = run_audited(tree, "check", "--no-cache", "--no-environment", "--output-format", "json", *args, cwd=tree / "proj", **kw)
    return proc, json.loads(proc.stdout or "[]"), opened


# ---------------------------------------------------------------------------
# --config outside the root
# ---------------------------------------------------------------------------


def _references(tree):
    return {
        "parent": "../outside/secret.yaml",
        "absolute": str(tree / "outside" / "secret.yaml"),
        "dotdot-through-a-subdirectory": "sub/../../outside/secret.yaml",
        "symlink-inside-the-root": "link.yaml",
        "symlinked-directory": "linkdir/secret.yaml",
    }


@pytest.mark.parametrize("kind", ["parent", "absolute", "dotdot-through-a-subdirectory", "symlink-inside-the-root", "symlinked-directory"])
def test_config_outside_the_project_is_not_read(tree, kind):
    proj = tree / "proj"
    os.symlink(tree / "outside" / "secret.yaml", proj / "link.yaml")
    os.symlink(tree / "outside", proj / "linkdir")
    reference = _references(tree)[kind]
    launch(proj, reference)
    proc, opened = run_audited(tree, "check", "--no-cache", "--output-format", "full", "launch.sh", cwd=proj)
    assert SECRET not in proc.stdout + proc.stderr
    assert touched_under(opened, tree / "outside") == []
    assert "SGL115" in proc.stdout and "outside the project: not read" in proc.stdout
    assert proc.returncode == 0, proc.stdout  # info: a container's --config /etc/... does not fail the run

    _, diagnostics, _ = check_json(tree, "launch.sh")
    (found,) = [d for d in diagnostics if d["code"] == "SGL115"]
    column = f"python -m sglang.launch_server --config {reference}".index(reference) + 1
    assert (found["path"], found["line"], found["column"], found["severity"]) == ("launch.sh", 1, column, "info")
    assert found["name"] == "reference-outside-project" and "--allow-outside" in found["message"]
    assert [d["code"] for d in diagnostics] == ["SGL115"]  # the opaque launch: nothing guessed about its args


def test_container_config_path_is_an_info_not_a_failure(tree):
    proj = tree / "proj"
    launch(proj, "/etc/sglang/server.yaml")
    proc, diagnostics, opened = check_json(tree, "launch.sh")
    assert proc.returncode == 0 and [d["code"] for d in diagnostics] == ["SGL115"]
    assert not any(p.startswith("/etc/sglang") for p in opened)


def test_allow_outside_reads_it(tree):
    proj = tree / "proj"
    launch(proj, "../outside/secret.yaml")
    proc, diagnostics, opened = check_json(tree, "--allow-outside", "../outside", "launch.sh")
    codes = sorted({d["code"] for d in diagnostics})
    assert "SGL115" not in codes and "SGL101" in codes, diagnostics
    assert touched_under(opened, tree / "outside")


def test_allow_outside_names_one_file(tree):
    proj = tree / "proj"
    launch(proj, "../outside/secret.yaml")
    (tree / "outside" / "other.yaml").write_text("model-path: m\n")
    _, diagnostics, _ = check_json(tree, "--allow-outside", "../outside/secret.yaml", "launch.sh")
    assert "SGL115" not in {d["code"] for d in diagnostics}
    launch(proj, "../outside/other.yaml")
    _, diagnostics, opened = check_json(tree, "--allow-outside", "../outside/secret.yaml", "launch.sh")
    assert [d["code"] for d in diagnostics] == ["SGL115"]
    assert touched_under(opened, tree / "outside" / "other.yaml") == []


def test_allow_outside_in_a_discovered_configuration_is_not_honoured(tree):
    """The linted tree (a stranger's pull request) must not widen what
    sgllint reads: `allow-outside` in a configuration found in the tree is
    refused with a warning; the same file named with --config is the user's
    choice and honoured."""
    proj = tree / "proj"
    launch(proj, "../outside/secret.yaml")
    (proj / ".sgllint.toml").write_text('allow-outside = ["../outside"]\n')
    proc, diagnostics, opened = check_json(tree, "launch.sh")
    assert [d["code"] for d in diagnostics] == ["SGL115"]
    assert touched_under(opened, tree / "outside") == []
    assert "'allow-outside' is not honoured" in proc.stderr
    _, diagnostics, _ = check_json(tree, "--config", str(proj / ".sgllint.toml"), "launch.sh")
    assert "SGL101" in {d["code"] for d in diagnostics} and "SGL115" not in {d["code"] for d in diagnostics}


def test_a_discovered_configuration_extends_only_inside_its_repository(tree):
    """`extend` of a configuration found in the tree may not read a file of
    the machine (its content would be echoed in the TOML error)."""
    proj = tree / "proj"
    (proj / ".git").mkdir(exist_ok=True)
    launch(proj, "m.yaml")
    (tree / "outside" / "base.toml").write_text("AKIA_SECRET = 1\n")
    (proj / ".sgllint.toml").write_text('extend = "../outside/base.toml"\n')
    proc, _, opened = check_json(tree, "launch.sh")
    assert proc.returncode == 2
    assert "'extend' leads outside the project" in proc.stderr and "AKIA_SECRET" not in proc.stderr
    assert touched_under(opened, tree / "outside") == []
    (proj / "base.toml").write_text('ignore = ["SGL101"]\n')
    (proj / ".sgllint.toml").write_text('extend = "base.toml"\n')
    proc, _, _ = check_json(tree, "launch.sh")
    assert proc.returncode in (0, 1), proc.stderr


def test_allow_outside_config_key_is_validated():
    with pytest.raises(ConfigError, match="'allow-outside' must be a list of strings"):
        parse_table({"allow-outside": [1]}, None)
    config = parse_table({"allow-outside": ["../shared", "/etc/sglang"]}, Path("/w/proj/.sgllint.toml"))
    assert config.allow_outside == (Path("/w/shared"), Path("/etc/sglang"))


def test_project_root_option_widens_the_root(tree):
    proj = tree / "proj"
    launch(proj, "../outside/secret.yaml")
    _, diagnostics, _ = check_json(tree, "--project-root", "..", "launch.sh")
    assert "SGL101" in {d["code"] for d in diagnostics} and "SGL115" not in {d["code"] for d in diagnostics}


def test_project_root_option_narrows_the_root(tree):
    proj = tree / "proj"
    (proj / "shared.yaml").write_text("model-path: m\nbogus-flag: 1\n")
    launch(proj / "sub", "../shared.yaml")
    _, diagnostics, _ = check_json(tree, "sub/launch.sh")
    assert {d["code"] for d in diagnostics} == {"SGL101"}
    _, diagnostics, opened = check_json(tree, "--project-root", "sub", "sub/launch.sh")
    assert [d["code"] for d in diagnostics] == ["SGL115"]
    assert touched_under(opened, proj / "shared.yaml") == []


def test_inside_the_root_is_read_as_before(tree):
    proj = tree / "proj"
    (proj / "sub" / "server.yaml").write_text("model-path: m\nbogus-flag: 1\n")
    launch(proj, "sub/server.yaml")
    _, diagnostics, _ = check_json(tree, "launch.sh")
    assert [(d["code"], d["path"]) for d in diagnostics] == [("SGL101", "sub/server.yaml")]


def test_fix_never_writes_outside_even_when_reading_is_allowed(tree):
    proj = tree / "proj"
    launch(proj, "../outside/secret.yaml")
    secret = tree / "outside" / "secret.yaml"
    before = secret.read_bytes()
    proc, _ = run_audited(tree, "check", "--no-cache", "--fix", "launch.sh", cwd=proj)
    assert secret.read_bytes() == before
    proc, _ = run_audited(tree, "check", "--no-cache", "--fix", "--allow-outside", "../outside", "launch.sh", cwd=proj)
    assert secret.read_bytes() == before
    assert "outside the project" in proc.stderr and "secret.yaml" in proc.stderr


# ---------------------------------------------------------------------------
# The project root
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("marker", "content"),
    [(".git", None), (".git", "gitdir: /elsewhere/.git/worktrees/x\n"), (".sgllint.toml", ""), ("sgllint.toml", ""),
     ("pyproject.toml", "[tool.sgllint]\nselect = ['ALL']\n")],
)
def test_root_is_the_nearest_marked_ancestor(tmp_path, marker, content):
    from sgllint.resolve import project

    top = tmp_path / "top"
    deep = top / "a" / "b"
    deep.mkdir(parents=True)
    if content is None:
        (top / marker).mkdir()
    else:
        (top / marker).write_text(content)
    (deep / "serve.sh").write_text("x\n")
    assert project.find_root(deep / "serve.sh") == top.resolve()
    assert project.find_root(deep) == top.resolve()
    assert project.find_root(top) == top.resolve()


def test_pyproject_without_sgllint_table_is_no_marker(tmp_path):
    from sgllint.resolve import project

    (tmp_path / ".git").mkdir()
    sub = tmp_path / "pkg"
    sub.mkdir()
    (sub / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    assert project.find_root(sub / "serve.sh") == tmp_path.resolve()


def test_without_a_marker_the_root_is_the_given_directory(tmp_path):
    from sgllint.resolve import project

    deep = tmp_path / "a" / "b"
    deep.mkdir(parents=True)
    (deep / "serve.sh").write_text("x\n")
    assert not any((p / ".git").exists() for p in deep.resolve().parents)  # the test's premise
    assert project.find_root(deep / "serve.sh") == deep.resolve()
    assert project.find_root(tmp_path / "a") == (tmp_path / "a").resolve()


def test_scope_resolves_links_and_dotdot_without_leaving_the_root(tmp_path):
    from sgllint.resolve import project

    root = tmp_path / "root"
    (root / "d").mkdir(parents=True)
    (tmp_path / "out.yaml").write_text("x")
    (root / "in.yaml").write_text("x")
    os.symlink(tmp_path / "out.yaml", root / "out-link.yaml")
    os.symlink(root / "in.yaml", root / "d" / "in-link.yaml")
    os.symlink("loop", root / "loop")
    scope = project.Scope.of(root)
    assert scope.locate("in.yaml", root) == str((root / "in.yaml").resolve())
    assert scope.locate("d/in-link.yaml", root) == str((root / "in.yaml").resolve())
    assert scope.locate("d/../in.yaml", root) == str((root / "in.yaml").resolve())
    assert scope.locate("missing.yaml", root) == str(root.resolve() / "missing.yaml")
    for outside in ("out-link.yaml", "../out.yaml", str(tmp_path / "out.yaml"), "d/../../out.yaml", "loop", "/etc/passwd"):
        assert scope.locate(outside, root) is None, outside
    allowed = project.Scope.of(root, allow=(tmp_path / "out.yaml",))
    assert allowed.locate("out-link.yaml", root) == str((tmp_path / "out.yaml").resolve())


# ---------------------------------------------------------------------------
# Pins, model directories and the Hugging Face cache
# ---------------------------------------------------------------------------

PIN_LAUNCH = "python -m sglang.launch_server --model-path m --tp-size 2\n"


def _version_source(script: Path, **config) -> tuple[str, str]:
    context._project_pin_in.cache_clear()
    result = lint_file(str(script), Options(use_environment=False, config=Config(**config)))
    version = result.launches[0].context.version
    return version.value, version.source


def test_pin_above_the_root_is_not_read(tree, capsys):
    (tree / "requirements.txt").write_text("sglang==0.5.4\n")
    proj = tree / "proj"
    os.rmdir(proj / ".git")  # no marker anywhere: the root is the directory given
    (proj / "serve.sh").write_text(PIN_LAUNCH)
    proc, opened = run_audited(tree, "check", "--no-cache", "--show-context", "--output-format", "concise", ".", cwd=proj)
    assert "default (newest catalog)" in proc.stdout and "project pin" not in proc.stdout
    assert str(tree / "requirements.txt") not in opened


def test_pin_inside_the_root_is_read(tree):
    proj = tree / "proj"
    (proj / "requirements.txt").write_text("sglang==0.5.4\n")
    (proj / "sub" / "serve.sh").write_text(PIN_LAUNCH)
    assert _version_source(proj / "sub" / "serve.sh") == ("0.5.4", "project pin")


def test_symlinked_pin_leading_outside_is_not_read(tree):
    proj = tree / "proj"
    os.symlink(tree / "outside" / "requirements.txt", proj / "requirements.txt")
    (proj / "serve.sh").write_text(PIN_LAUNCH)
    proc, opened = run_audited(tree, "check", "--no-cache", "--show-context", "--output-format", "concise", "serve.sh", cwd=proj)
    assert "project pin" not in proc.stdout
    assert touched_under(opened, tree / "outside") == []


def test_model_directory_outside_is_not_read(tree):
    proj = tree / "proj"
    (proj / "serve.sh").write_text("python -m sglang.launch_server --model-path ../outside/model --tp-size 2\n")
    proc, opened = run_audited(tree, "check", "--no-cache", "--show-context", "--output-format", "json", "serve.sh", cwd=proj)
    assert "DeepseekV3ForCausalLM" not in proc.stdout + proc.stderr  # the context goes to stderr with json
    assert touched_under(opened, tree / "outside") == []
    (found,) = [d for d in json.loads(proc.stdout[proc.stdout.index("["):]) if d["code"] == "SGL115"]
    assert found["column"] == len("python -m sglang.launch_server --model-path ") + 1 and "config.json" in found["message"]
    proc, _ = run_audited(tree, "check", "--no-cache", "--show-context", "--allow-outside", "../outside", "serve.sh", cwd=proj)
    assert "arch DeepseekV3ForCausalLM from local config.json" in proc.stdout and "SGL115" not in proc.stdout


def test_absolute_model_directory_outside_is_named_in_the_context_only(tree):
    """An absolute model path names the serving machine's disk: not read, no
    diagnostic, and ``--show-context`` says why the architecture is unknown."""
    proj = tree / "proj"
    model = tree / "outside" / "model"
    (proj / "serve.sh").write_text(f"python -m sglang.launch_server --model-path {model} --tp-size 2\n")
    proc, opened = run_audited(tree, "check", "--no-cache", "--show-context", "--output-format", "concise", "serve.sh", cwd=proj)
    assert f"arch unknown ({model} is outside the project: not read" in proc.stdout
    assert "SGL115" not in proc.stdout and touched_under(opened, tree / "outside") == []


def test_model_directory_inside_is_read(tree):
    proj = tree / "proj"
    (proj / "models" / "m1").mkdir(parents=True)
    (proj / "models" / "m1" / "config.json").write_text(json.dumps({"architectures": ["Qwen2ForCausalLM"]}))
    (proj / "serve.sh").write_text("python -m sglang.launch_server --model-path models/m1 --tp-size 2\n")
    (launch,) = lint_file(str(proj / "serve.sh"), Options(use_environment=False)).launches
    assert (launch.context.arch, launch.context.architecture.source) == ("Qwen2ForCausalLM", "local config.json")


def test_unknown_model_outside_known_to_the_registry_needs_no_diagnostic(tree):
    proj = tree / "proj"
    (proj / "serve.sh").write_text("python -m sglang.launch_server --model-path /models/DeepSeek-V3 --tp-size 8\n")
    result = lint_file(str(proj / "serve.sh"), Options(use_environment=False))
    assert [d.code for d in result.diagnostics] == []
    assert result.launches[0].context.architecture.source is Provenance.REGISTRY


def test_hugging_face_cache_is_read_only_when_allowed(tree, monkeypatch):
    snap = tree / "hub" / "models--acme--secret-model" / "snapshots" / "abc123"
    snap.mkdir(parents=True)
    (snap / "config.json").write_text(json.dumps({"architectures": ["DeepseekV2ForCausalLM"], "kv_lora_rank": 512}))
    monkeypatch.setenv("HF_HUB_CACHE", str(tree / "hub"))
    proj = tree / "proj"
    (proj / "serve.sh").write_text("python -m sglang.launch_server --model-path acme/secret-model --tp-size 2\n")
    proc, opened = run_audited(tree, "check", "--no-cache", "--show-context", "serve.sh", cwd=proj, env={"HF_HUB_CACHE": str(tree / "hub")})
    assert "DeepseekV2ForCausalLM" not in proc.stdout and touched_under(opened, tree / "hub") == []
    assert "SGL115" not in proc.stdout  # the cache is the user's, not a file the launch names
    (launch,) = lint_file(str(proj / "serve.sh"), Options(use_environment=False, config=Config(allow_outside=(tree / "hub",)))).launches
    assert (launch.context.arch, launch.context.architecture.source) == ("DeepseekV2ForCausalLM", "Hugging Face cache")


# ---------------------------------------------------------------------------
# Endless and special files inside the root
# ---------------------------------------------------------------------------


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
@pytest.mark.parametrize("where", ["config", "pin", "model"])
def test_a_fifo_referenced_inside_the_root_does_not_hang(tree, where):
    proj = tree / "proj"
    if where == "config":
        os.mkfifo(proj / "server.yaml")
        launch(proj, "server.yaml")
    elif where == "pin":
        os.mkfifo(proj / "requirements.txt")
        (proj / "launch.sh").write_text(PIN_LAUNCH)
    else:
        (proj / "models" / "m1").mkdir(parents=True)
        os.mkfifo(proj / "models" / "m1" / "config.json")
        (proj / "launch.sh").write_text("python -m sglang.launch_server --model-path models/m1\n")
    proc, _ = run_audited(tree, "check", "--no-cache", "--output-format", "concise", "launch.sh", cwd=proj, timeout=60)
    assert proc.returncode in (0, 1), proc.stderr


# ---------------------------------------------------------------------------
# Referenced text is not echoed
# ---------------------------------------------------------------------------


def test_referenced_sources_are_marked_not_to_echo(tree):
    proj = tree / "proj"
    (proj / "server.yaml").write_text("# sglang server settings\nmodel-path: m\ntp-size: 2\nbogus-flag: INSIDE-SECRET\n")
    script = launch(proj, "server.yaml")
    result = lint_file(str(script), Options(use_environment=False))
    (finding,) = result.diagnostics
    assert finding.span.path.endswith("server.yaml") and finding.span.source.echo is False
    assert lint_file(str(proj / "server.yaml"), Options(use_environment=False)).diagnostics[0].span.source.echo is True
    assert finding.launch_span.source.echo is True


def test_echo_mark_survives_workers_and_the_cache(tree):
    from sgllint.engine.runner import lint_many
    from sgllint.engine.walk import Walked

    proj = tree / "proj"
    (proj / "server.yaml").write_text("# sglang server settings\nmodel-path: m\ntp-size: 2\nbogus-flag: INSIDE-SECRET\n")
    script = launch(proj, "server.yaml")
    options = Options(use_environment=False)
    for _ in range(2):  # cold, then a cache hit
        (result,) = lint_many([Walked(str(script), True)], options, jobs=1, cache_dir=str(tree / "cache"))
        (finding,) = result.diagnostics
        assert finding.span.source.echo is False and "INSIDE-SECRET" in finding.span.source.text


def test_full_output_does_not_echo_a_referenced_file(tree):
    proj = tree / "proj"
    (proj / "server.yaml").write_text("# sglang server settings\nmodel-path: m\ntp-size: 2\nbogus-flag: INSIDE-SECRET\n")
    launch(proj, "server.yaml")
    proc, _ = run_audited(tree, "check", "--no-cache", "--output-format", "full", "launch.sh", cwd=proj)
    assert "SGL101" in proc.stdout and "INSIDE-SECRET" not in proc.stdout
    proc, _ = run_audited(tree, "check", "--no-cache", "--output-format", "full", "launch.sh", "server.yaml", cwd=proj)
    assert "INSIDE-SECRET" in proc.stdout  # linted itself: shown as always
