"""flake8 plugin: sgllint's findings in Python files as ``SGLnnn`` codes.

Registered as ``[project.entry-points."flake8.extension"] SGL =
"sgllint.hosts.flake8_plugin:Plugin"``. flake8 runs it once per ``.py`` file
(a ``tree`` plugin); it lints the file's text with the same engine as
``sgllint check``, so ``flake8 --select SGL`` prints what ``sgllint check
--output-format concise`` prints for the file.

* ``# noqa`` is flake8's job: the engine runs with ``Options(noqa=False)``
  so a ``# noqa: SGL101`` is not applied twice (flake8 applies it to the
  reported line only). ``# sgllint: ignore[...]`` still works.
* Columns: flake8 prints ``column + 1`` and its ``--show-source`` caret
  indexes the line as a ``str``, so the column is a 0-based code-point
  offset: `flake8_column` is the one conversion.
* Configuration (select, ignore, sglang-version, ...) comes from the same
  ``[tool.sgllint]`` / ``.sgllint.toml`` as for the CLI; an error in it is
  reported as SGL003 on line 1 of each file, linted with the defaults.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Iterator, Sequence

from sgllint import __version__
from sgllint.model.diagnostic import Diagnostic
from sgllint.output.text import visible


def flake8_column(d: Diagnostic) -> int:
    """sgllint's 1-based code-point column -> flake8's 0-based column."""
    return d.span.start_line_col()[1] - 1


class Plugin:
    name = "sgllint"
    version = __version__

    _options_cache: dict = {}

    def __init__(self, tree: ast.AST, lines: Sequence[str], filename: str):
        self.tree = tree
        self.lines = lines
        self.filename = filename

    @classmethod
    def _options(cls, directory: Path):
        from sgllint.engine.config import ConfigError, discover
        from sgllint.engine.pipeline import Options

        key = str(directory.resolve()) if directory.exists() else "."
        cached = cls._options_cache.get(key)
        if cached is None:
            error = None
            try:
                config = discover(directory if directory.exists() else Path("."))
            except ConfigError as e:  # reported by `run` (SGL003), linted with the defaults
                from sgllint.engine.config import Config

                config, error = Config(root=Path.cwd()), str(e)
            cached = (Options(config=config, noqa=False), error)
            cls._options_cache[key] = cached
        return cached

    def run(self) -> Iterator[tuple[int, int, str, type]]:
        from sgllint.engine.pipeline import lint_source

        text = "".join(self.lines)
        path = self.filename
        options, config_error = self._options(Path(path).parent if path not in ("stdin", "-") else Path("."))
        if config_error is not None:
            from sgllint.model.rule import CONFIG_ERROR

            yield 1, 0, f"{CONFIG_ERROR.code} {config_error} [{CONFIG_ERROR.name}]", type(self)
        result = lint_source(path, text, options, fmt="python")
        for d in result.diagnostics:
            if d.span.source.path != path:
                continue  # a finding inside another file (a --config YAML)
            line = d.span.start_line_col()[0]
            # flake8 prints the text as it is: control characters from the
            # tree are shown as escapes, as every sgllint text format shows them
            yield line, flake8_column(d), f"{d.code} {visible(d.message)} [{d.name}]", type(self)
