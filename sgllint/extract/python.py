"""Python extractor: find SGLang server launches in Python source.

The file is parsed with libcst (never imported or run). Its statements are
walked in order by a small abstract interpreter (`_py_flow`) that knows what
each name holds at each call, and every call is checked against the launch
forms SGLang code uses:

- keyword launches: ``sglang.Engine(...)``, ``sglang.Runtime(...)``,
  ``ServerArgs(...)`` (keys are ServerArgs fields; ``**d`` of a dict built
  in the file is followed);
- argv launches: ``subprocess.Popen/run/...([...])``, ``os.execvp``,
  ``asyncio.create_subprocess_exec`` whose words hold a launcher, and
  ``popen_launch_server(model, url, timeout, other_args=[...])``;
- command strings: ``os.system``, ``shell=True`` (handed to the shell
  extractor) and ``launch_server_cmd("...")``, split exactly as SGLang
  splits it;
- Hydra overrides (``...engine_kwargs.sglang.attention_backend=triton``) in
  lists and strings.

Calls are recognised through the file's imports, so an ``Engine`` from
another library is not a launch. Spans point at the literals as written;
values that cannot be known are `Unresolved`, and arguments that may hide
more arguments make the launch opaque.
"""

from __future__ import annotations

import ast
import re
import warnings
from typing import Optional

from sgllint.extract._py_commands import HYDRA_MARKER
from sgllint.model import FileFacts, ParseProblem, Source, Span

__all__ = ["extract"]

#: a file without any of these cannot hold a launch: it is not even parsed
_PREFILTER = re.compile(r"sglang|ServerArgs|Engine\s*\(|launch_server|popen_launch_server")
#: a launch call, an aliased import of one, or a launcher inside a string;
#: a file without any is parsed (for its comments) but never walked, so it
#: never pays for positions
_CANDIDATE = re.compile(
    r"\b(?:Engine|Runtime|ServerArgs|popen_launch_server|launch_server_cmd)(?:\s*\(|\s+as\s)"
    r"|sglang\.launch_server|sglang_router\.launch_server|sglang serve|sglang[\"']"
)
#: string literals (skipped) and comments: collecting comments this way is
#: an order of magnitude faster than tokenize, and a ``#`` in a string is
#: still not a comment
_STRING_OR_COMMENT = re.compile(
    r"""
      [rRbBuUfF]{0,2}
      (?: ''' (?:[^\\]|\\.)*? '''
        | \"\"\" (?:[^\\]|\\.)*? \"\"\"
        | ' (?:[^\\'\r\n]|\\.)* '
        | " (?:[^\\"\r\n]|\\.)* "
      )
    | (?P<comment>\#[^\r\n]*)
    """,
    re.S | re.X,
)


def extract(source: Source) -> FileFacts:
    """All launches, comments and parse problems of one Python file."""
    facts = FileFacts(source, "python")
    if not _PREFILTER.search(source.text):
        return facts
    libcst = _import_libcst()
    if libcst is None:
        facts.problems.append(ParseProblem(Span(source, 0, 0), "Python files need libcst: pip install libcst"))
        return facts
    lines = _Lines(source)
    facts.comments = _comments(source.text)
    module = _parse(libcst, lines, facts)
    if module is None:
        return facts
    has_calls = _CANDIDATE.search(source.text) is not None
    has_hydra = HYDRA_MARKER.search(source.text) is not None
    if not (has_calls or has_hydra):
        return facts  # nothing to look at: positions are never computed
    _find_launches(_Context(source, lines, module), module, facts, has_calls, has_hydra)
    facts.sites.sort(key=lambda s: (s.span.start, s.span.end))
    return facts


def _find_launches(ctx: "_Context", module, facts: FileFacts, calls: bool, hydra: bool) -> None:
    # imported on first use: the engine imports this module for every .py file
    from sgllint.extract._py_flow import Interpreter
    from sgllint.extract._py_hydra import scan_hydra_overrides
    from sgllint.extract._py_launches import LaunchBuilder

    if calls:
        Interpreter(ctx, LaunchBuilder(ctx, facts).on_call).run(module)
    if hydra:
        scan_hydra_overrides(ctx, module, facts)


def _import_libcst():
    """libcst, or None when it is not installed."""
    with warnings.catch_warnings():  # libcst 1.0 warns about mypy_extensions on import
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            import libcst
            import libcst.metadata
        except ImportError:
            return None
    return libcst


# ---------------------------------------------------------------------------
# Text, positions, comments, parsing
# ---------------------------------------------------------------------------


class _Lines:
    """The text libcst parses and the map from its line/column positions to
    offsets in the file. libcst (1.0) rejects files that mix line endings,
    so any ``\\r\\n`` or ``\\r`` is parsed as ``\\n``; offsets still point
    into the original text."""

    def __init__(self, source: Source):
        self.source = source
        text = source.text
        if "\r" not in text:
            self.parsed = text
            self._to_original: Optional[list[int]] = None
            return
        chars, original = [], []
        i = 0
        while i < len(text):
            original.append(i)
            if text[i] == "\r":
                chars.append("\n")
                i += 2 if text.startswith("\n", i + 1) else 1
            else:
                chars.append(text[i])
                i += 1
        original.append(len(text))
        self.parsed = "".join(chars)
        self._to_original = original
        self._starts = [0] + [m.end() for m in re.finditer("\n", self.parsed)]

    def offset(self, line: int, column: int) -> int:
        """The file offset of 1-based ``line`` and 0-based code-point
        ``column`` of the parsed text (clamped to the text)."""
        if self._to_original is None:
            starts = self.source.line_starts
            line = max(1, min(line, len(starts)))
            return max(0, min(self.source.offset_of(line, column + 1), len(self.source.text)))
        line = max(1, min(line, len(self._starts)))
        at = max(0, min(self._starts[line - 1] + column, len(self.parsed)))
        return self._to_original[at]


def _comments(text: str) -> list[tuple[int, str]]:
    """Every ``#`` comment as (offset, text)."""
    return [(m.start(), m.group()) for m in _STRING_OR_COMMENT.finditer(text) if m.lastgroup == "comment"]


def _parse(libcst, lines: _Lines, facts: FileFacts):
    """The libcst module, or None after recording one parse problem."""
    try:
        return libcst.parse_module(lines.parsed)
    except libcst.ParserSyntaxError as exc:
        facts.problems.append(_syntax_problem(lines, exc))
    except RecursionError:
        facts.problems.append(ParseProblem(Span(lines.source, 0, 0), "the file is nested too deeply to parse"))
    except BaseException as exc:  # the native parser may panic; never let that escape
        if isinstance(exc, (KeyboardInterrupt, SystemExit)):
            raise
        facts.problems.append(ParseProblem(Span(lines.source, 0, 0), f"libcst cannot parse this file: {type(exc).__name__}"))
    return None


def _syntax_problem(lines: _Lines, exc) -> ParseProblem:
    """Where the file stops being Python. CPython's own parser locates the
    error best (libcst's native parser reports column 0); libcst's position
    is the fallback for errors only libcst has."""
    where = _python_syntax_error(lines.parsed)
    if where is not None:
        line, column, message = where
        offset = lines.offset(line, column)
        return ParseProblem(_point(lines.source, offset), f"invalid Python syntax: {message}")
    offset = lines.offset(getattr(exc, "raw_line", 1), getattr(exc, "raw_column", 0))
    message = str(getattr(exc, "message", exc)).splitlines()[0] if str(getattr(exc, "message", exc)) else "syntax error"
    return ParseProblem(_point(lines.source, offset), f"libcst cannot parse this file: {message}")


def _python_syntax_error(text: str) -> Optional[tuple[int, int, str]]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            ast.parse(text)
        except SyntaxError as exc:
            if exc.lineno is None:
                return 1, 0, exc.msg
            return exc.lineno, max((exc.offset or 1) - 1, 0), exc.msg
        except (ValueError, RecursionError, MemoryError):
            return None
    return None


def _point(source: Source, offset: int) -> Span:
    """A one-character span at ``offset`` (empty at a line end or EOF)."""
    if offset < len(source.text) and source.text[offset] not in "\r\n":
        return Span(source, offset, offset + 1)
    return Span(source, offset, offset)


class _Context:
    """Spans and source text of nodes; positions are computed on first use."""

    def __init__(self, source: Source, lines: _Lines, module):
        self.source = source
        self.lines = lines
        self.module = module
        self._positions = None

    def _position(self, node):
        if self._positions is None:
            from libcst.metadata import MetadataWrapper, PositionProvider

            wrapper = MetadataWrapper(self.module, unsafe_skip_copy=True)
            self._positions = wrapper.resolve(PositionProvider)
        return self._positions[node]

    def span(self, node) -> Span:
        r = self._position(node)
        start = self.lines.offset(r.start.line, r.start.column)
        end = self.lines.offset(r.end.line, r.end.column)
        return Span(self.source, start, max(start, end))

    def code(self, node) -> str:
        return self.span(node).text

    def line(self, node) -> int:
        return self._position(node).start.line
