"""Replay a package's ``argparse`` construction statically.

Part of the wrapper and diffusion generators (``_gen_wrappers``,
``_gen_diffusion``).  It extends the catalog's static evaluator
(:mod:`._gen_eval`) so that running a launcher's function over ``ast``
records what its parsers would hold, without importing the package:

* ``argparse.ArgumentParser(...)`` makes a `ParserObj`; ``add_argument``
  (on the parser, an argument group or a mutually exclusive group) records an
  option; ``parse_args`` / ``parse_known_args`` record a *stage* in execution
  order (the order in which a launch's words meet each parser);
* a call of an imported SGLang ``ServerArgs.add_cli_args(parser)`` records an
  *include*: SGLang's own options join that parser at that point;
* modules outside the package become `ExternalRef`s; ``os.environ`` is the
  empty default environment (no ``DYN_*``/``SGLANG_*`` variable set);
* functions with ``*args``/``**kwargs``, ``for`` loops, ``with`` blocks,
  instances and inherited methods are followed, so helpers such as Dynamo's
  ``add_argument(g, flag_name=..., env_var=...)`` fold to the real calls.

Anything it cannot fold stays `Unknown` and the branch that depends on it is
not taken, exactly like the SGLang catalog generator.
"""

from __future__ import annotations

import ast
from typing import Any, Optional

from sgllint.model.unknown import Unknown, has_unknown, known

from ._gen_eval import (
    BoundMethod,
    Builtin,
    ClassObj,
    EnumMember,
    FuncObj,
    LazyImport,
    ModuleRef,
    Project,
    _Env,
    _Return,
)
from ._gen_argparse_objects import ExternalRef, GroupObj, Instance, ParserObj, Stage
from ._gen_extract import ACTION_KINDS, SUPPRESS, jsonable, _choices_json

#: the SGLang entry that adds its server options to a parser
SGLANG_ADD_CLI_ARGS = (
    "sglang.srt.server_args.ServerArgs.add_cli_args",
    "sglang.multimodal_gen.runtime.server_args.ServerArgs.add_cli_args",
)
_NO_VALUE = ("store_true", "store_false", "store_const", "help", "count", "boolean_optional", "version", "append_const")
_FLAG_DEFAULTS = {"store_true": (True, False), "store_false": (False, True)}


class _Recorder(Project):
    """`Project` that understands ``argparse`` and follows more Python."""

    def __init__(self, source, sglang_strings: Optional[set] = None) -> None:
        super().__init__(source)
        self.parsers: list[ParserObj] = []
        self.stages: list[Stage] = []
        self.current_file = ""
        self._groups = 0
        #: [first seq, last seq, module, FunctionDef, caller frame, ast.Call] of
        #: every function run, in call order (caller and call None at the root)
        self.frames: list = []
        #: ids of the frames that read ``os.environ`` (a default of an option
        #: recorded there may come from the environment)
        self.env_frames: set = set()
        self._call_node: Optional[ast.Call] = None
        self._stack: list = []
        self._seq = 0
        #: SGLang option strings of the release the package pins (to decide
        #: ``"--x" in parser._option_string_actions`` after an include)
        self.sglang_strings = sglang_strings or set()

    # --- names from outside ------------------------------------------------
    def _external(self, module: str) -> bool:
        return self.source.module_path(module) is None and not self.source.is_package(module)

    def exec_stmt(self, stmt: ast.stmt, scope: _Env, module_level: bool = False) -> None:
        if isinstance(stmt, ast.ImportFrom):
            mod = scope.module.resolve_relative(stmt.module, stmt.level)
            for alias in stmt.names:
                if alias.name == "*":
                    if scope.vars is scope.module._env:
                        scope.module.star_imports.append(mod)
                    continue
                sub = f"{mod}.{alias.name}"
                if self._external(mod) and self._external(sub):
                    scope.vars[alias.asname or alias.name] = ExternalRef(sub)
                else:
                    scope.vars[alias.asname or alias.name] = LazyImport(self, mod, alias.name)
            return
        if isinstance(stmt, ast.Import):
            for alias in stmt.names:
                name = alias.name if alias.asname else alias.name.split(".")[0]
                ref: Any = ExternalRef(name) if self._external(name) else ModuleRef(self, name)
                scope.vars[alias.asname or name] = ref
            return
        if isinstance(stmt, (ast.For, ast.AsyncFor)):
            self._exec_for(stmt, scope, module_level)
            return
        if isinstance(stmt, (ast.With, ast.AsyncWith)):
            self.exec_block(stmt.body, scope, module_level)
            return
        if isinstance(stmt, ast.Try):
            splice = manual_splice(stmt)
            if splice is not None:
                splice["file"] = scope.module.rel
                self.stages.append(splice)
                return
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Await):
            self.evaluate(stmt.value, scope)
            return
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and not module_level and scope.vars is not scope.module._env:
            # a helper defined inside the running function (SamplingParams'
            # ``def add_argument(*flags, **kwargs)``) sees that function's locals
            scope.vars[stmt.name] = _Closure(scope.module, stmt, scope.vars)
            return
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Attribute):
            return  # attribute stores on objects are not tracked
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Subscript):
            target = stmt.targets[0]
            container = self.evaluate(target.value, scope)
            key = self.evaluate(target.slice, scope)
            if isinstance(container, dict) and isinstance(key, str):
                container[key] = self.evaluate(stmt.value, scope)
            return
        super().exec_stmt(stmt, scope, module_level)

    def _exec_for(self, stmt, scope: _Env, module_level: bool) -> None:
        it = self.evaluate(stmt.iter, scope)
        if isinstance(it, _ActionsView):
            self._choice_extension(stmt, it.parser)
            return
        if not known(it):
            return
        items = self._iterate(it)
        if any(not known(x) for x in items):
            return
        for item in items:
            self._assign(stmt.target, item, scope, None)
            self.exec_block(stmt.body, scope, module_level)

    def _choice_extension(self, stmt: ast.For, parser: ParserObj) -> None:
        """``for action in p._actions: if ...dest == "x"...: action.choices = list(action.choices) + [...]``."""
        for node in ast.walk(stmt):
            if not isinstance(node, ast.If):
                continue
            dests = [
                c.value
                for c in ast.walk(node.test)
                if isinstance(c, ast.Constant) and isinstance(c.value, str) and c.value not in ("dest",)
            ]
            for sub in node.body:
                if (
                    isinstance(sub, ast.Assign)
                    and isinstance(sub.targets[0], ast.Attribute)
                    and sub.targets[0].attr == "choices"
                    and isinstance(sub.value, ast.BinOp)
                    and isinstance(sub.value.right, ast.List)
                ):
                    added = [e.value for e in sub.value.right.elts if isinstance(e, ast.Constant)]
                    if dests:
                        parser.choice_extensions.append({"dest": dests[0], "add": added, "line": sub.lineno})

    # --- calls -----------------------------------------------------------
    def _call(self, node: ast.Call, scope: _Env) -> Any:
        func = self._eval(node.func, scope)
        if not known(func) and isinstance(node.func, ast.Name) and node.func.id == "type":
            func = Builtin("type")  # three-argument type(): see _builtin
        args: list = []
        # Arguments are evaluated one by one: an argument that cannot be
        # folded (``sys.argv[1:]``) must not lose the call itself.
        for a in node.args:
            if isinstance(a, ast.Starred):
                args.extend(self._iterate(self.evaluate(a.value, scope)))
            else:
                args.append(self.evaluate(a, scope))
        kwargs: dict = {}
        for k in node.keywords:
            val = self.evaluate(k.value, scope)
            if k.arg is None:
                if isinstance(val, dict):
                    kwargs.update(val)
                else:
                    return Unknown("**unknown")
            else:
                kwargs[k.arg] = val
        self._call_node = node
        return self.apply(func, args, kwargs, node, scope)

    def apply(self, func: Any, args: list, kwargs: dict, node: ast.Call, scope: _Env) -> Any:
        if isinstance(func, ExternalRef):
            return self._external_call(func.name, args, kwargs, node, scope)
        if isinstance(func, _ParserMethod):
            return func.call(self, args, kwargs, node, scope)
        if isinstance(func, _AddSubparser):
            sub = ParserObj(len(self.parsers), scope.module.rel, node.lineno)
            sub.add_help = kwargs.get("add_help", True) is not False
            self.parsers.append(sub)
            func.subparsers.parser.subcommands.append(
                {"name": args[0] if args and isinstance(args[0], str) else None, "parser": sub, "dest": func.subparsers.dest}
            )
            return sub
        if isinstance(func, ClassObj):
            if func.name == "Namespace":
                return Unknown("namespace")
            return Instance(func)
        if isinstance(func, _BoundFunc):
            return self.call_function(func.func, args, kwargs)
        if isinstance(func, Builtin):
            return _builtin(func.name, args, kwargs)
        if isinstance(func, BoundMethod):
            from ._gen_builtins import apply_method

            if isinstance(func.obj, dict) and func.name == "setdefault" and args and isinstance(args[0], str):
                return func.obj.setdefault(*args)
            return apply_method(func.obj, func.name, args, kwargs)
        if isinstance(func, FuncObj):
            if func.name in ("field",) and "default" in kwargs:
                return kwargs["default"]
            return self.call_function(func, args, kwargs)
        return Unknown("call")

    def _external_call(self, name: str, args: list, kwargs: dict, node: ast.Call, scope: _Env) -> Any:
        last = name.rsplit(".", 1)[-1]
        if name in ("argparse.ArgumentParser", "ArgumentParser") or name.endswith(".FlexibleArgumentParser") or last == "ArgumentParser":
            p = ParserObj(len(self.parsers), self.current_file_of(scope), node.lineno)
            p.add_help = kwargs.get("add_help", True) is not False
            p.allow_abbrev = kwargs.get("allow_abbrev", True) is not False
            self.parsers.append(p)
            return p
        if name in SGLANG_ADD_CLI_ARGS or name.endswith("ServerArgs.add_cli_args"):
            target = args[0] if args else kwargs.get("parser")
            parser = target.parser if isinstance(target, GroupObj) else target
            if isinstance(parser, ParserObj):
                parser.items.append({"include": name.rsplit(".ServerArgs", 1)[0], "line": node.lineno})
            return parser
        if name in ("os.environ.get", "os.getenv"):
            self._read_env()
            return args[1] if len(args) > 1 else kwargs.get("default")
        if name == "dataclasses.field" or last == "field":
            if "default" in kwargs:
                return kwargs["default"]
            fac = kwargs.get("default_factory")
            if isinstance(fac, Builtin) and fac.name in ("list", "dict", "set"):
                return {"list": [], "dict": {}, "set": set()}[fac.name]
            return Unknown("field")
        return Unknown(f"call {name}")

    def current_file_of(self, scope: _Env) -> str:
        return scope.module.rel

    def call_function(self, func: FuncObj, args: list, kwargs: dict) -> Any:
        if self._depth >= self.MAX_DEPTH:
            return Unknown("depth")
        node = func.node
        a = node.args
        params = [p.arg for p in a.posonlyargs + a.args]
        bound_self = None
        if params and params[0] in ("self", "cls") and (func.owner is not None or isinstance(func, _BoundFunc)):
            params = params[1:]
            bound_self = func.bound if isinstance(func, _BoundFunc) else Unknown("self")
        local: dict = dict(func.closure) if isinstance(func, _Closure) else {}
        if bound_self is not None:
            local[[p.arg for p in a.posonlyargs + a.args][0]] = bound_self
        defaults = a.defaults
        extra_pos = list(args[len(params):])
        kw = dict(kwargs)
        for i, p in enumerate(params):
            if i < len(args):
                local[p] = args[i]
            elif p in kw:
                local[p] = kw.pop(p)
            else:
                j = i - (len(params) - len(defaults))
                local[p] = self.evaluate(defaults[j], _Env(func.module, {})) if j >= 0 else Unknown(p)
        for arg, d in zip(a.kwonlyargs, a.kw_defaults):
            if arg.arg in kw:
                local[arg.arg] = kw.pop(arg.arg)
            else:
                local[arg.arg] = self.evaluate(d, _Env(func.module, {})) if d is not None else Unknown(arg.arg)
        if a.vararg is not None:
            local[a.vararg.arg] = tuple(extra_pos)
        if a.kwarg is not None:
            local[a.kwarg.arg] = kw
        self._seq += 1
        call, self._call_node = self._call_node, None
        frame = [self._seq, None, func.module, node, self._stack[-1] if self._stack else None, call]
        self.frames.append(frame)
        self._stack.append(frame)
        self._depth += 1
        try:
            self.exec_block(node.body, _Env(func.module, local))
        except _Return as r:
            return r.value
        finally:
            self._depth -= 1
            self._stack.pop()
            frame[1] = self._seq
        return None

    def _read_env(self) -> None:
        self.env_frames.update(id(f) for f in self._stack)

    # --- attributes ------------------------------------------------------
    def _getattr(self, base: Any, attr: str) -> Any:
        if isinstance(base, ExternalRef):
            if base.name == "os" and attr == "environ":
                self._read_env()
                return {}
            return ExternalRef(f"{base.name}.{attr}")
        if isinstance(base, (ParserObj, GroupObj)):
            parser = base.parser if isinstance(base, GroupObj) else base
            if attr == "_actions":
                return _ActionsView(parser)
            if attr == "_option_string_actions":
                strings = dict(parser.option_strings())
                if any("include" in i for i in parser.items):
                    strings.update({s: None for s in self.sglang_strings})
                return strings
            return _ParserMethod(base, attr)
        if isinstance(base, _Subparsers) and attr == "add_parser":
            return _AddSubparser(base)
        if isinstance(base, Instance):
            return self._class_attr(base.cls, attr, bind=base)
        if isinstance(base, ClassObj):
            return self._class_attr(base, attr, bind=base)
        return super()._getattr(base, attr)

    def _class_attr(self, cls: ClassObj, attr: str, bind: Any, depth: int = 0) -> Any:
        """``bind`` is the instance (or, for classmethods, the class) the
        method is looked up on."""
        env = cls.env()
        if attr == "__new__":
            return Builtin("__new__")
        if attr in env:
            val = env[attr]
            if isinstance(val, FuncObj) and not _is_static(val):
                if isinstance(bind, Instance) or _is_classmethod(val):
                    return _BoundFunc(val, bind)
            return val
        if depth < 6:
            for b in cls.node.bases:
                base = self.evaluate(b, _Env(cls.module, {}))
                if isinstance(base, ClassObj):
                    val = self._class_attr(base, attr, bind, depth + 1)
                    if known(val):
                        return val
        return Unknown(f"{cls.name}.{attr}")

    def _eval(self, node: ast.expr, scope: _Env) -> Any:
        if isinstance(node, ast.Await):
            return self._eval(node.value, scope)
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.In, ast.NotIn)):
            left = self._eval(node.left, scope)
            right = self._eval(node.comparators[0], scope)
            if isinstance(right, dict) and isinstance(left, str) and not has_unknown(list(right)):
                found = left in right
                return found if isinstance(node.ops[0], ast.In) else not found
        return super()._eval(node, scope)


def manual_splice(stmt: ast.Try) -> Optional[dict]:
    """``idx = argv.index("--flag"); value = int(argv[idx + 1]); del argv[idx : idx + 2]``
    inside ``try: ... except Exception: pass`` (Dynamo 0.4.0's worker): the
    first exact ``--flag VALUE`` pair is taken out of argv before SGLang's
    parser runs; when the value does not convert, both words stay."""
    flag = None
    conv = None
    deletes = False
    for node in ast.walk(ast.Module(body=stmt.body, type_ignores=[])):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "index":
            if node.args and isinstance(node.args[0], ast.Constant) and str(node.args[0].value).startswith("--"):
                flag = node.args[0].value
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("int", "float", "str"):
            if node.args and isinstance(node.args[0], ast.Subscript):
                conv = node.func.id
        if isinstance(node, ast.Delete):
            deletes = True
    if flag is None or not deletes:
        return None
    swallow = all(
        h.type is None or ast.unparse(h.type) in ("Exception", "BaseException") for h in stmt.handlers
    ) and all(all(isinstance(b, ast.Pass) for b in h.body) for h in stmt.handlers)
    return {
        "kind": "remove_pair",
        "strings": [flag],
        "type": conv or "str",
        "on_error": "kept" if swallow else "raise",
        "line": stmt.lineno,
    }


def _is_classmethod(func: FuncObj) -> bool:
    return any(isinstance(d, ast.Name) and d.id == "classmethod" for d in func.node.decorator_list)


def _is_static(func: FuncObj) -> bool:
    return any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in func.node.decorator_list)


class _BoundFunc(FuncObj):
    """A method looked up on an instance (``self`` is bound)."""

    def __init__(self, func: FuncObj, bound: Any) -> None:
        super().__init__(func.module, func.node, func.owner)
        self.func = self
        self.bound = bound


class _Closure(FuncObj):
    """A function defined inside another one, with the enclosing locals."""

    def __init__(self, module: Any, node: ast.FunctionDef, closure: dict) -> None:
        super().__init__(module, node, None)
        self.closure = closure


class _AddSubparser:
    def __init__(self, subparsers: "_Subparsers") -> None:
        self.subparsers = subparsers


class _ActionsView:
    def __init__(self, parser: ParserObj) -> None:
        self.parser = parser


def _builtin(name: str, args: list, kwargs: dict) -> Any:
    from ._gen_builtins import apply_builtin

    if name == "isinstance":
        return Unknown("isinstance")
    if name == "type" and len(args) == 3 and isinstance(args[1], (tuple, list)) and len(args[1]) == 1:
        # ``type("DeprecatedAction", (action_type,), {"__call__": ...})`` (Dynamo's
        # deprecated flags): a subclass that only wraps ``__call__`` parses
        # like its base
        return args[1][0]
    if name == "__new__" and args and isinstance(args[0], ClassObj):
        return Instance(args[0])
    return apply_builtin(name, args, kwargs)


class _ParserMethod:
    def __init__(self, owner: Any, name: str) -> None:
        self.owner = owner
        self.name = name

    @property
    def parser(self) -> ParserObj:
        return self.owner.parser if isinstance(self.owner, GroupObj) else self.owner

    def call(self, rec: _Recorder, args: list, kwargs: dict, node: ast.Call, scope: _Env) -> Any:
        name = self.name
        if name == "add_argument":
            return _record_option(rec, self.owner, args, kwargs, node, scope)
        if name in ("add_argument_group",):
            rec._groups += 1
            return GroupObj(self.parser, ident=rec._groups)
        if name == "add_mutually_exclusive_group":
            rec._groups += 1
            return GroupObj(self.parser, exclusive=True, required=kwargs.get("required") is True, ident=rec._groups)
        if name in ("parse_args", "parse_known_args"):
            rec.stages.append(Stage(self.parser, name, node.lineno, scope.module.rel, rec._stack[-1] if rec._stack else None))
            if name == "parse_known_args":
                return (Unknown("namespace"), Unknown("remaining argv"))
            return Unknown("namespace")
        if name == "add_subparsers":
            return _Subparsers(self.parser, kwargs.get("dest"))
        if name == "set_defaults":
            return None
        if name == "_registry_get" and len(args) == 3:
            # ``parser._registry_get("action", action, action)``: a class is
            # itself; a registered name ("store_true") stays the name
            return args[2]
        return Unknown(f"parser.{name}")


class _Subparsers:
    def __init__(self, parser: ParserObj, dest: Any) -> None:
        self.parser = parser
        self.dest = dest if isinstance(dest, str) else None


def _action_kind(rec: _Recorder, value: Any, node: Optional[ast.expr]) -> tuple[str, dict]:
    """(kind, defaults of a local Action class's ``__init__``)."""
    if value is None:
        return "store", {}
    if isinstance(value, str):
        return ACTION_KINDS.get(value, value), {}
    if isinstance(value, ExternalRef):
        last = value.name.rsplit(".", 1)[-1]
        return ACTION_KINDS.get(last, last), {}
    if isinstance(value, ClassObj):
        defaults: dict = {}
        init = value.env().get("__init__")
        if isinstance(init, FuncObj):
            a = init.node.args
            pos = a.args[len(a.args) - len(a.defaults):]
            for arg, d in list(zip(pos, a.defaults)) + list(zip(a.kwonlyargs, a.kw_defaults)):
                if d is not None:
                    defaults[arg.arg] = rec.evaluate(d, _Env(value.module, {}))
        bases = {ast.unparse(b).rsplit(".", 1)[-1] for b in value.node.bases}
        kind = ACTION_KINDS.get(value.name, value.name)
        if "BooleanOptionalAction" in bases:
            kind = "boolean_optional"
        return kind, defaults
    return "unknown", {}


def type_name(value: Any, node: Optional[ast.expr]) -> Optional[str]:
    if value is None:
        return None
    if isinstance(value, Builtin):
        return value.name
    if isinstance(value, ExternalRef):
        last = value.name.rsplit(".", 1)[-1]
        return "json" if last == "loads" else last
    if isinstance(value, (FuncObj, ClassObj)):
        return value.name
    if node is not None and isinstance(node, ast.Lambda):
        return "lambda"
    return "unknown"


def _record_option(rec: _Recorder, owner: Any, args: list, kwargs: dict, node: ast.Call, scope: _Env) -> Any:
    # long on purpose: one add_argument call replayed: argparse's keyword handling (action, nargs, const, default,
    # choices, dest) in argparse's own order
    parser = owner.parser if isinstance(owner, GroupObj) else owner
    strings = list(args)
    if not strings or any(not isinstance(s, str) for s in strings):
        parser.items.append({"unresolved": ast.unparse(node)[:160], "line": node.lineno, "file": scope.module.rel})
        return None
    kw_nodes = {k.arg: k.value for k in node.keywords if k.arg}
    kind, action_defaults = _action_kind(rec, kwargs.get("action"), kw_nodes.get("action"))
    dest = kwargs.get("dest")
    if not isinstance(dest, str):
        longs = [s for s in strings if s.startswith("--")]
        dest = (longs[0] if longs else strings[0]).lstrip("-").replace("-", "_") if strings[0].startswith("-") else strings[0]
    if kind == "boolean_optional":
        expanded = []
        for s in strings:
            expanded.append(s)
            if s.startswith("--"):
                expanded.append("--no-" + s[2:])
        strings = expanded
    nargs = kwargs.get("nargs", action_defaults.get("nargs"))
    if kind in _NO_VALUE:
        nargs = 0
    const = kwargs.get("const", action_defaults.get("const"))
    if kind in _FLAG_DEFAULTS:
        const = _FLAG_DEFAULTS[kind][0]
    if "default" in kwargs:
        default = kwargs["default"]
    else:
        default = action_defaults.get("default", _FLAG_DEFAULTS[kind][1] if kind in _FLAG_DEFAULTS else None)
    if default == SUPPRESS or (isinstance(default, ExternalRef) and default.name.endswith("SUPPRESS")):
        default = SUPPRESS
    choices, choices_open = _choices_json(kwargs.get("choices"))
    typ = type_name(kwargs.get("type"), kw_nodes.get("type"))
    if typ is None:
        typ = "bool" if nargs == 0 else "str"
    help_text = kwargs.get("help")
    hidden = isinstance(help_text, ExternalRef) and help_text.name.endswith("SUPPRESS") or help_text == SUPPRESS
    if hidden or not isinstance(help_text, str):
        help_text = ""
    positional = not strings[0].startswith(tuple(parser.prefix_chars))
    option = {
        "strings": strings,
        "dest": dest,
        "action": kind,
        "type": typ,
        "nargs": jsonable(nargs) if known(nargs) else "unknown",
        "choices": choices,
        "choices_open": choices_open,
        "const": jsonable(const),
        "default": default if default == SUPPRESS else jsonable(default),
        "required": kwargs.get("required") is True or (positional and nargs not in ("?", "*")),
        "help": help_text,
        "hidden": bool(hidden),
        "positional": positional,
        "line": node.lineno,
        "file": scope.module.rel,
    }
    if rec._stack and id(rec._stack[-1]) in rec.env_frames:
        option["env"] = True  # its default may come from the environment
    if isinstance(owner, GroupObj) and owner.exclusive:
        option["exclusive_group"] = owner.ident
        option["exclusive_required"] = owner.required
    parser.items.append(option)
    return None


def record(source, module: str, function: str, args: Optional[list] = None, sglang_strings: Optional[set] = None):
    """Run ``module.function(*args)`` statically; returns the recorder with
    its parsers and stages (``None`` when the function does not exist)."""
    rec = _Recorder(source, sglang_strings)
    func = find_function(rec, module, function)
    if func is None:
        return None
    rec.call_function(func, list(args or []), {})
    return rec


def find_function(rec: "_Recorder", module: str, function: str) -> Optional[FuncObj]:
    """``module.function`` of the package ``rec`` reads (None: no such function)."""
    mod = rec.module(module)
    if mod is None:
        return None
    func = mod.get(function)
    if isinstance(func, LazyImport):
        func = func.resolve()
    return func if isinstance(func, FuncObj) else None


def run_main_block(source, module: str, sglang_strings: Optional[set] = None):
    """Run the ``if __name__ == "__main__":`` block of an entry module."""
    rec = _Recorder(source, sglang_strings)
    mod = rec.module(module)
    if mod is None:
        return None
    mod.env()
    for stmt in mod.tree.body:
        if isinstance(stmt, ast.If) and "__main__" in ast.unparse(stmt.test):
            rec.exec_block(stmt.body, _Env(mod, dict(mod.env())))
    return rec


__all__ = [
    "ExternalRef",
    "GroupObj",
    "ParserObj",
    "Stage",
    "find_function",
    "record",
    "run_main_block",
    "type_name",
    "EnumMember",
]
