"""Reading a Python source for the extractor: libcst (imported on first use) or CPython's
`ast`, the reduced text that keeps only what may launch, comments and syntax problems.
"""

from __future__ import annotations

import ast
import re
import warnings
from typing import Optional

from sgllint.formats.python.depth import call_with_stack
from sgllint.model.facts import FileFacts, ParseProblem, Source, Span

#: string literals (skipped) and comments: collecting comments this way is
#: an order of magnitude faster than tokenize, and a ``#`` in a string is
#: still not a comment. Each string is an unrolled loop that also matches
#: when unterminated (to the line's or the text's end): a start that failed
#: after scanning to the end made escaped quotes (``' \\' \\' ...``) quadratic
_STRING_OR_COMMENT = re.compile(
    r"""
      [rRbBuUfF]{0,2}
      (?: ''' [^'\\]* (?: (?:\\[\s\S]|\\\Z|'(?!'')) [^'\\]* )* (?:'''|\Z)
        | \"\"\" [^"\\]* (?: (?:\\[\s\S]|\\\Z|"(?!"")) [^"\\]* )* (?:\"\"\"|\Z)
        | ' [^\\'\r\n]* (?: (?:\\[\s\S]|\\\Z) [^\\'\r\n]* )* '?
        | " [^\\"\r\n]* (?: (?:\\[\s\S]|\\\Z) [^\\"\r\n]* )* "?
      )
    | (?P<comment>\#[^\r\n]*)
    """,
    re.X,
)


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
        return call_with_stack(libcst.parse_module, lines.parsed)
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
        return call_with_stack(libcst.parse_module, text)
    except BaseException as exc:  # the native parser may panic
        if isinstance(exc, (KeyboardInterrupt, SystemExit)):
            raise
        return None


#: the last name of every callee a launch can be (`_py_launches`)
_SGLANG_CALLEES = frozenset({"Engine", "Runtime", "ServerArgs", "popen_launch_server", "launch_server_cmd"})
_PROCESS_CALLEES = frozenset(
    {
        "run", "Popen", "call", "check_call", "check_output", "getoutput", "getstatusoutput", "system", "popen",
        "create_subprocess_shell", "create_subprocess_exec", "execv", "execve", "execvp", "execvpe", "execl",
        "execlp", "execle", "execlpe",
    }
)  # fmt: skip
#: the modules of the process functions (``subprocess.run``, ``os.system``, ...)
_PROCESS_MODULES = frozenset({"subprocess", "os", "asyncio"})
#: a process call launches only with one of these words in the file
#: (``-m sglang.launch_server``, even assembled from parts, ``sglang serve``, or a
#: launcher of `sgllint.model.launchers.WRAPPED_ENTRIES` / ``sglang generate``)
_PROCESS_LAUNCHER = re.compile(r"launch_server|\bserve\b|launch_router|dynamo\.sglang|sglang-router|\bsglang\b[\"',\s]+generate\b")
#: a Hydra key: functions holding one are kept whole
_HYDRA_TEXT = re.compile(r"\.sglang\.")
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _ast_parse(text: str):
    """CPython's ast of ``text``, or None when its parser rejects it."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return ast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None


#: ast nodes without a call, import or assignment below them
_AST_LEAVES = frozenset(
    [ast.Name, ast.Constant, ast.Load, ast.Store, ast.Del, ast.alias, ast.Pass, ast.Break, ast.Continue]
    + [c for base in (ast.operator, ast.unaryop, ast.cmpop, ast.boolop) for c in base.__subclasses__()]
)


class _LaunchCalls:
    """One pass over CPython's ast of a file: whether any call may be a
    launch (``any``) and which functions and classes hold one
    (``holders``, ids of their nodes)."""

    def __init__(self, tree, text: str):
        # long on purpose: one walk of the syntax tree collecting every fact the extractor needs, so the tree is
        # walked once
        self.process = process = _PROCESS_LAUNCHER.search(text) is not None
        self.aliases = aliases = set()
        by_name: dict[str, list] = {}  # callee name or X of X.f -> the defs around each such call
        gated: list[tuple] = []  # the defs around each process call
        self.any = False
        self.holders: set[int] = set()
        stack = [(tree, ())]
        while stack:
            node, owners = stack.pop()
            kind = type(node)
            if kind is ast.Call:
                func = node.func
                if type(func) is ast.Name:
                    name = func.id
                    if name in _SGLANG_CALLEES:
                        self._hold(owners)
                    else:
                        if process and name in _PROCESS_CALLEES:
                            gated.append(owners)
                        by_name.setdefault(name, []).append(owners)
                elif type(func) is ast.Attribute:
                    if func.attr in _SGLANG_CALLEES:
                        self._hold(owners)
                    elif process and func.attr in _PROCESS_CALLEES and type(func.value) is ast.Name:
                        if func.value.id in _PROCESS_MODULES:
                            gated.append(owners)
                        else:
                            by_name.setdefault(func.value.id, []).append(owners)
            elif kind is ast.Import or kind is ast.ImportFrom:
                aliases.update(a.asname for a in node.names if a.asname)
            elif kind is ast.Assign or kind is ast.AnnAssign or kind is ast.NamedExpr:
                if isinstance(node.value, (ast.Name, ast.Attribute, ast.Tuple, ast.List)):
                    for target in node.targets if kind is ast.Assign else (node.target,):
                        aliases.update(n.id for n in ast.walk(target) if type(n) is ast.Name)
            inner = owners + (node,) if kind in _DEFS else owners
            for name in node._fields:  # ast.iter_child_nodes, without the leaves
                value = getattr(node, name, None)
                if type(value) is list:
                    stack.extend((child, inner) for child in value if isinstance(child, ast.AST) and type(child) not in _AST_LEAVES)
                elif isinstance(value, ast.AST) and type(value) not in _AST_LEAVES:
                    stack.append((value, inner))
        for name in aliases.intersection(by_name):
            for owners in by_name[name]:
                self._hold(owners)
        if gated:
            # A process command holds only words the scopes it sees wrote:
            # the module's own statements and the top-level function or
            # class around the call (the interpreter never evaluates what a
            # function returns, and has no ``global``). Without a launcher
            # word in that text the call cannot start a server.
            lines = text.split("\n")
            spans = {}
            for node in tree.body:
                if isinstance(node, _DEFS):
                    first = min([node.lineno] + [d.lineno for d in node.decorator_list])
                    spans[id(node)] = (first, node.end_lineno or node.lineno)
            module_lines, at = [], 1
            for first, last in sorted(spans.values()):
                module_lines.extend(lines[at - 1 : first - 1])
                at = max(at, last + 1)
            module_lines.extend(lines[at - 1 :])
            # top-level functions that return a launcher's words (`return
            # [..., "sglang.launch_server", ...]`): a scope that calls one
            # may launch, and the interpreter evaluates their result
            returners = {
                node.name: node
                for node in tree.body
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                and _PROCESS_LAUNCHER.search("\n".join(lines[spans[id(node)][0] - 1 : spans[id(node)][1]]))
                and any(type(n) is ast.Return and n.value is not None for n in ast.walk(node))
            }
            calls_returner = re.compile(r"\b(?:%s)\s*\(" % "|".join(map(re.escape, returners))) if returners else None

            def launcher_in(scope: str) -> bool:
                if _PROCESS_LAUNCHER.search(scope) is not None:
                    return True
                return calls_returner is not None and calls_returner.search(scope) is not None

            for node in returners.values():
                self.holders.add(id(node))
            module_gate = launcher_in("\n".join(module_lines))
            scope_gate: dict[int, bool] = {}
            for owners in gated:
                if not module_gate and owners:
                    top = id(owners[0])
                    if top not in scope_gate:
                        first, last = spans.get(top, (1, len(lines)))
                        scope_gate[top] = launcher_in("\n".join(lines[first - 1 : last]))
                    if not scope_gate[top]:
                        continue
                elif not module_gate:
                    continue
                self._hold(owners)

    def _hold(self, owners: tuple) -> None:
        self.any = True
        self.holders.update(id(o) for o in owners)

    def may_launch(self, call) -> bool:
        """The same test for a libcst call: False when it cannot launch."""
        func = call.func
        kind = type(func).__name__
        if kind == "Name":
            name = func.value
            return name in _SGLANG_CALLEES or name in self.aliases or (self.process and name in _PROCESS_CALLEES)
        if kind == "Attribute":
            attr = func.attr.value
            if attr in _SGLANG_CALLEES:
                return True
            if self.process and attr in _PROCESS_CALLEES and type(func.value).__name__ == "Name":
                return func.value.value in _PROCESS_MODULES or func.value.value in self.aliases
        return False


def _reduced_text(text: str) -> Optional[str]:
    return _reduce(text)[0]


def _reduce(text: str, tree=None, calls: Optional[_LaunchCalls] = None):
    """(`_reduced_text`, CPython's ast of ``text`` or None).

    ``text`` with the bodies of functions and classes that cannot hold a
    launch replaced by ``pass`` and blank lines, or None to parse it whole.

    A body is kept when it holds a call that may be a launch
    (`_LaunchCalls`) or a Hydra key. Function bodies only bind names of
    their own scope and the interpreter never evaluates a function's result,
    so dropping one never changes what another statement sees (`_py_flow`);
    a class body's names stay in the class."""
    if "\r" in text or "\f" in text or "\v" in text:
        return None, tree
    if tree is None:
        tree = _ast_parse(text)
        if tree is None:
            return None, None
    try:
        if calls is None:
            calls = _LaunchCalls(tree, text)
    except RecursionError:
        return None, tree
    lines = text.split("\n")
    changed = [False]
    hydra = _HYDRA_TEXT.search(text) is not None

    def relevant(node) -> bool:
        if hydra and _HYDRA_TEXT.search("\n".join(lines[node.lineno - 1 : node.end_lineno])):
            return True
        return id(node) in calls.holders

    def reduce(body) -> None:
        for node in body:
            if not isinstance(node, _DEFS) or node.end_lineno is None:
                continue
            if node.body[0].lineno <= node.lineno:
                continue  # `def f(): return x` on one line
            if not relevant(node):
                if _stub(lines, node):
                    changed[0] = True
            else:  # a kept class's methods, a kept function's own functions and classes
                reduce(node.body)

    try:
        reduce(tree.body)
    except RecursionError:
        return None, tree
    return ("\n".join(lines) if changed[0] else None), tree


def _stub(lines: list[str], node) -> bool:
    """Replace ``node``'s body by ``pass`` on the body's first line (and the
    rest of its lines by one string token)."""
    first = node.body[0]
    start, end = first.lineno, node.end_lineno
    decorators = getattr(first, "decorator_list", None)
    if decorators:  # a decorated method's body starts at its first decorator
        start = min([start] + [d.lineno for d in decorators])
    head = lines[start - 1]
    indent = head[: first.col_offset]
    if indent.strip() or start <= node.lineno:
        return False  # the body starts on the header's last line
    if end > start:
        # the dropped lines as one string token: libcst makes a node of
        # every blank line, and parses a string's lines at native speed
        lines[start - 1] = indent + 'pass; """'
        for i in range(start, end - 1):
            lines[i] = ""
        lines[end - 1] = '"""'
    else:
        lines[start - 1] = indent + "pass"
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
