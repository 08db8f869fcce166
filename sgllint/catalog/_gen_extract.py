"""Extract one SGLang release's CLI parser, fields and lists statically.

Part of the catalog generator.  Three declaration eras are handled:

* ``add_argument``: ``ServerArgs.add_cli_args`` calls ``parser.add_argument``
  (0.4.x - 0.5.13);
* ``annotated``: dataclass fields ``name: A[T, "help" | Arg(...)] = default``
  turned into options by ``arg_utils.add_cli_args_from_dataclass``, plus manual
  ``add_argument`` calls (0.5.14 - 0.5.19);
* ``msgspec``: the same annotations on msgspec Structs in
  ``arg_groups/fields/*.py`` assembled into ``ServerArgs`` (0.5.20+).
"""

from __future__ import annotations

import ast
import re
from typing import Any, Optional

from sgllint.model.unknown import Unknown, has_unknown, known

from ._gen_eval import (
    BoundMethod,
    Builtin,
    ClassObj,
    EnumMember,
    FuncObj,
    LazyImport,
    Module,
    ModuleRef,
    Project,
    _Env,
)
from ._gen_deterministic import deterministic_facts, mla_architectures
from ._gen_fields import _MISSING, FieldDecl, TypeView, annotation_name, collect_fields, find_class, method_node
from ._gen_source import GenerationError, Source

SERVER_ARGS = "sglang.srt.server_args"
SUPPRESS = "==SUPPRESS=="

ACTION_KINDS = {
    "store": "store",
    "store_true": "store_true",
    "store_false": "store_false",
    "store_const": "store_const",
    "append": "append",
    "append_const": "append_const",
    "count": "count",
    "help": "help",
    "version": "version",
    "extend": "extend",
    "BooleanOptionalAction": "boolean_optional",
    "DeprecatedAction": "deprecated",
    "DeprecatedStoreTrueAction": "deprecated_store_true",
    "DeprecatedStoreConstAction": "deprecated_store_const",
    "DeprecatedAliasStoreAction": "deprecated_alias",
    "LoRAPathAction": "lora_paths",
}
_FLAG_ACTIONS = {"store_true": (True, False), "store_false": (False, True)}
_TYPE_NAMES = {
    "str": "str",
    "int": "int",
    "float": "float",
    "bool": "bool",
    "json.loads": "json",
    "orjson.loads": "json",
    "loads": "json",
    "json_list_type": "json_list",
    "human_readable_int": "human_readable_int",
    "nullable_str": "nullable_str",
}
_FLAG_RE = re.compile(r"(?<![\w-])--[a-z0-9][a-z0-9-]*[a-z0-9]")
_LIST_EXTRA = ("RADIX_SUPPORTED_DETERMINISTIC_ATTENTION_BACKEND", "CHUNKED_PREFIX_CACHE_SUPPORTED_ATTENTION_BACKENDS")


# ---------------------------------------------------------------------------
# JSON helpers
# ---------------------------------------------------------------------------


def jsonable(v: Any) -> Any:
    """A JSON-able rendering of an evaluated value (None when impossible)."""
    if isinstance(v, EnumMember):
        return jsonable(v.value) if not has_unknown(v.value) else v.name
    if v is None or isinstance(v, (bool, int, str)):
        return v
    if isinstance(v, float):
        return v if v == v and v not in (float("inf"), float("-inf")) else None
    if isinstance(v, (list, tuple)):
        if has_unknown(v):
            return None
        return [jsonable(x) for x in v]
    if isinstance(v, (set, frozenset)):
        if has_unknown(v):
            return None
        return sorted((jsonable(x) for x in v), key=lambda x: (type(x).__name__, str(x)))
    if isinstance(v, dict):
        if has_unknown(v) or not all(isinstance(k, str) for k in v):
            return None
        return {k: jsonable(x) for k, x in v.items()}
    return None


def _choices_json(v: Any) -> tuple[Optional[list], bool]:
    """(known choices, open?) for an evaluated ``choices=`` value."""
    if v is None:
        return None, False
    if not known(v):
        return [], True
    if isinstance(v, ClassObj) and v.is_enum:
        v = v.members()
    if isinstance(v, dict):
        v = list(v)
    if isinstance(v, (set, frozenset)):
        items = sorted((x for x in v if known(x)), key=lambda x: (type(x).__name__, str(x)))
        return [jsonable(x) for x in items], has_unknown(v)
    if isinstance(v, (list, tuple)):
        folded = [jsonable(x) for x in v if not has_unknown(x)]
        return folded, any(has_unknown(x) for x in v)
    return [], True


# ---------------------------------------------------------------------------
# The parser
# ---------------------------------------------------------------------------


class ActionInfo:
    """What an argparse Action class does, read from its source."""

    def __init__(self, kind: str, cls: Optional[ClassObj]) -> None:
        self.kind = kind
        self.cls = cls
        self.init_defaults: dict[str, Any] = {}
        self.raises = False
        self.exits_on_error_message = False
        if cls is not None:
            init = cls.env().get("__init__")
            if isinstance(init, FuncObj):
                a = init.node.args
                pos = a.args[len(a.args) - len(a.defaults) :]
                scope = _Env(cls.module, {})
                for arg, d in list(zip(pos, a.defaults)) + list(zip(a.kwonlyargs, a.kw_defaults)):
                    if d is not None:
                        self.init_defaults[arg.arg] = cls.module.project.evaluate(d, scope)
            call = cls.env().get("__call__")
            if isinstance(call, FuncObj):
                body = [s for s in call.node.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
                if body and isinstance(body[0], ast.Raise):
                    self.raises = True
                for n in ast.walk(call.node):
                    if isinstance(n, ast.Call) and ast.unparse(n.func) == "parser.error":
                        self.exits_on_error_message = True


class ParserBuilder:
    """Replays ``ServerArgs.add_cli_args`` statically."""

    def __init__(self, project: Project, sa: Module, fields: list[FieldDecl]) -> None:
        self.project = project
        self.sa = sa
        self.fields = {f.name: f for f in fields}
        self.field_list = fields
        self.options: list[dict] = []
        self.no_cli: set[str] = set()
        self._actions: dict[str, ActionInfo] = {}

    # -- helpers ---------------------------------------------------------
    def action_info(self, node: Optional[ast.expr], scope: _Env) -> ActionInfo:
        if node is None:
            return ActionInfo("store", None)
        if isinstance(node, ast.Constant):
            return ActionInfo(ACTION_KINDS.get(node.value, node.value), None)
        name = annotation_name(node)
        if name not in self._actions:
            val = self.project.evaluate(node, scope)
            cls = val if isinstance(val, ClassObj) else None
            self._actions[name] = ActionInfo(ACTION_KINDS.get(name, name), cls)
        return self._actions[name]

    def field_default(self, name: str) -> Any:
        f = self.fields.get(name)
        return f.default() if f is not None else Unknown(name)

    def eval_kw(self, node: ast.expr, scope: _Env) -> Any:
        # ServerArgs.<field> / cls.<field> / _declared_default("<field>")
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in ("ServerArgs", "cls"):
            if node.attr in self.fields:
                return self.field_default(node.attr)
        if (
            isinstance(node, ast.Call)
            and "default" in annotation_name(node.func)
            and len(node.args) == 1
            and isinstance(node.args[0], ast.Constant)
            and node.args[0].value in self.fields
        ):
            return self.field_default(node.args[0].value)
        if isinstance(node, ast.Attribute) and node.attr == "SUPPRESS":
            return SUPPRESS
        return self.project.evaluate(node, scope)

    @staticmethod
    def type_name(node: Optional[ast.expr]) -> Optional[str]:
        if node is None:
            return None
        text = ast.unparse(node)
        if text in _TYPE_NAMES:
            return _TYPE_NAMES[text]
        if isinstance(node, ast.Lambda):
            return "lambda"
        name = annotation_name(node)
        return _TYPE_NAMES.get(name, name or text)

    # -- replay ----------------------------------------------------------
    def run(self) -> list[dict]:
        cls = find_class(self.sa, "ServerArgs")
        fn = method_node(cls, "add_cli_args")
        if fn is None:
            raise GenerationError("ServerArgs.add_cli_args not found")
        self.options.append(
            dict(
                strings=["-h", "--help"],
                dest="help",
                action="help",
                type="bool",
                nargs=0,
                choices=None,
                choices_open=False,
                const=None,
                default=SUPPRESS,
                required=False,
                help="show this help message and exit",
                extra={},
            )
        )
        self.exec_body(fn.body, _Env(self.sa, {}))
        return self.options

    def exec_body(self, body: list, scope: _Env) -> None:
        for stmt in body:
            if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
                call = stmt.value
                fname = ast.unparse(call.func)
                if fname.endswith(".add_argument"):
                    self.add_argument(call, scope)
                    continue
                if fname.endswith("add_cli_args_from_dataclass"):
                    self.add_from_dataclass(call, scope)
                    continue
                self.project.evaluate(call, scope)
            elif isinstance(stmt, ast.If):
                test = self.project.evaluate(stmt.test, scope)
                if not known(test):
                    continue  # environment-dependent: default environment
                self.exec_body(stmt.body if test else stmt.orelse, scope)
            elif isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.ImportFrom, ast.Import)):
                self.project.exec_stmt(stmt, scope)
            elif isinstance(stmt, (ast.With, ast.Try)):
                self.exec_body(stmt.body, scope)

    def add_argument(self, call: ast.Call, scope: _Env) -> None:
        strings = [self.project.evaluate(a, scope) for a in call.args]
        if any(not isinstance(s, str) for s in strings):
            raise GenerationError(f"non-literal option string in {ast.unparse(call)[:120]}")
        kw_nodes = {k.arg: k.value for k in call.keywords if k.arg}
        action = self.action_info(kw_nodes.get("action"), scope)
        kwargs = {k: self.eval_kw(v, scope) for k, v in kw_nodes.items() if k not in ("action", "type")}
        kwargs["type"] = self.type_name(kw_nodes.get("type"))
        self.register(strings, action, kwargs)

    def register(self, strings: list[str], action: ActionInfo, kw: dict) -> None:
        kind = action.kind
        defaults = dict(action.init_defaults)
        # argparse dest: explicit, else the first long option string.
        dest = kw.get("dest")
        if dest is None:
            longs = [s for s in strings if s.startswith("--")]
            dest = (longs[0] if longs else strings[0]).lstrip("-").replace("-", "_")
        if kind == "boolean_optional":
            expanded = []
            for s in strings:
                expanded.append(s)
                if s.startswith("--"):
                    expanded.append("--no-" + s[2:])
            strings = expanded
        nargs = kw.get("nargs", defaults.get("nargs", _MISSING))
        const = kw.get("const", defaults.get("const"))
        if kind in ("store_true", "store_false", "store_const", "help", "count", "boolean_optional", "version", "append_const"):
            nargs = 0
        if nargs is _MISSING:
            nargs = None
        if kind in _FLAG_ACTIONS:
            const = _FLAG_ACTIONS[kind][0]
        default = kw.get("default", _MISSING)
        if default is _MISSING:
            default = defaults.get("default", _FLAG_ACTIONS[kind][1] if kind in _FLAG_ACTIONS else None)
        if kind == "deprecated_store_const":
            const = kw.get("const_value", defaults.get("const_value"))
        choices, choices_open = _choices_json(kw.get("choices"))
        typ = kw.get("type")
        if typ is None:
            typ = "bool" if nargs == 0 else "str"
        help_text = kw.get("help")
        extra: dict = {}
        if help_text == SUPPRESS:
            extra["hidden"] = True
            help_text = ""
        if not isinstance(help_text, str):
            help_text = "" if help_text is None else str(jsonable(help_text))
        for k in ("new_flag", "error_message"):
            if isinstance(kw.get(k), str):
                extra[k] = kw[k]
        extra["_action"] = action
        self.options.append(
            dict(
                strings=strings,
                dest=dest,
                action=kind,
                type=typ,
                nargs=jsonable(nargs),
                choices=choices,
                choices_open=choices_open,
                const=jsonable(const),
                default=SUPPRESS if default == SUPPRESS else jsonable(default),
                required=bool(kw.get("required") is True),
                help=help_text,
                extra=extra,
            )
        )

    # -- add_cli_args_from_dataclass -----------------------------------------
    def add_from_dataclass(self, call: ast.Call, scope: _Env) -> None:
        only = None
        for k in call.keywords:
            if k.arg == "fields":
                only = self.project.evaluate(k.value, scope)
        for f in self.field_list:
            if only is not None and not has_unknown(only) and f.name not in only:
                continue
            self.field_to_option(f)

    def arg_meta(self, f: FieldDecl) -> Optional[dict]:
        tv = TypeView(f.module, f.ann)
        if not tv.is_annotated():
            return None
        args = tv.args()
        fscope = _Env(f.module, {})
        for meta in args[1:]:
            if isinstance(meta, ast.Call) and annotation_name(meta.func) == "Arg":
                out: dict = {"_nodes": {k.arg: k.value for k in meta.keywords if k.arg}}
                for k in meta.keywords:
                    if k.arg in ("action", "type_parser"):
                        continue
                    out[k.arg] = self.project.evaluate(k.value, fscope)
                if meta.args:
                    out["help"] = self.project.evaluate(meta.args[0], fscope)
                return out
            if isinstance(meta, ast.Call):
                continue  # NS(...), Derived(...)
            val = self.project.evaluate(meta, fscope)
            if isinstance(val, str):
                return {"help": val, "_nodes": {}}
        return None

    def field_to_option(self, f: FieldDecl) -> None:
        # long on purpose: one ServerArgs field to its option: the metadata keys in the order SGLang's add_cli_args
        # reads them
        meta = self.arg_meta(f)
        if meta is not None and meta.get("no_cli") is True:
            self.no_cli.add(f.name)
        if meta is None or meta.get("no_cli") is True:
            return
        nodes = meta["_nodes"]
        tv = TypeView(f.module, f.ann)
        raw = tv.sub(tv.args()[0])
        cli_name = meta.get("cli_name") or "--" + f.name.replace("_", "-")
        names = [cli_name] + list(meta.get("aliases") or [])
        default = f.default()
        auto_dest = cli_name.lstrip("-").replace("-", "_")
        kw: dict = {"help": meta.get("help", "")}
        if f.name != auto_dest:
            kw["dest"] = f.name
        fscope = _Env(f.module, {})
        type_parser = self.type_name(nodes.get("type_parser"))
        if "action" in nodes and not (isinstance(nodes["action"], ast.Constant) and nodes["action"].value is None):
            action = self.action_info(nodes["action"], fscope)
            if default is not _MISSING:
                kw["default"] = default
            ak = meta.get("action_kwargs")
            if isinstance(ak, dict):
                ak = dict(ak)
                if "type" in ak:
                    tnode = _dict_value_node(nodes.get("action_kwargs"), "type")
                    ak["type"] = self.type_name(tnode)
                kw.update(ak)
            self.register(names, action, kw)
            return
        inner, _opt = raw.unwrap_optional()
        store = ActionInfo("store", None)
        lits = inner.literal_values()
        if lits is not None:
            kw["choices"] = meta.get("choices") or lits
            first = lits[0] if lits else ""
            kw["type"] = type_parser or {str: "str", int: "int", float: "float"}.get(type(first), "str")
            if default is not _MISSING:
                kw["default"] = default
            if meta.get("const") is not None:
                kw["const"] = meta["const"]
            self.register(names, store, kw)
            return
        if inner.is_list() and type_parser is None:
            elem = inner.sub(inner.args()[0]).simple() if isinstance(inner.node, ast.Subscript) else "str"
            kw["type"] = elem
            kw["nargs"] = meta.get("nargs") or "+"
            if meta.get("choices"):
                kw["choices"] = meta["choices"]
            if default is not _MISSING:
                kw["default"] = default
            if meta.get("const") is not None:
                kw["const"] = meta["const"]
            self.register(names, store, kw)
            return
        if inner.head == "bool" and not isinstance(inner.node, ast.Subscript):
            if default is not _MISSING:
                kw["default"] = default
            self.register(names, ActionInfo("store_true", None), kw)
            return
        kw["type"] = type_parser or inner.simple()
        if meta.get("choices"):
            kw["choices"] = meta["choices"]
        if meta.get("nargs"):
            kw["nargs"] = meta["nargs"]
        if default is not _MISSING:
            kw["default"] = default
        if meta.get("const") is not None:
            kw["const"] = meta["const"]
        req = meta.get("required")
        if (req is True or (req is None and default is _MISSING)) and any(n.startswith("-") for n in names):
            kw["required"] = True
        self.register(names, store, kw)


def _dict_value_node(node: Optional[ast.expr], key: str) -> Optional[ast.expr]:
    if isinstance(node, ast.Dict):
        for k, v in zip(node.keys, node.values):
            if isinstance(k, ast.Constant) and k.value == key:
                return v
    return None


# ---------------------------------------------------------------------------
# from_cli_args remap, deprecations, lists, test constants
# ---------------------------------------------------------------------------


def cli_remap(sa: Module) -> dict[str, str]:
    """``args.tp_size = args.tensor_parallel_size`` -> {tensor_parallel_size: tp_size}."""
    fn = method_node(find_class(sa, "ServerArgs"), "from_cli_args")
    out: dict[str, str] = {}
    if fn is None:
        return out
    for stmt in fn.body:
        if (
            isinstance(stmt, ast.Assign)
            and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Attribute)
            and isinstance(stmt.value, ast.Attribute)
            and ast.unparse(stmt.targets[0].value) == "args"
            and ast.unparse(stmt.value.value) == "args"
        ):
            out[stmt.value.attr] = stmt.targets[0].attr
    return out


_HELP_DEPRECATED_RE = re.compile(r"^\s*[\(\[]?\s*deprecated\b|[\(\[]deprecated\b|\bis deprecated\b", re.I)


def _validation_modules(project: Project) -> list[Module]:
    src = project.source
    rels = ["sglang/srt/server_args.py"]
    for d in ("sglang/srt/arg_groups", "sglang/srt/arg_groups/fields", "sglang/srt/arg_groups/model_overrides"):
        rels.extend(src.list_dir(d))
    mods = []
    for rel in rels:
        name = rel[:-3].replace("/", ".")
        if name.endswith(".__init__"):
            name = name[: -len(".__init__")]
        m = project.module(name)
        if m is not None:
            mods.append(m)
    return mods


def _deprecation_warnings(project: Project, mods: list[Module]) -> dict[str, str]:
    """{field: message} for ``if <x>.<field>: <warn>("...deprecated...")``."""
    out: dict[str, str] = {}
    for m in mods:
        for node in ast.walk(m.tree):
            if not isinstance(node, ast.If):
                continue
            attrs = {n.attr for n in ast.walk(node.test) if isinstance(n, ast.Attribute)}
            if not attrs:
                continue
            for sub in node.body:
                for c in ast.walk(sub):
                    if not isinstance(c, ast.Call):
                        continue
                    fname = ast.unparse(c.func).lower()
                    if "warn" not in fname:
                        continue
                    texts = []
                    for a in c.args:
                        val = project.evaluate(a, _Env(m, {}))
                        texts.append(val if isinstance(val, str) else ast.unparse(a))
                    text = " ".join(texts)
                    if "deprecat" in text.lower():
                        for a in attrs:
                            out.setdefault(a, text)
    return out


def apply_deprecations(options: list[dict], project: Project, mods: list[Module]) -> None:
    by_dest: dict[str, list[dict]] = {}
    for o in options:
        by_dest.setdefault(o["dest"], []).append(o)
    warnings = None
    for o in options:
        kind = o["action"]
        extra = o["extra"]
        action: ActionInfo = extra.get("_action")
        own = set(o["strings"])
        dep = None
        if kind == "deprecated":
            err = extra.get("error_message")
            if action is not None and action.raises:
                behaviour, message = "error", o["help"]
            elif err is not None and action is not None and action.exits_on_error_message:
                behaviour, message = "exit", err
            else:
                behaviour, message = "warn", o["help"]
            flags = [f for f in _FLAG_RE.findall(message or o["help"]) if f not in own]
            dep = {"behaviour": behaviour, "message": message, "replacement": flags[0] if flags else None}
        elif kind in ("deprecated_store_true", "deprecated_store_const", "deprecated_alias"):
            repl = extra.get("new_flag")
            if repl is None:
                for other in by_dest.get(o["dest"], []):
                    if not other["action"].startswith("deprecated"):
                        repl = next((s for s in other["strings"] if s.startswith("--")), None)
                        break
            message = o["help"] or f"'{o['strings'][0]}' is deprecated and will be removed in a future release."
            dep = {"behaviour": "warn", "message": message, "replacement": repl}
        elif _HELP_DEPRECATED_RE.search(o["help"] or "") and kind not in ("help",):
            if warnings is None:
                warnings = _deprecation_warnings(project, mods)
            field = o.get("field") or o["dest"]
            if field in warnings:
                flags = [f for f in _FLAG_RE.findall(o["help"] + " " + warnings[field]) if f not in own]
                dep = {"behaviour": "warn", "message": warnings[field], "replacement": flags[0] if flags else None}
            else:
                extra["help_deprecated"] = True
        o["deprecated"] = dep


def _string_list(v: Any) -> Optional[list]:
    if isinstance(v, (list, tuple)) and v and all(isinstance(x, str) for x in v):
        return list(v)
    if isinstance(v, (set, frozenset)) and v and all(isinstance(x, str) for x in v):
        return sorted(v)
    if isinstance(v, (list, tuple, set, frozenset)) and not v:
        return []
    return None


def collect_lists(project: Project, sa: Module, mods: list[Module]) -> dict[str, list]:
    out: dict[str, list] = {}
    homes = [sa]
    choices_mod = project.module("sglang.srt.arg_groups.choices")
    if choices_mod is not None:
        homes.append(choices_mod)
    for m in homes:
        for name in sorted(m.env_names()):
            if not (name.endswith("_CHOICES") or name in _LIST_EXTRA):
                continue
            val = m.get(name)
            lst = _string_list([x for x in val if known(x)] if isinstance(val, list) else val)
            if lst is not None:
                out.setdefault(name, lst)
    # Module-level string lists that validation code compares against.
    for m in mods:
        for node in ast.walk(m.tree):
            if not isinstance(node, ast.Compare):
                continue
            for op, comp in zip(node.ops, node.comparators):
                if not isinstance(op, (ast.In, ast.NotIn)) or not isinstance(comp, (ast.Name, ast.Attribute)):
                    continue
                name = comp.id if isinstance(comp, ast.Name) else comp.attr
                if not re.fullmatch(r"[A-Z][A-Z0-9_]+", name) or name in out:
                    continue
                val = project.evaluate(comp, _Env(m, {}))
                if isinstance(val, (ClassObj, ModuleRef, FuncObj, Builtin, BoundMethod, LazyImport)):
                    continue
                lst = _string_list(val)
                if lst:
                    out[name] = lst
    return dict(sorted(out.items()))


def test_constants(project: Project) -> Optional[dict]:
    m = project.module("sglang.test.test_utils")
    if m is None:
        return None
    out = {}
    for name in sorted(m.env_names()):
        if not re.fullmatch(r"[A-Z][A-Z0-9_]*", name):
            continue
        val = m.env()[name]
        if isinstance(val, bool) or not isinstance(val, (str, int)):
            continue
        out[name] = val
    return out


# ---------------------------------------------------------------------------
# Entry point
# ---------------------------------------------------------------------------


def extract(source: Source) -> dict:
    project = Project(source)
    sa = project.module(SERVER_ARGS)
    if sa is None:
        raise GenerationError(f"{source.name}: no sglang/srt/server_args.py")
    era, fields = collect_fields(project, sa)
    builder = ParserBuilder(project, sa, fields)
    options = builder.run()
    remap = cli_remap(sa)
    field_names = {f.name for f in fields}
    for o in options:
        target = remap.get(o["dest"], o["dest"])
        o["field"] = target if target in field_names else None
    mods = _validation_modules(project)
    apply_deprecations(options, project, mods)
    cli_fields = {o["field"] for o in options if o["field"]}
    fields_json = {}
    for f in fields:
        d = f.default()
        fields_json[f.name] = {
            "type": TypeView(f.module, f.ann).sub(TypeView(f.module, f.ann).args()[0]).describe()
            if TypeView(f.module, f.ann).is_annotated()
            else TypeView(f.module, f.ann).describe(),
            "default": None if d is _MISSING else jsonable(d),
            "required": d is _MISSING,
            "cli": f.name in cli_fields,
        }
        if f.name in builder.no_cli:
            fields_json[f.name]["no_cli"] = True
    seen: dict[str, int] = {}
    for i, o in enumerate(options):
        for s in o["strings"]:
            if s in seen:
                raise GenerationError(f"option string {s} registered twice (conflict in argparse)")
            seen[s] = i
    lists = collect_lists(project, sa, mods)
    return {
        "era": era,
        "options": options,
        "fields": fields_json,
        "lists": lists,
        "test_constants": test_constants(project),
        "deterministic": deterministic_facts(project, sa, lists),
        "mla_architectures": mla_architectures(project),
    }
