"""What the interpreter (`flow`) reads off libcst nodes: the calls in an
expression, a function's parameters and how a call binds them, assignment
targets, loop bodies that end early."""

from __future__ import annotations

from dataclasses import fields
from typing import Iterator, Optional

import libcst as cst

from sgllint.formats.python.evaluate import Evaluator, _dotted
from sgllint.formats.python.values import AbsVal, unknown

#: the comprehension nodes: their loop variables shadow the scope's names
_COMPREHENSIONS = (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)
_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}


def calls_in(node) -> list[tuple[cst.Call, frozenset]]:
    """The calls in ``node``, each with the names that comprehensions and
    lambdas around it bind (those shadow the scope's names). A plain field
    walk: libcst's visitor rebuilds every node it passes."""
    out: list[tuple[cst.Call, frozenset]] = []
    stack = [(node, frozenset())]
    while stack:
        current, bound = stack.pop()
        kind = type(current)
        if kind is cst.Call:
            out.append((current, bound))
        elif kind is cst.Lambda:
            bound = bound | frozenset(p.name.value for p in parameters(current.params))
        elif kind in _COMPREHENSIONS:
            names = []
            comp = current.for_in
            while comp is not None:  # for a in x for b in y ...
                names.extend(_dotted(t) for t in flatten_targets(comp.target) if _dotted(t))
                comp = comp.inner_for_in
            bound = bound | frozenset(names)
        names_of = _CHILD_FIELDS.get(kind)
        if names_of is None:
            names_of = _CHILD_FIELDS[kind] = tuple(f.name for f in fields(kind))
        children = []
        for name in names_of:
            value = getattr(current, name)
            if isinstance(value, cst.CSTNode):
                children.append(value)
            elif isinstance(value, (list, tuple)):
                children.extend(v for v in value if isinstance(v, cst.CSTNode))
        stack.extend((child, bound) for child in reversed(children))
    return out


def leaves_early(body) -> bool:
    """Whether a loop body may end an iteration early (``break``,
    ``continue``, ``return``, ``raise``, ``yield``)."""
    stack = [body]
    while stack:
        current = stack.pop()
        if isinstance(current, (cst.Break, cst.Continue, cst.Return, cst.Raise, cst.Yield)):
            return True
        if isinstance(current, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            continue
        stack.extend(current.children)
    return False


def bind_call(params: cst.Parameters, call: cst.Call, ev: Evaluator) -> Optional[list[tuple[str, AbsVal]]]:
    """Each parameter of ``params`` with the value ``call`` passes it (or
    its literal default; unknown otherwise). None when the call unpacks
    ``*args``/``**kwargs`` (which arguments go where is not known)."""
    if any(a.star for a in call.args):
        return None
    positional = [a.value for a in call.args if a.keyword is None]
    keywords = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
    out = []
    ordered = list(params.posonly_params) + list(params.params)
    for i, param in enumerate(ordered):
        name = param.name.value
        node = positional[i] if i < len(positional) else keywords.get(name, param.default)
        out.append((name, ev.eval(node) if node is not None else unknown(name, f"'{name}' is a function parameter")))
    for param in params.kwonly_params:
        name = param.name.value
        node = keywords.get(name, param.default)
        out.append((name, ev.eval(node) if node is not None else unknown(name, f"'{name}' is a function parameter")))
    for star in (params.star_arg, params.star_kwarg):
        if isinstance(star, cst.Param):
            out.append((star.name.value, unknown(star.name.value, f"'{star.name.value}' is a function parameter")))
    return out


def parameters(params: cst.Parameters) -> Iterator[cst.Param]:
    yield from params.posonly_params
    yield from params.params
    yield from params.kwonly_params
    for star in (params.star_arg, params.star_kwarg):
        if isinstance(star, cst.Param):
            yield star


def flatten_targets(target) -> Iterator:
    if isinstance(target, (cst.Tuple, cst.List)):
        for element in target.elements:
            yield from flatten_targets(element.value)
    elif isinstance(target, cst.StarredElement):
        yield from flatten_targets(target.value)
    else:
        yield target


def name_of(node) -> str:
    """``a.b.c`` of an import."""
    if isinstance(node, cst.Attribute):
        return f"{name_of(node.value)}.{node.attr.value}"
    return node.value


#: what an expression that lists ServerArgs' fields contains
_FIELD_LISTINGS = ("fields(", "__dataclass_fields__", "signature(", "__annotations__", "dir(")


def probed_field(test) -> Optional[str]:
    """The ServerArgs field an ``if`` test checks the release for
    (``"x" in [f.name for f in dataclasses.fields(ServerArgs)]``,
    ``"x" in ServerArgs.__dataclass_fields__``, ``hasattr(ServerArgs, "x")``),
    in the test or one operand of its ``and``; None for any other test."""
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        return probed_field(test.left) or probed_field(test.right)
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1 and isinstance(test.comparisons[0].operator, cst.In):
        key = _string(test.left)
        listing = _code(test.comparisons[0].comparator)
        if key is not None and "ServerArgs" in listing and any(m in listing for m in _FIELD_LISTINGS):
            return key
        return None
    if isinstance(test, cst.Call) and isinstance(test.func, cst.Name) and test.func.value == "hasattr" and len(test.args) == 2:
        if _code(test.args[0].value).split(".")[-1] in ("ServerArgs", "server_args"):
            return _string(test.args[1].value)
    return None


def _string(node) -> Optional[str]:
    if isinstance(node, cst.SimpleString):
        value = node.evaluated_value
        return value if isinstance(value, str) else None
    return None


def _code(node) -> str:
    return cst.Module(body=[]).code_for_node(node)
