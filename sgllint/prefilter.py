"""Byte prefilter: decide from a file's raw bytes, before any decode or
parse, that it cannot hold an SGLang launch.

Every launch shape an extractor recognises needs the word ``sglang``
somewhere in the file, and one of a few per-format *shapes*. The test is a
single compiled ``bytes`` regex per format, so a file that merely mentions
SGLang (an import, a docstring, a ``server_args: ServerArgs`` annotation)
costs a scan of its bytes and nothing more. A file the prefilter rejects is
reported clean without reading its syntax: a syntax error in a file that
cannot launch is not a finding (SGL000 reports files that launch).

Shapes per format (each list is a superset of what its extractor turns into a
launch; ``tests/test_fuzz_prefilter.py`` checks that no rejected input yields
a launch site):

``python``
    a launch call or an alias of one (``Engine(``, ``Runtime(``,
    ``ServerArgs(``, ``popen_launch_server``, ``launch_server_cmd``, ``X as``),
    a launcher in a string (``sglang.launch_server``,
    ``sglang_router.launch_server``, ``sglang serve``, or a quoted
    ``"sglang"`` word when the word ``serve`` is in the file too: argv
    ``["sglang", "serve"]``) or a Hydra key (``.sglang.<field>=``) — the
    extractor's own `_CANDIDATE` and `HYDRA_MARKER`, narrowed.
``shell``, ``dockerfile``
    ``launch_server`` (any ``-m`` module launch) or the word ``serve`` (the
    ``sglang serve`` CLI, however it is quoted, continued or held in a
    variable), or a Python launch shape (``python -c``, heredocs).
``markdown``
    the shell shapes plus the Python ones (fenced blocks of either).
``yaml``
    the shell shapes, plus ``model-path``/``model_path`` (an SGLang
    ``--config`` file is a mapping with a model path key) and Hydra keys.
``toml``
    the shell shapes, plus a table or key named ``sglang`` (``[sglang]``,
    ``[tool.sglang]``, ``sglang = {...}``, ``[x.sglang.prefill]``) or
    ``server_args``.

Unknown formats are never rejected.
"""

from __future__ import annotations

import re
from typing import Union

#: what every launch of every format contains
WORD = b"sglang"

_PY_CALLS = rb"\b(?:Engine|Runtime|ServerArgs|popen_launch_server|launch_server_cmd)(?:\s*\(|\s+as\s)"
_PY_LAUNCHER = rb"sglang\.launch_server|sglang_router\.launch_server|sglang serve"
#: ``"sglang"`` as its own word launches only as ``["sglang", "serve"]``
_QUOTED_WORD = rb"sglang[\"']"
_SERVE = rb"\bserve\b"
_HYDRA = rb"\.sglang\.[A-Za-z_]\w*="
_ARGV = rb"launch_server|\bserve\b"

SHAPES: dict[str, bytes] = {
    "python": b"|".join([_PY_CALLS, _PY_LAUNCHER, _HYDRA]),
    "shell": b"|".join([_ARGV, _PY_CALLS, _HYDRA]),
    "dockerfile": b"|".join([_ARGV, _PY_CALLS, _HYDRA]),
    "markdown": b"|".join([_ARGV, _PY_CALLS, _PY_LAUNCHER, _HYDRA]),  # _SERVE is in _ARGV
    "yaml": b"|".join([_ARGV, _PY_CALLS, _HYDRA, rb"model[-_]path", rb"\.sglang\."]),
    "toml": b"|".join([_ARGV, _PY_CALLS, _HYDRA, rb"sglang[\"']?\s*[\]=.]", rb"server_args"]),
}
#: formats whose quoted ``"sglang"`` word counts when ``serve`` is in the file too
_QUOTED = {"python": (re.compile(_QUOTED_WORD), re.compile(_SERVE))}
_COMPILED = {fmt: re.compile(pattern) for fmt, pattern in SHAPES.items()}

# The same shapes as alternatives that each start with a literal: Python's
# re then finds that literal at C speed, where one combined pattern (a
# leading ``\b``, an alternation) is tried at every position of the file.
# (pattern, whether a word boundary must precede the match: the leading
# ``\b``, checked by hand). `may_launch` answers exactly as ``SHAPES`` and
# ``_QUOTED`` would.
_CALL_TAIL = rb"(?:\s*\(|\s+as\s)"
_ALT_CALLS = [(name + _CALL_TAIL, True) for name in (rb"Engine", rb"Runtime", rb"ServerArgs", rb"popen_launch_server", rb"launch_server_cmd")]
_ALT_LAUNCHER = [(rb"sglang\.launch_server", False), (rb"sglang_router\.launch_server", False), (rb"sglang serve", False)]
_ALT_HYDRA = [(_HYDRA, False)]
_ALT_ARGV = [(rb"launch_server", False), (rb"serve\b", True)]
_ALTERNATIVES: dict[str, list[tuple[bytes, bool]]] = {
    "python": _ALT_CALLS + _ALT_LAUNCHER + _ALT_HYDRA,
    "shell": _ALT_ARGV + _ALT_CALLS + _ALT_HYDRA,
    "dockerfile": _ALT_ARGV + _ALT_CALLS + _ALT_HYDRA,
    "markdown": _ALT_ARGV + _ALT_CALLS + _ALT_LAUNCHER + _ALT_HYDRA,
    "yaml": _ALT_ARGV + _ALT_CALLS + _ALT_HYDRA + [(rb"model[-_]path", False), (rb"\.sglang\.", False)],
    "toml": _ALT_ARGV + _ALT_CALLS + _ALT_HYDRA + [(rb"sglang[\"']?\s*[\]=.]", False), (rb"server_args", False)],
}
_ALT_QUOTED = {"python": ([(_QUOTED_WORD, False)], [(rb"serve\b", True)])}
_WORD_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


#: the literal every match of a pattern starts with (a regex is slower to
#: scan a file for it than ``in``)
_LITERAL = re.compile(rb"(?:[A-Za-z0-9_ ]|\\\.)+")


def _literal(pattern: bytes) -> bytes:
    return _LITERAL.match(pattern).group().replace(b"\\.", b".")


def _compiled(alternatives, text: bool):
    out = []
    for p, bound in alternatives:
        literal = _literal(p)
        out.append((re.compile(p.decode("ascii") if text else p), bound, literal.decode("ascii") if text else literal))
    return out


_SEARCH = {fmt: _compiled(alts, False) for fmt, alts in _ALTERNATIVES.items()}
_SEARCH_STR = {fmt: _compiled(alts, True) for fmt, alts in _ALTERNATIVES.items()}
_SEARCH_QUOTED = {fmt: tuple(_compiled(a, False) for a in pair) for fmt, pair in _ALT_QUOTED.items()}
_SEARCH_QUOTED_STR = {fmt: tuple(_compiled(a, True) for a in pair) for fmt, pair in _ALT_QUOTED.items()}


def _found(alternatives, data: Union[bytes, str]) -> bool:
    text = isinstance(data, str)
    for pattern, bound, literal in alternatives:
        if literal not in data:
            continue
        if not bound:
            if pattern.search(data) is not None:
                return True
            continue
        for m in pattern.finditer(data):
            i = m.start()
            if i == 0:
                return True
            before = data[i - 1]
            if not (before.isalnum() or before == "_") if text else before not in _WORD_BYTES:
                return True
    return False


def may_launch(fmt: str, data: Union[bytes, str]) -> bool:
    """False only when ``data`` (a file's bytes or decoded text) of format
    ``fmt`` certainly holds no launch."""
    if isinstance(data, str):
        if "sglang" not in data:
            return False
        search, quoted = _SEARCH_STR.get(fmt), _SEARCH_QUOTED_STR.get(fmt)
    else:
        if WORD not in data:
            return False
        search, quoted = _SEARCH.get(fmt), _SEARCH_QUOTED.get(fmt)
    if search is None or _found(search, data):
        return True
    return quoted is not None and _found(quoted[0], data) and _found(quoted[1], data)
