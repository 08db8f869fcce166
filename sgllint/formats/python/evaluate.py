"""Evaluate Python expressions to abstract values without running them.

Only what can be known from the file is computed: literals, names assigned
in the file (see `_py_flow`), ``str()``/``int()`` of known values, string
concatenation and f-strings, ``" ".join(...)``, ``.split()``,
``shlex.split(...)``, dict and list displays. Everything else becomes an
`Unresolved` carrying the expression's source text and why it is unknown.
"""

from __future__ import annotations

import ast
import copy
import re
import string
import warnings
from typing import Any, Callable, Optional

from sgllint.formats.python.commands import posix_words, whitespace_words
from sgllint.formats.python.paths import Choices, branch_sides, over_paths
from sgllint.formats.python.values import (
    AbsVal,
    DictVal,
    Entry,
    Hole,
    Imported,
    ListVal,
    Scalar,
    Splat,
    Str,
    decode_body,
    decode_literal,
    merge,
    split_prefix,
    unknown,
)
from sgllint.model.facts import Span, Unresolved

#: module names recognised even when the file never imports them (a lazy
#: import in another scope, ``__import__``)
_STDLIB_MODULES = {"os", "subprocess", "sys", "asyncio", "shlex"}
_BUILTINS = {"str", "int", "float", "bool", "dict", "list", "tuple"}
_TEST_UTILS = "sglang.test.test_utils"
#: format specs that are safe to apply (no huge widths)
_SAFE_SPEC = re.compile(r"^[<>^=]?[+\- ]?#?0?\d{0,2}[,_]?(?:\.\d{1,2})?[bcdeEfFgGnosxX%]?$")
_SHELL_SAFE = re.compile(r"^[\w@%+=:,./-]+$", re.ASCII)


class Evaluator:
    """Evaluates expressions in one scope. ``ctx`` gives spans and source
    text of nodes; ``lookup(name)`` gives a name's value (None: unbound);
    ``star_modules`` the modules imported with ``*``."""

    def __init__(
        self,
        ctx,
        lookup: Callable[[str], Optional[AbsVal]],
        star_modules: tuple[str, ...] = (),
        call_local: Optional[Callable[[Any, "Evaluator"], Optional[AbsVal]]] = None,
    ):
        self.ctx = ctx
        self.lookup = lookup
        self.star_modules = star_modules
        # what a call of a function defined in the file returns (or None)
        self.call_local = call_local
        # the paths the evaluation under way follows (None between evaluations)
        self._choices: Optional[Choices] = None
        # which path of each argument a launch being built takes (see `picking`)
        self._picks: Optional[Choices] = None

    def picking(self, picks: Choices) -> "Evaluator":
        """This evaluator, taking for each expression it is asked for (not
        the parts of one) the path ``picks`` says."""
        other = copy.copy(self)
        other._picks = picks
        return other

    def over_paths(self, compute: Callable[[], AbsVal]) -> AbsVal:
        """``compute()``, an evaluation that reads names through `chosen`,
        once per path of the values it reads (see `paths.over_paths`)."""
        if self._choices is not None:
            return compute()
        self._choices = Choices()
        try:
            return over_paths(self._choices, compute)
        finally:
            self._choices = None

    def chosen(self, value):
        """A name's value on the path the evaluation under way follows."""
        if self._choices is None:
            return value
        return self._choices.pick(value, value)

    # -- names ----------------------------------------------------------------

    def qualname(self, node) -> Optional[str]:
        """The imported name ``node`` refers to (``subprocess.Popen``,
        ``sglang.Engine``), or None when it is not an import."""
        kind = type(node).__name__
        if kind == "Attribute":
            base = self.qualname(node.value)
            return f"{base}.{node.attr.value}" if base else None
        if kind != "Name":
            return None
        name = node.value
        value = self.lookup(name)
        if isinstance(value, Imported):
            return value.qualname
        if value is not None:
            return None  # a local function, class or variable
        if name in _STDLIB_MODULES or name in _BUILTINS:
            return name
        for module in self.star_modules:
            if module.split(".")[0] == "sglang":
                return f"{module}.{name}"
        return None

    def value(self, node) -> AbsVal:
        """``eval`` for a value position: an imported name becomes unknown."""
        v = self.eval(node)
        if isinstance(v, Imported):
            return self._imported_constant(v.qualname, node)
        return v

    def _imported_constant(self, qualname: str, node) -> Scalar:
        module, _, name = qualname.rpartition(".")
        if module == _TEST_UTILS and name.isupper():
            # named by the constant itself, so a later stage can look it up
            return unknown(name, f"constant from {_TEST_UTILS}", self.ctx.span(node))
        return unknown(self.ctx.code(node), f"imported from {module or qualname}", self.ctx.span(node))

    # -- dispatch ---------------------------------------------------------------

    def eval(self, node) -> AbsVal:
        if self._choices is not None:
            return self._dispatch(node)
        result = self.over_paths(lambda: self._dispatch(node))
        return result if self._picks is None else self._picks.pick(node, result)

    def _dispatch(self, node) -> AbsVal:
        method = getattr(self, "_eval_" + type(node).__name__, None)
        if method is None:
            return self._opaque(node, "an expression")
        return method(node)

    def _opaque(self, node, what: str) -> Scalar:
        return unknown(self.ctx.code(node), f"{what} is not known statically", self.ctx.span(node))

    # -- literals ---------------------------------------------------------------

    def _eval_SimpleString(self, node) -> Scalar:
        span = self.ctx.span(node)
        text = decode_literal(span.text, span.start)
        if text is None:
            return unknown(span.text, "a bytes literal", span)
        return Scalar(text.text, span, text)

    def _eval_ConcatenatedString(self, node) -> Scalar:
        span = self.ctx.span(node)
        left, right = self.eval(node.left), self.eval(node.right)
        joined = self.as_str(left, node.left, span)
        rest = self.as_str(right, node.right, span)
        if joined is None or rest is None:
            return self._opaque(node, "a bytes literal")
        return self.string_scalar(joined + rest, span)

    def _eval_FormattedString(self, node) -> Scalar:
        span = self.ctx.span(node)
        prefix, _, _ = split_prefix(span.text)
        is_raw = "r" in prefix.lower()
        out = Str("", (span.start,))
        for part in node.parts:
            part_span = self.ctx.span(part)
            if type(part).__name__ == "FormattedStringText":
                out = out + decode_body(part_span.text, part_span.start, is_raw, fstring=True)
            else:
                out = out + self._replacement_field(part, part_span)
        return self.string_scalar(out, span)

    def _replacement_field(self, part, span: Span) -> Str:
        """``{expr!r:spec}``: the formatted value spread over the field, or a hole."""
        value = self.value(part.expression)
        text = None
        if part.equal is None and isinstance(value, Scalar) and value.known:
            spec = self._static_spec(part.format_spec)
            if spec is not None:
                text = _format(value.value, part.conversion, spec)
        if text is not None:
            return Str.spread(text, span)
        reason = value.value.reason if isinstance(value, Scalar) and not value.known else "a formatted value is not known statically"
        return Str.hole(Hole(span.text, reason, span))

    def _static_spec(self, spec_parts) -> Optional[str]:
        if not spec_parts:
            return ""
        if any(type(p).__name__ != "FormattedStringText" for p in spec_parts):
            return None
        return "".join(p.value for p in spec_parts)

    def _eval_Integer(self, node) -> Scalar:
        return self._number(node)

    def _eval_Float(self, node) -> Scalar:
        return self._number(node)

    def _number(self, node) -> Scalar:
        span = self.ctx.span(node)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                return Scalar(ast.literal_eval(span.text), span)
            except (ValueError, SyntaxError):
                return unknown(span.text, "a number Python would reject", span)

    def _eval_UnaryOperation(self, node) -> Scalar:
        operand = self.value(node.expression)
        op = type(node.operator).__name__
        if isinstance(operand, Scalar) and operand.known and isinstance(operand.value, (int, float)) and not isinstance(operand.value, bool):
            if op == "Minus":
                return Scalar(-operand.value, self.ctx.span(node))
            if op == "Plus":
                return Scalar(operand.value, self.ctx.span(node))
        return self._opaque(node, "an expression")

    # -- names and attributes ---------------------------------------------------

    def _eval_Name(self, node) -> AbsVal:
        name = node.value
        constants = {"True": True, "False": False, "None": None}
        if name in constants:
            return Scalar(constants[name], self.ctx.span(node))
        value = self.lookup(name)
        if value is None:
            qualname = self.qualname(node)
            if qualname is not None and qualname != name:
                return Imported(qualname)  # through ``from sglang... import *``
            return unknown(name, f"'{name}' is not assigned in this file", self.ctx.span(node))
        return self._at_use(value, node)

    def _at_use(self, value: AbsVal, node) -> AbsVal:
        """A name's value on the path followed; a value not tied to one
        literal (it differs by branch) is reported where it is used."""
        value = self.chosen(value)
        if isinstance(value, Scalar) and value.span is None:
            v = value.value
            if isinstance(v, Unresolved):
                return unknown(self.ctx.code(node), v.reason, self.ctx.span(node))
            return Scalar(v, self.ctx.span(node))
        return value

    def _eval_Attribute(self, node) -> AbsVal:
        dotted = _dotted(node)
        if dotted is not None:
            local = self.lookup(dotted)  # self.model = "..." earlier in the function
            if local is not None:
                return self._at_use(local, node)
        qualname = self.qualname(node)
        if qualname == "sys.executable":
            return unknown("sys.executable", "the running Python interpreter", self.ctx.span(node))
        if qualname is not None:
            return Imported(qualname)
        return self._opaque(node, f"'{self.ctx.code(node)}'")

    # -- containers -------------------------------------------------------------

    def _eval_List(self, node) -> ListVal:
        return ListVal(tuple(self._elements(node.elements)), self.ctx.span(node))

    _eval_Tuple = _eval_List

    def _elements(self, elements) -> list:
        items: list = []
        for el in elements:
            if type(el).__name__ == "StarredElement":
                items.extend(self.splat(el.value))
            else:
                items.append(self.value(el.value))
        return items

    def splat(self, node) -> list:
        """The elements ``*node`` adds: a known list's items, else one `Splat`."""
        value = self.value(node)
        if isinstance(value, ListVal):
            return list(value.items)
        return [Splat(f"*{self.ctx.code(node)} may hold any number of arguments", self.ctx.span(node))]

    def _eval_Dict(self, node) -> DictVal:
        result = DictVal((), (), self.ctx.span(node))
        for el in node.elements:
            if type(el).__name__ == "StarredDictElement":
                result = self.merge_into(result, el.value)
                continue
            key = self.value(el.key)
            if isinstance(key, Scalar) and key.known and isinstance(key.value, str):
                result = result.with_entry(Entry(key.value, key.span, self.value(el.value)))
            else:
                result = result.with_opaque(f"key {self.ctx.code(el.key)} is not known statically")
        return result

    def merge_into(self, target: DictVal, node) -> DictVal:
        """``{**node}`` / ``dict(**node)`` / ``d.update(node)``."""
        value = self.value(node)
        if isinstance(value, DictVal):
            for e in value.entries:
                target = target.with_entry(e)
            for reason in value.opaque:
                target = target.with_opaque(reason)
            return target
        return target.with_opaque(f"**{self.ctx.code(node)} may hold any arguments")

    def keywords_dict(self, node, args) -> DictVal:
        """``dict(a=1, **b)`` and ``d.update({...}, a=1)``."""
        result = DictVal((), (), self.ctx.span(node))
        for arg in args:
            if arg.keyword is not None:
                name = arg.keyword.value
                result = result.with_entry(Entry(name, self.ctx.span(arg.keyword), self.value(arg.value)))
            elif arg.star == "**" or arg.star == "":
                result = self.merge_into(result, arg.value)
            else:
                result = result.with_opaque(f"*{self.ctx.code(arg.value)} is not known statically")
        return result

    # -- operators --------------------------------------------------------------

    def _eval_BinaryOperation(self, node) -> AbsVal:
        op = type(node.operator).__name__
        left, right = self.value(node.left), self.value(node.right)
        if op == "Add":
            return self._add(node, left, right)
        if op == "Multiply":
            return self._multiply(node, left, right)
        if op == "Subtract" and _is_number(left) and _is_number(right):
            return Scalar(left.value - right.value, self.ctx.span(node))
        return self._opaque(node, "an expression")

    def _add(self, node, left: AbsVal, right: AbsVal) -> AbsVal:
        span = self.ctx.span(node)
        if isinstance(left, ListVal) or isinstance(right, ListVal):
            return ListVal(tuple(self._list_items(left, node.left)) + tuple(self._list_items(right, node.right)), span)
        if _is_number(left) and _is_number(right):
            return Scalar(left.value + right.value, span)
        if _is_str(left) or _is_str(right):  # str + unknown: the unknown is a hole
            a, b = self.as_str(left, node.left, span), self.as_str(right, node.right, span)
            if a is not None and b is not None:
                return self.string_scalar(a + b, span)
        return self._opaque(node, "an expression")

    def _list_items(self, value: AbsVal, node) -> list:
        if isinstance(value, ListVal):
            return list(value.items)
        return [Splat(f"{self.ctx.code(node)} may hold any number of arguments", self.ctx.span(node))]

    def _multiply(self, node, left: AbsVal, right: AbsVal) -> AbsVal:
        if _is_number(left) and _is_number(right) and abs(left.value) < 2**53 and abs(right.value) < 2**53:
            return Scalar(left.value * right.value, self.ctx.span(node))
        return self._opaque(node, "an expression")

    def _eval_IfExp(self, node) -> AbsVal:
        merged = merge(self.value(node.body), self.value(node.orelse), "a conditional expression", sides=branch_sides(id(node)))
        return self._at_use(merged, node)

    def _eval_Subscript(self, node) -> AbsVal:
        if self.qualname(node.value) == "os.environ" and len(node.slice) == 1:
            key = self.value(node.slice[0].slice.value) if type(node.slice[0].slice).__name__ == "Index" else None
            if isinstance(key, Scalar) and isinstance(key.value, str):
                return unknown(f"os.environ[{key.value!r}]", "environment variable", self.ctx.span(node))
        container = self.value(node.value)
        index = self._index(node)
        if isinstance(container, DictVal) and isinstance(index, str):
            entry = container.get(index)
            if entry is not None:
                return entry.value
        if isinstance(container, ListVal) and isinstance(index, int) and not isinstance(index, bool):
            items = container.items
            if not any(isinstance(i, Splat) for i in items) and -len(items) <= index < len(items):
                return items[index]
        return self._opaque(node, f"'{self.ctx.code(node)}'")

    def _index(self, node):
        if len(node.slice) != 1 or type(node.slice[0].slice).__name__ != "Index":
            return None
        key = self.value(node.slice[0].slice.value)
        return key.value if isinstance(key, Scalar) and key.known else None

    # -- calls ------------------------------------------------------------------

    def _eval_Call(self, node) -> AbsVal:
        qualname = self.qualname(node.func)
        handler = _CALLS.get(qualname or "")
        if handler is not None:
            result = handler(self, node)
            if result is not None:
                return result
        if self.call_local is not None and type(node.func).__name__ == "Name":
            result = self.call_local(node, self)
            if result is not None:
                return result
        if type(node.func).__name__ == "Attribute":
            method = _METHODS.get(node.func.attr.value)
            if method is not None:
                result = method(self, node, node.func.value)
                if result is not None:
                    return result
        return self._opaque(node, f"the result of {self.ctx.code(node.func)}()")

    def _positional(self, node) -> Optional[list]:
        if any(a.keyword is not None or a.star for a in node.args):
            return None
        return [a.value for a in node.args]

    def _convert(self, node, kind: type) -> Optional[AbsVal]:
        args = self._positional(node)
        if args is None or len(args) != 1:
            return None
        inner = self.value(args[0])
        if not isinstance(inner, Scalar):
            return None
        if not inner.known:
            return unknown(inner.value.raw, inner.value.reason, self.ctx.span(node))
        try:
            converted = kind(inner.value)
        except (TypeError, ValueError, OverflowError):
            return None
        if converted == inner.value and type(converted) is type(inner.value):
            return inner
        return Scalar(converted, inner.span if inner.span is not None else self.ctx.span(node))

    def _getenv(self, node) -> Optional[Scalar]:
        args = self._positional(node)
        if not args:
            return None
        name = self.value(args[0])
        if not (isinstance(name, Scalar) and isinstance(name.value, str)):
            return None
        reason = "environment variable"
        if len(args) > 1:
            default = self.value(args[1])
            shown = repr(default.value) if isinstance(default, Scalar) and default.known else self.ctx.code(args[1])
            reason = f"environment variable with default {shown}"
        return unknown(f"os.getenv({name.value!r})", reason, self.ctx.span(node))

    def _dict_call(self, node) -> Optional[DictVal]:
        return self.keywords_dict(node, node.args)

    def _list_call(self, node) -> Optional[ListVal]:
        args = self._positional(node)
        if args is None or len(args) > 1:
            return None
        if not args:
            return ListVal((), self.ctx.span(node))
        inner = self.value(args[0])
        return ListVal(inner.items, inner.span) if isinstance(inner, ListVal) else None

    def _shlex_split(self, node) -> Optional[ListVal]:
        args = self._positional(node)
        if args is None or len(args) != 1:
            return None
        text = self.as_str(self.value(args[0]), args[0])
        if text is None:
            return None
        words = [self.word_scalar(w, text.slice(a, b).span(self.ctx.source)) for w, a, b in posix_words(text)]
        return ListVal(tuple(words), self.ctx.span(node))

    def _shlex_join(self, node) -> Optional[Scalar]:
        args = self._positional(node)
        if args is None or len(args) != 1:
            return None
        items = self.value(args[0])
        if not isinstance(items, ListVal):
            return None
        # shlex.join quotes each element, so an element the shell would split or expand
        # stays one word: an opaque one-word hole, never its unquoted text
        quoted = tuple(
            unknown(str(i.value), "an element shlex.join quotes", i.span)
            if isinstance(i, Scalar) and i.known and not _SHELL_SAFE.match(str(i.value)) else i
            for i in items.items)
        return self._join(node, Str.spread(" ", self.ctx.span(node.func)), ListVal(quoted, items.span))

    def _method_join(self, node, receiver) -> Optional[Scalar]:
        args = self._positional(node)
        sep = self.value(receiver)
        if args is None or len(args) != 1 or not _is_str(sep) or not sep.known:
            return None
        items = self.value(args[0])
        if not isinstance(items, ListVal):
            return None
        return self._join(node, self.as_str(sep, receiver), items)

    def _join(self, node, sep: Str, items: ListVal) -> Scalar:
        """``sep.join(items)``: a `Splat` becomes a hole that may hold many words."""
        span = self.ctx.span(node)
        out: Optional[Str] = None
        for item in items.items:
            if isinstance(item, Splat):
                piece = Str.hole(Hole(self.ctx.code(node), item.reason, span, words=True))
            else:
                piece = self.as_str(item, None, None) if isinstance(item, Scalar) else None
                if piece is None:
                    piece = Str.hole(Hole(self.ctx.code(node), "a list element is not a string", span))
            out = piece if out is None else out + _separator(out, sep) + piece
        return self.string_scalar(out if out is not None else Str("", (span.start,)), span)

    def _method_split(self, node, receiver) -> Optional[ListVal]:
        args = self._positional(node)
        if args is None or args:
            return None  # only str.split() with no separator
        text = self.as_str(self.value(receiver), receiver)
        if text is None:
            return None
        return ListVal(tuple(self.word_scalar(w) for w in whitespace_words(text)), self.ctx.span(node))

    def _method_format(self, node, receiver) -> Optional[Scalar]:
        template = self.value(receiver)
        if not (_is_str(template) and template.known and template.text is not None):
            return None
        args = [self.value(a.value) for a in node.args if a.keyword is None and not a.star]
        kwargs = {a.keyword.value: self.value(a.value) for a in node.args if a.keyword is not None}
        return _str_format(self, node, template, args, kwargs)

    def _method_copy(self, node, receiver) -> Optional[AbsVal]:
        if node.args:
            return None
        if self.qualname(receiver) == "os.environ":
            return DictVal((), (), self.ctx.span(node))  # the inherited environment
        value = self.value(receiver)
        return value if isinstance(value, (ListVal, DictVal)) else None

    def _method_get(self, node, receiver) -> Optional[AbsVal]:
        if self.qualname(receiver) == "os.environ":
            return self._getenv(node)
        container = self.value(receiver)
        args = self._positional(node)
        if isinstance(container, DictVal) and args:
            key = self.value(args[0])
            if isinstance(key, Scalar) and isinstance(key.value, str):
                entry = container.get(key.value)
                if entry is not None:
                    return entry.value
                if len(args) == 2 and not container.opaque:
                    return self.value(args[1])
        return None

    def _method_strip(self, node, receiver) -> Optional[Scalar]:
        value = self.value(receiver)
        if node.args or not (_is_str(value) and value.known and value.text is not None):
            return None
        text = value.text
        start, end = 0, len(text.text)
        while start < end and text.text[start].isspace():
            start += 1
        while end > start and text.text[end - 1].isspace():
            end -= 1
        inner = text.slice(start, end)
        return Scalar(inner.text, inner.span(self.ctx.source), inner)

    # -- strings ----------------------------------------------------------------

    def string_scalar(self, text: Str, span: Span) -> Scalar:
        """A string value; with holes it is `Unresolved` with the known prefix."""
        if text.known:
            return Scalar(text.text, span, text)
        at, hole = text.holes[0]
        return Scalar(Unresolved(span.text, hole.reason, text.text[:at]), span, text)

    def word_scalar(self, word: Str, span: Optional[Span] = None) -> Scalar:
        """One word split out of a (partly) known string, written at ``span``."""
        span = span or word.span(self.ctx.source)
        if word.known:
            return Scalar(word.text, span, word)
        at, hole = word.holes[0]
        return Scalar(Unresolved(span.text, hole.reason, word.text[:at]), span, word)

    def as_str(self, value: AbsVal, node, within: Optional[Span] = None) -> Optional[Str]:
        """``value`` as characters for a string built at ``within``: known
        text keeps its offsets when written there, else it is spread over
        ``node``; an unknown value is a hole."""
        if not isinstance(value, Scalar):
            return None
        node_span = self.ctx.span(node) if node is not None else value.span
        if value.text is not None and (within is None or _inside(value.span, within)):
            return value.text
        if value.text is not None and node_span is not None:
            return value.text.relocated(node_span)
        if not value.known:
            if node_span is None:
                return None
            return Str.hole(Hole(node_span.text, value.value.reason, node_span))
        if not isinstance(value.value, str) or node_span is None:
            return None
        return Str.spread(value.value, node_span)


def _separator(before: Str, sep: Str) -> Str:
    """A join separator placed right after the previous element (the
    separator literal itself is elsewhere), so offsets stay in order."""
    end = before.offsets[-1]
    return Str(sep.text, (end,) * len(sep.text) + (end + 1,))


def _dotted(node) -> Optional[str]:
    """``self.model`` -> "self.model" (names only)."""
    kind = type(node).__name__
    if kind == "Name":
        return node.value
    if kind == "Attribute":
        base = _dotted(node.value)
        return f"{base}.{node.attr.value}" if base else None
    return None


def _inside(span: Optional[Span], within: Span) -> bool:
    return span is not None and within.start <= span.start and span.end <= within.end


def _is_number(v) -> bool:
    return isinstance(v, Scalar) and v.known and isinstance(v.value, (int, float)) and not isinstance(v.value, bool)


def _is_str(v) -> bool:
    return isinstance(v, Scalar) and (isinstance(v.value, str) or v.text is not None)


def _format(value, conversion: Optional[str], spec: str) -> Optional[str]:
    if conversion == "r":
        value = repr(value)
    elif conversion == "a":
        value = ascii(value)
    if not spec:
        return str(value)
    if not _SAFE_SPEC.match(spec):
        return None
    try:
        return format(value, spec)
    except (ValueError, TypeError):
        return None


def _str_format(ev: Evaluator, node, template: Scalar, args: list, kwargs: dict) -> Optional[Scalar]:
    """``"--tp {}".format(tp)`` with plain ``{}``/``{0}``/``{name}`` fields."""
    text = template.text
    span = ev.ctx.span(node)
    base = text if _inside(template.span, span) else text.relocated(ev.ctx.span(node.func.value))
    out = Str("", (span.start,))
    at = 0  # index into the template's characters
    auto = 0
    try:
        parsed = list(string.Formatter().parse(text.text))
    except ValueError:
        return None
    for literal, field, spec, conversion in parsed:
        out = out + _template_piece(base, at, literal)
        at += _source_length(literal)
        if field is None:
            continue
        field_len = len(field) + 2 + (len(spec) + 1 if spec else 0) + (len(conversion) + 1 if conversion else 0)
        field_str = base.slice(at, min(at + field_len, len(base.text)))
        at += field_len
        if field == "":
            field, auto = str(auto), auto + 1
        value = args[int(field)] if field.isdigit() and int(field) < len(args) else kwargs.get(field)
        rendered = None
        if isinstance(value, Scalar) and value.known and not spec:
            rendered = _format(value.value, conversion, "")
        field_span = field_str.span(ev.ctx.source)
        if rendered is None:
            reason = value.value.reason if isinstance(value, Scalar) and not value.known else "a format argument is not known statically"
            out = out + Str.hole(Hole(field_span.text, reason, field_span))
        else:
            out = out + Str.spread(rendered, field_span)
    return ev.string_scalar(out, span)


def _template_piece(base: Str, at: int, literal: str) -> Str:
    """The template characters of ``literal`` ({{ and }} written twice)."""
    length = _source_length(literal)
    piece = base.slice(at, at + length)
    if length == len(literal):
        return piece
    chars, offsets, i = [], [], 0
    while i < length:
        chars.append(piece.text[i])
        offsets.append(piece.offsets[i])
        i += 2 if piece.text[i] in "{}" else 1
    return Str("".join(chars), tuple(offsets) + (piece.offsets[-1],))


def _source_length(literal: str) -> int:
    return len(literal) + literal.count("{") + literal.count("}")


_CALLS: dict[str, Callable] = {
    "str": lambda ev, n: ev._convert(n, str),
    "int": lambda ev, n: ev._convert(n, int),
    "float": lambda ev, n: ev._convert(n, float),
    "bool": lambda ev, n: ev._convert(n, bool),
    "dict": Evaluator._dict_call,
    "list": Evaluator._list_call,
    "tuple": Evaluator._list_call,
    "os.getenv": Evaluator._getenv,
    "os.environ.get": Evaluator._getenv,
    "shlex.split": Evaluator._shlex_split,
    "shlex.join": Evaluator._shlex_join,
}

_METHODS: dict[str, Callable] = {
    "join": Evaluator._method_join,
    "split": Evaluator._method_split,
    "format": Evaluator._method_format,
    "copy": Evaluator._method_copy,
    "get": Evaluator._method_get,
    "strip": Evaluator._method_strip,
}
