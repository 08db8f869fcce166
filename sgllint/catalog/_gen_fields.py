"""ServerArgs's fields and their declared types, read statically (part of
the catalog generator, :mod:`._gen_extract`): the dataclass fields with
their evaluated defaults, and a view of each ``typing`` annotation that
says which Python type the field holds."""

from __future__ import annotations

import ast
from typing import Any, Optional

from sgllint.model.unknown import Unknown, has_unknown, known

from ._gen_eval import ClassObj, Module, Project, _Env
from ._gen_source import GenerationError

#: a field (or an ``add_argument`` keyword) with no value given
_MISSING = object()

# ---------------------------------------------------------------------------
# Type annotations (static ``typing`` inspection)
# ---------------------------------------------------------------------------

_TYPING_NAMES = {"Optional", "Union", "List", "list", "Literal", "Dict", "dict", "Tuple", "tuple", "Set", "set", "Any", "Callable"}


def annotation_name(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Constant) and node.value is None:
        return "None"
    return ""


class TypeView:
    """A parsed annotation: ``origin`` in {"optional", "union", "literal",
    "list", "annotated", "name", ...} with ``args``."""

    def __init__(self, module: Module, node: ast.expr, depth: int = 0) -> None:
        self.module = module
        # String annotations (``"Foo"``) are parsed.
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            try:
                node = ast.parse(node.value, mode="eval").body
            except SyntaxError:
                pass
        # Module-level aliases (``Backend = Literal[...]``).
        if isinstance(node, ast.Name) and node.id not in _TYPING_NAMES and depth < 5:
            alias = module.assign_nodes.get(node.id) if module.env() is not None else None
            if alias is not None and isinstance(alias, (ast.Subscript, ast.BinOp)):
                node = alias
        self.node = node
        self.depth = depth

    def sub(self, node: ast.expr) -> "TypeView":
        return TypeView(self.module, node, self.depth + 1)

    @property
    def head(self) -> str:
        n = self.node
        if isinstance(n, ast.Subscript):
            return annotation_name(n.value)
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.BitOr):
            return "|"
        return annotation_name(n)

    def args(self) -> list[ast.expr]:
        n = self.node
        if isinstance(n, ast.Subscript):
            s = n.slice
            return list(s.elts) if isinstance(s, ast.Tuple) else [s]
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.BitOr):
            out: list[ast.expr] = []

            def flat(x: ast.expr) -> None:
                if isinstance(x, ast.BinOp) and isinstance(x.op, ast.BitOr):
                    flat(x.left)
                    flat(x.right)
                else:
                    out.append(x)

            flat(n)
            return out
        return []

    def is_annotated(self) -> bool:
        return self.head in ("A", "Annotated")

    def unwrap_optional(self) -> tuple["TypeView", bool]:
        h = self.head
        if h == "Optional":
            return self.sub(self.args()[0]), True
        if h in ("Union", "|"):
            non_none = [a for a in self.args() if annotation_name(a) != "None"]
            if len(non_none) == 1:
                return self.sub(non_none[0]), True
        return self, False

    def literal_values(self) -> Optional[list]:
        if self.head != "Literal":
            return None
        scope = _Env(self.module, {})
        return [self.module.project.evaluate(a, scope) for a in self.args()]

    def is_list(self) -> bool:
        # typing.get_origin(List[X]) / get_origin(list[X]) / get_origin(List) is list;
        # get_origin(list) is None.
        h = self.head
        if isinstance(self.node, ast.Subscript):
            return h in ("List", "list")
        return h == "List"

    def simple(self) -> str:
        """The argparse type ``_infer_type_func`` would pick."""
        h = self.head if not isinstance(self.node, ast.Subscript) else ""
        return h if h in ("str", "int", "float") else "str"

    def describe(self) -> str:
        """A short, normalised name for the ``fields`` table."""
        inner, _ = self.unwrap_optional()
        h = inner.head
        if h == "Literal":
            vals = inner.literal_values() or []
            return type(vals[0]).__name__ if vals and known(vals[0]) else "str"
        if h in ("List", "list", "Tuple", "tuple", "Set", "set", "Dict", "dict"):
            base = h.lower()
            if isinstance(inner.node, ast.Subscript) and base in ("list", "set"):
                return f"{base}[{inner.sub(inner.args()[0]).describe()}]"
            return base
        if h in ("|", "Union"):
            return "|".join(sorted({inner.sub(a).describe() for a in inner.args() if annotation_name(a) != "None"}))
        if h in ("Any", ""):
            return "any"
        return h


# ---------------------------------------------------------------------------
# Fields
# ---------------------------------------------------------------------------


class FieldDecl:
    def __init__(self, name: str, module: Module, ann: ast.expr, default: Optional[ast.expr]) -> None:
        self.name = name
        self.module = module
        self.ann = ann
        self.default_node = default
        self._default: Any = _MISSING
        self._computed = False

    def default(self) -> Any:
        """The evaluated default, ``_MISSING`` when the field has none."""
        if not self._computed:
            self._computed = True
            self._default = _eval_default(self.module, self.default_node)
        return self._default


def _eval_default(module: Module, node: Optional[ast.expr]) -> Any:
    if node is None:
        return _MISSING
    project = module.project
    scope = _Env(module, {})
    if isinstance(node, ast.Call) and annotation_name(node.func) == "field":
        kw = {k.arg: k.value for k in node.keywords}
        if "default" in kw:
            return project.evaluate(kw["default"], scope)
        fac = kw.get("default_factory")
        if fac is None:
            return _MISSING
        if isinstance(fac, ast.Lambda):
            return project.evaluate(fac.body, scope)
        name = annotation_name(fac)
        if name in ("list", "dict", "set", "tuple"):
            return {"list": [], "dict": {}, "set": set(), "tuple": ()}[name]
        return Unknown("default_factory")
    return project.evaluate(node, scope)


def _annassign_fields(module: Module, cls: ast.ClassDef) -> list[FieldDecl]:
    # A name annotated twice keeps its first position in ``__annotations__``
    # (a dict) but takes the last declaration, exactly like Python does.
    out: dict[str, FieldDecl] = {}
    for stmt in cls.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            if "ClassVar" in ast.unparse(stmt.annotation):
                continue
            out[stmt.target.id] = FieldDecl(stmt.target.id, module, stmt.annotation, stmt.value)
    return list(out.values())


def find_class(module: Module, name: str) -> ast.ClassDef:
    cls = module.classes().get(name)
    if cls is None:
        raise GenerationError(f"{module.rel}: no class {name}")
    return cls


def method_node(cls: ast.ClassDef, name: str) -> Optional[ast.FunctionDef]:
    for stmt in cls.body:
        if isinstance(stmt, ast.FunctionDef) and stmt.name == name:
            return stmt
    return None


def collect_fields(project: Project, sa: Module) -> tuple[str, list[FieldDecl]]:
    """(era, fields in record order)."""
    cls = find_class(sa, "ServerArgs")
    own = _annassign_fields(sa, cls)
    env = sa.env()
    if "_INPUT_NAMESPACES" in sa.assign_nodes:
        node = sa.assign_nodes["_INPUT_NAMESPACES"]
        decls: dict[str, FieldDecl] = {}
        for elt in getattr(node, "elts", []):
            obj = sa.project.evaluate(elt, _Env(sa, {}))
            if not isinstance(obj, ClassObj):
                raise GenerationError(f"cannot resolve namespace class {ast.unparse(elt)}")
            for f in _annassign_fields(obj.module, obj.node):
                if f.name in decls:
                    raise GenerationError(f"field {f.name} declared twice")
                decls[f.name] = f
        order_mod = project.module("sglang.srt.arg_groups.field_order")
        order = order_mod.get("POSITIONAL_FIELD_ORDER") if order_mod else ()
        if has_unknown(order):
            raise GenerationError("cannot read POSITIONAL_FIELD_ORDER")
        declared = [n for n in order if n in decls]
        rest = [n for n in decls if n not in set(order)]
        ordered = {n: decls[n] for n in declared + rest}
        for f in own:  # {**collected, **ServerArgs.__annotations__}
            ordered[f.name] = f
        return "msgspec", list(ordered.values())
    del env
    annotated = any(TypeView(sa, f.ann).is_annotated() for f in own)
    return ("annotated" if annotated else "add_argument"), own
