"""A tiny static evaluator for SGLang's module-level constants.

Part of the catalog generator.  It runs the *top level* of a module (and the
bodies of small helper functions) over ``ast`` nodes with real Python values
for literals, so that ``X_CHOICES = [...]``, ``X_CHOICES.extend([...])``,
``Y = X + ["a"]``, ``from m import X``, ``list(Cls.DetectorMap.keys())``,
``[m.name.lower() for m in SomeEnum]`` and f-strings fold to values.
Anything it cannot fold becomes an ``Unknown`` (never an exception).
Nothing is imported or executed for real.
"""

from __future__ import annotations

import ast
from typing import Any, Optional

from sgllint.model.unknown import Unknown, has_unknown, known

from ._gen_builtins import BUILTINS, apply_builtin, apply_method, hashable, sort_key, to_set
from ._gen_source import Source


class ModuleRef:
    def __init__(self, project: "Project", name: str) -> None:
        self.project = project
        self.name = name

    def module(self) -> Optional["Module"]:
        return self.project.module(self.name)

    def attr(self, name: str) -> Any:
        sub = f"{self.name}.{name}"
        mod = self.module()
        if mod is not None and name in mod.env_names():
            return mod.get(name)
        if self.project.source.module_path(sub) is not None:
            return ModuleRef(self.project, sub)
        if mod is not None:
            return mod.get(name)
        return Unknown(f"no module {self.name}")


class LazyImport:
    def __init__(self, project: "Project", module: str, name: str) -> None:
        self.project = project
        self.module = module
        self.name = name

    def resolve(self) -> Any:
        return ModuleRef(self.project, self.module).attr(self.name)


class FuncObj:
    def __init__(self, module: "Module", node: ast.FunctionDef, owner: Optional["ClassObj"] = None):
        self.module = module
        self.node = node
        self.owner = owner

    @property
    def name(self) -> str:
        return self.node.name


class Builtin:
    def __init__(self, name: str) -> None:
        self.name = name


class BoundMethod:
    def __init__(self, obj: Any, name: str) -> None:
        self.obj = obj
        self.name = name


class EnumMember:
    def __init__(self, cls: "ClassObj", name: str, value: Any) -> None:
        self.cls = cls
        self.name = name
        self.value = value

    def __repr__(self) -> str:
        return f"{self.cls.name}.{self.name}"


_ENUM_BASES = {"Enum", "IntEnum", "StrEnum", "Flag", "IntFlag"}


class ClassObj:
    def __init__(self, module: "Module", node: ast.ClassDef) -> None:
        self.module = module
        self.node = node
        self.name = node.name
        self._env: Optional[dict] = None
        self.is_enum = any(
            (isinstance(b, ast.Name) and b.id in _ENUM_BASES)
            or (isinstance(b, ast.Attribute) and b.attr in _ENUM_BASES)
            for b in node.bases
        )
        # ``class X(str, Enum)``: Enum passes each value through the mixin, so a member written
        # ``NONE = None`` has the value "None" (multimodal_gen 0.5.5-0.5.8 STA_Mode, whose values
        # are --STA-mode's choices)
        self.str_mixin = self.is_enum and any(isinstance(b, ast.Name) and b.id == "str" for b in node.bases)

    def env(self) -> dict:
        if self._env is None:
            self._env = {}
            local = _Env(self.module, {})
            for stmt in self.node.body:
                targets: list[str] = []
                value_node = None
                if isinstance(stmt, ast.Assign):
                    targets = [t.id for t in stmt.targets if isinstance(t, ast.Name)]
                    value_node = stmt.value
                elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
                    targets = [stmt.target.id]
                    value_node = stmt.value
                elif isinstance(stmt, ast.FunctionDef):
                    self._env[stmt.name] = FuncObj(self.module, stmt, self)
                    continue
                if value_node is None:
                    continue
                val = self.module.project.evaluate(value_node, local)
                for t in targets:
                    local.vars[t] = val
                    if self.is_enum and not t.startswith("_"):
                        if self.str_mixin and (val is None or isinstance(val, (bool, int, float))):
                            val = str(val)
                        self._env[t] = EnumMember(self, t, val)
                    else:
                        self._env[t] = val
        return self._env

    def attr(self, name: str) -> Any:
        env = self.env()
        if name in env:
            return env[name]
        return Unknown(f"{self.name}.{name}")

    def members(self) -> list:
        return [v for v in self.env().values() if isinstance(v, EnumMember)]


class _Env:
    """A local scope chained to a module's globals."""

    def __init__(self, module: "Module", vars: dict) -> None:
        self.module = module
        self.vars = vars

    def lookup(self, name: str) -> Any:
        if name in self.vars:
            val = self.vars[name]
            if isinstance(val, LazyImport) and self.vars is not self.module._env:
                val = self.vars[name] = val.resolve()
            return val
        return self.module.get(name)


class _Return(Exception):
    def __init__(self, value: Any) -> None:
        self.value = value


class Module:
    def __init__(self, project: "Project", name: str, rel: str, text: str) -> None:
        self.project = project
        self.name = name
        self.rel = rel
        self.tree = ast.parse(text)
        self.package = name if rel.endswith("__init__.py") else name.rpartition(".")[0]
        self._env: Optional[dict] = None
        self._executing = False
        self.assign_nodes: dict[str, ast.expr] = {}
        self.star_imports: list[str] = []

    # --- module globals -------------------------------------------------
    def env(self) -> dict:
        if self._env is None:
            self._env = {}
            self._executing = True
            try:
                scope = _Env(self, self._env)
                self.project.exec_block(self.tree.body, scope, module_level=True)
            finally:
                self._executing = False
        return self._env

    def env_names(self) -> set:
        return set(self.env())

    def get(self, name: str) -> Any:
        env = self.env()
        if name in env:
            val = env[name]
            if isinstance(val, LazyImport):
                val = val.resolve()
                if not self._executing:
                    env[name] = val
            return val
        guard = self.project.star_guard
        if self.name not in guard:
            guard.add(self.name)
            try:
                for star in reversed(self.star_imports):
                    other = self.project.module(star)
                    if other is not None and other is not self and not name.startswith("_"):
                        if name in other.env_names() or other.star_imports:
                            val = other.get(name)
                            if known(val):
                                return val
            finally:
                guard.discard(self.name)
        if name in BUILTINS:
            return Builtin(name)
        return Unknown(f"{self.name}.{name}")

    def resolve_relative(self, module: Optional[str], level: int) -> str:
        if level == 0:
            return module or ""
        parts = self.package.split(".")
        if level > 1:
            parts = parts[: len(parts) - (level - 1)]
        base = ".".join(parts)
        return f"{base}.{module}" if module else base

    def classes(self) -> dict[str, ast.ClassDef]:
        return {n.name: n for n in self.tree.body if isinstance(n, ast.ClassDef)}

    def functions(self) -> dict[str, ast.FunctionDef]:
        return {n.name: n for n in self.tree.body if isinstance(n, ast.FunctionDef)}


class Project:
    """All modules of one release, parsed on demand."""

    MAX_DEPTH = 12

    def __init__(self, source: Source) -> None:
        self.source = source
        self._modules: dict[str, Optional[Module]] = {}
        self._depth = 0
        self.star_guard: set = set()

    def module(self, name: str) -> Optional[Module]:
        if name not in self._modules:
            rel = self.source.module_path(name)
            text = self.source.read(rel) if rel else None
            self._modules[name] = Module(self, name, rel, text) if text is not None else None
        return self._modules[name]

    # --- statements -------------------------------------------------------
    def exec_block(self, body: list, scope: _Env, module_level: bool = False) -> None:
        for stmt in body:
            self.exec_stmt(stmt, scope, module_level)

    def _assign(self, target: ast.expr, value: Any, scope: _Env, node: Optional[ast.expr]) -> None:
        if isinstance(target, ast.Name):
            scope.vars[target.id] = value
            if node is not None and scope.module._env is scope.vars:
                scope.module.assign_nodes[target.id] = node
        elif isinstance(target, (ast.Tuple, ast.List)):
            if isinstance(value, (list, tuple)) and len(value) == len(target.elts):
                for t, v in zip(target.elts, value):
                    self._assign(t, v, scope, None)
            else:
                for t in target.elts:
                    self._assign(t, Unknown("unpack"), scope, None)

    def exec_stmt(self, stmt: ast.stmt, scope: _Env, module_level: bool = False) -> None:
        if isinstance(stmt, ast.Assign):
            val = self.evaluate(stmt.value, scope)
            for t in stmt.targets:
                self._assign(t, val, scope, stmt.value)
        elif isinstance(stmt, ast.AnnAssign):
            if stmt.value is not None:
                self._assign(stmt.target, self.evaluate(stmt.value, scope), scope, stmt.value)
        elif isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name):
            cur = scope.lookup(stmt.target.id)
            rhs = self.evaluate(stmt.value, scope)
            if isinstance(stmt.op, ast.Add) and isinstance(cur, list) and isinstance(rhs, (list, tuple)):
                cur.extend(rhs)  # in place, like Python
            elif isinstance(stmt.op, ast.BitOr) and isinstance(cur, set) and isinstance(rhs, (set, frozenset)):
                cur |= rhs
            else:
                scope.vars[stmt.target.id] = self._binop(stmt.op, cur, rhs)
        elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
            self.evaluate(stmt.value, scope)
        elif isinstance(stmt, ast.ImportFrom):
            mod = scope.module.resolve_relative(stmt.module, stmt.level)
            for alias in stmt.names:
                if alias.name == "*":
                    if scope.vars is scope.module._env:
                        scope.module.star_imports.append(mod)
                    continue
                scope.vars[alias.asname or alias.name] = LazyImport(self, mod, alias.name)
        elif isinstance(stmt, ast.Import):
            for alias in stmt.names:
                if alias.asname:
                    scope.vars[alias.asname] = ModuleRef(self, alias.name)
                else:
                    top = alias.name.split(".")[0]
                    scope.vars[top] = ModuleRef(self, top)
        elif isinstance(stmt, ast.ClassDef):
            scope.vars[stmt.name] = ClassObj(scope.module, stmt)
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            scope.vars[stmt.name] = FuncObj(scope.module, stmt)
        elif isinstance(stmt, ast.Try):
            self.exec_block(stmt.body, scope, module_level)
            self.exec_block(stmt.orelse, scope, module_level)
            self.exec_block(stmt.finalbody, scope, module_level)
        elif isinstance(stmt, ast.If):
            test = self.evaluate(stmt.test, scope)
            if not known(test):
                # Run-time condition (environment, platform): the default
                # installation takes neither branch for granted.
                return
            self.exec_block(stmt.body if test else stmt.orelse, scope, module_level)
        elif isinstance(stmt, ast.Return) and not module_level:
            raise _Return(self.evaluate(stmt.value, scope) if stmt.value is not None else None)

    def call_function(self, func: FuncObj, args: list, kwargs: dict) -> Any:
        if self._depth >= self.MAX_DEPTH:
            return Unknown("depth")
        node = func.node
        params = [a.arg for a in node.args.posonlyargs + node.args.args]
        if func.owner is not None and params and params[0] in ("self", "cls"):
            params = params[1:]
        local: dict = {}
        defaults = node.args.defaults
        for i, p in enumerate(params):
            if i < len(args):
                local[p] = args[i]
            elif p in kwargs:
                local[p] = kwargs[p]
            else:
                j = i - (len(params) - len(defaults))
                local[p] = self.evaluate(defaults[j], _Env(func.module, {})) if j >= 0 else Unknown(p)
        for a, d in zip(node.args.kwonlyargs, node.args.kw_defaults):
            local[a.arg] = kwargs.get(a.arg, self.evaluate(d, _Env(func.module, {})) if d else Unknown(a.arg))
        self._depth += 1
        try:
            self.exec_block(node.body, _Env(func.module, local))
        except _Return as r:
            return r.value
        finally:
            self._depth -= 1
        return None

    # --- expressions ------------------------------------------------------
    def evaluate(self, node: Optional[ast.expr], scope: _Env) -> Any:
        if node is None:
            return None
        try:
            return self._eval(node, scope)
        except _Return:
            raise
        except Exception as exc:  # an evaluator must never crash the generator
            return Unknown(f"{type(exc).__name__}: {exc}")

    def _eval(self, node: ast.expr, scope: _Env) -> Any:
        # long on purpose: one dispatch over every ast expression type the generator evaluates: a table of small cases
        ev = self._eval
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.JoinedStr):
            parts = []
            for v in node.values:
                if isinstance(v, ast.Constant):
                    parts.append(str(v.value))
                    continue
                assert isinstance(v, ast.FormattedValue)
                val = self.evaluate(v.value, scope)
                if has_unknown(val):
                    parts.append("{" + ast.unparse(v.value) + "}")
                    continue
                if v.conversion == ord("r"):
                    val = repr(val)
                elif v.conversion == ord("s"):
                    val = str(val)
                elif v.conversion == ord("a"):
                    val = ascii(val)
                spec = ev(v.format_spec, scope) if v.format_spec is not None else ""
                parts.append(format(val, spec))
            return "".join(parts)
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            items: list = []
            for e in node.elts:
                if isinstance(e, ast.Starred):
                    inner = ev(e.value, scope)
                    items.extend(self._iterate(inner))
                else:
                    items.append(ev(e, scope))
            if isinstance(node, ast.List):
                return items
            if isinstance(node, ast.Tuple):
                return tuple(items)
            return to_set(items)
        if isinstance(node, ast.Dict):
            out: dict = {}
            for k, v in zip(node.keys, node.values):
                if k is None:
                    inner = ev(v, scope)
                    if isinstance(inner, dict):
                        out.update(inner)
                    continue
                key = ev(k, scope)
                if isinstance(key, EnumMember):
                    key = key.value if not has_unknown(key.value) else key.name
                if not known(key) or not hashable(key):
                    continue
                out[key] = self.evaluate(v, scope)
            return out
        if isinstance(node, ast.Name):
            return scope.lookup(node.id)
        if isinstance(node, ast.Attribute):
            base = ev(node.value, scope)
            return self._getattr(base, node.attr)
        if isinstance(node, ast.Call):
            return self._call(node, scope)
        if isinstance(node, ast.BinOp):
            return self._binop(node.op, ev(node.left, scope), ev(node.right, scope))
        if isinstance(node, ast.UnaryOp):
            val = ev(node.operand, scope)
            if not known(val):
                return val
            if isinstance(node.op, ast.Not):
                return not val
            if isinstance(node.op, ast.USub):
                return -val
            if isinstance(node.op, ast.UAdd):
                return +val
            return Unknown("unary")
        if isinstance(node, ast.BoolOp):
            vals = [ev(v, scope) for v in node.values]
            if any(not known(v) for v in vals):
                return Unknown("boolop")
            if isinstance(node.op, ast.And):
                res = True
                for v in vals:
                    res = v
                    if not v:
                        break
                return res
            res = False
            for v in vals:
                res = v
                if v:
                    break
            return res
        if isinstance(node, ast.Compare):
            left = ev(node.left, scope)
            for op, comp in zip(node.ops, node.comparators):
                right = ev(comp, scope)
                if not known(left) or not known(right):
                    return Unknown("compare")
                if isinstance(op, ast.Is):
                    ok = left is right
                elif isinstance(op, ast.IsNot):
                    ok = left is not right
                elif isinstance(op, ast.Eq):
                    ok = left == right
                elif isinstance(op, ast.NotEq):
                    ok = left != right
                elif isinstance(op, ast.In):
                    ok = left in right
                elif isinstance(op, ast.NotIn):
                    ok = left not in right
                else:
                    return Unknown("compare op")
                if not ok:
                    return False
                left = right
            return True
        if isinstance(node, ast.IfExp):
            test = ev(node.test, scope)
            if not known(test):
                return Unknown("ifexp")
            return ev(node.body if test else node.orelse, scope)
        if isinstance(node, ast.Subscript):
            base = ev(node.value, scope)
            idx = ev(node.slice, scope)
            if not known(base) or not known(idx):
                return Unknown("subscript")
            return base[idx]
        if isinstance(node, ast.Slice):
            return slice(ev(node.lower, scope) if node.lower else None, ev(node.upper, scope) if node.upper else None)
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp)):
            return self._comprehension(node, scope)
        return Unknown(type(node).__name__)

    def _comprehension(self, node, scope: _Env) -> Any:
        if len(node.generators) != 1:
            return Unknown("comprehension")
        gen = node.generators[0]
        it = self._eval(gen.iter, scope)
        if not known(it):
            return it
        out = []
        for item in self._iterate(it):
            local = _Env(scope.module, dict(scope.vars))
            self._assign(gen.target, item, local, None)
            keep = True
            for cond in gen.ifs:
                c = self._eval(cond, local)
                if not known(c):
                    return Unknown("comprehension filter")
                keep = keep and bool(c)
            if keep:
                out.append(self._eval(node.elt, local))
        if isinstance(node, ast.SetComp):
            return to_set(out)
        return out

    def _iterate(self, val: Any) -> list:
        if isinstance(val, ClassObj) and val.is_enum:
            return val.members()
        if isinstance(val, dict):
            return list(val.keys())
        if isinstance(val, (set, frozenset)):
            return sorted(val, key=sort_key)
        if isinstance(val, (list, tuple, str)):
            return list(val)
        return [Unknown("iterate")]

    def _getattr(self, base: Any, attr: str) -> Any:
        if isinstance(base, ModuleRef):
            return base.attr(attr)
        if isinstance(base, ClassObj):
            return base.attr(attr)
        if isinstance(base, EnumMember):
            if attr == "name":
                return base.name
            if attr == "value":
                return base.value
            return Unknown(f"{base}.{attr}")
        if isinstance(base, (list, dict, set, frozenset, str, tuple)):
            return BoundMethod(base, attr)
        return Unknown(f".{attr}")

    def _call(self, node: ast.Call, scope: _Env) -> Any:
        func = self._eval(node.func, scope)
        args = []
        for a in node.args:
            if isinstance(a, ast.Starred):
                args.extend(self._iterate(self._eval(a.value, scope)))
            else:
                args.append(self._eval(a, scope))
        kwargs = {k.arg: self._eval(k.value, scope) for k in node.keywords if k.arg}
        # sys.modules.get(...): nothing is imported at parser-build time.
        if isinstance(node.func, ast.Attribute) and ast.unparse(node.func) == "sys.modules.get":
            return None
        if isinstance(func, Builtin):
            return apply_builtin(func.name, args, kwargs)
        if isinstance(func, BoundMethod):
            return apply_method(func.obj, func.name, args, kwargs)
        if isinstance(func, FuncObj):
            return self.call_function(func, args, kwargs)
        return Unknown(f"call {ast.unparse(node.func)}")

    def _binop(self, op: ast.operator, left: Any, right: Any) -> Any:
        if not known(left) or not known(right):
            return Unknown("binop")
        if isinstance(op, ast.Add):
            if isinstance(left, list) and isinstance(right, tuple):
                raise TypeError("list + tuple")
            return left + right
        if isinstance(op, ast.Sub):
            return left - right
        if isinstance(op, ast.Mult):
            return left * right
        if isinstance(op, ast.BitOr):
            return left | right
        if isinstance(op, ast.Mod):
            return left % right
        if isinstance(op, ast.FloorDiv):
            return left // right
        if isinstance(op, ast.Div):
            return left / right
        if isinstance(op, ast.Pow):
            return left**right
        return Unknown("binop")
