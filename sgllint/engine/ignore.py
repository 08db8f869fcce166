"""Which files a walk leaves out because the repository ignores them,
decided in process: sgllint never runs git (a repository's own
``.git/config`` can name programs that git runs, e.g. ``core.fsmonitor``).

What applies, as ``git ls-files --cached --others --exclude-standard``
decides it:

* ``.gitignore`` in every directory from the repository's top down, each
  relative to its own directory; a deeper file overrides a higher one and,
  within a file, the last matching pattern wins; then
  ``.git/info/exclude``. Negation (``!``), directory-only patterns
  (trailing ``/``), anchored patterns (a ``/`` at the start or in the
  middle), ``**``, character classes and ``\\`` escapes are git's. Only
  inside a git repository, as git.
* A directory that is ignored is not entered, so nothing below it can be
  re-included (git's rule); tracked files (listed in ``.git/index``) are
  never ignored, also inside an ignored directory.
* A nested repository (a directory with its own ``.git``) is not entered,
  as git does not list its files; walked from outside any repository, each
  repository met applies its own rules.
* ``.ignore`` files (ripgrep's convention) in every directory, inside a
  repository or not; all of them take precedence over all ``.gitignore``
  files, as in ripgrep.

What differs from git, on purpose: the user's global excludes
(``core.excludesFile``) are outside the tree and not read; a ``.git`` file
(a worktree, a submodule) marks a repository without the directory it
names being looked at (git checks that it is a repository), so such a
checkout's ``info/exclude`` and index are not read; a split index
(``core.splitIndex``) contributes only its own entries; GIT_DIR and other
environment variables are not consulted; bracket ranges compare code
points where git compares bytes (only non-ASCII ranges differ).

Each pattern's wildmatch syntax is translated by `pathspec` (one pattern
at a time: the walk decides directory by directory, so pathspec's "a file
below a matching directory" extension of a pattern is not used).
"""

from __future__ import annotations

import os
import re
import stat
import struct
from dataclasses import dataclass, field
from typing import Callable, Iterable, Optional, Pattern

from sgllint.resolve.safe_read import NotRead, read_regular_file


def _wildmatch():
    """pathspec's gitignore pattern class, imported at the first pattern
    (a run that reads no ignore file, such as one named file, never pays
    for it)."""
    try:  # pathspec >= 1.0
        from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern as wildmatch
    except ImportError:  # pragma: no cover - pathspec 0.12
        from pathspec.patterns.gitwildmatch import GitWildMatchPattern as wildmatch
    return wildmatch


GITIGNORE = ".gitignore"
DOT_IGNORE = ".ignore"
#: an index larger than this is not read (tracked-but-ignored files are then ignored)
MAX_INDEX_BYTES = 256 * 1024 * 1024
#: pathspec's name for the part of a match that is "something below the matched path"
_BELOW = "ps_d"


# ---------------------------------------------------------------------------
# Patterns
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class IgnorePattern:
    regex: Pattern[str]
    negated: bool
    directory_only: bool

    def matches(self, path: str, is_dir: bool) -> bool:
        """Whether the pattern names ``path`` itself (relative to its file's
        directory), not merely something inside it."""
        if self.directory_only and not is_dir:
            return False
        m = self.regex.match(path)
        if m is None:
            return False
        return _BELOW not in self.regex.groupindex or m.group(_BELOW) is None


def _trim_trailing_spaces(line: str) -> str:
    """git's trim_trailing_spaces: trailing blanks go unless escaped."""
    end = len(line)
    while end > 0 and line[end - 1] == " ":
        backslashes = 0
        i = end - 2
        while i >= 0 and line[i] == "\\":
            backslashes += 1
            i -= 1
        if backslashes % 2:
            break
        end -= 1
    return line[:end]


def parse_pattern(line: str) -> Optional[IgnorePattern]:
    """One line of an ignore file, or None for a blank line, a comment or a
    pattern git would discard."""
    if line.endswith("\r"):
        line = line[:-1]  # git drops the CR of a CRLF line end
    if line.startswith("#"):
        return None
    line = _trim_trailing_spaces(line)
    if not line:
        return None
    negated = line.startswith("!")
    body = line[1:] if negated else line
    directory_only = body.endswith("/") and not body.endswith("\\/")
    if directory_only:
        body = body.rstrip("/")
    if not body:
        return None
    if body[0] in "#!":
        body = "\\" + body  # literal here; pathspec would read a comment or a negation
    classes = _take_bracket_expressions(body)
    if classes is None:
        return None  # an unterminated [ or an unknown [:class:]: git's wildmatch never matches
    body, regexes = classes
    try:
        compiled = _wildmatch()(body)
    except Exception:
        return None
    if compiled.include is None or compiled.regex is None:
        return None
    regex = compiled.regex
    if regexes:
        source = regex.pattern
        for i, class_regex in enumerate(regexes):
            source = source.replace(chr(_PLACEHOLDER + i), class_regex)
        regex = re.compile(source)
    return IgnorePattern(regex, negated, directory_only)


# Bracket expressions are translated here, by git's wildmatch rules
# (backslash escapes inside them, POSIX classes, "]" first is literal, never
# "/"), and reach pathspec as private-use placeholder characters that its
# regex keeps verbatim.
_PLACEHOLDER = 0xF0000
_POSIX_CLASSES = {
    "alnum": "a-zA-Z0-9", "alpha": "a-zA-Z", "blank": " \\t", "cntrl": "\\x00-\\x1f\\x7f",
    "digit": "0-9", "graph": "!-~", "lower": "a-z", "print": " -~", "punct": "!-/:-@\\[-`{-~",
    "space": " \\t\\n\\r\\f\\v", "upper": "A-Z", "xdigit": "0-9A-Fa-f",
}


def _take_bracket_expressions(body: str) -> Optional[tuple[str, list[str]]]:
    """``body`` with each bracket expression replaced by a placeholder, and
    the regex of each; None when git would never match the pattern."""
    if any(ord(ch) >= _PLACEHOLDER for ch in body):
        return body, []  # the placeholders' plane is in use: pathspec alone
    out: list[str] = []
    regexes: list[str] = []
    i = 0
    while i < len(body):
        ch = body[i]
        if ch == "\\":
            out.append(body[i : i + 2])
            i += 2
        elif ch == "[":
            parsed = _bracket_expression(body, i + 1)
            if parsed is None:
                return None
            regex, i = parsed
            out.append(chr(_PLACEHOLDER + len(regexes)))
            regexes.append(regex)
        else:
            out.append(ch)
            i += 1
    return "".join(out), regexes


def _bracket_expression(body: str, i: int) -> Optional[tuple[str, int]]:
    """The regex of the bracket expression whose content starts at ``i``
    and the index after its ``]`` (wildmatch.c's ``case '['``)."""
    negated = i < len(body) and body[i] in "!^"
    i += negated
    items: list[str] = []
    previous: Optional[str] = None
    first = True
    while True:
        if i >= len(body):
            return None
        ch = body[i]
        if ch == "]" and not first:
            break
        first = False
        if ch == "\\":
            i += 1
            if i >= len(body):
                return None
            ch = body[i]
            items.append(re.escape(ch))
            previous = ch
        elif ch == "-" and previous is not None and i + 1 < len(body) and body[i + 1] != "]":
            i += 1
            high = body[i]
            if high == "\\":
                i += 1
                if i >= len(body):
                    return None
                high = body[i]
            items.pop()
            if previous <= high:
                items.append(f"{re.escape(previous)}-{re.escape(high)}")
            previous = None
        elif ch == "[" and body[i + 1 : i + 2] == ":":
            end = body.find("]", i + 2)
            if end < 0:
                return None
            name = body[i + 2 : end]
            if not name.endswith(":"):  # not "[:name:]": an ordinary "["
                items.append(re.escape(ch))
                previous = ch
            else:
                members = _POSIX_CLASSES.get(name[:-1])
                if members is None:
                    return None
                items.append(members)
                previous = None
                i = end
        else:
            items.append(re.escape(ch))
            previous = ch
        i += 1
    members = "".join(items)
    if negated:
        return f"[^/{members}]", i + 1
    return (f"(?:(?!/)[{members}])" if members else "(?!)"), i + 1


@dataclass(frozen=True)
class IgnoreFile:
    """The patterns of one ignore file, applying below ``base`` ("" or "a/b/")."""

    base: str
    patterns: tuple[IgnorePattern, ...]

    def decide(self, path: str, is_dir: bool) -> Optional[bool]:
        """True: ignored, False: re-included (``!``), None: no pattern matches."""
        relative = path[len(self.base):]
        for pattern in reversed(self.patterns):
            if pattern.matches(relative, is_dir):
                return not pattern.negated
        return None


def parse_ignore_text(data: bytes, base: str) -> IgnoreFile:
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]  # git skips a UTF-8 byte order mark
    text = data.decode("utf-8", "surrogateescape")  # as file names are decoded
    patterns = tuple(p for p in (parse_pattern(line) for line in text.split("\n")) if p is not None)
    return IgnoreFile(base, patterns)


# ---------------------------------------------------------------------------
# Repositories
# ---------------------------------------------------------------------------


def _is_dir(path: str) -> bool:
    try:
        return stat.S_ISDIR(os.stat(path).st_mode)
    except OSError:
        return False


def _is_git_directory(gitdir: str) -> bool:
    """What git requires of a repository directory (stat only, nothing opened)."""
    return _is_dir(os.path.join(gitdir, "objects")) and _is_dir(os.path.join(gitdir, "refs")) and os.path.lexists(os.path.join(gitdir, "HEAD"))


def git_directory(worktree: str) -> tuple[bool, Optional[str]]:
    """(whether ``worktree`` is the top of a repository, its ``.git``
    directory when that is a directory inside it; a ``.git`` file naming a
    directory elsewhere makes it a repository whose data is not read)."""
    dotgit = os.path.join(worktree, ".git")
    try:
        st = os.lstat(dotgit)
    except OSError:
        return False, None
    if stat.S_ISDIR(st.st_mode):
        return (True, dotgit) if _is_git_directory(dotgit) else (False, None)
    if not stat.S_ISREG(st.st_mode):
        return False, None
    try:
        data, _ = read_regular_file(dotgit, 4096)
    except NotRead:
        return False, None
    # the directory it names is not even stat'ed: it may be anywhere
    return re.match(rb"gitdir: *[^\r\n]", data) is not None, None


def find_repository(directory: str) -> Optional[str]:
    """The top of the work tree ``directory`` is in (its real path), if any."""
    d = os.path.realpath(directory)
    while True:
        if git_directory(d)[0]:
            return d
        parent = os.path.dirname(d)
        if parent == d:
            return None
        d = parent


def tracked_paths(gitdir: str) -> frozenset[str]:
    """Paths in the repository's index (``.git/index``, versions 2 to 4),
    relative to the top; empty when there is none or it cannot be read."""
    try:
        data, _ = read_regular_file(os.path.join(gitdir, "index"), MAX_INDEX_BYTES)
    except NotRead:
        return frozenset()
    try:
        return frozenset(_index_entries(data, _hash_size(gitdir)))
    except (struct.error, IndexError, ValueError):
        return frozenset()  # a damaged index: as if there were none


def _hash_size(gitdir: str) -> int:
    try:
        config, _ = read_regular_file(os.path.join(gitdir, "config"), 1 << 20)
    except NotRead:
        return 20
    return 32 if re.search(rb"(?im)^\s*objectformat\s*=\s*sha256\s*$", config) else 20


def _index_entries(data: bytes, hash_size: int) -> list[str]:
    signature, version, count = struct.unpack_from(">4sII", data, 0)
    if signature != b"DIRC" or version not in (2, 3, 4):
        return []
    entries: list[str] = []
    pos = 12
    previous = b""
    fixed = 40 + hash_size  # stat fields, then the object name
    for _ in range(count):
        start = pos
        (flags,) = struct.unpack_from(">H", data, pos + fixed)
        pos += fixed + 2
        if version >= 3 and flags & 0x4000:
            pos += 2  # extended flags
        if version == 4:
            strip, pos = _varint(data, pos)
            end = data.index(b"\0", pos)
            if strip > len(previous):
                raise ValueError("bad path compression")
            name = previous[: len(previous) - strip] + data[pos:end]
            pos = end + 1
        else:
            end = data.index(b"\0", pos)
            name = data[pos:end]
            pos = start + ((end - start + 8) & ~7)  # NUL-padded to a multiple of 8
        previous = name
        entries.append(os.fsdecode(name).rstrip("/"))  # a sparse directory entry ends in /
    return entries


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    """git's offset encoding (varint.c)."""
    c = data[pos]
    pos += 1
    value = c & 0x7F
    while c & 0x80:
        c = data[pos]
        pos += 1
        value = ((value + 1) << 7) | (c & 0x7F)
    return value, pos


# ---------------------------------------------------------------------------
# The rules in force in one directory of a walk
# ---------------------------------------------------------------------------


@dataclass
class Scope:
    """One repository (or, outside any, the walked directory): where paths
    are relative to, its exclude file and its tracked paths."""

    top: str
    git: bool
    exclude: Optional[IgnoreFile] = None
    tracked: frozenset[str] = frozenset()
    tracked_dirs: frozenset[str] = frozenset()

    @classmethod
    def of_repository(cls, top: str, gitdir: Optional[str], read: Callable[[str, str], Optional[IgnoreFile]]) -> "Scope":
        exclude = read(os.path.join(gitdir, "info", "exclude"), "") if gitdir else None
        tracked = tracked_paths(gitdir) if gitdir else frozenset()
        return cls(top, True, exclude, tracked, frozenset(_parents(tracked)))


def _parents(paths: Iterable[str]) -> set[str]:
    """Every directory above the paths ("a/b/c" gives "a/b" and "a")."""
    parents: set[str] = set()
    for path in paths:
        i = path.rfind("/")
        while i > 0 and path[:i] not in parents:
            parents.add(path[:i])
            i = path.rfind("/", 0, i)
    return parents


@dataclass
class DirectoryRules:
    """Which entries of one directory are ignored. ``rel`` is the directory
    relative to ``scope.top`` ("" or "a/b/"); ``files`` the ignore files
    in force, outermost first."""

    scope: Scope
    rel: str
    files: tuple[IgnoreFile, ...] = ()
    dot_files: tuple[IgnoreFile, ...] = ()
    tracked_only: bool = False  # an ignored directory, entered for its tracked files
    read: Callable[[str, str], Optional[IgnoreFile]] = field(default=lambda path, base: None, repr=False)

    def _decide(self, rel: str, is_dir: bool) -> bool:
        for group in (self.dot_files, self.files):
            for ignore_file in reversed(group):
                verdict = ignore_file.decide(rel, is_dir)
                if verdict is not None:
                    return verdict
        if self.scope.exclude is not None:
            return self.scope.exclude.decide(rel, is_dir) is True
        return False

    def ignores_file(self, name: str) -> bool:
        if name == ".git":
            return True  # a submodule's or worktree's link: never a file of the tree
        rel = self.rel + name
        if rel in self.scope.tracked:
            return False
        return self.tracked_only or self._decide(rel, False)

    def enter(self, directory: str, name: str) -> Optional["DirectoryRules"]:
        """The rules inside the subdirectory ``name`` (at ``directory``), or
        None when the walk does not enter it."""
        rel = self.rel + name
        if name == ".git":
            return None
        repository, gitdir = git_directory(directory)
        if repository:
            if self.scope.git:
                return None  # a nested repository or submodule: git lists none of its files
            return start_rules(directory, self.read, (repository, gitdir))
        tracked = rel in self.scope.tracked_dirs
        if self.tracked_only or self._decide(rel, True):
            if not tracked:
                return None
            return DirectoryRules(self.scope, rel + "/", self.files, self.dot_files, True, self.read)
        return self._below(directory, rel + "/")

    def _below(self, directory: str, rel: str) -> "DirectoryRules":
        files, dot_files = self.files, self.dot_files
        if self.scope.git:
            found = self.read(os.path.join(directory, GITIGNORE), rel)
            if found is not None:
                files += (found,)
        found = self.read(os.path.join(directory, DOT_IGNORE), rel)
        if found is not None:
            dot_files += (found,)
        return DirectoryRules(self.scope, rel, files, dot_files, False, self.read)


def start_rules(directory: str, read: Callable[[str, str], Optional[IgnoreFile]], repository=None) -> DirectoryRules:
    """The rules in force in ``directory``, where a walk starts: those of the
    repository it is in, from the repository's top down to it. ``read(path,
    base)`` reads one ignore file (None when absent or refused)."""
    real = os.path.realpath(directory)
    if repository is not None:
        top: Optional[str] = real
        gitdir = repository[1]
    else:
        top = find_repository(real)
        gitdir = git_directory(top)[1] if top else None
    if top is None:
        rules = DirectoryRules(Scope(real, False), "", read=read)
        return rules._below(directory, "")
    rules = DirectoryRules(Scope.of_repository(top, gitdir, read), "", read=read)
    rules = rules._below(top, "")
    rel = os.path.relpath(real, top)
    if rel == ".":
        return rules
    walked = top
    for part in rel.split(os.sep):
        walked = os.path.join(walked, part)
        inner = rules.enter(walked, part)
        if inner is None:  # the walk starts inside an ignored directory: what is below was asked for
            inner = DirectoryRules(rules.scope, rules.rel + part + "/", rules.files, rules.dot_files, False, read)
        rules = inner
    return rules
