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
_COMPILED_STR = {fmt: re.compile(pattern.decode("ascii")) for fmt, pattern in SHAPES.items()}
_QUOTED_STR = {fmt: tuple(re.compile(p.pattern.decode("ascii")) for p in pair) for fmt, pair in _QUOTED.items()}


def may_launch(fmt: str, data: Union[bytes, str]) -> bool:
    """False only when ``data`` (a file's bytes or decoded text) of format
    ``fmt`` certainly holds no launch."""
    if isinstance(data, str):
        if "sglang" not in data:
            return False
        pattern, quoted = _COMPILED_STR.get(fmt), _QUOTED_STR.get(fmt)
    else:
        if WORD not in data:
            return False
        pattern, quoted = _COMPILED.get(fmt), _QUOTED.get(fmt)
    if pattern is None or pattern.search(data) is not None:
        return True
    return quoted is not None and quoted[0].search(data) is not None and quoted[1].search(data) is not None
