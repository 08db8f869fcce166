"""Extract SGLang's deterministic-inference check and its MLA architecture
list statically (part of the catalog generator).

Everything here is read from the release's own code with :mod:`ast`; nothing
is typed by hand.  Two top-level catalog keys come from this module:

``"deterministic"`` (absent for releases without ``--enable-deterministic-inference``)::

    {
      "check": "sglang/srt/server_args.py:ServerArgs._handle_deterministic_inference",
      "backend_pass": "sglang/srt/arg_groups/overrides.py:_deterministic_attention_backend",
      "rl_on_policy_target_implies": true,     # rl_on_policy_target turns it on
      "allow_list": "DETERMINISTIC_ATTENTION_BACKEND_CHOICES",
      "fallback": true,                        # a None backend gets a default
                                               # (false: None is rejected, 0.5.3)
      "check_architectures": [...],            # the "DeepSeek"/absorbed-MLA list
                                               # of the validation (architectures[0] in ...)
      "fallback_architectures": [...],         # the list the fallback choice uses
      "mla_backends": [...] | null,            # allowed backends for those models
      "mla_backends_from": "literal" | "<CONSTANT>",
      "fa4_sm_check": "<predicate source>" | null,   # fa4 + MLA needs SM100/SM110
      "radix_backends": [...] | null,          # backends that keep the radix cache
      "radix_backends_from": "literal" | "<CONSTANT>" | null,
      "messages": {"allow_list": "...", "mla_backend": "...", "mla_fa4": "...",
                   "radix_disabled": "...", "fallback": "..."}
    }

Messages are SGLang's f-strings with each interpolation rendered as a
placeholder: ``{backend}`` for the attention backend being checked,
``{CONSTANT}`` for a module-level list (the reader renders it as Python's
``str(list)``, as SGLang prints it); a function-local list literal is
inlined.

``"mla_architectures"``: every architecture string in the tests of the
``if ...: self.attention_arch = AttentionArch.MLA`` branches of
``sglang/srt/configs/model_config.py`` (SGLang's ``use_mla_backend``; some
branches add conditions on config fields, e.g. Pixtral with
``kv_lora_rank``).
"""

from __future__ import annotations

import ast
import re
from typing import Any, Optional

from sgllint.model.unknown import known

from ._gen_eval import Module, Project, _Env

_ARCH_RE = re.compile(r"^[A-Z][A-Za-z0-9_]*(?:For[A-Z][A-Za-z0-9_]*|Model)$")
_CONST_RE = re.compile(r"^[A-Z][A-Z0-9_]+$")


def _arch_list(node: ast.AST) -> Optional[list[str]]:
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)) and node.elts:
        vals = [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
        if len(vals) == len(node.elts) and all(_ARCH_RE.match(v) for v in vals):
            return vals
    return None


def _str_list(node: ast.AST) -> Optional[list[str]]:
    if isinstance(node, (ast.List, ast.Tuple)) and node.elts:
        vals = [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
        if len(vals) == len(node.elts):
            return vals
    return None


def _find_method(module: Module, cls_name: str, name: str) -> Optional[ast.FunctionDef]:
    cls = module.classes().get(cls_name)
    if cls is None:
        return None
    for stmt in cls.body:
        if isinstance(stmt, ast.FunctionDef) and stmt.name == name:
            return stmt
    return None


def _arch_lists_in(fn: ast.AST) -> list[list[str]]:
    """Architecture list literals compared with ``in`` inside ``fn``."""
    out = []
    for node in ast.walk(fn):
        if isinstance(node, ast.Compare):
            for op, comp in zip(node.ops, node.comparators):
                if isinstance(op, (ast.In, ast.NotIn)):
                    lst = _arch_list(comp)
                    if lst:
                        out.append(lst)
    return out


def _local_lists(fn: ast.AST) -> dict[str, list[str]]:
    out = {}
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            lst = _str_list(node.value)
            if lst is not None:
                out[node.targets[0].id] = lst
    return out


class _Resolver:
    def __init__(self, project: Project, modules: list[Module], lists: dict[str, list]):
        self.project = project
        self.modules = modules
        self.lists = lists

    def constant(self, name: str) -> Optional[list[str]]:
        if name in self.lists:
            return list(self.lists[name])
        for m in self.modules:
            val = m.get(name)
            if isinstance(val, (list, tuple)) and val and all(isinstance(x, str) for x in val):
                return list(val)
        return None

    def backend_list(self, node: ast.expr, locals_: dict) -> tuple[Optional[list[str]], Optional[str]]:
        lst = _str_list(node)
        if lst is not None:
            return lst, "literal"
        if isinstance(node, ast.Name):
            if node.id in locals_:
                return locals_[node.id], "literal"
            if _CONST_RE.match(node.id):
                return self.constant(node.id), node.id
        if isinstance(node, ast.Attribute) and _CONST_RE.match(node.attr):
            return self.constant(node.attr), node.attr
        return None, None


def _render(node: ast.expr, locals_: dict) -> Optional[str]:
    """An f-string / string message with placeholders (see module doc)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        a, b = _render(node.left, locals_), _render(node.right, locals_)
        return None if a is None or b is None else a + b
    if not isinstance(node, ast.JoinedStr):
        return None
    parts = []
    for v in node.values:
        if isinstance(v, ast.Constant):
            parts.append(str(v.value))
        elif isinstance(v, ast.FormattedValue):
            expr = v.value
            text = ast.unparse(expr)
            name = expr.id if isinstance(expr, ast.Name) else expr.attr if isinstance(expr, ast.Attribute) else None
            if name and name in locals_:
                parts.append(str(locals_[name]))
            elif name and _CONST_RE.match(name):
                parts.append("{" + name + "}")
            elif "attention_backend" in text or text == "backend":
                parts.append("{backend}")
            else:
                parts.append("{" + text + "}")
    return "".join(parts)


def _raise_message(node: ast.Raise, locals_: dict) -> Optional[str]:
    exc = node.exc
    if isinstance(exc, ast.Call) and exc.args:
        return _render(exc.args[0], locals_)
    return None


def _warning_messages(fn: ast.AST, locals_: dict) -> list[str]:
    out = []
    for node in ast.walk(fn):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("warning", "warn", "info"):
            if node.args:
                text = _render(node.args[0], locals_)
                if text:
                    out.append(text)
    return out


def _is_deepseek_if(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and isinstance(node.test, ast.Name) and "deepseek" in node.test.id.lower()


def _compares_backend(node: ast.Compare) -> bool:
    return "attention_backend" in ast.unparse(node.left) or ast.unparse(node.left) == "backend"


def _sets_field(body: list, field: str) -> bool:
    for stmt in body:
        for n in ast.walk(stmt):
            if isinstance(n, ast.Attribute) and n.attr == field and isinstance(n.ctx, ast.Store):
                return True
            if isinstance(n, ast.keyword) and n.arg == field:
                return True
    return False


def _locate(project: Project, sa: Module) -> Optional[tuple[Module, ast.FunctionDef, str]]:
    hook = project.module("sglang.srt.arg_groups.attention_hook")
    if hook is not None:
        fn = hook.functions().get("handle_deterministic_inference")
        if fn is not None:
            return hook, fn, f"{hook.rel}:handle_deterministic_inference"
    fn = _find_method(sa, "ServerArgs", "_handle_deterministic_inference")
    if fn is not None:
        return sa, fn, f"{sa.rel}:ServerArgs._handle_deterministic_inference"
    return None


def deterministic_facts(project: Project, sa: Module, lists: dict[str, list]) -> Optional[dict]:
    # long on purpose: reads SGLang's deterministic-inference block top to bottom, one fact per step in SGLang's order
    found = _locate(project, sa)
    if found is None:
        return None
    mod, fn, where = found
    overrides = project.module("sglang.srt.arg_groups.overrides")
    modules = [m for m in (mod, sa, project.module("sglang.srt.arg_groups.choices"), overrides) if m is not None]
    res = _Resolver(project, modules, lists)
    locals_ = _local_lists(fn)

    # The pass that fills a None backend and applies the allow-list: inline
    # up to 0.5.14, overrides._deterministic_attention_backend from 0.5.15.
    backend_fn, backend_where, backend_mod = fn, where, mod
    if overrides is not None:
        cand = overrides.functions().get("_deterministic_attention_backend")
        called = any(
            isinstance(n, ast.Name) and n.id == "_deterministic_attention_backend" for n in ast.walk(fn)
        )
        if cand is not None and called:
            backend_fn, backend_where, backend_mod = cand, f"{overrides.rel}:_deterministic_attention_backend", overrides
    b_locals = _local_lists(backend_fn)

    facts: dict[str, Any] = {"check": where, "backend_pass": backend_where}
    facts["rl_on_policy_target_implies"] = any(
        isinstance(n, ast.Attribute) and n.attr == "rl_on_policy_target" for n in ast.walk(fn)
    )

    # allow-list and fallback
    allow = None
    fallback = False
    for node in ast.walk(backend_fn):
        if isinstance(node, ast.Compare) and _compares_backend(node):
            for op, comp in zip(node.ops, node.comparators):
                if isinstance(op, ast.NotIn) and isinstance(comp, (ast.Name, ast.Attribute)):
                    name = comp.id if isinstance(comp, ast.Name) else comp.attr
                    if name.startswith("DETERMINISTIC_ATTENTION_BACKEND"):
                        allow = name
                if isinstance(op, ast.Is) and isinstance(comp, ast.Constant) and comp.value is None:
                    fallback = True
    facts["allow_list"] = allow
    facts["fallback"] = fallback

    # architecture lists
    check_lists = _arch_lists_in(fn)
    facts["check_architectures"] = check_lists[0] if check_lists else []
    fallback_archs = _arch_lists_in(backend_fn) if backend_fn is not fn else []
    if backend_fn is not fn and not fallback_archs:
        # the pass calls a helper (_deterministic_is_deepseek_model)
        helpers = {
            n.func.id
            for n in ast.walk(backend_fn)
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and "deepseek" in n.func.id.lower()
        }
        for h in sorted(helpers):
            hfn = backend_mod.functions().get(h)
            if hfn is not None:
                fallback_archs = _arch_lists_in(hfn)
                if fallback_archs:
                    facts["fallback_architectures_from"] = f"{backend_mod.rel}:{h}"
                    break
    facts["fallback_architectures"] = (fallback_archs[0] if fallback_archs else facts["check_architectures"]) if fallback else []

    # the absorbed-MLA ("DeepSeek") block
    messages: dict[str, str] = {}
    mla_backends = mla_from = fa4 = None
    deepseek_ifs = [n for n in ast.walk(fn) if _is_deepseek_if(n)]
    for ds in deepseek_ifs:
        for node in ast.walk(ds):
            if isinstance(node, ast.If):
                for cmp in (n for n in ast.walk(node.test) if isinstance(n, ast.Compare) and _compares_backend(n)):
                    for op, comp in zip(cmp.ops, cmp.comparators):
                        if isinstance(op, ast.NotIn) and mla_backends is None:
                            mla_backends, mla_from = res.backend_list(comp, locals_)
                            for r in (n for n in ast.walk(node) if isinstance(n, ast.Raise)):
                                msg = _raise_message(r, locals_)
                                if msg:
                                    messages.setdefault("mla_backend", msg)
                                    break
                        if isinstance(op, ast.Eq) and isinstance(comp, ast.Constant) and comp.value == "fa4":
                            others = [
                                ast.unparse(v) for v in ast.walk(node.test)
                                if isinstance(v, ast.UnaryOp) and isinstance(v.op, ast.Not)
                            ]
                            fa4 = others[0] if others else ast.unparse(node.test)
                            for r in (n for n in ast.walk(node) if isinstance(n, ast.Raise)):
                                msg = _raise_message(r, locals_)
                                if msg:
                                    messages.setdefault("mla_fa4", msg)
                                    break
    facts["mla_backends"] = mla_backends
    facts["mla_backends_from"] = mla_from
    facts["fa4_sm_check"] = fa4

    # radix cache switched off for backends outside a list
    radix = radix_from = None
    for node in ast.walk(fn):
        if not isinstance(node, ast.If) or any(node is d or node in ast.walk(d) for d in deepseek_ifs):
            continue
        if not _sets_field(node.body, "disable_radix_cache"):
            continue
        for cmp in (n for n in ast.walk(node.test) if isinstance(n, ast.Compare) and _compares_backend(n)):
            for op, comp in zip(cmp.ops, cmp.comparators):
                if isinstance(op, ast.NotIn):
                    radix, radix_from = res.backend_list(comp, locals_)
                elif isinstance(op, ast.NotEq) and isinstance(comp, ast.Constant):
                    radix, radix_from = [comp.value], "literal"
        if radix is not None:
            break
    facts["radix_backends"] = radix
    facts["radix_backends_from"] = radix_from

    # messages of the allow-list and the warnings
    for node in ast.walk(backend_fn):
        if isinstance(node, ast.Raise):
            msg = _raise_message(node, b_locals)
            if msg and "deterministic inference" in msg and "MLA" not in msg and "DeepSeek" not in msg:
                messages.setdefault("allow_list", msg)
    for text in _warning_messages(fn, locals_) + _warning_messages(backend_fn, b_locals):
        if "radix cache" in text.lower():
            messages.setdefault("radix_disabled", text)
        elif "Falling back" in text:
            messages.setdefault("fallback", text)
    facts["messages"] = dict(sorted(messages.items()))
    return facts


def mla_architectures(project: Project) -> Optional[list[str]]:
    m = project.module("sglang.srt.configs.model_config")
    if m is None:
        return None
    found: list[str] = []

    def sets_mla(body: list) -> bool:
        for stmt in body:
            if (
                isinstance(stmt, ast.Assign)
                and any(isinstance(t, ast.Attribute) and t.attr == "attention_arch" for t in stmt.targets)
                and ast.unparse(stmt.value).endswith("AttentionArch.MLA")
            ):
                return True
        return False

    for node in ast.walk(m.tree):
        if not isinstance(node, ast.If) or not sets_mla(node.body):
            continue
        for n in ast.walk(node.test):
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and _ARCH_RE.match(n.value):
                if n.value not in found:
                    found.append(n.value)
            elif isinstance(n, ast.Name) and _CONST_RE.match(n.id):
                val = m.get(n.id)
                if isinstance(val, (list, tuple, set, frozenset)) and known(val):
                    for x in sorted(val) if isinstance(val, (set, frozenset)) else val:
                        if isinstance(x, str) and _ARCH_RE.match(x) and x not in found:
                            found.append(x)
    return found
