"""What ``sgllint lsp`` may read: fail closed.

The server reads the documents the client sends and, when the workspace is
established with certainty, files inside its folders; besides those, only the
directories Python and sgllint load code and data from. An audit hook
(`sys.addaudithook`) refuses every other ``open`` and directory listing,
whatever code path asks, and it is in force from the start: until
``initialize`` names a workspace that passes `workspace_roots`, and for good
once anything about the workspace was odd, the server lints open buffers
only. A document outside every workspace folder is linted as a buffer only
too (`Confinement.buffers_only`).
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import site
import sys
import sysconfig
from pathlib import Path
from typing import Iterable, Iterator, Optional
from urllib.parse import unquote, urlsplit

log = logging.getLogger("sgllint.lsp")

#: audit events that read a file or list a directory
READ_EVENTS = ("open", "os.listdir", "os.scandir")


class UncertainWorkspace(Exception):
    """The workspace the client named cannot be trusted; the message says why."""


class NoWorkspace(UncertainWorkspace):
    """The client named no workspace (it may add folders later)."""


def _library_dirs() -> tuple[str, ...]:
    """The directories code and data are loaded from: the standard library,
    site-packages and sgllint's own package and rules (not the whole of
    ``sys.prefix``, which may be ``/usr``)."""
    from sgllint.model.rule import builtin_rules_dir

    dirs = {str(Path(__file__).resolve().parents[2]), str(builtin_rules_dir())}
    paths = sysconfig.get_paths()
    dirs.update(paths[key] for key in ("stdlib", "platstdlib", "purelib", "platlib") if key in paths)
    try:
        dirs.update(site.getsitepackages())
        dirs.add(site.getusersitepackages())
    except Exception:  # a virtualenv's site module may lack these
        pass
    return tuple(sorted({os.path.realpath(d) for d in dirs if d}))


def _under(real: str, dirs: Iterable[str]) -> bool:
    return any(real == d or real.startswith(d.rstrip(os.sep) + os.sep) for d in dirs)


class Confinement:
    """The audit hook and the directories it lets the server read."""

    def __init__(self) -> None:
        self.roots: tuple[str, ...] = ()
        self.library = _library_dirs()
        self.active = False
        self.refused: list[str] = []  # for the log, bounded
        self._buffers_only = False
        self._installed = False

    def start(self) -> None:
        """From now on read nothing but the library until `set_roots`."""
        self.active = True
        if not self._installed:
            sys.addaudithook(self.check)
            self._installed = True

    def set_roots(self, roots: Iterable[str]) -> None:
        self.roots = tuple(sorted(set(roots)))

    def in_workspace(self, path) -> bool:
        try:
            real = os.path.realpath(os.fsdecode(path))
        except (TypeError, ValueError):
            return False
        return _under(real, self.roots)

    def allowed(self, path) -> bool:
        try:
            real = os.path.realpath(os.fsdecode(path))
        except (TypeError, ValueError):
            return True  # not a path (a descriptor)
        return _under(real, self.library) or (not self._buffers_only and _under(real, self.roots))

    @contextlib.contextmanager
    def buffers_only(self, enabled: bool = True) -> Iterator[None]:
        """While linting a document outside the workspace: no workspace file
        either (its text is all the server uses)."""
        before, self._buffers_only = self._buffers_only, self._buffers_only or enabled
        try:
            yield
        finally:
            self._buffers_only = before

    def check(self, event: str, args) -> None:
        if not self.active or event not in READ_EVENTS:
            return
        path = args[0] if args else None
        if path is None or isinstance(path, int):
            return
        if not self.allowed(path):
            shown = os.fsdecode(path)
            if len(self.refused) < 100:
                self.refused.append(shown)
            log.warning("not reading %s: outside the workspace", shown)
            raise PermissionError(errno.EACCES, "outside the sgllint lsp workspace", shown)


# ---------------------------------------------------------------------------
# Establishing the workspace
# ---------------------------------------------------------------------------


def workspace_roots(root_uri: Optional[str], root_path: Optional[str], folder_uris: list) -> tuple[str, ...]:
    """The real directories of the workspace the client named in
    ``initialize``; UncertainWorkspace unless every name is a plain ``file:``
    URI (or absolute path) of an existing directory and they agree: the
    workspace folders when given (``rootUri`` must be one of them), else
    ``rootUri``, else ``rootPath``."""
    root = folder_dir(root_uri) if root_uri is not None else None
    if root_path is not None:
        from_path = checked_dir(root_path, repr(root_path))
        if root is not None and from_path != root:
            raise UncertainWorkspace(f"rootPath {root_path!r} and rootUri {root_uri!r} disagree")
        root = from_path
    folders = [folder_dir(uri) for uri in folder_uris]
    if folders:
        if root is not None and root not in folders:
            raise UncertainWorkspace(f"the root {root_uri or root_path!r} is not one of the workspace folders")
        return tuple(sorted(set(folders)))
    if root is None:
        raise NoWorkspace("the client named no workspace folder")
    return (root,)


def folder_dir(uri) -> str:
    """The real directory a workspace folder's URI names."""
    if not isinstance(uri, str):
        raise UncertainWorkspace(f"{uri!r} is not a URI")
    try:
        parts = urlsplit(uri)
    except ValueError as e:
        raise UncertainWorkspace(f"{uri!r} is not a URI: {e}") from None
    if parts.scheme.lower() != "file":
        raise UncertainWorkspace(f"{uri!r} is not a file: URI")
    if parts.netloc not in ("", "localhost"):
        raise UncertainWorkspace(f"{uri!r} names another host")
    if parts.query or parts.fragment:
        raise UncertainWorkspace(f"{uri!r} has a query or fragment")
    try:
        path = unquote(parts.path, errors="strict")
    except UnicodeDecodeError:
        raise UncertainWorkspace(f"{uri!r} does not decode as UTF-8") from None
    if os.name == "nt" and len(path) > 2 and path[0] == "/" and path[2] == ":":
        path = path[1:]
    return checked_dir(path, repr(uri))


def checked_dir(path, shown: str) -> str:
    """``path`` resolved, if it names the workspace without doubt."""
    if not isinstance(path, str) or not path or "\x00" in path:
        raise UncertainWorkspace(f"{shown} is not a path")
    if not os.path.isabs(path):
        raise UncertainWorkspace(f"{shown} is not absolute")
    segments = path.replace(os.altsep or os.sep, os.sep).split(os.sep)
    if any(s in (".", "..") for s in segments):
        raise UncertainWorkspace(f"{shown} has '.' or '..' segments")
    bare = path.rstrip(os.sep) or path
    if os.path.islink(bare):
        raise UncertainWorkspace(f"{shown} is a symbolic link (open {os.path.realpath(bare)} itself)")
    if not os.path.isdir(bare):
        raise UncertainWorkspace(f"{shown} is not an existing directory")
    real = os.path.realpath(bare)
    if os.path.dirname(real) == real:
        raise UncertainWorkspace(f"{shown} is the file-system root")
    return real
