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
    has_calls = _CANDIDATE.search(source.text) is not None
    has_hydra = HYDRA_MARKER.search(source.text) is not None
    if not (has_calls or has_hydra):
        # nothing to look at: CPython's parser (20-50x faster than libcst)
        # proves the file parses; libcst only locates a syntax error
        if _python_syntax_error(lines.parsed) is None:
            return facts
        _parse(libcst, lines, facts)
        return facts  # positions are never computed
    module = None
    if lines._to_original is None:
        reduced = _reduced_text(source.text)
        if reduced is not None:
            module = _parse_quietly(libcst, reduced)
            if module is not None:
                lines.parsed = reduced  # same lines, same columns: offsets stay exact
    if module is None:
        module = _parse(libcst, lines, facts)
    if module is None:
        return facts
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


def _parse_quietly(libcst, text: str):
    """libcst's module for ``text``, or None (the full parse then reports)."""
    try:
        return libcst.parse_module(text)
    except BaseException as exc:  # the native parser may panic
        if isinstance(exc, (KeyboardInterrupt, SystemExit)):
            raise
        return None


# ---------------------------------------------------------------------------
# Parsing only what can launch: CPython's ast finds the functions and classes
# that cannot hold a launch; their bodies are replaced by ``pass`` (lines kept,
# so every kept line is unchanged and libcst positions map to the same
# offsets) before libcst, 20-50x slower, parses the file.
# ---------------------------------------------------------------------------

#: a launcher inside a string: process calls then may start a server
_LAUNCHER_STRING = re.compile(r"sglang\.launch_server|sglang_router\.launch_server|sglang serve|sglang[\"']")
#: a process call launches only with one of these words in its command
#: (``-m sglang.launch_server``, even assembled from parts, or ``sglang serve``)
_PROCESS_LAUNCHER = re.compile(r"launch_server|\bserve\b")
#: the last name of every callee a launch can be (`_py_launches`)
_SGLANG_CALLEES = frozenset({"Engine", "Runtime", "ServerArgs", "popen_launch_server", "launch_server_cmd"})
_PROCESS_CALLEES = frozenset(
    {
        "run", "Popen", "call", "check_call", "check_output", "getoutput", "getstatusoutput", "system", "popen",
        "create_subprocess_shell", "create_subprocess_exec", "execv", "execve", "execvp", "execvpe", "execl",
        "execlp", "execle", "execlpe",
    }
)  # fmt: skip
#: text that makes a function relevant whatever its calls are
_RELEVANT_TEXT = re.compile(_CANDIDATE.pattern + r"|\.sglang\.|" + _LAUNCHER_STRING.pattern)
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _reduced_text(text: str) -> Optional[str]:
    """``text`` with the bodies of functions and classes that cannot hold a
    launch replaced by ``pass`` and blank lines, or None to parse it whole.

    A body is kept when its text names a launch call, a launcher, a Hydra
    key, or it calls a process function (when the file holds a launcher
    string) or a name the file aliases (``import x as y``, ``y = x.f``).
    Function bodies only bind names of their own scope, so dropping one
    never changes what another statement sees (`_py_flow`)."""
    if "\r" in text or "\f" in text or "\v" in text:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None
    callees = set(_SGLANG_CALLEES)
    if _PROCESS_LAUNCHER.search(text):
        callees |= _PROCESS_CALLEES
    try:
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                callees.update(a.asname for a in node.names if a.asname)
            elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.NamedExpr)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                if isinstance(node.value, (ast.Name, ast.Attribute, ast.Tuple, ast.List)):
                    for target in targets:
                        callees.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
    except RecursionError:
        return None
    lines = text.split("\n")
    changed = [False]

    def relevant(node) -> bool:
        segment = "\n".join(lines[node.lineno - 1 : node.end_lineno])
        if _RELEVANT_TEXT.search(segment):
            return True
        for sub in ast.walk(node):
            if isinstance(sub, ast.Call):
                func = sub.func
                name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
                if name is None or name in callees:
                    return True  # a callee this pass cannot name is kept
        return False

    def reduce(body) -> None:
        for node in body:
            if not isinstance(node, _DEFS) or node.end_lineno is None:
                continue
            if node.body[0].lineno <= node.lineno:
                continue  # `def f(): return x` on one line
            if not relevant(node):
                if _stub(lines, node):
                    changed[0] = True
            elif isinstance(node, ast.ClassDef):
                reduce(node.body)

    try:
        reduce(tree.body)
    except RecursionError:
        return None
    return "\n".join(lines) if changed[0] else None


def _stub(lines: list[str], node) -> bool:
    """Replace ``node``'s body by ``pass`` on the body's first line."""
    first = node.body[0]
    start, end = first.lineno, node.end_lineno
    head = lines[start - 1]
    indent = head[: first.col_offset]
    if indent.strip() or start <= node.lineno:
        return False  # the body starts on the header's last line
    lines[start - 1] = indent + "pass"
    for i in range(start, end):
        lines[i] = ""
    return True


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
        self._statement_lines: Optional[dict[int, int]] = None

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
        """The first line of ``node``. Compound statements (the only nodes
        asked for) are looked up in a map built by walking the statements of
        libcst's and CPython's trees side by side: resolving libcst positions
        regenerates the whole module's code, 100x slower."""
        if self._positions is None:
            if self._statement_lines is None:
                self._statement_lines = _statement_lines(self.module, self.lines.parsed)
            line = self._statement_lines.get(id(node))
            if line is not None:
                return line
        return self._position(node).start.line


def _statement_lines(module, text: str) -> dict[int, int]:
    """id(libcst if/for/while/try/match statement) -> its first line, by
    pairing libcst's statements with CPython's in document order; empty when
    the two trees do not pair up (the caller then resolves positions)."""
    import libcst as cst

    kinds_cst = (cst.If, cst.For, cst.While, cst.Try, cst.TryStar, cst.Match)
    kinds_ast = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.Try, getattr(ast, "TryStar", ast.Try), ast.Match)
    found_cst: list = []
    found_ast: list = []

    def suites_cst(node):
        body = getattr(node, "body", None)
        if body is not None and not isinstance(node, cst.Module):
            yield getattr(body, "body", ())
        elif isinstance(node, cst.Module):
            yield node.body
        for handler in getattr(node, "handlers", ()) or ():
            yield handler.body.body
        for case in getattr(node, "cases", ()) or ():
            yield case.body.body
        orelse = getattr(node, "orelse", None)
        if isinstance(orelse, cst.If):
            yield (orelse,)
        elif orelse is not None:
            yield orelse.body.body
        final = getattr(node, "finalbody", None)
        if final is not None:
            yield final.body.body

    def walk_cst(node):
        for suite in suites_cst(node):
            for statement in suite:
                if isinstance(statement, kinds_cst):
                    found_cst.append(statement)
                if not isinstance(statement, cst.SimpleStatementLine) and hasattr(statement, "body"):
                    walk_cst(statement)

    def walk_ast(statements):
        for statement in statements:
            if isinstance(statement, kinds_ast):
                found_ast.append(statement)
            for name in ("body", "handlers", "orelse", "finalbody", "cases"):
                part = getattr(statement, name, None)
                if isinstance(part, list) and part and not isinstance(part[0], ast.expr):
                    walk_ast(part)

    try:
        walk_cst(module)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            walk_ast(ast.parse(text).body)
    except (SyntaxError, ValueError, RecursionError, MemoryError, AttributeError):
        return {}
    if len(found_cst) != len(found_ast):
        return {}
    out = {}
    for a, b in zip(found_cst, found_ast):
        if type(a).__name__ != type(b).__name__.replace("AsyncFor", "For"):
            return {}
        out[id(a)] = b.lineno
    return out
