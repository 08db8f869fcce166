"""Walking the trees to lint: which files, in which order, and which paths
are reported without being read.

A directory is walked depth first, names sorted, skipping excluded names,
virtualenvs (a directory with ``pyvenv.cfg``), what the repository ignores
(`sgllint.engine.ignore`) and directories reached through symbolic links (never
entered: no loop, no escape). A symbolic link to a file is followed only
when its target is inside the project root (`confinement_root`); one
that leads out is reported as not read. A directory that cannot be listed
and an ignore file that cannot be read are reported too, and the walk goes
on. Nothing here opens a file other than ignore files and the index.
"""

from __future__ import annotations

import fnmatch
import os
import re
import stat
from pathlib import Path
from typing import Iterable, Iterator, NamedTuple, Optional

from sgllint.engine.config import Config
from sgllint.engine.ignore import DirectoryRules, IgnoreFile, parse_ignore_text, start_rules
from sgllint.resolve.project import scope_for
from sgllint.resolve.safe_read import NotRead, NotReadReason, read_regular_file


class Walked(NamedTuple):
    path: str
    explicit: bool  # named on the command line (always linted)
    refusal: Optional[NotRead] = None  # reported without being read


def confinement_root(directory: str, config: Config) -> str:
    """The directory no walked path may lead out of (its real path): the
    project root of the directory given (`sgllint.resolve.project`)."""
    return scope_for(directory, config).root


def iter_files(paths: Iterable[str], config: Config) -> Iterator[Walked]:
    """Every file to lint, in a deterministic order. Explicit file
    arguments are always linted; directories are walked."""
    for arg in paths:
        if os.path.isdir(arg):
            yield from _Walk(arg, config).run()
        else:
            yield Walked(arg, True)


def _join(directory: str, name: str) -> str:
    """``str(Path(directory) / name)`` without a Path per file."""
    if directory == ".":
        return name
    return directory + name if directory.endswith("/") else directory + "/" + name


class _Walk:
    def __init__(self, top: str, config: Config):
        self.top = top
        self.config = config
        self.root = confinement_root(top, config)
        self.problems: list[Walked] = []
        patterns = tuple(config.exclude) + tuple(config.extend_exclude)
        # below a directory that is not excluded only the new name can match
        # an exclude pattern (`Config.is_excluded` matches every part of the
        # path), unless a pattern names a path
        self.by_name = type(config).is_excluded is Config.is_excluded and not any("/" in pat for pat in patterns)
        # one regex for all patterns: what `fnmatch.fnmatchcase` matches with each
        self.name_match = re.compile("|".join(f"(?:{fnmatch.translate(pat)})" for pat in patterns) or r"(?!)").match

    def excluded(self, parent: str, name: str, parent_checked: bool) -> bool:
        if self.by_name and parent_checked:
            return self.name_match(name) is not None
        return self.config.is_excluded(Path(parent) / name)

    def read_ignore_file(self, path: str, base: str) -> Optional[IgnoreFile]:
        """An ignore file's patterns; None when there is none. A symbolic
        link is not followed (git neither); a file that cannot be read is
        reported and not applied."""
        try:
            if stat.S_ISLNK(os.lstat(path).st_mode):
                return None
            data, _ = read_regular_file(path, self.config.max_file_size)
        except FileNotFoundError:
            return None
        except OSError as exc:
            self._problem(path, NotReadReason.IGNORE_FILE, exc.strerror or str(exc))
            return None
        except NotRead as exc:
            if exc.reason is not NotReadReason.MISSING:
                self._problem(path, NotReadReason.IGNORE_FILE, exc.short())
            return None
        return parse_ignore_text(data, base)

    def _problem(self, path: str, reason: NotReadReason, detail: str = "") -> None:
        self.problems.append(Walked(path, False, NotRead(reason, detail)))

    def run(self) -> Iterator[Walked]:
        rules = start_rules(self.top, self.read_ignore_file)
        yield from self._drain()
        stack: list[tuple[str, DirectoryRules, bool]] = [(self.top, rules, False)]
        while stack:
            directory, rules, checked = stack.pop()
            entries = self._list(directory)
            yield from self._drain()
            if entries is None:
                continue
            subdirs = []
            files = []
            for name, is_dir in entries:
                if self.excluded(directory, name, checked):
                    continue
                (subdirs if is_dir else files).append(name)
            inner = []
            for name in sorted(subdirs):
                path = _join(directory, name)
                if os.path.exists(os.path.join(path, "pyvenv.cfg")):
                    continue
                below = rules.enter(path, name)
                yield from self._drain()
                if below is not None:
                    inner.append((path, below, True))
            for name in sorted(files):
                if rules.ignores_file(name):
                    continue
                item = self._file(_join(directory, name))
                if item is not None:
                    yield item
            stack.extend(reversed(inner))

    def _drain(self) -> Iterator[Walked]:
        problems, self.problems = self.problems, []
        yield from problems

    def _list(self, directory: str) -> Optional[list[tuple[str, bool]]]:
        """(name, is a directory to enter) of each entry; None, and a problem
        reported, when the directory cannot be listed."""
        try:
            with os.scandir(directory) as it:
                return [(e.name, _enters(e)) for e in it]
        except OSError as exc:
            self._problem(directory, NotReadReason.DIRECTORY, exc.strerror or str(exc))
            return None

    def _file(self, path: str) -> Optional[Walked]:
        if not os.path.islink(path):
            return Walked(path, False)
        if not os.path.exists(path) or os.path.isdir(path):
            return None  # dangling, a loop of links, or a directory (never entered)
        target = os.path.realpath(path)
        if os.path.commonpath([self.root, target]) != self.root:
            return Walked(path, False, NotRead(NotReadReason.OUTSIDE_ROOT))
        return Walked(path, False)


def _enters(entry: os.DirEntry) -> bool:
    """A real directory (a symbolic link to one is neither entered nor linted)."""
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False
