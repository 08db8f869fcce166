"""sgllint decides what a repository ignores without git (`sgllint.engine.ignore`);
these tests hold it to git's own answer: the file set of ``git ls-files
--cached --others --exclude-standard`` on generated pattern sets in nested
directories and on the unpacked SGLang wheel's tree, with tracked files
(index versions 2 to 4, SHA-1 and SHA-256), nested repositories and
submodules. The tests run git; the product never does."""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from sgllint.engine import ignore
from sgllint.engine.config import Config
from sgllint.engine.walk import iter_files

#: the unpacked sglang 0.5.23 wheel: SGLLINT_WHEEL_TREE, or src/0.5.23 in SGLLINT_WHEEL_CACHE (absent: skipped)
WHEEL_TREE = Path(os.environ.get("SGLLINT_WHEEL_TREE") or os.path.join(os.environ.get("SGLLINT_WHEEL_CACHE") or "-", "src", "0.5.23"))

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def _git(repo: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    home = repo.parent / "home"
    home.mkdir(exist_ok=True)
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(home),  # no user configuration, no global excludes
        "XDG_CONFIG_HOME": str(home),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com",
    }
    return subprocess.run(["git", *args], cwd=repo, env=env, capture_output=True, check=check)


def git_files(repo: Path) -> set[str]:
    """What git lists, as files on disk (a nested repository shows as
    ``dir/``, a submodule as its directory: neither holds files git lists)."""
    out = _git(repo, "ls-files", "-z", "--cached", "--others", "--exclude-standard").stdout
    names = {os.fsdecode(n) for n in out.split(b"\0") if n}
    return {n for n in names if not n.endswith("/") and (repo / n).is_file()}


def walked_files(top: Path, start: Path | None = None) -> set[str]:
    """What sgllint's walk lists, with nothing excluded by configuration."""
    items = list(iter_files([str(start or top)], Config(exclude=())))
    assert all(i.refusal is None for i in items), [i for i in items if i.refusal]
    return {os.path.relpath(i.path, top).replace(os.sep, "/") for i in items}


def _write(path: Path, text: str = "") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


# ---------------------------------------------------------------------------
# A seeded generator of trees and patterns
# ---------------------------------------------------------------------------

NAMES = ["a", "b", "ab", "build", "x.sh", "y.py", "run.sh", "foo.log", "keep.log", "a.b", "doc", "#hash", "!bang", "sp ace", "Ab", "z[1]", "q?"]
DIRS = ["a", "b", "build", "doc", "sub", "deep", "x.sh", "c d"]


def _component(rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.35:
        name = rng.choice(NAMES + DIRS)
        # literal wildcard characters and escapes
        return "".join("\\" + ch if ch in "*?[]!# \\" and rng.random() < 0.7 else ch for ch in name)
    return rng.choice(["*", "?", "*.sh", "*.log", "a*", "*b", "[ab]", "[!a]*", "[a-c]b", "**", "?.py", "b*ld", "[[:alpha:]]*", "x.[sp][hy]"])


def random_pattern(rng: random.Random) -> str:
    parts = [_component(rng) for _ in range(rng.choice([1, 1, 1, 2, 2, 3]))]
    if rng.random() < 0.15:
        parts.insert(rng.randrange(len(parts) + 1), "**")
    pattern = "/".join(parts)
    if rng.random() < 0.25:
        pattern = "/" + pattern
    if rng.random() < 0.25:
        pattern += "/"
    if rng.random() < 0.3:
        pattern = "!" + pattern
    if rng.random() < 0.08:
        pattern += "   "  # trailing blanks are dropped
    if rng.random() < 0.05:
        pattern += "\r"
    return pattern


def random_tree(root: Path, rng: random.Random) -> list[str]:
    files = []
    dirs = [""]
    for _ in range(rng.randint(3, 8)):
        parent = rng.choice(dirs)
        d = (parent + "/" if parent else "") + rng.choice(DIRS)
        if d.count("/") < 4 and d not in dirs:
            dirs.append(d)
    for d in dirs:
        for name in rng.sample(NAMES, rng.randint(1, 5)):
            rel = (d + "/" if d else "") + name
            if rel not in dirs:
                _write(root / rel)
                files.append(rel)
    for d in rng.sample(dirs, min(len(dirs), rng.randint(1, 4))):
        lines = [random_pattern(rng) for _ in range(rng.randint(1, 6))]
        if rng.random() < 0.2:
            lines.insert(0, "# a comment")
        (root / d / ".gitignore").write_text("\n".join(lines) + ("\n" if rng.random() < 0.8 else ""))
    return files


def _repository(root: Path, rng: random.Random, files: list[str]) -> None:
    _git(root, "init", "-q")
    if rng.random() < 0.5:
        (root / ".git" / "info").mkdir(exist_ok=True)
        (root / ".git" / "info" / "exclude").write_text("\n".join(random_pattern(rng) for _ in range(rng.randint(1, 3))) + "\n")
    tracked = [f for f in files if rng.random() < 0.15]
    if tracked:
        _git(root, "add", "-f", "--", *tracked)  # tracked files are listed even when ignored


@pytest.mark.parametrize("seed", range(100))
def test_generated_patterns_match_git(tmp_path, seed):
    rng = random.Random(seed)
    root = tmp_path / "r"
    root.mkdir()
    files = random_tree(root, rng)
    _repository(root, rng, files)
    patterns = {str(p.relative_to(root)): p.read_text() for p in root.rglob(".gitignore")}
    assert walked_files(root) == git_files(root), patterns


@pytest.mark.parametrize("seed", range(10))
def test_a_walk_started_below_the_top_matches_git(tmp_path, seed):
    """`sgllint check sub/` applies the ignore files above ``sub`` up to the
    repository's top, as git run in ``sub`` does."""
    rng = random.Random(1000 + seed)
    root = tmp_path / "r"
    root.mkdir()
    files = random_tree(root, rng)
    _write(root / "sub" / "inner" / "y.py")
    _write(root / "sub" / "x.sh")
    (root / ".gitignore").write_text("\n".join(random_pattern(rng) for _ in range(4)) + "\nsub/inner/\n")
    _repository(root, rng, files)
    sub = root / "sub"
    expected = {f for f in git_files(root) if f.startswith("sub/")}
    assert walked_files(root, sub) == expected


# ---------------------------------------------------------------------------
# Handwritten cases git documents
# ---------------------------------------------------------------------------

CASES = {
    "directory-only": ("build/\n", ["build/x.sh", "lib/build", "src/build/y.sh"]),
    "anchored": ("/run.sh\n", ["run.sh", "sub/run.sh"]),
    "middle slash anchors": ("sub/run.sh\n", ["sub/run.sh", "a/sub/run.sh"]),
    "double star": ("a/**/b.sh\n**/deep\n", ["a/b.sh", "a/x/y/b.sh", "q/deep/z.sh", "deep"]),
    "trailing double star": ("a/**\n!a/keep.sh\n", ["a/keep.sh", "a/x.sh", "a/s/t.sh"]),
    "negation": ("*.log\n!keep.log\n", ["x.log", "keep.log", "d/keep.log"]),
    "no re-include below an ignored directory": ("out/\n!out/keep.sh\n", ["out/keep.sh", "out/x.sh"]),
    "re-include through the contents": ("out/*\n!out/keep.sh\n", ["out/keep.sh", "out/x.sh"]),
    "escapes": ("\\#hash\n\\!bang\nsp\\ \n", ["#hash", "!bang", "sp ", "x"]),
    "character classes": ("[a-c].sh\n[!x]y.py\n", ["a.sh", "d.sh", "xy.py", "zy.py"]),
    "deeper file overrides": ("*.sh\n", ["a.sh", "sub/b.sh", "sub/.gitignore:!b.sh"]),
}


@pytest.mark.parametrize("name", list(CASES))
def test_documented_semantics_match_git(tmp_path, name):
    patterns, paths = CASES[name]
    root = tmp_path / "r"
    root.mkdir()
    (root / ".gitignore").write_text(patterns)
    for p in paths:
        if ":" in p:
            where, text = p.split(":", 1)
            _write(root / where, text + "\n")
        else:
            _write(root / p)
    _git(root, "init", "-q")
    assert walked_files(root) == git_files(root)


def test_nested_repositories_and_submodules_are_not_walked(tmp_path):
    root = tmp_path / "r"
    root.mkdir()
    _write(root / "top.sh")
    _write(root / "nested" / "inner.sh")
    _write(root / "sub" / "s.sh")
    _write(root / "fake" / ".git" / "placeholder")  # not a repository: walked
    _write(root / "fake" / "f.sh")
    _git(root, "init", "-q")
    _git(root / "nested", "init", "-q")
    _git(root / "sub", "init", "-q")
    _git(root / "sub", "add", "s.sh")
    _git(root / "sub", "commit", "-q", "-m", "s")
    _git(root, "add", "sub")  # a gitlink: what a submodule is in the index
    assert walked_files(root) == git_files(root) == {"top.sh", "fake/f.sh"}


def test_a_repository_inside_a_plain_directory_applies_its_own_rules(tmp_path):
    plain = tmp_path / "plain"
    _write(plain / "loose.log")
    _write(plain / "proj" / "a.log")
    _write(plain / "proj" / "b.sh")
    (plain / "proj" / ".gitignore").write_text("*.log\n")
    _git(plain / "proj", "init", "-q")
    assert walked_files(plain) == {"loose.log", "proj/b.sh", "proj/.gitignore"}


@pytest.mark.parametrize("variant", ["v2", "v3", "v4", "sha256"])
def test_tracked_files_are_listed_even_when_ignored(tmp_path, variant):
    root = tmp_path / "r"
    root.mkdir()
    for name in ["ignored/t.sh", "ignored/u.sh", "x.log", "deep/er/" + "long-name-" * 20 + ".sh", "y.sh"]:
        _write(root / name)
    (root / ".gitignore").write_text("ignored/\n*.log\ndeep/\n")
    init = ["init", "-q"] + (["--object-format=sha256"] if variant == "sha256" else [])
    if _git(root, *init, check=False).returncode != 0:
        pytest.skip("this git cannot make a SHA-256 repository")
    _git(root, "add", "-f", "ignored/t.sh", "x.log", "deep")
    if variant == "v3":
        _write(root / "ignored" / "n.sh")
        _git(root, "add", "-f", "-N", "ignored/n.sh")  # intent-to-add: an extended flag, so version 3
    if variant == "v4":
        _git(root, "update-index", "--index-version", "4")
    assert walked_files(root) == git_files(root)
    assert "ignored/t.sh" in git_files(root) and "ignored/u.sh" not in git_files(root)


WHEEL_VERSION = "0.5.23"


def _wheel_file() -> Path:
    """The sglang 0.5.23 wheel: in SGLLINT_WHEEL_CACHE, or downloaded once
    (``pip download --no-deps``, 39 MB) into the user's cache, so CI checks
    the real tree too; skipped only when neither works (no network)."""
    import subprocess
    import sys

    dirs = [Path(os.environ["SGLLINT_WHEEL_CACHE"])] if os.environ.get("SGLLINT_WHEEL_CACHE") else []
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "sgllint-tests"
    dirs.append(cache)
    for d in dirs:
        found = sorted(d.glob(f"sglang-{WHEEL_VERSION}-*.whl"))
        if found:
            return found[0]
    cache.mkdir(parents=True, exist_ok=True)
    r = subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:",
                        "--python-version", "3.11", "--platform", "manylinux_2_34_x86_64",
                        f"sglang=={WHEEL_VERSION}", "-d", str(cache)], capture_output=True, text=True, timeout=600)
    found = sorted(cache.glob(f"sglang-{WHEEL_VERSION}-*.whl"))
    if r.returncode != 0 or not found:
        pytest.skip(f"sglang {WHEEL_VERSION} wheel not available: {r.stderr.strip()[-300:]}")
    return found[0]


def _wheel_tree() -> list[tuple[str, list[tuple[str, str]]]]:
    """``(directory, [(file name, text)])`` of the unpacked wheel, from
    SGLLINT_WHEEL_TREE / the unpacked cache when there, else from the wheel's
    own listing (text only for .gitignore files; names are what matter)."""
    import zipfile

    tree: dict[str, list[tuple[str, str]]] = {}
    if WHEEL_TREE.is_dir():
        for dirpath, _dirnames, filenames in os.walk(WHEEL_TREE):
            rel = os.path.relpath(dirpath, WHEEL_TREE)
            rel = "" if rel == "." else rel.replace(os.sep, "/") + "/"
            tree[rel] = [(n, (Path(dirpath) / n).read_text() if n == ".gitignore" else "") for n in filenames]
        return sorted(tree.items())
    with zipfile.ZipFile(_wheel_file()) as wheel:
        for info in wheel.infolist():
            if info.is_dir():
                continue
            rel, _, name = info.filename.rpartition("/")
            rel = rel + "/" if rel else ""
            parts = rel.split("/")[:-1]
            for k in range(len(parts) + 1):  # every ancestor is a directory of the tree
                tree.setdefault("".join(p + "/" for p in parts[:k]), [])
            text = wheel.read(info).decode("utf-8", "replace") if name == ".gitignore" else ""
            tree[rel].append((name, text))
    return sorted(tree.items())


def test_the_sglang_wheel_tree_matches_git(tmp_path):
    """The unpacked SGLang wheel (its file names; contents do not matter),
    with the wheel's own .gitignore, generated ones in real directories
    and some tracked files."""
    root = tmp_path / "wheel"
    rng = random.Random(23)
    files, dirs = [], []
    for rel, names in _wheel_tree():
        (root / rel).mkdir(parents=True, exist_ok=True)
        dirs.append(rel)
        for name, text in names:
            (root / rel / name).write_text(text)
            files.append(rel + name)
    names = sorted({n for f in files for n in f.split("/")})
    (root / ".gitignore").write_text("__pycache__/\n*.so\n*.pyc\n/sglang/test/\n!sglang/test/__init__.py\nsglang/srt/layers/*\n!sglang/srt/layers/quantization/\n*.md\n!README.md\n")
    for d in rng.sample(dirs, 40):
        lines = []
        for _ in range(rng.randint(1, 4)):
            name = rng.choice(names)
            lines.append(rng.choice(["", "!", "/", "**/"]) + rng.choice([name, name[:3] + "*", "*" + name[-3:], "[" + name[0] + "]" + name[1:]]) + rng.choice(["", "/"]))
        (root / d / ".gitignore").write_text("\n".join(lines) + "\n")
    _git(root, "init", "-q")
    _git(root, "add", "-f", "--", *[f for f in files if rng.random() < 0.05])
    expected = git_files(root)
    assert len(expected) > 1000
    assert walked_files(root) == expected


# ---------------------------------------------------------------------------
# Without git, and against a hostile repository
# ---------------------------------------------------------------------------


def test_dot_ignore_files_apply_everywhere_and_win_over_gitignore(tmp_path):
    plain = tmp_path / "plain"
    for name in ["a.log", "keep.log", "sub/b.log", "sub/c.sh", "gen/x.sh"]:
        _write(plain / name)
    (plain / ".ignore").write_text("*.log\ngen/\n")
    (plain / "sub" / ".ignore").write_text("!b.log\n")
    assert walked_files(plain) == {".ignore", "sub/.ignore", "sub/b.log", "sub/c.sh"}
    # in a repository, .ignore overrides .gitignore
    (plain / ".gitignore").write_text("!a.log\nsub/c.sh\n")
    _git(plain, "init", "-q")
    assert walked_files(plain) == {".ignore", ".gitignore", "sub/.ignore", "sub/b.log"}


def test_a_symlinked_ignore_file_is_not_followed(tmp_path):
    root = tmp_path / "r"
    _write(root / "a.log")
    _write(tmp_path / "elsewhere", "*.log\n")
    (root / ".gitignore").symlink_to(tmp_path / "elsewhere")
    _write(root / "sub" / "b.log")
    (root / "sub" / ".gitignore").symlink_to("../.gitignore")  # inside, still not followed
    _git(root, "init", "-q")
    items = list(iter_files([str(root)], Config(exclude=())))
    assert {os.path.relpath(i.path, root) for i in items if i.refusal is None} == {"a.log", "sub/b.log"}
    # both lead outside in the end: reported, not read
    assert [os.path.relpath(i.path, root) for i in items if i.refusal is not None] == [".gitignore", "sub/.gitignore"]


def test_a_damaged_index_is_as_if_there_were_none(tmp_path):
    rng = random.Random(7)
    root = tmp_path / "r"
    _write(root / "x.log")
    _write(root / "y.sh")
    (root / ".gitignore").write_text("*.log\n")
    _git(root, "init", "-q")
    _git(root, "add", "-f", "x.log", "y.sh")
    good = (root / ".git" / "index").read_bytes()
    assert ignore.tracked_paths(str(root / ".git")) == {"x.log", "y.sh"}
    for trial in range(300):
        data = bytearray(good)
        if trial % 3 == 0:
            data = data[: rng.randrange(len(data))]
        else:
            for _ in range(rng.randint(1, 8)):
                data[rng.randrange(len(data))] = rng.randrange(256)
        (root / ".git" / "index").write_bytes(bytes(data))
        tracked = ignore.tracked_paths(str(root / ".git"))
        assert isinstance(tracked, frozenset)
        walked_files(root)  # never raises


def test_a_git_file_pointing_outside_is_not_followed(tmp_path):
    """A .git file (a worktree, a submodule, or a trap) names a directory
    elsewhere: the repository counts, but nothing there is opened."""
    root = tmp_path / "r"
    _write(root / "a.log")
    _write(root / "b.sh")
    (root / ".gitignore").write_text("*.log\n")
    elsewhere = tmp_path / "elsewhere.git"
    for d in ("objects", "refs", "info"):
        (elsewhere / d).mkdir(parents=True)
    (elsewhere / "HEAD").write_text("ref: refs/heads/main\n")
    (elsewhere / "info" / "exclude").write_text("b.sh\n")
    (root / ".git").write_text(f"gitdir: {elsewhere}\n")
    opened: list = []
    watching = [True]

    def hook(event, args):  # an audit hook cannot be removed: it stops watching instead
        if watching[0] and event == "open" and isinstance(args[0], (str, bytes)) and "elsewhere" in os.fsdecode(args[0]):
            opened.append(args[0])

    sys.addaudithook(hook)
    try:
        assert walked_files(root) == {".gitignore", "b.sh"}  # a repository: .gitignore applies
    finally:
        watching[0] = False
    assert opened == []


def test_ignore_patterns_need_no_git(monkeypatch, tmp_path):
    """The walk applies .gitignore with git absent from PATH."""
    root = tmp_path / "r"
    _write(root / "a.log")
    _write(root / "b.sh")
    (root / ".gitignore").write_text("*.log\n")
    _git(root, "init", "-q")
    monkeypatch.setenv("PATH", str(tmp_path / "nothing"))
    assert walked_files(root) == {".gitignore", "b.sh"}
