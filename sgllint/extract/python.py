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
    tree = _ast_parse(lines.parsed)
    calls = None
    if tree is not None:
        try:
            calls = _LaunchCalls(tree, lines.parsed)
        except RecursionError:
            calls = None
        if calls is not None and not calls.any and not has_hydra:
            # CPython's parser proves that no call can launch: the file is
            # what a file without a candidate is, libcst never runs
            return facts
    module = None
    if lines._to_original is None and tree is not None:
        reduced, _ = _reduce(source.text, tree, calls)
        if reduced is not None:
            module = _parse_quietly(libcst, reduced)
            if module is not None:
                lines.parsed = reduced  # same lines, same columns: offsets stay exact
    if module is None:
        module = _parse(libcst, lines, facts)
    if module is None:
        return facts
    # the ast of the parsed text has the reduced text's top-level lines
    _find_launches(_Context(source, lines, module, tree, calls), module, facts, has_calls, has_hydra)
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
#: (``-m sglang.launch_server``, even assembled from parts, or ``sglang serve``)
_PROCESS_LAUNCHER = re.compile(r"launch_server|\bserve\b")
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


# A call is a launch only when `Evaluator.qualname` of its callee is a
# launch function's (`_py_launches._launch_kind`). qualname follows dotted
# names only: an attribute chain keeps its last name (``x.y.Engine``), and a
# plain name is an import, an alias of one (``import x as y``,
# ``from m import f as g``, ``y = x.f``: the only bindings that hold an
# imported name) or a name of its own (``Popen`` from ``from subprocess
# import Popen``, ``os``, ``subprocess``). Process functions are
# ``module.function`` with a one-word module, so their callee is ``X.f``
# with X one of those modules or an alias; and their command starts a
# server only with a launcher word in the file (`_PROCESS_LAUNCHER`). A
# call that fails these tests can never become a launch, whatever the
# values around it.


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
            module_gate = _PROCESS_LAUNCHER.search("\n".join(module_lines)) is not None
            scope_gate: dict[int, bool] = {}
            for owners in gated:
                if not module_gate and owners:
                    top = id(owners[0])
                    if top not in scope_gate:
                        first, last = spans.get(top, (1, len(lines)))
                        scope_gate[top] = _PROCESS_LAUNCHER.search("\n".join(lines[first - 1 : last])) is not None
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


class _Context:
    """Spans and source text of nodes; positions are computed on first use.

    libcst computes positions by regenerating code. Doing that for the whole
    module costs as much as parsing it, so positions are computed for one
    top-level statement at a time: the one the interpreter is in
    (`enter_statement`), regenerated from its first line alone. A node
    outside it, or a statement whose first line cannot be proved, falls
    back to the whole module's positions (the same values, only slower)."""

    def __init__(self, source: Source, lines: _Lines, module, tree=None, calls: Optional[_LaunchCalls] = None):
        self.source = source
        self.lines = lines
        self.module = module
        self._tree = tree  # CPython's ast of lines.parsed, when already parsed
        if calls is not None:  # the interpreter skips calls that cannot launch
            self.may_launch = calls.may_launch
        self._positions = None
        self._statement_lines: Optional[dict[int, int]] = None
        self._statement = None  # the top-level statement being interpreted
        self._local: dict[int, object] = {}  # id(top-level statement) -> its positions
        self._top_starts: Optional[dict[int, int]] = None
        self._line_starts: Optional[list[int]] = None

    def enter_statement(self, statement) -> None:
        self._statement = statement

    def _position(self, node):
        if self._positions is None:
            top = self._statement
            if top is not None:
                local = self._local.get(id(top))
                if local is None:
                    local = self._local[id(top)] = self._statement_positions(top)
                r = local.get(node)
                if r is not None:
                    return r
            self._positions = _module_positions(self.module)
        return self._positions[node]

    def _statement_positions(self, top):
        """Positions of the nodes of top-level statement ``top``, or {}."""
        if self._top_starts is None:
            self._top_starts = _top_statement_starts(self.module, self.lines.parsed, self._tree)
        start = self._top_starts.get(id(top))
        if start is None:
            return {}
        try:
            state = _positions_state(self.module)
            state.line = start
            top._codegen(state)
        except Exception:
            return {}
        # the statement's code must be the text at its first line: then every
        # position in it is the one the whole module's codegen gives
        if self._line_starts is None:
            self._line_starts = [0] + [m.end() for m in re.finditer("\n", self.lines.parsed)]
        if start > len(self._line_starts):
            return {}
        at = self._line_starts[start - 1]
        code = "".join(state.tokens)
        if self.lines.parsed[at : at + len(code)] != code:
            return {}
        return state.provider._computed

    def span(self, node) -> Span:
        start_line, start_column, end_line, end_column = self._position(node)
        start = self.lines.offset(start_line, start_column)
        end = self.lines.offset(end_line, end_column)
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
        return self._position(node)[0]


def _module_positions(module):
    """node -> (start line, start column, end line, end column): libcst's
    `PositionProvider` for the whole module."""
    try:
        state = _positions_state(module)
        module._codegen(state)
        return state.provider._computed
    except Exception:
        from libcst.metadata import MetadataWrapper, PositionProvider

        resolved = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
        return {n: (r.start.line, r.start.column, r.end.line, r.end.column) for n, r in resolved.items()}


_POSITIONS_STATE = None


def _positions_state(module):
    """A codegen state that records libcst's `PositionProvider` positions as
    (start line, start column, end line, end column) tuples: the same
    values, 3x faster than libcst's own state (no position objects, no
    regex per token, no generator per syntactic position). The parsed text
    never holds a ``\\r`` (`_Lines`), so ``\\n`` is the only line break."""
    global _POSITIONS_STATE
    if _POSITIONS_STATE is None:
        from libcst.metadata.position_provider import PositionProvider, PositionProvidingCodegenState

        class _Syntactic:
            __slots__ = ("state", "node", "start_node", "end_node", "start")

            def __init__(self, state, node, start_node, end_node):
                self.state, self.node, self.start_node, self.end_node = state, node, start_node, end_node

            def __enter__(self):
                self.start = (self.state.line, self.state.column)

            def __exit__(self, *exc):
                state = self.state
                computed = state.provider._computed
                start = computed[self.start_node][:2] if self.start_node is not None else self.start
                end = computed[self.end_node][2:] if self.end_node is not None else (state.line, state.column)
                computed[self.node] = start + end
                return False

        class _State(PositionProvidingCodegenState):
            __slots__ = ()

            def add_token(self, value: str) -> None:
                self.tokens.append(value)
                breaks = value.count("\n")
                if breaks:
                    self.line += breaks
                    self.column = len(value) - value.rindex("\n") - 1
                else:
                    self.column += len(value)

            def add_indent_tokens(self) -> None:
                for token in self.indent_tokens:
                    self.add_token(token)

            def before_codegen(self, node) -> None:
                self._stack.append((self.line, self.column))

            def after_codegen(self, node) -> None:
                start = self._stack.pop()
                computed = self.provider._computed
                if node not in computed:  # a syntactic position was recorded
                    computed[node] = start + (self.line, self.column)

            def record_syntactic_position(self, node, *, start_node=None, end_node=None):
                return _Syntactic(self, node, start_node, end_node)

        _POSITIONS_STATE = (_State, PositionProvider)
    state_class, provider_class = _POSITIONS_STATE
    return state_class(default_indent=module.default_indent, default_newline=module.default_newline, provider=provider_class())


def _top_statement_starts(module, text: str, tree=None) -> dict[int, int]:
    """id(top-level libcst statement) -> the line its code starts on (its
    leading blank and comment lines included), from CPython's line of the
    statement's first token; empty when the two trees do not pair up."""
    try:
        if tree is None:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                tree = ast.parse(text)
        firsts: list[int] = []
        for statement in tree.body:
            line = statement.lineno
            decorators = getattr(statement, "decorator_list", None)
            if decorators:
                line = min([line] + [d.lineno for d in decorators])
            if not firsts or line != firsts[-1]:  # `a = 1; b = 2` is one libcst statement
                firsts.append(line)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return {}
    body = module.body
    if len(firsts) != len(body) or any(a >= b for a, b in zip(firsts, firsts[1:])):
        return {}
    out = {}
    for statement, line in zip(body, firsts):
        lead = len(getattr(statement, "leading_lines", ()))
        decorators = getattr(statement, "decorators", ())
        if decorators:
            lead += len(decorators[0].leading_lines)
        out[id(statement)] = line - lead
    return out


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
