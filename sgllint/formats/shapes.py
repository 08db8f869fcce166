"""Byte shapes: what a file of a format must contain to hold an SGLang launch.

Each format declares its `Shapes` in its registry line
(`sgllint.formats.registry`); the engine's byte prefilter
(`sgllint.engine.prefilter`) rejects, before any decode or parse, a file
whose bytes match none of them. A file of a format without shapes is
rejected only when it lacks the word ``sglang``.

Every launch shape an extractor recognises needs the word ``sglang``
somewhere in the file, and one of a few per-format *shapes* (each list is a
superset of what its extractor turns into a launch;
``tests/test_fuzz_extractors.py`` checks that no rejected input yields a
launch site):

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
    ``--config`` file is a mapping with a model path key) and Hydra keys; a
    top-level ``model-path:`` or dashed key passes without the word
    ``sglang`` (a ``--config`` file need not say it).
``toml``
    the shell shapes, plus a table or key named ``sglang`` (``[sglang]``,
    ``[tool.sglang]``, ``sglang = {...}``, ``[x.sglang.prefill]``) or
    ``server_args``.

Each shape is a ``bytes`` regex that starts with a literal (the prefilter
finds that literal at C speed, where one combined pattern with a leading
``\\b`` or an alternation is tried at every position of the file), and
whether a word boundary must precede its match (the leading ``\\b``, checked
by hand).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

#: a shape: (pattern, whether a word boundary must precede its match)
Shape = tuple[bytes, bool]


@dataclass(frozen=True)
class Shapes:
    """A format's byte shapes: a file may launch when it contains the word
    ``sglang`` and one of ``any_of``, or (``quoted``) one of each of two
    lists; or, without the word, matches ``without_word``."""

    any_of: tuple[Shape, ...]
    quoted: Optional[tuple[tuple[Shape, ...], tuple[Shape, ...]]] = None
    without_word: Optional[bytes] = None  # a (multi-line) regex


_CALL_TAIL = rb"(?:\s*\(|\s+as\s)"
CALLS: tuple[Shape, ...] = tuple(
    (name + _CALL_TAIL, True) for name in (rb"Engine", rb"Runtime", rb"ServerArgs", rb"popen_launch_server", rb"launch_server_cmd")
)
LAUNCHER: tuple[Shape, ...] = ((rb"sglang\.launch_server", False), (rb"sglang_router\.launch_(?:server|router)", False), (rb"sglang serve", False))
#: launchers of other packages and the diffusion CLI (`sgllint.model.launchers.WRAPPED_ENTRIES`)
WRAPPERS: tuple[Shape, ...] = ((rb"launch_router", False), (rb"dynamo\.sglang", False), (rb"sglang-router", False), (rb"sglang generate", False))
HYDRA: tuple[Shape, ...] = ((rb"\.sglang\.[A-Za-z_]\w*=", False),)
ARGV: tuple[Shape, ...] = ((rb"launch_server", False), (rb"serve\b", True)) + WRAPPERS
#: slime's trainer flags that carry SGLang's (`sgllint.formats.shell.prefixed`)
PREFIXED: tuple[Shape, ...] = ((rb"sglang-[a-z]", False),)  # after "--": the literal must start with a word character

#: ``"sglang"`` as its own word launches only as ``["sglang", "serve" | "generate"]``
_QUOTED_WORD: tuple[Shape, ...] = ((rb"sglang[\"']", False),)
_SUBCOMMAND: tuple[Shape, ...] = ((rb"serve\b", True), (rb"generate\b", True))

PYTHON = Shapes(CALLS + LAUNCHER + WRAPPERS + HYDRA, quoted=(_QUOTED_WORD, _SUBCOMMAND))
SHELL = Shapes(ARGV + CALLS + HYDRA + PREFIXED)
DOCKERFILE = Shapes(ARGV + CALLS + HYDRA)
MARKDOWN = Shapes(ARGV + CALLS + LAUNCHER + HYDRA + PREFIXED)
YAML = Shapes(
    ARGV + CALLS + HYDRA + ((rb"model[-_]path", False), (rb"\.sglang\.", False), (rb"engine_kwargs", False), (rb"strategy_name: sglang", False)),
    #: a top-level ``model-path:`` / ``model_path:`` key or any dashed key: a file that may be an SGLang
    #: ``--config`` file (`sgllint.formats.yaml.sglang_config.is_config_mapping`, `sgllint.resolve.config_refs`)
    without_word=rb"(?m)^(?:model[-_]path|[a-z][a-z0-9]*(?:-[a-z0-9]+)+)[ \t]*:",
)
TOML = Shapes(ARGV + CALLS + HYDRA + ((rb"sglang[\"']?\s*[\]=.]", False), (rb"server_args", False)))
