"""Dump the option strings of a real SGLang release's CLI parser.

Run inside a throwaway virtualenv that has ``torch==2.13.0`` (CPU build), a
handful of pure-Python packages and the SGLang wheel installed with
``--no-deps`` (see ``README.md`` beside this file)::

    python tests/oracle/dump_option_strings.py --wheel sglang-0.5.4.post3-py3-none-any.whl \
        --out tests/data/option_strings/sglang-0.5.4.json

It builds the parser exactly as that release's ``prepare_server_args`` does
(``argparse.ArgumentParser()`` + ``ServerArgs.add_cli_args(parser)``) and
writes every key of ``parser._option_string_actions`` plus, per option, the
Action's class name, dest, nargs, choices and const.

Modules that cannot exist on a CPU-only machine (CUDA kernels, GPU-only
libraries) are replaced by permissive stub modules; every stubbed module name
is recorded in the dump under ``"stubbed_modules"`` so the stubbing is
auditable.  Only modules outside ``sglang`` are ever stubbed: if SGLang's own
code fails to import, the script fails.
"""

from __future__ import annotations

import argparse
import importlib.abc
import importlib.machinery
import importlib.metadata
import importlib.util
import json
import os
import sys
import types
from pathlib import Path

# Modules known to need a GPU build (never installed in the oracle venv).
GPU_ONLY = {
    "sgl_kernel",
    "flashinfer",
    "triton",
    "torchvision",
    "vllm",
    "deep_gemm",
    "deep_ep",
    "flash_attn",
    "flash_mla",
    "cuda",
    "cutlass",
    "nvidia",
    "pynvml",
    "decord",
    "xformers",
    "mooncake",
    "nixl",
    "aiter",
    "torch_npu",
    "tilelang",
    "quack",
    "cuda_python",
    "kt_kernel",
    "sglang_kernel",
    "flashinfer_python",
}


class _StubAny(types.ModuleType):
    """A module (and value) that answers every attribute."""

    __path__: list = []

    def __getattr__(self, name: str):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        child = _StubAny(f"{self.__name__}.{name}")
        setattr(self, name, child)
        return child

    def __call__(self, *args, **kwargs):
        # Decorators (``@triton.jit``, ``@torch.library.custom_op(...)``) must
        # hand back what they decorate.
        if len(args) == 1 and callable(args[0]) and not kwargs:
            return args[0]
        if not args and not kwargs:
            # Probes such as ``triton.runtime.driver.active.get_current_target()``
            # must fail the way they do without a GPU, so callers take their
            # CPU fallback.
            raise RuntimeError(f"{self.__name__}(): stubbed module (no GPU)")
        return _StubAny(f"{self.__name__}()")

    def __mro_entries__(self, bases):
        return (object,)

    def __iter__(self):
        return iter(())

    def __bool__(self):
        return False

    def __or__(self, other):
        return self

    __ror__ = __or__

    def __getitem__(self, item):
        return self


class _StubDist(importlib.metadata.Distribution):
    """Package metadata for a stubbed module (version 0.0.0), so that
    ``importlib.metadata.version(name)`` probes do not crash."""

    def __init__(self, name: str) -> None:
        self._stub_name = name

    def read_text(self, filename):
        if filename in ("METADATA", "PKG-INFO"):
            return f"Metadata-Version: 2.1\nName: {self._stub_name}\nVersion: 0.0.0\n"
        return None

    def locate_file(self, path):
        return Path("/nonexistent") / str(path)


class _StubFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def __init__(self) -> None:
        self.stubbed: set[str] = set()
        self.this_file = __file__
        self.auto = os.environ.get("SGL_ORACLE_AUTOSTUB", "1") == "1"

    def _importer(self) -> str:
        """``__name__`` of the module whose code runs the import."""
        f = sys._getframe(2)
        while f is not None:
            fn = f.f_code.co_filename
            if "importlib" not in fn and not fn.startswith("<frozen") and fn != self.this_file:
                return str(f.f_globals.get("__name__", ""))
            f = f.f_back
        return ""

    def _should_stub(self, fullname: str) -> bool:
        top = fullname.split(".")[0]
        if top == "sglang":
            return False
        if isinstance(sys.modules.get(top), _StubAny):
            return True  # a submodule of an already stubbed package
        # Only imports made by SGLang's own code are stubbed; third-party
        # packages probing optional dependencies get the real ImportError.
        if not self._importer().startswith("sglang"):
            return False
        if top in GPU_ONLY:
            return True
        if not self.auto:
            return False
        # Never stub a submodule of a real, installed package: a failing
        # ``from pkg import name`` must stay a real error.
        top_mod = sys.modules.get(top)
        if top_mod is not None and not isinstance(top_mod, _StubAny):
            return False
        if top != fullname and top_mod is None:
            return False
        # Anything else that is genuinely missing from the venv.
        for finder in sys.meta_path:
            if finder is self:
                continue
            try:
                if finder.find_spec(fullname, None) is not None:
                    return False
            except Exception:
                continue
        return True

    def find_distributions(self, context=None):
        name = getattr(context, "name", None)
        if name and name.replace("-", "_").lower() in {m.lower() for m in self.stubbed}:
            yield _StubDist(name)

    def find_spec(self, fullname, path, target=None):
        if self._should_stub(fullname):
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        return None

    def create_module(self, spec):
        self.stubbed.add(spec.name.split(".")[0])
        mod = _StubAny(spec.name)
        mod.__spec__ = spec
        mod.__path__ = []
        return mod

    def exec_module(self, module):
        pass


def _warm_up_third_party_probes() -> None:
    """Let transformers answer its "is X available?" probes before any stub
    exists (its answers are cached), so a stub never looks installed to it."""
    try:
        from transformers.utils import import_utils
    except Exception:
        return
    for name in sorted(dir(import_utils)):
        if name.startswith("is_") and name.endswith("_available"):
            fn = getattr(import_utils, name)
            if callable(fn):
                try:
                    fn()
                except Exception:
                    pass


def build_parser(finder: _StubFinder) -> argparse.ArgumentParser:
    from sglang.srt import server_args as sa  # noqa: E402

    # Exactly what prepare_server_args does (prog= does not change options).
    parser = argparse.ArgumentParser()
    sa.ServerArgs.add_cli_args(parser)
    return parser


def _jsonable(v):
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    if isinstance(v, (set, frozenset)):
        return sorted(_jsonable(x) for x in v)
    return repr(v)


def dump(parser: argparse.ArgumentParser) -> dict:
    actions = {}
    for s, act in parser._option_string_actions.items():
        actions[s] = {
            "action": type(act).__name__,
            "dest": act.dest,
            "nargs": _jsonable(act.nargs),
            "choices": _jsonable(list(act.choices) if act.choices is not None and not isinstance(act.choices, (set, frozenset)) else act.choices),
            "const": _jsonable(act.const),
            "option_strings": list(act.option_strings),
        }
    return {"option_strings": sorted(parser._option_string_actions), "actions": dict(sorted(actions.items()))}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--wheel", required=True, help="file name of the wheel installed in this venv (recorded)")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    _warm_up_third_party_probes()
    finder = _StubFinder()
    sys.meta_path.append(finder)
    import sglang  # noqa: F401

    version = getattr(sys.modules.get("sglang.version"), "__version__", None)
    if version is None:
        from sglang.version import __version__ as version
    parser = build_parser(finder)
    data = {
        "sglang": version,
        "wheel": Path(args.wheel).name,
        "source": (
            "option strings registered by this release's own ServerArgs.add_cli_args on "
            "argparse.ArgumentParser(), dumped by tests/oracle/dump_option_strings.py "
            "(including -h/--help and --config)"
        ),
        "python": sys.version.split()[0],
        "stubbed_modules": sorted(finder.stubbed),
        **dump(parser),
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(data, indent=1, sort_keys=False) + "\n", encoding="utf-8")
    print(f"{args.out}: {len(data['option_strings'])} option strings; stubbed: {', '.join(data['stubbed_modules']) or '-'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
