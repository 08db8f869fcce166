"""The environment model: the only hand-written knowledge of the evaluator.

SGLang's start-up code asks its platform (torch's device queries, vendor
tools), its environment variables, installed packages, the file system and
the model's Hugging Face config. None of that runs at lint time; this module
answers each question from the launch's facts (``LaunchFacts``: the GPU, the
environment, the model's ``config.json``) or with ``Unknown``. A question not
listed here is Unknown, never an error.

Everything is keyed by what SGLang calls, with the releases it applies to:

* ``torch`` (all releases): ``torch.cuda.is_available/device_count/
  get_device_capability/get_device_name/get_device_properties/mem_get_info``,
  ``torch.version.cuda/hip`` -> the GPU facts; ``torch.npu``/``torch.hpu``
  absent, ``torch.xpu``/``torch.mps`` not available (a CUDA or ROCm node);
  everything else of torch is Unknown.
* ``os.environ``/``os.getenv``: the launch's environment; an ``SGLANG_``/
  ``SGL_`` variable not given is unset (the linted launch sets none), any
  other variable is Unknown. ``os.path.*`` and other file-system probes:
  Unknown, except ``<model>/config.json`` (present when the config is known).
* installed packages (``importlib.util.find_spec``, ``importlib.metadata``):
  SGLang's own CUDA dependencies (``flashinfer``, ``sgl_kernel``) are present on
  NVIDIA; anything else is Unknown.
* SGLang helpers whose bodies read the machine directly (``subprocess`` of
  ``nvidia-smi``/``rocminfo``, NVML): ``REPLACED`` below, by module and name.
* ``transformers.AutoConfig.from_pretrained`` and SGLang's ``get_config``: the
  model's ``config.json`` as an object (``HFConfig``); an attribute the JSON does
  not have is Unknown (the config class may default it), except the
  ``PretrainedConfig`` base attributes below.
* ``logging``/``warnings``/``print``: no-ops. ``msgspec``: ``Struct``/``defstruct``/
  ``structs.fields`` as plain records (0.5.19+).

The package is split by concern: ``launch`` (the facts read), ``fake_modules`` (how an external
module is presented), ``gpu`` (torch and SGLang's platform probes), ``hf_config`` (the model's
config), ``libraries`` (logging, os, importlib, argparse, msgspec, typing, functools, sys),
``language`` (builtins and class construction); this module answers the interpreter's questions
(``EnvModel``) from them.
"""

from __future__ import annotations

from .. import interp
from ..domain import Unknown
from ..interp import BoundMethod, Func
from .fake_modules import FakeModule, UnknownModule, _noop
from .gpu import HELPER_MODULES, PROBE_PREFIXES, REPLACED, RUNTIME_ONLY, _torch
from .hf_config import CONFIG_MODULES, HFConfig, _get_config, _transformers
from .language import BUILTINS, _dataclasses, _enum, make_class
from .launch import Env
from .libraries import _argparse_module, _functools, _importlib, _logging, _msgspec, _orjson, _os, _sys, _typing

# --------------------------------------------------------------------------
# The model as the program sees it
# --------------------------------------------------------------------------

#: pure standard-library modules the start-up code may use as they are
REAL_MODULES = {"math", "json", "re", "itertools", "collections", "copy", "operator", "string", "textwrap",
                "abc", "numbers", "types", "contextlib", "collections.abc", "fnmatch", "shlex", "difflib",
                "keyword", "heapq", "bisect", "decimal", "fractions", "statistics", "pprint", "reprlib",
                "__future__", "weakref", "inspect", "ast", "urllib", "urllib.parse", "ipaddress", "datetime",
                "uuid", "hashlib", "base64", "random", "struct"}


class EnvModel:
    """What ``Program`` asks: external modules, replacements, classes."""

    def __init__(self, program_ref):
        self.program_ref = program_ref
        self._mods: dict[str, object] = {}

    def module(self, name: str):
        m = self._mods.get(name)
        if m is not None:
            return m
        prog = self.program_ref()
        top = name.split(".")[0]
        if name in REAL_MODULES:
            if name in ("inspect", "ast"):
                m = FakeModule(name, {})
            else:
                m = __import__(name, fromlist=["_"])
        elif top == "torch":
            t = _torch()
            m = t if name == "torch" else _sub(t, name)
        elif top == "transformers":
            t = _transformers()
            m = t if name == "transformers" else UnknownModule(name)
        elif name == "logging" or top == "logging":
            m = _logging()
        elif name == "os" or name == "os.path":
            o = _os()
            m = o if name == "os" else o.path
        elif name == "importlib" or top == "importlib":
            i = _importlib(prog)
            m = i if name == "importlib" else getattr(i, name.split(".")[1], UnknownModule(name))
        elif name == "argparse":
            m = _argparse_module()
        elif top == "msgspec":
            ms = _msgspec()
            m = ms if name == "msgspec" else getattr(ms, name.split(".")[1])
        elif name == "orjson":
            m = _orjson()
        elif name in ("typing", "typing_extensions"):
            m = _typing()
        elif name == "functools":
            m = _functools()
        elif name == "sys":
            m = _sys(prog)
        elif name == "enum":
            m = _enum()
        elif name == "dataclasses":
            m = _dataclasses()
        elif name == "warnings":
            m = FakeModule("warnings", {"warn": _noop, "filterwarnings": _noop, "simplefilter": _noop,
                                        "catch_warnings": Unknown("warnings")})
        elif name == "builtins":
            m = FakeModule("builtins", BUILTINS)
        else:
            return None
        self._mods[name] = m
        return m

    def unknown_module(self, name: str):
        return UnknownModule(name, self)

    def replacement(self, modqual: str):
        mod, _, name = modqual.rpartition(".")
        if name in RUNTIME_ONLY and mod.startswith("sglang."):
            return RUNTIME_ONLY[name]
        if name in REPLACED and (mod in HELPER_MODULES or mod.startswith("sglang.srt.platforms")
                                 or (mod.startswith("sglang.") and name.startswith(PROBE_PREFIXES))):
            return REPLACED[name]
        if name == "add_cli_args" and mod.endswith("server_args.ServerArgs"):
            return staticmethod(_noop)
        if name in ("get_config", "get_hf_config") and mod.endswith(CONFIG_MODULES):
            return _get_config
        return None

    def make_class(self, name, bases, ns, kws, modqual):
        return make_class(name, bases, ns, kws, modqual)


def _sub(m, name):
    for part in name.split(".")[1:]:
        m = getattr(m, part)
        if type(m) is Unknown:
            return UnknownModule(name)
    return m


def install_builtins():
    interp._BUILTINS_MODEL.clear()
    interp._BUILTINS_MODEL.update(BUILTINS)
    interp._DECORATORS[id(staticmethod)] = staticmethod
    interp._DECORATORS[id(classmethod)] = classmethod
    interp._DECORATORS[id(property)] = property


__all__ = ["Env", "EnvModel", "HFConfig", "install_builtins", "BoundMethod", "Func"]
