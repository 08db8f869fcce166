"""Output formats: one module each, every one a pure function of finished
diagnostics. Formatters never run rules."""

from __future__ import annotations

import functools
import importlib
import types
from typing import Callable, Sequence

from sgllint.model.diagnostic import Diagnostic

#: --output-format name -> module (each exposes render(diagnostics) -> str)
FORMATS: dict[str, str] = {}

#: the formats people read (render also takes max_per_file): they show a
#: file's first --max-diagnostics findings and a line counting the rest;
#: the machine formats always list every finding
SUMMARISED: set[str] = set()


def register(name: str, module: str, summarised: bool = False) -> None:
    """Add (or replace) an output format: ``--output-format NAME`` and
    ``--output NAME:PATH`` offer it from then on. ``module`` exposes
    ``render(diagnostics, ...)``."""
    FORMATS[name] = module
    if summarised:
        SUMMARISED.add(name)
    else:
        SUMMARISED.discard(name)


def unregister(name: str) -> None:
    del FORMATS[name]
    SUMMARISED.discard(name)


register("full", "sgllint.output.full", summarised=True)
register("concise", "sgllint.output.concise", summarised=True)
register("json", "sgllint.output.json")
register("json-lines", "sgllint.output.json_lines")
register("sarif", "sgllint.output.sarif")
register("github", "sgllint.output.github", summarised=True)
register("gitlab", "sgllint.output.gitlab")
register("junit", "sgllint.output.junit")
register("lsp", "sgllint.output.lsp")


def renderer(name: str, max_diagnostics: int = 0, **run) -> Callable[[Sequence[Diagnostic]], str]:
    """The format's render function; for a `SUMMARISED` format showing at
    most ``max_diagnostics`` findings per file (0: all). ``run`` carries
    facts about the whole run a format may show (``notices``: what the run
    tells the user once; ``root``: the repository root paths are relative
    to); each format takes the ones its ``render`` names."""
    render = importlib.import_module(FORMATS[name]).render
    accepted = _parameters(render)
    kwargs = {k: v for k, v in run.items() if k in accepted}
    if name in SUMMARISED:
        kwargs["max_per_file"] = max_diagnostics
    return functools.partial(render, **kwargs) if kwargs else render


def carries(name: str, fact: str) -> bool:
    """Whether format ``name`` shows the run fact ``fact`` in its document
    (else the CLI says it on stderr)."""
    return fact in _parameters(importlib.import_module(FORMATS[name]).render)


def _parameters(render: Callable) -> tuple[str, ...]:
    """The names of ``render``'s parameters: read from a plain function's
    code (importing `inspect` costs a one-file run more than its linting),
    else from `inspect.signature`."""
    if isinstance(render, types.FunctionType) and not hasattr(render, "__wrapped__") and not hasattr(render, "__signature__"):
        code = render.__code__
        flags = code.co_flags
        n = code.co_argcount + code.co_kwonlyargcount + bool(flags & 0x04) + bool(flags & 0x08)  # *args, **kwargs
        return code.co_varnames[:n]
    import inspect

    return tuple(inspect.signature(render).parameters)
