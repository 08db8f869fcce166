"""Where statements and nodes are in a Python source, and the context the launch finders
read while walking a module (`_Context`).
"""

from __future__ import annotations

import ast
import re
import warnings
from typing import Optional

from sgllint.formats.python.parse import _LaunchCalls, _Lines
from sgllint.model.facts import Source, Span


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
    # long on purpose: pairs two trees in one walk; every step reads the pairing state
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
