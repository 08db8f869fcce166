"""The project root: where a launch's references may be read and fixes written.

A launch names other files (``--config server.yaml``, a local model
directory's ``config.json``) and sgllint looks for ``sglang==`` pins around
it. Those paths come from the linted text, which may be a stranger's pull
request, so a referenced file is opened only when it resolves - after
symlinks and ``..`` - inside the project root or inside a path the user
allowed (``--allow-outside PATH``, config key ``allow-outside``). Resolution
never looks at anything outside those directories: a path that leaves them
is refused before it is stat'ed, so a hostile reference cannot even probe
whether a file exists (or wake an automounter).

The root of a linted path is the nearest ancestor, the path itself included,
holding ``.git``, ``.sgllint.toml``, ``sgllint.toml`` or a ``pyproject.toml``
with a ``[tool.sgllint]`` table; without one, the directory given (a file's
own directory). ``--project-root DIR`` overrides it.
"""

from __future__ import annotations

import functools
import os
import stat
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Union

from sgllint.resolve.safe_read import NotRead, read_regular_file

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

PathLike = Union[str, "os.PathLike[str]"]

#: names whose presence makes a directory a project root
MARKERS = (".git", ".sgllint.toml", "sgllint.toml")
#: a pyproject.toml larger than this is not parsed to look for [tool.sgllint]
_MAX_PYPROJECT_BYTES = 1 << 20
#: symbolic links followed while resolving one reference (Linux's MAXSYMLINKS)
_MAX_LINKS = 40


# ---------------------------------------------------------------------------
# Finding the root
# ---------------------------------------------------------------------------


def find_root(path: PathLike) -> Path:
    """The project root of ``path`` (a file or a directory), resolved."""
    start = os.path.abspath(path)
    if not os.path.isdir(start):
        start = os.path.dirname(start)
    return Path(_root_from(start))


#: what `forget` clears besides this module's caches (registered by modules
#: that remember what they found around a linted file: `sgllint.resolve.context`)
_FORGETTERS: list = []


def on_forget(clear) -> None:
    """Call ``clear()`` whenever `forget` is called."""
    _FORGETTERS.append(clear)


def forget() -> None:
    """Forget the project roots, scopes and (through `on_forget`) pins found
    so far. A run remembers them while it walks; a long-lived process (the
    LSP server, a program calling `engine.lint_paths` again) calls this
    before linting again, since the files around may have changed: a
    ``.git`` or ``.sgllint.toml`` created, a workspace folder added, a pin
    edited."""
    _root_from.cache_clear()
    _scope.cache_clear()
    _located.cache_clear()
    for clear in _FORGETTERS:
        clear()


@functools.lru_cache(maxsize=4096)
def _root_from(directory: str) -> str:
    current = directory
    while True:
        if _is_marked(current):
            return os.path.realpath(current)
        parent = os.path.dirname(current)
        if parent == current:
            return os.path.realpath(directory)
        current = parent


def _is_marked(directory: str) -> bool:
    if any(os.path.lexists(os.path.join(directory, name)) for name in MARKERS):
        return True
    data = read_regular(os.path.join(directory, "pyproject.toml"), _MAX_PYPROJECT_BYTES)
    if data is None or b"sgllint" not in data:
        return False
    try:
        tool = tomllib.loads(data.decode("utf-8")).get("tool")
    except (ValueError, UnicodeDecodeError):
        return False
    return isinstance(tool, dict) and "sgllint" in tool


# ---------------------------------------------------------------------------
# What may be read
# ---------------------------------------------------------------------------


def _inside(path: str, directory: str) -> bool:
    return path == directory or path.startswith(directory.rstrip(os.sep) + os.sep)


@dataclass(frozen=True)
class Scope:
    """The directories a linted file's references may be read from: its
    project root and the paths the user allowed (all resolved)."""

    root: str
    allowed: tuple[str, ...] = ()

    @classmethod
    def of(cls, root: PathLike, allow: tuple = ()) -> "Scope":
        return _scope(str(root), tuple(str(a) for a in allow))

    @property
    def boundaries(self) -> tuple[str, ...]:
        return (self.root, *self.allowed)

    def permits(self, real_path: str) -> bool:
        """Whether a resolved path lies in the root or an allowed path."""
        return any(_inside(real_path, b) for b in self.boundaries)

    def within_root(self, real_path: str) -> bool:
        return _inside(real_path, self.root)

    def allows_outside(self, real_path: str) -> bool:
        """Whether the user allowed a resolved path outside the root."""
        return any(_inside(real_path, a) for a in self.allowed)

    def locate(self, reference: str, base_dir: PathLike) -> Optional[str]:
        """The resolved path of ``reference`` (absolute, or relative to
        ``base_dir``) when it stays inside the scope, else None. The file
        need not exist. Nothing outside the scope is touched to find out."""
        if "\0" in reference:
            return None
        return _located(self, reference, os.path.abspath(base_dir))

    def _may_look_at(self, path: str) -> bool:
        # the scope's directories, and their ancestors: the way to them
        return self.permits(path) or any(_inside(b, path) for b in self.boundaries)


@functools.lru_cache(maxsize=4096)
def _located(scope: Scope, reference: str, base_dir: str) -> Optional[str]:
    # each launch of a file asks again (its model directory, its config):
    # the answer is kept, like the roots, until `forget`
    start = os.path.realpath(base_dir) if not os.path.isabs(reference) else os.sep
    return _resolve(start, reference, scope._may_look_at)


@functools.lru_cache(maxsize=256)
def _scope(root: str, allow: tuple[str, ...]) -> Scope:
    return Scope(os.path.realpath(root), tuple(os.path.realpath(os.path.expanduser(a)) for a in allow))


def scope_for(path: PathLike, config=None) -> Scope:
    """The scope of a linted file under ``config`` (a `sgllint.engine.config.Config`
    or None): its ``project_root`` or the root found from ``path``, and its
    ``allow_outside`` paths."""
    root = getattr(config, "project_root", None) or find_root(path)
    return Scope.of(root, tuple(getattr(config, "allow_outside", ()) or ()))


def _resolve(start: str, reference: str, may_look_at) -> Optional[str]:
    """Resolve ``reference`` from ``start`` one component at a time, as the
    kernel does, stopping (None) before looking at any path ``may_look_at``
    refuses, at a symlink loop, or after `_MAX_LINKS` links."""
    pending = [part for part in reference.split(os.sep)][::-1]
    current = start
    links = 0
    while pending:
        part = pending.pop()
        if part in ("", "."):
            continue
        if part == "..":
            current = os.path.dirname(current)
            continue
        candidate = os.path.join(current, part)
        if not may_look_at(candidate):
            return None
        try:
            info = os.lstat(candidate)
        except OSError:
            # nothing there: what remains is taken literally
            rest = os.path.normpath(os.path.join(candidate, *pending[::-1])) if pending else candidate
            return rest if may_look_at(rest) else None
        if not stat.S_ISLNK(info.st_mode):
            current = candidate
            continue
        links += 1
        if links > _MAX_LINKS:
            return None
        try:
            target = os.readlink(candidate)
        except OSError:
            return None
        if os.path.isabs(target):
            current = os.sep
        pending.extend(target.split(os.sep)[::-1])
    return current if may_look_at(current) else None


# ---------------------------------------------------------------------------
# Reading a referenced file
# ---------------------------------------------------------------------------


def read_regular(real_path: str, limit: int) -> Optional[bytes]:
    """The bytes of a regular file, or None when it is missing, not regular
    (a FIFO, a device: never waited on), larger than ``limit`` or
    unreadable (`sgllint.resolve.safe_read`)."""
    try:
        return read_regular_file(real_path, limit)[0]
    except NotRead:
        return None


# ---------------------------------------------------------------------------
# What --fix may write
# ---------------------------------------------------------------------------


def write_refusal(path: str, roots) -> Optional[str]:
    """Why ``--fix`` must not write ``path``, or None: it must not be a
    symbolic link, and must lie inside one of ``roots`` once every link in
    its directories is resolved (the writer checks it is a regular file)."""
    if os.path.islink(path):
        return "it is a symbolic link; sgllint writes only the file itself"
    real = os.path.realpath(path)
    if not any(_inside(real, os.path.realpath(r)) for r in roots):
        return "it is outside the project root"
    return None


def replace_atomically(path: PathLike, data: bytes, like: Optional[os.stat_result] = None, suffix: str = "") -> None:
    """Write ``data`` to a temporary file beside ``path``, then rename it over
    ``path``: a reader sees the old file or the new one, never half of one,
    and a hard link to the old file keeps the old contents. ``like``: the
    old file's stat, whose mode (and owner, where allowed) the new file
    takes."""
    import tempfile

    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(path)), prefix=".tmp-", suffix=suffix)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        if like is not None:
            try:
                os.chown(tmp, like.st_uid, like.st_gid)
            except (OSError, AttributeError):
                pass  # another user's file becomes ours, as an editor's save makes it
            os.chmod(tmp, stat.S_IMODE(like.st_mode))
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
