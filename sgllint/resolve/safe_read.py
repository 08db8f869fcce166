"""Reading a file the linted tree controls: a regular file only, and only
up to a size.

A path in the tree may name a FIFO (an ``open`` waits for a writer that
never comes), a socket, a device (``/dev/zero`` never ends; opening a tape
rewinds it) or a file too large to hold. `read_regular_file` decides from
``stat`` before it opens anything, opens without blocking, without taking
a controlling terminal and without following a symbolic link (a link is
resolved first and its target opened), checks that the file opened is the
one it stat'ed (the path may have been swapped for a link to elsewhere in
between) and reads at most ``limit`` bytes. Every refusal is a `NotRead`
that says why, for a diagnostic.
"""

from __future__ import annotations

import enum
import errno
import os
import stat
from typing import Optional

#: how much of a file is read unless configured otherwise (``max-file-size``)
DEFAULT_MAX_FILE_SIZE = 2 * 1024 * 1024

_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CHUNK = 1 << 20
#: what a file swapped between its check and its opening is told
_CHANGED = "it changed while being read"


class NotReadReason(enum.Enum):
    NOT_REGULAR = "not a regular file"
    TOO_LARGE = "file too large"
    CANNOT_READ = "cannot read"
    MISSING = "no such file or directory"
    # found by the walk (`sgllint.engine.walk`)
    DIRECTORY = "cannot list directory"
    OUTSIDE_ROOT = "outside the linted directory"
    IGNORE_FILE = "cannot read ignore file"


class NotRead(Exception):
    """A path that was not read, and why."""

    def __init__(self, reason: NotReadReason, detail: str = "", size: Optional[int] = None, limit: Optional[int] = None):
        super().__init__(reason, detail, size, limit)
        self.reason = reason
        self.detail = detail
        self.size = size
        self.limit = limit

    def short(self) -> str:
        """Why, in a few words: "a FIFO", "Permission denied", "3.0 MiB; the limit is 2 MiB"."""
        if self.reason is NotReadReason.TOO_LARGE and self.size is not None and self.limit is not None:
            return f"{format_size(self.size)}; the limit is {format_size(self.limit)}, set by max-file-size"
        return self.detail or self.reason.value

    def message(self) -> str:
        """The sentence a diagnostic at the path says."""
        reason = self.reason
        if reason is NotReadReason.NOT_REGULAR:
            return f"not a regular file ({self.short()}): skipped"
        if reason is NotReadReason.TOO_LARGE:
            return f"file too large: skipped ({self.short()})"
        if reason is NotReadReason.DIRECTORY:
            return f"cannot read this directory ({self.short()}): its files were not linted"
        if reason is NotReadReason.OUTSIDE_ROOT:
            return "symbolic link to a file outside the linted directory: not followed"
        if reason is NotReadReason.IGNORE_FILE:
            return f"cannot read this ignore file ({self.short()}): its patterns were not applied"
        return f"cannot read this file ({self.short()}): skipped"

    def __str__(self) -> str:
        return self.message()


def kind_of(mode: int) -> str:
    """What a non-regular file is, for a message."""
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISLNK(mode):
        return "a loop of symbolic links"
    return "not a file"


def format_size(n: int) -> str:
    """``2 MiB``, ``3.0 MiB``, ``512 KiB``, ``63 bytes``."""
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            return f"{n // size} {unit}" if n % size == 0 else f"{n / size:.1f} {unit}"
    return f"{n} byte{'s' if n != 1 else ''}"


def _cannot_read(exc: OSError) -> NotRead:
    if isinstance(exc, FileNotFoundError):
        return NotRead(NotReadReason.MISSING)
    return NotRead(NotReadReason.CANNOT_READ, exc.strerror or str(exc))


def check_regular(path: str, limit: int) -> os.stat_result:
    """``path``'s stat (following symbolic links) when it is a regular file
    no larger than ``limit``; else `NotRead`. Opens nothing."""
    try:
        st = os.stat(path)
    except OSError as exc:
        raise _cannot_read(exc) from None
    _check_stat(st, limit)
    return st


def _check_stat(st: os.stat_result, limit: int) -> None:
    if not stat.S_ISREG(st.st_mode):
        raise NotRead(NotReadReason.NOT_REGULAR, kind_of(st.st_mode))
    if st.st_size > limit:
        raise NotRead(NotReadReason.TOO_LARGE, size=st.st_size, limit=limit)


def _to_open(path: str) -> tuple[str, os.stat_result]:
    """The path to open with ``O_NOFOLLOW`` for ``path`` (itself, or the
    target of the symbolic link it is) and that file's stat."""
    try:
        st = os.lstat(path)
        if not stat.S_ISLNK(st.st_mode):
            return path, st
        real = os.path.realpath(path)
        return real, os.lstat(real)  # a link still after resolving: a loop (not regular)
    except OSError as exc:
        raise _cannot_read(exc) from None


def read_regular_file(path: str, limit: int = DEFAULT_MAX_FILE_SIZE) -> tuple[bytes, os.stat_result]:
    """The bytes of the regular file ``path`` (at most ``limit`` of them)
    and its stat, or `NotRead`."""
    target, checked = _to_open(path)
    _check_stat(checked, limit)
    try:
        fd = os.open(target, _OPEN_FLAGS | _NOFOLLOW)
    except OSError as exc:
        if exc.errno == errno.ELOOP:  # a regular file when checked, a link now
            raise NotRead(NotReadReason.CANNOT_READ, _CHANGED) from None
        raise _cannot_read(exc) from None
    try:
        st = os.fstat(fd)
        if (st.st_dev, st.st_ino) != (checked.st_dev, checked.st_ino):
            raise NotRead(NotReadReason.CANNOT_READ, _CHANGED)
        _check_stat(st, limit)  # the file opened is the one checked
        chunks = []
        total = 0
        while total <= limit:
            chunk = os.read(fd, min(_CHUNK, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
    except OSError as exc:
        raise _cannot_read(exc) from None
    finally:
        os.close(fd)
    if total > limit:  # grew since the stat
        raise NotRead(NotReadReason.TOO_LARGE, size=total, limit=limit)
    return b"".join(chunks), st


def read_head(path: str, size: int = 256) -> bytes:
    """The first ``size`` bytes of a regular file (b"" for anything else)."""
    try:
        check_regular(path, 1 << 62)
    except NotRead:
        return b""
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except OSError:
        return b""
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return b""
        return os.read(fd, size)
    except OSError:
        return b""
    finally:
        os.close(fd)
