"""A release's start-up code as a program the interpreter runs: module
sources (``ast``), compiled once per release; module instances created on
import and cached across launches by the facts their import read."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Callable

from . import interp
from .domain import Unknown
from .interp import Compiler, Frame, Lazy, Scope, _bound_names


class Mod:
    """An interpreted module: its globals."""

    def __init__(self, name: str, file: str, G: dict):
        self.__name__ = name
        self.__file__ = file
        self.G = G

    def __getattr__(self, attr):
        if attr.startswith("__") and attr.endswith("__"):
            raise AttributeError(attr)
        G = object.__getattribute__(self, "G")
        v = G.get(attr, interp._MISSING)
        if v is interp._MISSING:
            prog = G.get("$program")
            if prog is not None and prog.has_module(f"{self.__name__}.{attr}"):
                return prog.import_module(f"{self.__name__}.{attr}")
            if prog is not None:
                repl = prog.replacement(f"{self.__name__}.{attr}")
                if repl is not None:
                    return repl
            return Unknown(f"{self.__name__}.{attr} is not in the start-up code")
        if type(v) is Lazy:
            interp.touch(G)
            v = v.force()
            G[attr] = v
        return v

    def __repr__(self):
        return f"<interpreted module {self.__name__}>"


class SourceTree:
    """Module sources from an unpacked wheel (``<dir>/<version>``)."""

    def __init__(self, root: Path):
        self.root = Path(root)
        self._cache: dict[str, tuple | None] = {}

    def find(self, modname: str):
        if modname in self._cache:
            return self._cache[modname]
        rel = Path(*modname.split("."))
        out = None
        for p, pkg in ((self.root / rel / "__init__.py", True), (self.root / rel.with_suffix(".py"), False)):
            if p.is_file():
                out = (str(p.relative_to(self.root)).replace("\\", "/"), ast.parse(p.read_text(encoding="utf-8")), pkg)
                break
        self._cache[modname] = out
        return out

    def exists(self, modname: str) -> bool:
        return self.find(modname) is not None


class DictSource:
    """Module sources given as text (tests; small hand-made programs)."""

    def __init__(self, sources: dict[str, str]):
        self.sources = dict(sources)
        self._cache: dict[str, tuple | None] = {}

    def find(self, modname: str):
        if modname not in self._cache:
            text = self.sources.get(modname)
            pkg = any(k.startswith(modname + ".") for k in self.sources)
            if text is None and pkg:
                text = ""
            self._cache[modname] = None if text is None else (
                modname.replace(".", "/") + ("/__init__.py" if pkg else ".py"), ast.parse(text), pkg)
        return self._cache[modname]

    def exists(self, modname: str) -> bool:
        return self.find(modname) is not None


class Program:
    """One release's code: compiled modules and their instances."""

    def __init__(self, release: str, source, env_model):
        self.release = release
        self.source = source
        self.env_model = env_model
        self.compiled: dict[str, tuple] = {}
        self.instances: dict[str, list] = {}
        self.loading: dict[str, Mod] = {}

    # ---- what the compiler calls ----------------------------------------------------
    def has_module(self, modname: str) -> bool:
        return self.source.exists(modname)

    def _compile(self, modname: str):
        c = self.compiled.get(modname)
        if c is None:
            found = self.source.find(modname)
            if found is None:
                self.compiled[modname] = c = (None, None, False)
            else:
                file, tree, pkg = found
                scope = Scope("module", None)
                _bound_names(tree.body, scope)
                comp = Compiler(modname, file, self)
                c = (file, comp.block(tree.body, scope), pkg)
                self.compiled[modname] = c
        return c

    def import_module(self, modname: str):
        rt = interp.RT
        mods = rt.modules
        m = mods.get(modname)
        if m is not None:
            return m
        ext = self.env_model.module(modname)
        if ext is not None:
            mods[modname] = ext
            return ext
        if not modname.startswith("sglang"):
            m = self.env_model.unknown_module(modname)
            mods[modname] = m
            return m
        if "." in modname:  # the parent package first, as Python does
            parent = modname.rsplit(".", 1)[0]
            if parent not in mods:
                self.import_module(parent)
        if modname in self.loading:
            return self.loading[modname]
        env = rt.env
        for reads, inst in self.instances.get(modname, ()):
            if all(env.fact_key(k) == v for k, v in reads):
                mods[modname] = inst
                if rt.recorders:
                    rt.recorders[-1].update(reads)
                return inst
        file, body, pkg = self._compile(modname)
        if body is None:
            m = self.env_model.unknown_module(modname)
            mods[modname] = m
            return m
        G = {"__name__": modname, "__file__": file, "$program": self}
        m = Mod(modname, file, G)
        self.loading[modname] = m
        mods[modname] = m
        saved_levels, saved_base = rt.levels, rt.base
        rt.levels, rt.base = [], None
        rt.recorders.append(set())
        n_possible = len(rt.possible)
        try:
            body(Frame(G, None, G))
        except (interp.Degrade, interp.UnknownSignal):
            raise
        except Exception as e:  # noqa: BLE001 - an import that fails at lint time: its names are Unknown
            G.setdefault("$import_error", f"{type(e).__name__}: {e}")
        finally:
            reads = rt.recorders.pop()
            del rt.possible[n_possible:]  # what an import might raise is not the launch's
            rt.levels, rt.base = saved_levels, saved_base
            del self.loading[modname]
        if rt.recorders:
            rt.recorders[-1].update(reads)
        self.instances.setdefault(modname, []).append((tuple(sorted(reads, key=repr)), m))
        if "." in modname:  # bind the submodule on its package
            parent = mods.get(modname.rsplit(".", 1)[0])
            if isinstance(parent, Mod):
                parent.G.setdefault(modname.rsplit(".", 1)[1], m)
        return m

    def import_from(self, modname: str, name: str, lazy: bool = True):
        m = self.import_module(modname)
        if isinstance(m, Mod):
            G = m.G
            if name in G:
                v = G[name]
                return v.force() if type(v) is Lazy and not lazy else v
            if self.has_module(f"{modname}.{name}"):
                return self.import_module(f"{modname}.{name}")
            if modname in self.loading and lazy:
                return Lazy(self, modname, name)
            repl = self.replacement(f"{modname}.{name}")
            if repl is not None:
                return repl
            return Unknown(f"{modname}.{name} is not in the start-up code")
        return interp.get_attr(m, name)

    def replacement(self, modqual: str):
        return self.env_model.replacement(modqual)

    def make_class(self, name, bases, ns, kws, modqual):
        return self.env_model.make_class(name, bases, ns, kws, modqual)


def compile_expression(text: str, G: dict, hooks) -> Callable:
    """An annotation or other source string, compiled against module globals ``G``."""
    tree = ast.parse(text, mode="eval")
    comp = Compiler(G.get("__name__", "?"), G.get("__file__", "?"), hooks)
    return comp.expr(tree.body, Scope("module", None))
