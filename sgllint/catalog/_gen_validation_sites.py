"""Rejection sites and rewrites of one start-up function, and what their conditions read.

Part of the validation generator (``_gen_validation``): ``SiteWalker`` walks a function's body
with the path condition of each statement and records every rejection site (``raise``,
``assert``, ``sys.exit``/``exit``, ``parser.error``) and every rewrite of a ServerArgs field;
``classify`` sorts a site into class a/b/c/d by the text of its condition (and of the locals it
reads).  Pure ``ast`` work on one function: which functions run is ``_gen_validation_closure``'s.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Optional

from ._gen_extract import SERVER_ARGS

#: what a condition reads, by the text of the condition (and of the locals it reads): regexes
_FACT_PATTERNS = (
    ("runtime", "env", r"\bos\.environ\b|\bgetenv\b|\benvs\.\w+|\bget_(?:bool|int|float|str)_env_var\b|\benviron\b"),
    ("runtime", "files", r"\bos\.path\.|\bPath\(|\.exists\(|\bisfile\b|\bisdir\b|\blistdir\b|\bglob\b|\bopen\("),
    ("runtime", "packages", r"\bimportlib\b|\bfind_spec\b|\bis_\w+_(?:available|installed)\b|__version__"
                            r"|\bversion\(|\bpkg_version\b|\bshutil\.which\b|\bwhich\("),
    ("runtime", "ports", r"\bsocket\b|\bis_port_available\b|\bbind\("),
    ("runtime", "processes", r"\bsubprocess\b|\bcheck_output\b|\bPopen\b|\breturncode\b"),
    ("gpu", "platform", r"\b_?is_(?:cuda|hip|npu|xpu|cpu|mps|musa|hpu|rocm)\w*|\bget_platform\b|\bcurrent_platform\b"
                        r"|\btorch\.cuda\b|\btorch\.version\b|\bis_gfx\w*|\bhas_amx\b|\bplatform\b"),
    ("gpu", "sm", r"\bis_sm\d+\w*|\bis_blackwell\w*|\bis_hopper\w*|\bsm_version\b|\bcapability\b|\bget_device_sm\b"
                  r"|\bget_device_capability\b|\bsupports_\w+\b|\bis_\w+_supported\b"),
    ("gpu", "count", r"\bdevice_count\b|\bget_device_count\b|\bnum_gpus\b"),
    ("gpu", "memory", r"\bget_\w*memory_capacity\b|\bgpu_mem\w*|\btotal_memory\b"),
    ("model", "config", r"\bmodel_config\b|\bhf_config\b|\bhf_text_config\b|\bget_config\b|\bget_hf_config\b"
                        r"|\bmodel_config_of\b|\bhf_config_of\b|\btext_config\b"),
    ("model", "architecture", r"\barchitectures?\b|\bmodel_arch\b|\bmodel_type\b|\bis_\w*(?:model|arch)\w*\("),
    ("model", "shape", r"\bnum_(?:attention|key_value)_heads\b|\bhidden_size\b|\bnum_hidden_layers\b|\bhead_dim\b"
                       r"|\bkv_lora_rank\b|\bnum_experts\b|\bn_routed_experts\b|\bvocab_size\b|\bcontext_len\b"
                       r"|\bmodel_context_len\w*|\buse_mla\w*|\bis_mla\w*|\bmla_\w+|\bis_hybrid\w*"),
    ("model", "quantization", r"\bquantization_config\b|\bquant_method\b|\bquant_config\b"),
)
#: a helper handed the record: what it returns derives from the arguments
_DERIVED_RE = re.compile(r"\b([A-Za-z_]\w*)\(\s*(?:server_args|cfg|view|self|args|resolved_view\(server_args\)"
                         r"|resolving_view\(server_args\))\s*[,)]")
_FACT_RES = [(k, name, re.compile(rx)) for k, name, rx in _FACT_PATTERNS]
#: except clauses that catch a bad argument value, not a failed runtime operation
_ARG_EXC = r"(?:ValueError|TypeError|KeyError|IndexError|json\.JSONDecodeError|JSONDecodeError|AttributeError)"
_ARG_EXCEPTIONS = re.compile(rf"^EXCEPT \(?{_ARG_EXC}(?:, ?{_ARG_EXC})*\)?$")


def unparse(node: ast.AST) -> str:
    try:
        return ast.unparse(node)
    except Exception:  # noqa: BLE001
        return "<?>"


def _message(exc: Optional[ast.expr], strings: Optional[dict[str, ast.expr]] = None) -> str:
    """The message template of a raised exception / assert message / exit argument; ``strings``:
    locals assigned once in the function (``msg = f"..."; raise ValueError(msg)``)."""
    if exc is None or isinstance(exc, (ast.Name, ast.Attribute)):
        return ""  # ``raise ValueError``: no message, or a re-raised exception object
    if isinstance(exc, ast.Call) and exc.args:
        exc = exc.args[0]
    elif isinstance(exc, ast.Call):
        return ""
    if isinstance(exc, ast.Name) and strings and exc.id in strings:
        exc = strings[exc.id]
    return _template(exc)


def single_string_assigns(node: ast.AST) -> dict[str, ast.expr]:
    """Locals assigned exactly once in a function, to a string expression."""
    seen: dict[str, list[ast.expr]] = {}
    for n in ast.walk(node):
        if isinstance(n, ast.Assign):
            for t in n.targets:
                for nm in target_names(t):
                    seen.setdefault(nm.id, []).append(n.value if isinstance(t, ast.Name) else None)
        elif isinstance(n, (ast.AugAssign, ast.AnnAssign)) and isinstance(n.target, ast.Name):
            seen.setdefault(n.target.id, []).extend([None, None])
    return {k: v[0] for k, v in seen.items()
            if len(v) == 1 and isinstance(v[0], (ast.Constant, ast.JoinedStr, ast.BinOp))
            and not (isinstance(v[0], ast.Constant) and not isinstance(v[0].value, str))}


def _template(node: ast.expr) -> str:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        out = []
        for v in node.values:
            if isinstance(v, ast.Constant):
                out.append(str(v.value))
            elif isinstance(v, ast.FormattedValue):
                out.append("{" + unparse(v.value) + "}")
        return "".join(out)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _template(node.left) + _template(node.right)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        return _template(node.left)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format":
        return _template(node.func.value)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "join" \
            and node.args:
        return _template(node.args[0])
    if isinstance(node, (ast.List, ast.Tuple)):
        return "".join(_template(e) for e in node.elts)
    return "{" + unparse(node) + "}"


def _exc_name(exc: Optional[ast.expr]) -> str:
    if exc is None:
        return ""
    f = exc.func if isinstance(exc, ast.Call) else exc
    return unparse(f)


@dataclass
class Site:
    kind: str
    node: ast.AST
    function: str
    conds: list[str]
    exception: str
    message: str
    handled: bool = False


def _call_kind(call: ast.Call) -> Optional[str]:
    f = unparse(call.func)
    if f in ("sys.exit", "exit", "quit", "os._exit"):
        return "sys.exit"
    if f.endswith(".error") and ("parser" in f.lower()):
        return "parser.error"
    return None


class SiteWalker:
    """Rejection sites and rewrites of one function, with their path conditions."""

    def __init__(self, qual: str, fields: set[str]) -> None:
        self.qual = qual
        self.fields = fields
        self.sites: list[Site] = []
        self.rewrites: list[dict] = []
        self.strings: dict[str, ast.expr] = {}  # set by the caller: single_string_assigns(function)
        # names the ServerArgs record goes by when written to ("self" only in its own methods)
        self.writers = {"server_args", "args", "sa", "server_arg"}
        if qual.startswith(f"{SERVER_ARGS}:ServerArgs."):
            self.writers.add("self")

    def block(self, body: list, conds: list[str], fname: str, handlers: int) -> None:
        for st in body:
            self.stmt(st, conds, fname, handlers)

    def stmt(self, st: ast.stmt, conds: list[str], fname: str, handlers: int) -> None:
        if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self.block(st.body, [], f"{fname}.<locals>.{st.name}", 0)
            return
        if isinstance(st, ast.ClassDef):
            for s in st.body:
                if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    self.block(s.body, [], f"{fname}.<locals>.{st.name}.{s.name}", 0)
            return
        self.scan_calls(st, conds, fname, handlers)
        if isinstance(st, ast.If):
            t = unparse(st.test)
            self.block(st.body, conds + [t], fname, handlers)
            self.block(st.orelse, conds + [f"!({t})"], fname, handlers)
        elif isinstance(st, (ast.For, ast.AsyncFor)):
            c = f"FOR {unparse(st.target)} in {unparse(st.iter)}"
            self.block(st.body, conds + [c], fname, handlers)
            self.block(st.orelse, conds, fname, handlers)
        elif isinstance(st, ast.While):
            t = unparse(st.test)
            self.block(st.body, conds + [f"WHILE {t}"], fname, handlers)
            self.block(st.orelse, conds, fname, handlers)
        elif isinstance(st, (ast.With, ast.AsyncWith)):
            self.block(st.body, conds, fname, handlers)
        elif isinstance(st, ast.Try) or type(st).__name__ == "TryStar":
            self.block(st.body, conds, fname, handlers + (1 if st.handlers else 0))
            for h in st.handlers:
                self.block(h.body, conds + [f"EXCEPT {unparse(h.type) if h.type else ''}".rstrip()], fname, handlers)
            self.block(st.orelse, conds, fname, handlers)
            self.block(st.finalbody, conds, fname, handlers)
        elif isinstance(st, ast.Match):
            subj = unparse(st.subject)
            for case in st.cases:
                c = f"MATCH {subj} case {unparse(case.pattern)}"
                if case.guard is not None:
                    c += f" if {unparse(case.guard)}"
                self.block(case.body, conds + [c], fname, handlers)
        elif isinstance(st, ast.Raise):
            self.sites.append(Site("raise", st, fname, conds, _exc_name(st.exc) or "<re-raise>",
                                   _message(st.exc, self.strings), handlers > 0))
        elif isinstance(st, ast.Assert):
            self.sites.append(Site("assert", st, fname, conds + [f"!({unparse(st.test)})"], "AssertionError",
                                   self.assert_message(st.msg), handlers > 0))
        self.rewrite_stmt(st, conds, fname)

    def assert_message(self, msg: Optional[ast.expr]) -> str:
        if msg is None:
            return ""
        if isinstance(msg, ast.Name) and msg.id in self.strings:
            msg = self.strings[msg.id]
        return _template(msg)

    def scan_calls(self, st: ast.stmt, conds: list[str], fname: str, handlers: int) -> None:
        """``sys.exit``/``parser.error`` calls in the statement's own expressions."""
        own: list[ast.AST] = []
        if isinstance(st, (ast.Expr, ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Return)):
            own = [st]
        for top in own:
            for n in ast.walk(top):
                if isinstance(n, ast.Call):
                    k = _call_kind(n)
                    if k:
                        msg = _template(n.args[0]) if n.args else ""
                        self.sites.append(Site(k, n, fname, conds, "SystemExit", msg, handlers > 0))
                    self.rewrite_call(n, conds, fname)

    def _rw(self, field_name: str, node: ast.AST, fname: str, how: str, conds: list[str],
            value: Optional[ast.AST] = None) -> None:
        self.rewrites.append({"field": field_name, "node": node, "function": fname, "how": how,
                              "condition": " && ".join(conds), "conds": conds,
                              "value": unparse(value) if value is not None else ""})

    def rewrite_stmt(self, st: ast.stmt, conds: list[str], fname: str) -> None:
        targets: list[ast.expr] = []
        if isinstance(st, ast.Assign):
            targets = list(st.targets)
        elif isinstance(st, (ast.AugAssign, ast.AnnAssign)):
            targets = [st.target]
        if isinstance(st, ast.Return) and isinstance(st.value, ast.Dict):
            # post-process passes and override providers return {field: value} declarations
            for k in st.value.keys:
                if isinstance(k, ast.Constant) and isinstance(k.value, str) and k.value in self.fields:
                    self._rw(k.value, st, fname, "return-dict", conds, st.value.values[st.value.keys.index(k)])
        flat: list[ast.expr] = []
        for t in targets:
            flat += list(t.elts) if isinstance(t, (ast.Tuple, ast.List)) else [t]
        for t in flat:
            if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id in self.writers \
                    and t.attr in self.fields:
                self._rw(t.attr, st, fname, "attr", conds, getattr(st, "value", None))
            elif isinstance(t, ast.Subscript) and isinstance(t.slice, ast.Constant) \
                    and isinstance(t.slice.value, str) and t.slice.value in self.fields \
                    and isinstance(t.value, ast.Name) and "override" in t.value.id.lower():
                self._rw(t.slice.value, st, fname, "override-dict", conds, getattr(st, "value", None))

    def rewrite_call(self, call: ast.Call, conds: list[str], fname: str) -> None:
        f = unparse(call.func)
        if f == "setattr" and len(call.args) >= 2 and isinstance(call.args[1], ast.Constant) \
                and call.args[1].value in self.fields and isinstance(call.args[0], ast.Name) \
                and call.args[0].id in self.writers:
            self._rw(call.args[1].value, call, fname, "setattr", conds, call.args[2] if len(call.args) > 2 else None)
        elif f.split(".")[-1] in ("declare_resolution", "override", "declare"):
            for kw in call.keywords:
                if kw.arg in self.fields:
                    self._rw(kw.arg, call, fname, "declare", conds, kw.value)


_FIELD_RE = re.compile(r"\b(?:self|server_args|args|sa|cfg|config|server_arg|view|record|ctx)\.([A-Za-z_]\w*)"
                       r"|getattr\(\s*\w+\s*,\s*['\"]([A-Za-z_]\w*)['\"]")


def read_facts(text: str, fields: set[str], params: tuple[str, ...] = ()) -> list[str]:
    out = set()
    for m in _FIELD_RE.finditer(text):
        name = m.group(1) or m.group(2)
        if name in fields:
            out.add("field:" + name)
    for kind, name, rx in _FACT_RES:
        if rx.search(text):
            out.add(f"{kind}:{name}")
    for m in _DERIVED_RE.finditer(text):
        if m.group(1) not in ("resolving_view", "resolved_view", "getattr", "isinstance", "type", "id"):
            out.add("derived:" + m.group(1))
    for p in params:
        if re.search(rf"\b{re.escape(p)}\b", text):
            out.add("param:" + p)
    return sorted(out)


def expand_locals(conds: list[str], assigns: dict[str, list[str]], depth: int = 2) -> str:
    """The condition text plus the right-hand sides of the locals it reads (``depth`` levels)."""
    text = " && ".join(conds)
    seen: set[str] = set()
    frontier = text
    for _ in range(depth):
        extra = []
        for name in set(re.findall(r"\b[A-Za-z_]\w*\b", frontier)):
            if name in assigns and name not in seen:
                seen.add(name)
                extra += assigns[name]
        if not extra:
            break
        frontier = " ; ".join(extra)
        text += " ;; " + frontier
    return text


def local_assigns(node: ast.AST) -> dict[str, list[str]]:
    """``{local name: [unparsed right-hand sides]}`` of a function (loop targets: their iterables)."""
    out: dict[str, list[str]] = {}
    for n in ast.walk(node):
        pairs: list[tuple[ast.expr, ast.expr]] = []
        if isinstance(n, ast.Assign):
            pairs = [(t, n.value) for t in n.targets]
        elif isinstance(n, (ast.AnnAssign, ast.AugAssign, ast.NamedExpr)) and n.value is not None:
            pairs = [(n.target, n.value)]
        elif isinstance(n, (ast.For, ast.comprehension)):
            pairs = [(n.target, n.iter)]
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            for a in n.args.args + n.args.kwonlyargs + n.args.posonlyargs:
                out.setdefault(a.arg, [])
        for t, v in pairs:
            for nm in target_names(t):
                out.setdefault(nm.id, []).append(unparse(v))
    return out


def target_names(t: ast.expr) -> list[ast.Name]:
    """The local names an assignment target binds (not the bases of ``x.attr = ...``)."""
    if isinstance(t, ast.Name):
        return [t]
    if isinstance(t, (ast.Tuple, ast.List)):
        return [n for e in t.elts for n in target_names(e)]
    if isinstance(t, ast.Starred):
        return target_names(t.value)
    return []


def classify(site: Site, fields: set[str], assigns: Optional[dict[str, list[str]]] = None,
             params: tuple[str, ...] = (), per_model: bool = False,
             auto: Optional[dict[str, str]] = None) -> tuple[str, str, list[str]]:
    """(class, reason, facts) of a site, from the text of its path condition and of the locals it
    reads; ``params``: the function's parameters (values its callers pass); ``per_model``: the
    function runs only for some architectures (a model-override provider); ``auto``: fields SGLang
    sets from model/GPU facts (attention backends, page size ... when left unset), by rewrite site."""
    text = expand_locals(site.conds, assigns or {})
    facts = read_facts(text, fields, params)
    # fields SGLang may set from model/GPU facts when the user leaves them unset: recorded as facts
    # ("auto:<field>") for explain/coverage, not as a class -- with the user's value the check is
    # decided by the arguments alone.
    facts = sorted(set(facts) | {"auto:" + f[6:] for f in facts if f.startswith("field:") and f[6:] in (auto or {})})
    if per_model:
        facts = sorted(set(facts) | {"model:architecture"})
    kinds = {f.split(":")[0] for f in facts}

    def named(*ks: str) -> str:
        return ", ".join(f.split(":", 1)[1] for f in facts if f.split(":")[0] in ks)

    if site.kind == "raise" and site.exception == "<re-raise>":
        return "c", "re-raises an exception caught from a runtime operation", facts
    handlers = [c for c in site.conds if c.startswith("EXCEPT")]
    if handlers and not all(_ARG_EXCEPTIONS.match(h) for h in handlers):
        return "c", f"in an exception handler of a runtime operation ({handlers[-1]})", facts
    if "runtime" in kinds:
        return "c", f"needs runtime facts: {named('runtime')}", facts
    if "field" not in kinds and site.kind == "assert" and re.search(r"isinstance|\bis not None\b|\bis None\b", text):
        return "d", "internal invariant (a type or None assertion on no argument)", facts
    if kinds & {"gpu", "model"}:
        return "b", f"needs model/GPU facts: {named('model', 'gpu')}", facts
    if "field" in kinds:
        return "a", "reads only arguments: " + named("field"), facts
    if kinds & {"derived", "param"}:
        return "a", "reads values derived from the arguments: " + named("derived", "param"), facts
    if not site.conds and site.kind in ("raise", "sys.exit", "parser.error"):
        return "a", "unconditional in its function: decided by its callers' arguments", facts
    return "d", "reads no argument, model, GPU or runtime fact", facts
