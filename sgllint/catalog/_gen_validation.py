"""Derive a release's start-up validation from its source (issue 17).

Usage::

    python -m sgllint.catalog._gen_validation WHEEL_OR_SOURCE_DIR [...] [--out DIR]

For each release (never imported: files are read and handed to :mod:`ast`) this writes
``DIR/sglang-<version>.json.gz`` (the manifest) and merges the release's AST units into the shared
store ``DIR/units-<v>.jsonl.gz`` (each unit in the shard of the newest release using it; units no
manifest in DIR names any more are dropped).  The IR is described
in ``sgllint/catalog/validation/__init__.py`` and this docstring:

* the **start-up call closure**: from the entry steps SGLang's launch runs before it loads a model
  (the oracle harness's stages: ``prepare_server_args`` -> ``ServerArgs.__post_init__``,
  ``ServerArgs.resolve_once`` (0.5.19+), ``ServerArgs.check_server_args``, ``PortArgs.init_new``;
  ``Engine.__init__`` for the engine entry) every SGLang function they reference, transitively:
  module functions, ``from m import f`` (also inside functions), ``self.m()``/``server_args.m()``,
  classes (their ``__init__``/``__post_init__``), decorator registries (model overrides, kernel
  plugins: a registry module imported for its side effects brings its decorated functions);
* every function's AST, serialized generically and shared between releases by content;
* every **rejection site** (``raise``, ``assert``, ``sys.exit``/``exit``, ``parser.error``) of the
  closure with its path condition, message template, stable id and class a/b/c/d;
* every **rewrite**: an assignment that can overwrite a ServerArgs field.
"""

from __future__ import annotations

import argparse
import ast
import copy
import gzip
import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Optional

from ._gen_eval import Project, has_unknown
from ._gen_extract import SERVER_ARGS, GenerationError, collect_fields, jsonable, _MISSING
from ._gen_source import Source, base_version
from ._gen_validation_ast import Encoder, canonical, schema_for, unit_id, unit_types
from .validation import stable_id

GENERATOR = "sgllint.catalog._gen_validation"
FORMAT = 1
DATA_DIR = Path(__file__).resolve().parent / "data" / "validation"

#: The stages after the record exists (the oracle harness's STAGES), in SGLang's order.
_RECORD_STAGES = [
    {"call": f"{SERVER_ARGS}:ServerArgs.resolve_once", "self": True, "stage": "resolve_once"},
    {"call": f"{SERVER_ARGS}:ServerArgs.check_server_args", "self": True, "stage": "check_server_args"},
    {"call": f"{SERVER_ARGS}:PortArgs.init_new", "self": False, "stage": "PortArgs.init_new"},
]
_PREPARE = [
    {"call": f"{SERVER_ARGS}:prepare_server_args", "argv": True, "stage": "prepare_server_args"},
    {"call": f"{SERVER_ARGS}:ServerArgs.__post_init__", "self": True, "stage": "prepare_server_args"},
]
#: Entry steps in SGLang's order; a step missing from a release is skipped.
ENTRY = {
    "cli": _PREPARE + _RECORD_STAGES,
    # `sglang serve` (0.5.x's CLI): its own argv checks (--model-type, the model path), then
    # prepare_server_args and the same stages as "cli"
    "serve": [{"call": "sglang.cli.serve:serve", "argv": True, "stage": "sglang serve"}] + _PREPARE + _RECORD_STAGES,
    "engine": [
        {"call": "sglang.srt.entrypoints.engine:Engine.__init__", "kwargs": True, "shallow": True,
         "stage": "Engine.__init__"},
        {"call": f"{SERVER_ARGS}:ServerArgs.__post_init__", "self": True, "stage": "ServerArgs"},
    ] + _RECORD_STAGES,
}
#: Later roots (``reach: "late"``): arg-related checks the issue names that SGLang runs after the
#: start-up stages the oracle exercises (backend creation in the model runner, quantized-MoE checks,
#: the rest of the engine's launch).  Their sites are listed so that coverage and explain can show them;
#: the evaluator should treat them as possible, never as the first definite rejection.
LATE_ROOTS = (
    "sglang.srt.utils.server_args_config_parser:ConfigArgumentMerger.merge_config_with_args",
    "sglang.srt.configs.model_config:ModelConfig.from_server_args",
    "sglang.srt.layers.attention.attention_registry:attn_backend_wrapper",
    "sglang.srt.model_executor.model_runner_components.moe_ep_setup:check_quantized_moe_compatibility",
    "sglang.srt.model_loader.loader:_get_quantization_config",
    "sglang.srt.entrypoints.engine:Engine._launch_subprocesses",
)
#: modules whose registry-decorated functions are late roots (attention backends by name)
LATE_MODULES = ("sglang.srt.layers.attention.attention_registry",)
#: Roots whose body is kept (its sites count) but whose references are not followed: the engine's
#: launch and the model loader run far more than argument checks.
SHALLOW = frozenset({
    "sglang.srt.entrypoints.engine:Engine.__init__",
    "sglang.srt.entrypoints.engine:Engine._launch_subprocesses",
    "sglang.srt.model_loader.loader:_get_quantization_config",
})
#: Modules whose functions registered by an SGLang decorator run at start-up (model-override
#: providers, kernel-plugin bindings, attention backends by name): elsewhere a decorator is not
#: a reason to include a function (custom-op and kernel registrations run at model load).
REGISTRY_MODULES = (
    "sglang.srt.arg_groups",
    "sglang.srt.kernel_plugins",
    "sglang.srt.layers.attention.attention_registry",
)
#: Modules never followed into: model execution, not start-up validation.
STOP_PREFIXES = (
    "sglang.srt.models.",
    "sglang.srt.managers.",
    "sglang.srt.model_executor.model_runner",
    "sglang.srt.mem_cache.",
    "sglang.srt.distributed.",
    "sglang.srt.layers.",
    "sglang.srt.lora.",
    "sglang.srt.entrypoints.",
    "sglang.srt.disaggregation.",
    "sglang.srt.sampling.",
    "sglang.srt.function_call.",
    "sglang.srt.parser.",
    "sglang.srt.multimodal.",
    "sglang.multimodal_gen.",
    "sglang.lang.",
    "sglang.test.",
    "sglang.bench",
    "sglang.srt.metrics.",
    "sglang.srt.tokenizer",
    "sglang.srt.hf_transformers_utils",
    "sglang.srt.utils.hf_transformers_utils",
    "sglang.srt.model_loader.",
    "sglang.srt.compilation.",
    "sglang.srt.speculative.eagle",
    "sglang.srt.constrained.",
    "sglang.kernels.",
    "sglang.jit_kernel.",
)
#: ... except these (arg-related checks the issue names)
STOP_EXCEPT = (
    "sglang.srt.layers.attention.attention_registry",
    "sglang.srt.layers.quantization",
    "sglang.srt.model_executor.model_runner_components.moe_ep_setup",
)


# ---------------------------------------------------------------------------
# Modules and name resolution
# ---------------------------------------------------------------------------


@dataclass
class ModInfo:
    name: str
    rel: str
    tree: ast.Module
    package: str
    defs: dict[str, ast.AST] = field(default_factory=dict)  # top-level def/class by name
    imports: dict[str, tuple] = field(default_factory=dict)  # name -> ("mod", m) | ("from", m, attr)
    side_imports: list[str] = field(default_factory=list)  # modules imported without using a name
    consts: set[str] = field(default_factory=set)  # names assigned at the top level


def _is_sglang(mod: str) -> bool:
    return mod == "sglang" or mod.startswith("sglang.")


def _stopped(mod: str) -> bool:
    if any(mod == p or mod.startswith(p + ".") for p in STOP_EXCEPT):
        return False
    return any(mod.startswith(p) or mod == p.rstrip(".") for p in STOP_PREFIXES)


def _resolve_relative(package: str, module: Optional[str], level: int) -> str:
    if level == 0:
        return module or ""
    parts = package.split(".")
    if level > 1:
        parts = parts[: len(parts) - (level - 1)]
    base = ".".join(parts)
    return f"{base}.{module}" if module else base


def _import_bindings(stmts: list, package: str) -> Iterator[tuple[str, tuple]]:
    for st in stmts:
        if isinstance(st, ast.Import):
            for a in st.names:
                if a.asname:
                    yield a.asname, ("mod", a.name)
                else:
                    yield a.name.split(".")[0], ("mod", a.name.split(".")[0])
                    yield a.name, ("mod", a.name)  # dotted use: sglang.srt.x.f
        elif isinstance(st, ast.ImportFrom):
            mod = _resolve_relative(package, st.module, st.level)
            for a in st.names:
                if a.name != "*":
                    yield a.asname or a.name, ("from", mod, a.name)


class Program:
    """The release's modules, parsed on demand, with static name resolution."""

    def __init__(self, source: Source) -> None:
        self.source = source
        self._mods: dict[str, Optional[ModInfo]] = {}

    def module(self, name: str) -> Optional[ModInfo]:
        if name not in self._mods:
            info = None
            rel = self.source.module_path(name) if _is_sglang(name) else None
            text = self.source.read(rel) if rel else None
            if text is not None:
                tree = ast.parse(text)
                package = name if rel.endswith("__init__.py") else name.rpartition(".")[0]
                info = ModInfo(name, rel, tree, package)
                for st in tree.body:
                    if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                        info.defs[st.name] = st
                    elif isinstance(st, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                        for t in st.targets if isinstance(st, ast.Assign) else [st.target]:
                            info.consts.update(n.id for n in _target_names(t))
                top_imports = [st for st in tree.body if isinstance(st, (ast.Import, ast.ImportFrom))]
                # imports under if/try at module level (TYPE_CHECKING, optional deps)
                for st in tree.body:
                    if isinstance(st, (ast.If, ast.Try)):
                        top_imports += [n for n in ast.walk(st) if isinstance(n, (ast.Import, ast.ImportFrom))]
                for k, v in _import_bindings(top_imports, package):
                    info.imports.setdefault(k, v)
                for st in tree.body:
                    if isinstance(st, ast.Import):
                        info.side_imports += [a.name for a in st.names if not a.asname and _is_sglang(a.name)]
                    elif isinstance(st, ast.ImportFrom):
                        mod = _resolve_relative(package, st.module, st.level)
                        for a in st.names:
                            if self.source.module_path(f"{mod}.{a.name}") and _is_sglang(mod):
                                info.side_imports.append(f"{mod}.{a.name}")
            self._mods[name] = info
        return self._mods[name]

    def resolve_from(self, mod: str, attr: str, depth: int = 0) -> Optional[tuple]:
        """What ``from mod import attr`` binds: ("func", qual) | ("class", mod, name) | ("mod", m)."""
        if depth > 8 or not _is_sglang(mod):
            return None
        info = self.module(mod)
        if info is not None:
            d = info.defs.get(attr)
            if isinstance(d, ast.ClassDef):
                return ("class", mod, attr)
            if d is not None:
                return ("func", f"{mod}:{attr}")
            if attr in info.consts:
                return ("const", mod, attr)
            if attr in info.imports:
                return self._binding(info.imports[attr], depth + 1)
        if self.source.module_path(f"{mod}.{attr}"):
            return ("mod", f"{mod}.{attr}")
        return None

    def _binding(self, b: tuple, depth: int = 0) -> Optional[tuple]:
        if b[0] == "mod":
            return ("mod", b[1]) if _is_sglang(b[1]) else None
        return self.resolve_from(b[1], b[2], depth)

    def resolve_name(self, mod: ModInfo, name: str, local: dict[str, tuple]) -> Optional[tuple]:
        if name in local:
            return self._binding(local[name])
        d = mod.defs.get(name)
        if isinstance(d, ast.ClassDef):
            return ("class", mod.name, name)
        if d is not None:
            return ("func", f"{mod.name}:{name}")
        if name in mod.imports:
            return self._binding(mod.imports[name])
        return None

    def class_node(self, mod: str, name: str) -> Optional[ast.ClassDef]:
        info = self.module(mod)
        d = info.defs.get(name) if info else None
        return d if isinstance(d, ast.ClassDef) else None

    def method(self, mod: str, cls: str, name: str, depth: int = 0) -> Optional[str]:
        """Qualname of ``cls.name`` looked up through the (SGLang) bases."""
        node = self.class_node(mod, cls)
        if node is None or depth > 6:
            return None
        for st in node.body:
            if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)) and st.name == name:
                return f"{mod}:{cls}.{name}"
        info = self.module(mod)
        for b in node.bases:
            r = self.resolve_expr(info, b, {})
            if r and r[0] == "class":
                q = self.method(r[1], r[2], name, depth + 1)
                if q:
                    return q
        return None

    def resolve_expr(self, mod: ModInfo, node: ast.expr, local: dict[str, tuple]) -> Optional[tuple]:
        if isinstance(node, ast.Name):
            return self.resolve_name(mod, node.id, local)
        if isinstance(node, ast.Attribute):
            base = self.resolve_expr(mod, node.value, local)
            if base is None:
                # ``sglang.srt.x.f`` spelled out after ``import sglang.srt.x``
                dotted = _dotted(node.value)
                if dotted and _is_sglang(dotted) and self.module(dotted):
                    base = ("mod", dotted)
            if base is None:
                return None
            if base[0] == "mod":
                return self.resolve_from(base[1], node.attr)
            if base[0] == "class":
                q = self.method(base[1], base[2], node.attr)
                return ("func", q) if q else None
        return None

    def function_node(self, qual: str) -> Optional[tuple[ModInfo, Optional[str], ast.AST]]:
        mod, _, path = qual.partition(":")
        info = self.module(mod)
        if info is None:
            return None
        parts = path.split(".")
        node = info.defs.get(parts[0])
        cls = None
        if len(parts) == 2 and isinstance(node, ast.ClassDef):
            cls = parts[0]
            node = next((s for s in node.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))
                         and s.name == parts[1]), None)
        elif len(parts) != 1:
            return None
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return None
        return info, cls, node


def _dotted(node: ast.expr) -> Optional[str]:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


# ---------------------------------------------------------------------------
# The start-up call closure
# ---------------------------------------------------------------------------

#: names a ServerArgs record goes by in SGLang's helpers
_RECORD_NAMES = {"self", "server_args", "args", "sa", "cfg", "server_arg", "config"}


class Closure:
    def __init__(self, prog: Program) -> None:
        self.prog = prog
        self.functions: dict[str, tuple[ModInfo, Optional[str], ast.AST]] = {}
        self.modules: dict[str, ModInfo] = {}
        self._queue: list[str] = []
        sa = prog.module(SERVER_ARGS)
        self.record_methods: set[str] = set()
        node = prog.class_node(SERVER_ARGS, "ServerArgs") if sa else None
        if node is not None:
            self.record_methods = {s.name for s in node.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))}

    def add(self, qual: str) -> None:
        if qual in self.functions:
            return
        mod = qual.partition(":")[0]
        if _stopped(mod) and qual not in SHALLOW and qual not in LATE_ROOTS:
            return
        found = self.prog.function_node(qual)
        if found is None:
            return
        self.functions[qual] = found
        self.add_module(found[0])
        if qual not in SHALLOW:
            self._queue.append(qual)

    def add_class(self, mod: str, cls: str) -> None:
        # what runs implicitly on a new instance: construction and the attribute hooks
        for m in ("__init__", "__post_init__", "__new__", "__setattr__", "__getattr__", "__getattribute__"):
            q = self.prog.method(mod, cls, m)
            if q:
                self.add(q)

    def add_module(self, info: ModInfo) -> None:
        if info.name in self.modules:
            return
        self.modules[info.name] = info
        self._queue.append("module:" + info.name)

    def run(self) -> None:
        while self._queue:
            item = self._queue.pop()
            if item.startswith("module:"):
                self._visit_module(self.modules[item[len("module:"):]])
            else:
                info, cls, node = self.functions[item]
                self._visit_function(info, cls, node)

    def _ref(self, r: Optional[tuple], called: bool = True) -> None:
        """Follow a reference; a class only runs code when it is called (constructed): a class
        passed around as a value (config-class registries, ``isinstance`` checks) brings its
        module (the class body) but none of its methods."""
        if r is None:
            return
        if r[0] == "func":
            self.add(r[1])
        elif r[0] == "const" and not _stopped(r[1]):
            info = self.prog.module(r[1])  # a constant of another module: its top level computes it
            if info is not None:
                self.add_module(info)
        elif r[0] == "class" and not _stopped(r[1]):
            if called:
                self.add_class(r[1], r[2])
            else:
                info = self.prog.module(r[1])
                if info is not None:
                    self.add_module(info)

    def _visit_module(self, info: ModInfo) -> None:
        """Top-level code runs at import: its references, registry decorators, side-effect imports."""
        for st in info.tree.body:
            if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)):
                regs = [self.prog.resolve_expr(info, d.func if isinstance(d, ast.Call) else d, {})
                        for d in st.decorator_list]
                if any(r and r[0] == "func" for r in regs) and info.name.startswith(REGISTRY_MODULES):
                    self.add(f"{info.name}:{st.name}")  # registered by an SGLang decorator
                for d in st.decorator_list:
                    self._walk_refs(info, None, d, {})
            elif isinstance(st, ast.ClassDef):
                for d in st.decorator_list:
                    self._walk_refs(info, None, d, {})
                if any(_unparse(b).split(".")[-1] == "Action" for b in st.bases):
                    self.add_class(info.name, st.name)  # argparse constructs and calls it while parsing
                    q = self.prog.method(info.name, st.name, "__call__")
                    if q:
                        self.add(q)
            elif not isinstance(st, (ast.Import, ast.ImportFrom)):
                self._walk_refs(info, None, st, {})
        if info.name.startswith(("sglang.srt.arg_groups", "sglang.srt.kernel_plugins")):
            for m in info.side_imports:
                sub = self.prog.module(m)
                if sub is not None and not _stopped(m):
                    self.add_module(sub)

    def _visit_function(self, info: ModInfo, cls: Optional[str], node: ast.AST) -> None:
        local = dict(_import_bindings([n for n in ast.walk(node) if isinstance(n, (ast.Import, ast.ImportFrom))],
                                      info.package))
        for n in ast.walk(node):
            if isinstance(n, ast.Import):
                for a in n.names:
                    sub = self.prog.module(a.name) if _is_sglang(a.name) and not _stopped(a.name) else None
                    if sub is not None:
                        self.add_module(sub)
        self._walk_refs(info, cls, node, local, self._local_types(info, node, local))

    def _local_types(self, info: ModInfo, node: ast.AST, local: dict) -> dict[str, tuple[str, str]]:
        """``v = C(...)`` / ``v = C.factory(...)`` with ``C`` an SGLang class: ``{v: (module, C)}``."""
        out: dict[str, tuple[str, str]] = {}
        for n in ast.walk(node):
            if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name) \
                    and isinstance(n.value, ast.Call):
                f = n.value.func
                base = f.value if isinstance(f, ast.Attribute) else f
                r = self.prog.resolve_expr(info, base, local)
                if r and r[0] == "class":
                    out[n.targets[0].id] = (r[1], r[2])
        return out

    def _walk_refs(self, info: ModInfo, cls: Optional[str], root: ast.AST, local: dict,
                   types: Optional[dict] = None) -> None:
        types = types or {}
        called = {id(n.func) for n in ast.walk(root) if isinstance(n, ast.Call)}
        for n in ast.walk(root):
            if isinstance(n, ast.Call) and cls is not None \
                    and _unparse(n.func) in ("cls", "self.__class__", "type(self)"):
                self.add_class(info.name, cls)  # a classmethod factory constructs its own class
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
                self._ref(self.prog.resolve_name(info, n.id, local), id(n) in called)
            elif isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Load):
                base = n.value
                if isinstance(base, ast.Name) and base.id in ("self", "cls") and cls is not None:
                    q = self.prog.method(info.name, cls, n.attr)
                    if q:
                        self.add(q)
                        continue
                if isinstance(base, ast.Name) and base.id in types:
                    q = self.prog.method(*types[base.id], n.attr)
                    if q:
                        self.add(q)
                        continue
                if isinstance(base, ast.Name) and base.id in _RECORD_NAMES and n.attr in self.record_methods:
                    self.add(f"{SERVER_ARGS}:ServerArgs.{n.attr}")
                    continue
                r = self.prog.resolve_expr(info, n, local)
                if r is not None:
                    self._ref(r, id(n) in called)


# ---------------------------------------------------------------------------
# Sites and rewrites
# ---------------------------------------------------------------------------

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


def _unparse(node: ast.AST) -> str:
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
                for nm in _target_names(t):
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
                out.append("{" + _unparse(v.value) + "}")
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
    return "{" + _unparse(node) + "}"


def _exc_name(exc: Optional[ast.expr]) -> str:
    if exc is None:
        return ""
    f = exc.func if isinstance(exc, ast.Call) else exc
    return _unparse(f)


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
    f = _unparse(call.func)
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
            t = _unparse(st.test)
            self.block(st.body, conds + [t], fname, handlers)
            self.block(st.orelse, conds + [f"!({t})"], fname, handlers)
        elif isinstance(st, (ast.For, ast.AsyncFor)):
            c = f"FOR {_unparse(st.target)} in {_unparse(st.iter)}"
            self.block(st.body, conds + [c], fname, handlers)
            self.block(st.orelse, conds, fname, handlers)
        elif isinstance(st, ast.While):
            t = _unparse(st.test)
            self.block(st.body, conds + [f"WHILE {t}"], fname, handlers)
            self.block(st.orelse, conds, fname, handlers)
        elif isinstance(st, (ast.With, ast.AsyncWith)):
            self.block(st.body, conds, fname, handlers)
        elif isinstance(st, ast.Try) or type(st).__name__ == "TryStar":
            self.block(st.body, conds, fname, handlers + (1 if st.handlers else 0))
            for h in st.handlers:
                self.block(h.body, conds + [f"EXCEPT {_unparse(h.type) if h.type else ''}".rstrip()], fname, handlers)
            self.block(st.orelse, conds, fname, handlers)
            self.block(st.finalbody, conds, fname, handlers)
        elif isinstance(st, ast.Match):
            subj = _unparse(st.subject)
            for case in st.cases:
                c = f"MATCH {subj} case {_unparse(case.pattern)}"
                if case.guard is not None:
                    c += f" if {_unparse(case.guard)}"
                self.block(case.body, conds + [c], fname, handlers)
        elif isinstance(st, ast.Raise):
            self.sites.append(Site("raise", st, fname, conds, _exc_name(st.exc) or "<re-raise>",
                                   _message(st.exc, self.strings), handlers > 0))
        elif isinstance(st, ast.Assert):
            self.sites.append(Site("assert", st, fname, conds + [f"!({_unparse(st.test)})"], "AssertionError",
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
                              "value": _unparse(value) if value is not None else ""})

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
        f = _unparse(call.func)
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


def _facts(text: str, fields: set[str], params: tuple[str, ...] = ()) -> list[str]:
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


def _expand_locals(conds: list[str], assigns: dict[str, list[str]], depth: int = 2) -> str:
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
            for nm in _target_names(t):
                out.setdefault(nm.id, []).append(_unparse(v))
    return out


def _target_names(t: ast.expr) -> list[ast.Name]:
    """The local names an assignment target binds (not the bases of ``x.attr = ...``)."""
    if isinstance(t, ast.Name):
        return [t]
    if isinstance(t, (ast.Tuple, ast.List)):
        return [n for e in t.elts for n in _target_names(e)]
    if isinstance(t, ast.Starred):
        return _target_names(t.value)
    return []


def classify(site: Site, fields: set[str], assigns: Optional[dict[str, list[str]]] = None,
             params: tuple[str, ...] = (), per_model: bool = False,
             auto: Optional[dict[str, str]] = None) -> tuple[str, str, list[str]]:
    """(class, reason, facts) of a site, from the text of its path condition and of the locals it
    reads; ``params``: the function's parameters (values its callers pass); ``per_model``: the
    function runs only for some architectures (a model-override provider); ``auto``: fields SGLang
    sets from model/GPU facts (attention backends, page size ... when left unset), by rewrite site."""
    text = _expand_locals(site.conds, assigns or {})
    facts = _facts(text, fields, params)
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


# ---------------------------------------------------------------------------
# Building a release
# ---------------------------------------------------------------------------


@dataclass
class Built:
    manifest: dict
    units: dict[str, Any]
    types: set[str]


def _strip_bodies(tree: ast.Module) -> ast.Module:
    """A module's top level with function bodies emptied (they are function units)."""

    class Strip(ast.NodeTransformer):
        def visit_FunctionDef(self, node):  # noqa: N802
            node.body = []
            return node

        visit_AsyncFunctionDef = visit_FunctionDef

    return Strip().visit(copy.deepcopy(tree))


def _base_line(node: ast.AST) -> int:
    lines = [node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])]
    return min(lines)


def field_defaults(source: Source) -> tuple[str, dict, list[str]]:
    project = Project(source)
    sa = project.module(SERVER_ARGS)
    if sa is None:
        raise GenerationError(f"{source.name}: no sglang/srt/server_args.py")
    era, decls = collect_fields(project, sa)
    out: dict[str, Any] = {}
    unknown: list[str] = []
    for f in decls:
        d = f.default()
        if d is _MISSING:
            out[f.name] = None
            unknown.append(f.name)
        elif has_unknown(d) or (jsonable(d) is None and d is not None):
            out[f.name] = None
            unknown.append(f.name)
        else:
            out[f.name] = jsonable(d)
    return era, out, unknown


def release_version(source: Source) -> str:
    """The full version: ``sglang/version.py``, else ``sglang/_version.py`` or the dist-info name
    (unpacked wheels whose ``version.py`` imports ``_version``)."""
    try:
        return source.version()
    except ValueError:
        pass
    text = source.read("sglang/_version.py") or ""
    m = re.search(r"^(?:__version__|version)\s*(?::[^=]*)?=\s*['\"]([^'\"]+)['\"]", text, re.M)
    if m:
        return m.group(1)
    root = source.path
    for d in sorted(root.glob("sglang-*.dist-info")) if root.is_dir() else []:
        return d.name[len("sglang-"):-len(".dist-info")]
    raise ValueError(f"{source.path}: cannot tell the SGLang version")


def build_release(source: Source) -> Built:
    full = release_version(source)
    version = base_version(full)
    era, defaults, unknown = field_defaults(source)
    fields = set(defaults)
    prog = Program(source)
    clo = Closure(prog)
    entry: dict[str, list] = {}
    for name, steps in ENTRY.items():
        if prog.function_node(steps[0]["call"]) is None and name != "cli":
            continue  # the release has no such entry (`sglang serve` is 0.5.x only)
        entry[name] = []
        for st in steps:
            if prog.function_node(st["call"]) is not None:
                entry[name].append(dict(st))
                clo.add(st["call"])
    if prog.class_node(SERVER_ARGS, "ServerArgs") is not None:
        clo.add_class(SERVER_ARGS, "ServerArgs")
    clo.run()
    startup = set(clo.functions)
    for r in LATE_ROOTS:
        clo.add(r)
    for name in LATE_MODULES:
        info = prog.module(name)
        if info is not None:
            clo.add_module(info)
    clo.run()

    enc = Encoder()
    units: dict[str, Any] = {}
    functions: dict[str, dict] = {}
    sites: list[dict] = []
    rewrites: list[dict] = []
    pending: list[tuple] = []
    auto: dict[str, str] = {}  # field -> the first rewrite that sets it from model/GPU facts
    for qual in sorted(clo.functions):
        info, _cls, node = clo.functions[qual]
        base = _base_line(node)
        u = enc.encode(node, base)
        uid = unit_id(u)
        units[uid] = u
        reach = "startup" if qual in startup else "late"
        functions[qual] = {"file": info.rel, "line": base, "unit": uid}
        if reach != "startup":
            functions[qual]["reach"] = reach
        w = SiteWalker(qual, fields)
        w.strings = single_string_assigns(node)
        w.block(node.body, [], qual, 0)
        assigns = local_assigns(node)
        params = tuple(a.arg for a in node.args.posonlyargs + node.args.args + node.args.kwonlyargs
                       if a.arg not in ("self", "cls") and a.arg not in _RECORD_NAMES)
        per_model = ".model_overrides." in qual.split(":")[0] + "."
        pending += [(s, info, reach, assigns, params, per_model) for s in w.sites]
        for r in w.rewrites:
            n = r.pop("node")
            rewrites.append({"field": r["field"], "file": info.rel, "line": n.lineno, "end_line": n.end_lineno,
                             **{k: r[k] for k in ("function", "how", "condition", "value")}})
            # a field SGLang sets from model/GPU facts: checks reading it need those facts
            kinds = {f.split(":")[0] for f in _facts(_expand_locals(r["conds"] + [r["value"]], assigns), fields)}
            if kinds & {"gpu", "model"} and not kinds & {"runtime"}:
                auto.setdefault(r["field"], f"{info.rel}:{n.lineno}")
    for s, info, reach, assigns, params, per_model in pending:
        cls_, reason, facts = classify(s, fields, assigns, params, per_model, auto)
        sites.append({
            "file": info.rel, "line": s.node.lineno, "end_line": s.node.end_lineno,
            "function": s.function, "kind": s.kind, "exception": s.exception, "message": s.message,
            "condition": " && ".join(s.conds), "class": cls_, "reason": reason, "facts": facts,
            "reach": reach, "_conds": s.conds,
        })
    modules: dict[str, dict] = {}
    for name in sorted(clo.modules):
        info = clo.modules[name]
        # relative to the first statement: a module that only shifted keeps its unit
        mbase = info.tree.body[0].lineno if info.tree.body else 1
        u = enc.encode(_strip_bodies(info.tree), mbase)
        uid = unit_id(u)
        units[uid] = u
        modules[name] = {"file": info.rel, "line": mbase, "unit": uid}
    # stable ids (duplicates within the release numbered in source order)
    sites.sort(key=lambda s: (s["file"], s["line"], s["end_line"], s["function"]))
    seen: dict[str, int] = {}
    for s in sites:
        sid = stable_id(s["kind"], s["function"], s.pop("_conds"), s["message"])
        seen[sid] = seen.get(sid, 0) + 1
        s["id"] = sid if seen[sid] == 1 else f"{sid}-{seen[sid]}"
    sites = [{"id": s.pop("id"), **s} for s in sites]
    rewrites.sort(key=lambda r: (r["file"], r["line"], r["field"]))
    coverage = {c: sum(1 for s in sites if s["class"] == c) for c in "abcd"}
    manifest = {
        "notice": f"GENERATED by `python -m {GENERATOR}` from {source.name} -- DO NOT EDIT. Regenerate instead.",
        "format": FORMAT,
        "generator": GENERATOR,
        "python_ast": f"{sys.version_info[0]}.{sys.version_info[1]}",
        "sglang_version": version,
        "sglang_full_version": full,
        "source": source.name,
        "era": era,
        "entry": entry,
        "fields": defaults,
        "unknown_defaults": unknown,
        "modules": modules,
        "functions": functions,
        "sites": sites,
        "rewrites": rewrites,
        "coverage": coverage,
    }
    return Built(manifest, units, enc.types)


def release(source: Source):
    """The in-process ``validation.Release`` for ``source`` (no checked-in data needed)."""
    from .validation import Release

    b = build_release(source)
    return Release(b.manifest, b.units, schema_for(b.types))


# ---------------------------------------------------------------------------
# Writing
# ---------------------------------------------------------------------------


def _gz_write(path: Path, text: str) -> None:
    # mtime=0 and no file name: byte-identical output for identical input
    with open(path, "wb") as raw:
        with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=9) as gz:
            gz.write(text.encode("utf-8"))


def dump_manifest(manifest: dict) -> str:
    return json.dumps(manifest, ensure_ascii=False, separators=(",", ":")) + "\n"


def write(built: list[Built], out: Path) -> None:
    """Write the manifests of ``built`` and re-shard all units of ``out``: each unit in
    ``units-<v>.jsonl.gz`` of the newest release (manifest in ``out``) using it; units no
    manifest uses are dropped."""
    from .validation import UNITS_GLOB, manifest_units, read_store, unit_shards, version_key

    out.mkdir(parents=True, exist_ok=True)
    units: dict[str, Any] = {}
    for path in unit_shards(out).values():
        units.update(read_store(path)[1])
    for b in built:
        units.update(b.units)
        _gz_write(out / f"sglang-{b.manifest['sglang_version']}.json.gz", dump_manifest(b.manifest))
    newest: dict[str, str] = {}
    for p in out.glob("sglang-*.json.gz"):
        with gzip.open(p, "rt", encoding="utf-8") as fh:
            m = json.load(fh)
        v = m["sglang_version"]
        for uid in manifest_units(m):
            if uid not in newest or version_key(v) > version_key(newest[uid]):
                newest[uid] = v
    shards: dict[str, list[str]] = {}
    for uid, v in newest.items():
        shards.setdefault(v, []).append(uid)
    for old in out.glob(UNITS_GLOB):
        if old.name[len("units-"):-len(".jsonl.gz")] not in shards:
            old.unlink()
    for v, uids in shards.items():
        types: set[str] = set()
        for uid in uids:
            unit_types(units[uid], types)
        header = "#schema " + canonical(schema_for(types))  # only what this shard uses: deterministic
        lines = [header] + [f"{uid} {canonical(units[uid])}" for uid in sorted(uids)]
        _gz_write(out / f"units-{v}.jsonl.gz", "\n".join(lines) + "\n")


def generate_many(sources: list[str], out: Path) -> int:
    """Build every release in ``sources`` and write them (and the shared units) to ``out``;
    0, or 1 when some release failed (reported on stderr, the others still written)."""
    status = 0
    built = []
    for src in sources:
        try:
            b = build_release(Source(src))
        except (GenerationError, ValueError, SyntaxError) as exc:
            print(f"{src}: {exc}", file=sys.stderr)
            status = 1
            continue
        built.append(b)
        m = b.manifest
        print(f"{out}/sglang-{m['sglang_version']}.json.gz: {len(m['functions'])} functions, "
              f"{len(m['modules'])} modules, {len(m['sites'])} sites {m['coverage']}, {len(m['rewrites'])} rewrites")
    write(built, out)
    return status


def main(argv: Optional[list[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog=f"python -m {GENERATOR}", description=__doc__.split("\n\n")[0])
    ap.add_argument("sources", nargs="+", help="SGLang wheels or unpacked source trees")
    ap.add_argument("--out", default=str(DATA_DIR), help="output directory")
    args = ap.parse_args(argv)
    return generate_many(args.sources, Path(args.out))


if __name__ == "__main__":
    sys.exit(main())
