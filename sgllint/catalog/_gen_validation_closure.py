"""The start-up call closure of a release: which SGLang functions and modules run at launch.

Part of the validation generator (``_gen_validation``): ``Program`` parses a release's modules
on demand and resolves names statically (imports, classes and their SGLang bases); ``Closure``
follows every reference from the entry steps, transitively, within the limits below (modules of
model execution are not followed; shallow roots keep their body only).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Iterator, Optional

from ._gen_extract import SERVER_ARGS
from ._gen_source import Source
from ._gen_validation_sites import target_names, unparse

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
                            info.consts.update(n.id for n in target_names(t))
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
RECORD_NAMES = {"self", "server_args", "args", "sa", "cfg", "server_arg", "config"}


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
                if any(unparse(b).split(".")[-1] == "Action" for b in st.bases):
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
                    and unparse(n.func) in ("cls", "self.__class__", "type(self)"):
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
                if isinstance(base, ast.Name) and base.id in RECORD_NAMES and n.attr in self.record_methods:
                    self.add(f"{SERVER_ARGS}:ServerArgs.{n.attr}")
                    continue
                r = self.prog.resolve_expr(info, n, local)
                if r is not None:
                    self._ref(r, id(n) in called)
