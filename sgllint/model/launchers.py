"""Which command lines start an SGLang server, shared by every extractor.

A launch is recognised by its shape anywhere in a word list, so wrappers in
front of it (``env``, ``nohup``, ``srun --ntasks=1``, ``uv run``, ``docker run
... IMAGE``) need no special case: ``python[3[.x]] [-u ...] -m
sglang.launch_server``, ``sglang serve`` and ``python -m
sglang_router.launch_server`` (ServerArgs plus ``--router-*`` flags).
Clients and tools that merely share the name (``sglang.bench_serving``,
``minisglang``) are not server launches.

Launchers of other packages are recognised too, each under the entry-point
name its generated parser carries (`sgllint.catalog.wrappers`): Dynamo's
``python -m dynamo.sglang`` (and the 0.4-era ``dynamo.sglang.worker`` /
``decode_worker``), the router's ``python -m sglang_router.launch_router`` and
its ``sglang-router`` console script (router options only), and ``sglang
generate`` (the diffusion CLI).  `WRAPPED_ENTRIES` names the package whose
parser judges each of them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional, Sequence

from sgllint.model.facts import Unresolved

LAUNCH_SERVER = "python -m sglang.launch_server"
SERVE = "sglang serve"
ROUTER_LAUNCH_SERVER = "python -m sglang_router.launch_server"
ROUTER_LAUNCH_ROUTER = "python -m sglang_router.launch_router"
ROUTER_BINARY = "sglang-router"
DYNAMO_SGLANG = "python -m dynamo.sglang"
GENERATE = "sglang generate"

#: the POSIX shells whose ``-c SCRIPT`` (or a script they are fed) runs a
#: launch: the one list every format recognises a wrapping shell by
SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "ash"})

#: shell options whose value is the next word (``bash -o pipefail -c ...``)
_SHELL_VALUE_OPTS = ("-o", "+o", "-O", "+O")


def is_shell(word) -> bool:
    """A word naming one of `SHELLS`, by path or not (``/bin/sh``)."""
    return isinstance(word, str) and word.rsplit("/", 1)[-1] in SHELLS


def shell_c_script(words: Sequence, stop: Optional[int] = None) -> Optional[int]:
    """Index of SCRIPT in ``[...] sh [options] -c SCRIPT [...]``, else None:
    the one recogniser of a shell running a string, for every format (argv
    lists in Python, YAML, Dockerfiles, and commands in shell scripts).

    The first shell word (before ``stop``) decides. Its options are the words
    starting with ``-`` or ``+`` (``-o NAME`` and ``-O NAME`` take the next
    word); ``c`` in a cluster of short options (``-lc``, ``-ec``) makes the
    first word after the options the script, as the shells read it."""
    end = len(words) if stop is None else min(stop, len(words))
    for i in range(end):
        if not is_shell(words[i]):
            continue
        has_c = False
        j = i + 1
        while j < len(words) and isinstance(words[j], str) and words[j][:1] in "-+" and len(words[j]) > 1:
            opt = words[j]
            if opt in _SHELL_VALUE_OPTS:
                j += 2
                continue
            if not opt.startswith("--") and "c" in opt[1:]:
                has_c = True
            j += 1
        return j if has_c and j < len(words) else None
    return None

#: modules whose __main__ parses SGLang server args and starts a server
SERVER_MODULES = {
    "sglang.launch_server": LAUNCH_SERVER,
    "sglang_router.launch_server": ROUTER_LAUNCH_SERVER,
    "sglang_router.launch_router": ROUTER_LAUNCH_ROUTER,
    "dynamo.sglang": DYNAMO_SGLANG,
    "dynamo.sglang.worker": "python -m dynamo.sglang.worker",
    "dynamo.sglang.decode_worker": "python -m dynamo.sglang.decode_worker",
}

#: entry -> the package whose generated parser (`sgllint.catalog.wrappers`)
#: takes the launch's words first
WRAPPED_ENTRIES = {
    ROUTER_LAUNCH_SERVER: "sglang-router",
    ROUTER_LAUNCH_ROUTER: "sglang-router",
    ROUTER_BINARY: "sglang-router",
    DYNAMO_SGLANG: "ai-dynamo",
    "python -m dynamo.sglang.worker": "ai-dynamo",
    "python -m dynamo.sglang.decode_worker": "ai-dynamo",
}

#: the ``sglang`` console script's subcommands that start a server
_SGLANG_SUBCOMMANDS = {"serve": SERVE, "generate": GENERATE}

#: every launcher's text, for extractors that look for launches in strings
LAUNCH_TEXT_PATTERN = (
    r"sglang(?:_router)?\.launch_(?:server|router)|\bdynamo\.sglang\b|\bsglang(?:\s|\\)+(?:serve|generate)\b"
    r"|(?:^|[\s/\"'])sglang-router\s+(?:launch|server)\b"
)

_PYTHON_RE = re.compile(r"(?:^|/)(?:python|pypy)(?:\d+(?:\.\d+)*)?(?:\.exe)?$")
_SGLANG_BIN_RE = re.compile(r"(?:^|/)sglang$")
_ROUTER_BIN_RE = re.compile(r"(?:^|/)sglang-router$")
# interpreter options that take a separate value word (python -X dev -W ignore)
_PY_VALUE_OPTS = {"-X", "-W", "-c", "--check-hash-based-pycs"}


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
        if _SGLANG_BIN_RE.search(w) and i + 1 < n and _text(words[i + 1]) in _SGLANG_SUBCOMMANDS:
            return LaunchMatch(_SGLANG_SUBCOMMANDS[_text(words[i + 1])], i, i + 2)
        if _ROUTER_BIN_RE.search(w) and i + 1 < n and _router_command(words, i):
            # the console script's first word (launch / server) is part of
            # what its parser judges
            return LaunchMatch(ROUTER_BINARY, i, i + 1)
    return None


def _router_command(words: Sequence, i: int) -> bool:
    """``sglang-router`` runs as a command: a subcommand follows it, or an
    option while it is the command's first word (after ``exec``/``env``-style
    prefixes); never as a value (``pip install sglang-router``)."""
    following = _text(words[i + 1])
    if following in ("launch", "server"):
        return True
    if following is None or not following.startswith("-"):
        return False
    before = _text(words[i - 1]) if i else "exec"
    return before is not None and (before in ("exec", "env", "nohup", "run", "time", "--") or "=" in before)


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
