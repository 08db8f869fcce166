"""Generic serialization of Python ``ast`` nodes for the validation IR (issue 17).

Part of the validation generator (``_gen_validation``); the format is described in
``sgllint/catalog/validation/__init__.py`` and read back by ``validation.to_ast``.
A node becomes ``[Type, line, end_line, field1, field2, ...]``: the fields of
``type(node)._fields`` in order minus :data:`DROPPED`, line numbers relative to a
unit's base line (1 == the base), so a function that only moved keeps its unit.
"""

from __future__ import annotations

import ast
import hashlib
import json
import math
from typing import Any, Optional

#: fields left out: contexts are implied by position, the rest carry no semantics here
DROPPED = frozenset({"ctx", "type_comment", "type_ignores", "kind", "type_params"})


def node_fields(cls: type) -> list[str]:
    return [f for f in cls._fields if f not in DROPPED]


def schema_for(types: set[str]) -> dict[str, list[str]]:
    """The field list of every node type in ``types`` (the store's header)."""
    return {t: node_fields(getattr(ast, t)) for t in sorted(types)}


def unit_types(enc: Any, out: Optional[set] = None) -> set[str]:
    """The node types an encoded unit uses (for its store's schema header)."""
    out = set() if out is None else out
    if isinstance(enc, list):
        head = enc[0] if enc else None
        if isinstance(head, str) and len(enc) >= 3 and (enc[1] is None or isinstance(enc[1], int)):
            cls = getattr(ast, head, None)
            if isinstance(cls, type) and issubclass(cls, ast.AST):
                out.add(head)
                for x in enc[3:]:
                    unit_types(x, out)
                return out
        for x in enc:
            unit_types(x, out)
    return out


def _const(v: Any) -> Any:
    if v is None or isinstance(v, (bool, int, str)):
        return v
    if isinstance(v, float):
        if math.isnan(v):
            return {"float": "nan"}
        if math.isinf(v):
            return {"float": "inf" if v > 0 else "-inf"}
        return v
    if isinstance(v, bytes):
        return {"bytes": v.hex()}
    if v is Ellipsis:
        return {"ellipsis": 1}
    if isinstance(v, complex):
        return {"complex": [v.real, v.imag]}
    raise TypeError(f"unexpected constant {v!r}")


class Encoder:
    """Encodes nodes relative to ``base`` (an absolute line); collects the node
    types it met so the store can carry their schema."""

    def __init__(self) -> None:
        self.types: set[str] = set()

    def encode(self, node: Any, base: int) -> Any:
        if isinstance(node, ast.AST):
            name = type(node).__name__
            self.types.add(name)
            line = getattr(node, "lineno", None)
            end = getattr(node, "end_lineno", None)
            out: list = [
                name,
                None if line is None else line - base + 1,
                None if end is None else end - base + 1,
            ]
            for f in node_fields(type(node)):
                val = getattr(node, f, None)
                if name == "Constant" and f == "value":
                    out.append(_const(val))
                else:
                    out.append(self.encode(val, base))
            return out
        if isinstance(node, list):
            return [self.encode(x, base) for x in node]
        if node is None or isinstance(node, (str, int)):
            return node
        raise TypeError(f"unexpected AST field value {node!r}")


def canonical(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def unit_id(obj: Any) -> str:
    return hashlib.sha256(canonical(obj).encode("utf-8")).hexdigest()[:16]
