"""Which command lines start an SGLang server, shared by every extractor.

A launch is recognised by its shape anywhere in a word list, so wrappers in
front of it (``env``, ``nohup``, ``srun --ntasks=1``, ``uv run``, ``docker run
... IMAGE``) need no special case: ``python[3[.x]] [-u ...] -m
sglang.launch_server``, ``sglang serve`` and ``python -m
sglang_router.launch_server`` (ServerArgs plus ``--router-*`` flags).
Clients and tools that merely share the name (``sglang_router.launch_router``,
``sglang.bench_serving``, ``minisglang``) are not server launches.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional, Sequence

from sgllint.model import Unresolved

LAUNCH_SERVER = "python -m sglang.launch_server"
SERVE = "sglang serve"
ROUTER_LAUNCH_SERVER = "python -m sglang_router.launch_server"

#: modules whose __main__ parses SGLang server args and starts a server
SERVER_MODULES = {
    "sglang.launch_server": LAUNCH_SERVER,
    "sglang_router.launch_server": ROUTER_LAUNCH_SERVER,
}

#: flags of a wrapper entry point that are not SGLang's (tolerated, not linted)
FOREIGN_FLAG_PREFIXES = {
    ROUTER_LAUNCH_SERVER: ("--router-",),
}

_PYTHON_RE = re.compile(r"(?:^|/)(?:python|pypy)(?:\d+(?:\.\d+)*)?(?:\.exe)?$")
_SGLANG_BIN_RE = re.compile(r"(?:^|/)sglang$")
# interpreter options that take a separate value word (python -X dev -W ignore)
_PY_VALUE_OPTS = {"-X", "-W", "-c", "--check-hash-based-pycs"}

#: bytes that must occur in a file for any launch to be there (prefilter)
LAUNCH_MARKERS = (b"sglang.launch_server", b"sglang serve", b"sglang_router.launch_server", b"sglang\"", b"sglang'")


@dataclass(frozen=True)
class LaunchMatch:
    entry: str
    start: int  # index of the first word of the launcher (the interpreter)
    args_start: int  # index of the first server argument


def _text(word) -> Optional[str]:
    return word if isinstance(word, str) else None


def is_python(word) -> bool:
    if isinstance(word, Unresolved):
        return True  # $PYTHON -m sglang.launch_server
    return isinstance(word, str) and bool(_PYTHON_RE.search(word))


def find_launch(words: Sequence, start: int = 0) -> Optional[LaunchMatch]:
    """The first server launch in ``words`` (token values: `str` or
    `Unresolved`) at or after ``start``."""
    n = len(words)
    for i in range(start, n):
        w = _text(words[i])
        if w is None:
            continue
        if w == "-m" and i + 1 < n:
            module = _text(words[i + 1])
            entry = SERVER_MODULES.get(module or "")
            if entry is None:
                continue
            interp = _interpreter_before(words, i)
            if interp is None:
                continue
            return LaunchMatch(entry, interp, i + 2)
        if w.startswith("-m") and len(w) > 2 and w[2:] in SERVER_MODULES:
            interp = _interpreter_before(words, i)
            if interp is not None:
                return LaunchMatch(SERVER_MODULES[w[2:]], interp, i + 1)
        if _SGLANG_BIN_RE.search(w) and i + 1 < n and _text(words[i + 1]) == "serve":
            return LaunchMatch(SERVE, i, i + 2)
    return None


def _interpreter_before(words: Sequence, m_index: int) -> Optional[int]:
    """Index of the python interpreter word that owns the ``-m`` at
    ``m_index``, skipping interpreter options such as ``-u`` or ``-X dev``."""
    j = m_index - 1
    while j >= 0:
        w = words[j]
        if is_python(w):
            return j
        t = _text(w)
        if t is None or not t.startswith("-"):
            # an option value (-X dev): look one further back
            if j - 1 >= 0 and _text(words[j - 1]) in _PY_VALUE_OPTS:
                j -= 2
                continue
            return None
        j -= 1
    return None
