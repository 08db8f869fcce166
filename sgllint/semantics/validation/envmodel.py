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
"""

from __future__ import annotations

import argparse as _argparse
import builtins
import dataclasses
import enum
import functools
import types
import typing

from . import interp
from .domain import Unknown
from .interp import BoundMethod, CachedFunc, Func, UnknownSignal, call_value

ABSENT = object()

#: SGLang helper modules whose platform probes are answered here (the helpers
#: moved from ``sglang.srt.utils`` (<= 0.4.x) to ``sglang.srt.utils.common``)
HELPER_MODULES = ("sglang.srt.utils", "sglang.srt.utils.common", "sglang.srt.platforms",
                  "sglang.srt.utils.device", "sglang.srt.hardware_backend")


class Env:
    """The facts of one launch, read by the model (reads are recorded: a
    module's import is cached by the facts it read)."""

    def __init__(self, facts):
        self.facts = facts
        g = facts.gpu
        self.vendor = g.vendor if g else None
        self.sm = g.sm if g else None
        self.count = g.count if g else None
        self.mem_gib = g.memory_gib if g else None
        self.gpu_name = g.name if g else None
        self.gpu_arch = g.arch if g else None
        self.cuda_version = g.cuda if g else None
        self.env = dict(facts.env or {})
        self.model_config = facts.model_config
        self.model_files = facts.model_files
        path = (facts.user_args or {}).get("model_path")
        self.model_path = path.rstrip("/") if isinstance(path, str) and path.strip("/") else None

    def fact_key(self, name: str):
        """The fact as a module cache compares it (Unknown as "?")."""
        v = self.fact(name)
        return "?" if isinstance(v, Unknown) else v

    def fact(self, name: str):
        rec = interp.RT.recorders
        if name.startswith("env:"):
            v = self.getenv(name[4:])
        else:
            v = getattr(self, name)
        if rec:
            rec[-1].add((name, v if not isinstance(v, Unknown) else "?"))
        return v

    def getenv(self, name: str):
        if name in self.env:
            return self.env[name]
        if name.startswith(("SGLANG_", "SGL_", "ENABLE_", "NCCL_", "TORCH_", "CUDA_LAUNCH")):
            return None
        return Unknown(f"environment variable {name}")


def env() -> Env:
    return interp.RT.env


def _vendor():
    v = env().fact("vendor")
    return Unknown("the GPU vendor") if v is None else v


def _is(vendor_name):
    def probe(*a, **k):
        v = _vendor()
        return v if isinstance(v, Unknown) else v == vendor_name
    return probe


def _sm():
    v = _vendor()
    if isinstance(v, Unknown):
        return v
    if v != "nvidia":
        return Unknown("SM of a non-NVIDIA GPU")
    sm = env().fact("sm")
    return Unknown("the GPU's SM") if sm is None else sm


def _capability(*a, **k):
    v = _vendor()
    if v == "amd":
        return Unknown("capability of an AMD GPU")
    sm = _sm()
    return sm if isinstance(sm, Unknown) else (sm // 10, sm % 10)


def _count(*a, **k):
    c = env().fact("count")
    return Unknown("the GPU count") if c is None else c


def _mem_mib(*a, **k):
    m = env().fact("mem_gib")
    return Unknown("the GPU memory") if m is None else m * 1024


def _sm_eq(major):
    def probe(*a, **k):
        sm = _sm()
        if isinstance(sm, Unknown):
            return False if _vendor() == "amd" else sm
        return sm // 10 == major
    return probe


def _sm_ge(lo):
    def probe(*a, **k):
        sm = _sm()
        if isinstance(sm, Unknown):
            return False if _vendor() == "amd" else sm
        return sm >= lo
    return probe


def _false(*a, **k):
    return False


def _none(*a, **k):
    return None


def _unknown(why):
    return lambda *a, **k: Unknown(why)


def _cuda_available(*a, **k):
    v = _vendor()
    return v if isinstance(v, Unknown) else v in ("nvidia", "amd")


def _device_name(*a, **k):
    n = env().fact("gpu_name")
    return Unknown("the GPU name") if n is None else n


def _props(*a, **k):
    nvidia = _vendor() == "nvidia"
    return types.SimpleNamespace(name=_device_name(), major=_capability()[0] if nvidia else Unknown("major"),
                                 minor=_capability()[1] if nvidia else Unknown("minor"),
                                 total_memory=(_mem_mib() * 1024 * 1024) if not isinstance(_mem_mib(), Unknown)
                                 else Unknown("memory"), multi_processor_count=Unknown("SM count"),
                                 gcnArchName=_gcn_arch())


def _gcn_arch():
    """torch's ``gcnArchName`` on ROCm ("gfx942:sramecc+:xnack-"): SGLang only
    tests substrings of it ("gfx95" in ...), so the known gfx name answers."""
    arch = env().fact("gpu_arch")
    return arch if isinstance(arch, str) and _vendor() == "amd" else Unknown("gcn arch")


def _flashinfer_available(*a, **k):
    if env().fact("env:SGLANG_IS_FLASHINFER_AVAILABLE") in ("false", "0"):
        return False
    v = _vendor()
    return v if isinstance(v, Unknown) else v == "nvidia"


def _gfx95(*a, **k):
    """An AMD gfx95 (MI350/MI355) GPU: the MX-capable ROCm architecture."""
    if _vendor() == "nvidia":
        return False
    arch = _gcn_arch()
    return arch if isinstance(arch, Unknown) else "gfx95" in arch


#: SGLang helpers answered by the model: name -> implementation (in HELPER_MODULES)
REPLACED: dict[str, typing.Callable] = {
    "is_cuda": _is("nvidia"), "is_hip": _is("amd"), "is_rocm": _is("amd"),
    "is_cuda_alike": _cuda_available, "is_npu": _false, "is_xpu": _false, "is_hpu": _false, "is_musa": _false,
    "is_mps": _false, "is_cpu": _false, "is_sail": _false, "use_mlx": _false, "is_host_cpu_x86": lambda *a: True,
    "is_host_cpu_arm64": _false,
    "get_device_sm": lambda *a, **k: _sm() if _vendor() != "amd" else 0,
    "get_device_capability": _capability, "get_device_count": _count, "get_device_core_count": _unknown("cores"),
    "get_nvgpu_memory_capacity": _mem_mib, "get_amdgpu_memory_capacity": _mem_mib,
    "get_device_memory_capacity": _mem_mib,
    "is_sm90_supported": _sm_eq(9), "is_sm100_supported": _sm_eq(10), "is_sm120_supported": _sm_eq(12),
    "is_sm110_supported": _sm_eq(11), "is_sm103_supported": _unknown("SM 10.3"),
    "is_blackwell": _sm_eq(10), "is_blackwell_supported": _sm_ge(100), "is_hopper_with_cuda_12_3": _sm_eq(9),
    "is_flashinfer_available": _flashinfer_available, "cpu_has_amx_support": _false,
    # utils(/common).py of every release that has them (0.5.1+): ``torch.version.hip`` and
    # ``"gfx95" in get_device_properties(0).gcnArchName``, else False
    "is_gfx95_supported": _gfx95, "mxfp_supported": _gfx95,
    "get_device_name": _device_name, "get_device": lambda *a, **k: "cuda" if _vendor() in ("nvidia", "amd")
    else Unknown("device"),
    "get_available_gpu_memory": _unknown("free GPU memory"), "get_free_port": _unknown("a free port"),
    "is_port_available": lambda *a, **k: True, "get_nvidia_driver_version": _unknown("driver"),
    "get_cuda_version": _unknown("CUDA version"), "is_triton_kernels_available": _unknown("triton_kernels"),
    "check_pkg_version_at_least": _unknown("package version"), "get_device_sm_nvidia_smi": lambda *a: _sm(),
    "_get_device_sm_via_nvml": lambda *a: _sm(),
}

#: SGLang helpers that ask the machine at run time (ports, sockets, files): Unknown in any module
RUNTIME_ONLY: dict[str, typing.Callable] = {
    name: _unknown(f"{name}() at run time") for name in (
        "get_free_port_below_ephemeral", "get_free_port", "wait_port_available", "is_port_available_unsafe",
        "get_local_ip_auto", "get_local_ip_by_remote", "get_ip", "get_open_port", "get_zmq_socket",
        "get_ephemeral_port_range", "find_free_port")}
# files of the model other than config.json (generation_config.json, tokenizer, processor)
RUNTIME_ONLY.update({name: _unknown(f"{name}(): a model file other than config.json") for name in (
    "get_generation_config", "get_tokenizer", "get_processor", "get_tokenizer_from_processor",
    "download_from_hf", "get_hf_generation_config")})
RUNTIME_ONLY["is_port_available"] = lambda *a, **k: Unknown("a port's availability")

#: platform probes answered in whichever SGLang module defines them (0.4.x has
#: ``is_sm100_supported`` in ``sglang.srt.layers.utils``)
PROBE_PREFIXES = ("is_sm", "is_cuda", "is_hip", "is_npu", "is_xpu", "is_hpu", "is_musa", "is_blackwell",
                  "is_flashinfer_available", "get_device_sm", "get_device_capability", "is_gfx95")

# --------------------------------------------------------------------------
# Fake external modules
# --------------------------------------------------------------------------


class FakeModule:
    """An external module: listed attributes, callables computed per launch
    (``Dyn``), ``ABSENT`` for attributes that do not exist; anything else Unknown."""

    def __init__(self, name: str, attrs: dict | None = None, strict: bool = False):
        self.__name__ = name
        self._attrs = attrs or {}
        self._strict = strict

    def __getattr__(self, name):
        attrs = object.__getattribute__(self, "_attrs")
        if name.startswith("__") and name.endswith("__") and name not in attrs:
            raise AttributeError(name)
        v = attrs.get(name, ABSENT if self._strict else None)
        if v is None and name not in attrs:
            return Unknown(f"{self.__name__}.{name}")
        if type(v) is Dyn:
            v = v.fn()
        if v is ABSENT:
            raise AttributeError(f"module '{self.__name__}' has no attribute '{name}'")
        return v

    def __repr__(self):
        return f"<modelled module {self.__name__}>"


class Dyn:
    __slots__ = ("fn",)

    def __init__(self, fn):
        self.fn = fn


class UnknownModule(FakeModule):
    """A module outside the derived code: the environment model's answers
    for the helpers it knows by name (``REPLACED``...), anything else Unknown."""

    def __init__(self, name: str, model=None):
        super().__init__(name)
        self._model = model

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        model = object.__getattribute__(self, "_model")
        if model is not None:
            repl = model.replacement(f"{self.__name__}.{name}")
            if repl is not None:
                return repl
        return Unknown(f"{self.__name__}.{name}")


def _absent_unless(vendor):
    def fn():
        v = _vendor()
        if isinstance(v, Unknown):
            return v
        return ABSENT
    return fn


def _torch_cuda_version():
    """``torch.version.cuda``: None off NVIDIA; on NVIDIA the version torch was
    built with, which is the image's choice (cu126, cu129, cu130 builds):
    Unknown unless the launch's facts say."""
    v = _vendor()
    if isinstance(v, Unknown):
        return v
    if v != "nvidia":
        return None
    cuda = env().fact("cuda_version")
    return cuda if isinstance(cuda, str) else Unknown("the CUDA version torch was built with")


def _torch():
    cuda = FakeModule("torch.cuda", {
        "is_available": _cuda_available, "device_count": _count, "get_device_capability": _capability,
        "get_device_name": _device_name, "get_device_properties": _props, "current_device": lambda *a: 0,
        "is_initialized": _false, "mem_get_info": _unknown("free memory"),
    })
    version = FakeModule("torch.version", {
        "cuda": Dyn(_torch_cuda_version),
        "hip": Dyn(lambda: _vendor() if isinstance(_vendor(), Unknown) else ("6.4" if _vendor() == "amd" else None)),
    })
    not_avail = {"is_available": _false, "device_count": lambda *a: 0}
    return FakeModule("torch", {
        "cuda": cuda, "version": version,
        "npu": Dyn(_absent_unless("ascend")), "hpu": Dyn(_absent_unless("intel-gaudi")),
        "musa": Dyn(_absent_unless("musa")),
        "xpu": FakeModule("torch.xpu", dict(not_avail)), "mps": FakeModule("torch.mps", dict(not_avail)),
        "__version__": Unknown("torch version"),
    })


class HFConfig:
    """A model's config.json as the object ``AutoConfig`` returns: keys as
    attributes, nested configs as objects; a key not in the file is Unknown
    (the config class may default it), except the base attributes below."""

    #: ``PretrainedConfig`` attributes every config has (transformers 4.x/5.x)
    BASE = {"architectures": None, "is_encoder_decoder": False, "tie_word_embeddings": True,
            "quantization_config": ABSENT, "compression_config": ABSENT, "text_config": ABSENT,
            "vision_config": ABSENT, "audio_config": ABSENT, "rope_scaling": ABSENT}

    def __init__(self, data: dict, top: bool = True):
        object.__setattr__(self, "_data", dict(data))
        object.__setattr__(self, "_top", top)

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        d = object.__getattribute__(self, "_data")
        if name in d:
            v = d[name]
            if type(v) is dict and name.endswith("_config") and name not in ("quantization_config", "rope_scaling"):
                v = HFConfig(v, top=False)
                d[name] = v
            return v
        if name == "torch_dtype" and "dtype" in d:
            return d["dtype"]
        if name == "dtype" and "torch_dtype" in d:
            return d["torch_dtype"]
        if name.endswith("_config"):
            # a sub-config, or a quantization/compression config, exists when config.json has it
            # (AutoConfig builds them from the file; PretrainedConfig has no such default)
            raise AttributeError(name)
        b = self.BASE.get(name, None)
        if b is ABSENT:
            return Unknown(f"config.{name} (not in config.json)")
        if name in self.BASE:
            return b
        return Unknown(f"config.{name} (not in config.json; the config class may set it)")

    def __setattr__(self, name, value):
        object.__getattribute__(self, "_data")[name] = value

    def to_dict(self):
        return dict(object.__getattribute__(self, "_data"))

    def update(self, d):
        for k, v in d.items():
            setattr(self, k, v)

    def get_text_config(self, *a, **k):
        d = object.__getattribute__(self, "_data")
        if "text_config" in d:
            return self.text_config
        return self


def _from_pretrained(*a, **k):
    cfg = env().fact("model_config")
    if cfg is None:
        return Unknown("the model's config.json")
    path = a[0] if a else k.get("pretrained_model_name_or_path")
    if isinstance(path, str) and "draft" in path.rsplit("/", 1)[-1]:
        return Unknown("the draft model's config.json")
    return HFConfig(cfg)


def _transformers():
    auto = FakeModule("transformers.AutoConfig", {"from_pretrained": _from_pretrained})
    return FakeModule("transformers", {"AutoConfig": auto, "PretrainedConfig": HFConfig,
                                       "PreTrainedConfig": HFConfig})


# ---- logging: a no-op logger --------------------------------------------------------


class _Logger:
    def __getattr__(self, name):
        if name in ("isEnabledFor",):
            return lambda *a, **k: False
        if name in ("level",):
            return 30
        return _noop

    def __setattr__(self, name, value):
        pass


def _noop(*a, **k):
    return None


_LOGGER = _Logger()


def _logging():
    return FakeModule("logging", {"getLogger": lambda *a, **k: _LOGGER, "basicConfig": _noop, "INFO": 20,
                                  "WARNING": 30, "DEBUG": 10, "ERROR": 40, "CRITICAL": 50,
                                  "Logger": _Logger, "Handler": object, "Filter": object, "Formatter": object,
                                  "StreamHandler": object, "info": _noop, "warning": _noop, "debug": _noop,
                                  "error": _noop, "getLevelName": lambda *a: "WARNING"})


# ---- os ----------------------------------------------------------------------------------


class _Environ:
    """``os.environ``: the launch's environment (see ``Env.getenv``); writes
    are kept for the launch."""

    def __init__(self):
        pass

    def _w(self):
        return interp.RT.env_writes

    def get(self, name, default=None):
        w = self._w()
        if name in w:
            v = w[name]
            return default if v is ABSENT else v
        v = env().fact(f"env:{name}")
        return default if v is None else v

    def __getitem__(self, name):
        v = self.get(name, ABSENT)
        if v is ABSENT:
            raise KeyError(name)
        return v

    def __contains__(self, name):
        v = self.get(name, ABSENT)
        if isinstance(v, Unknown):
            raise UnknownSignal()
        return v is not ABSENT

    def __setitem__(self, name, value):
        self._w()[name] = value

    def setdefault(self, name, value):
        v = self.get(name, ABSENT)
        if v is ABSENT:
            self._w()[name] = value
            return value
        return v

    def pop(self, name, default=None):
        v = self.get(name, ABSENT)
        self._w()[name] = ABSENT
        return default if v is ABSENT else v

    def __delitem__(self, name):
        self._w()[name] = ABSENT

    def _known(self):
        # the launch's environment as given (the variables a loop over it can
        # act on are SGLang's, and those not given are unset)
        out = {k: v for k, v in env().env.items()}
        for k, v in self._w().items():
            if v is ABSENT:
                out.pop(k, None)
            else:
                out[k] = v
        return out

    def keys(self):
        return list(self._known())

    def items(self):
        return list(self._known().items())

    def __iter__(self):
        return iter(self._known())

    def copy(self):
        return Unknown("a copy of the environment")


_ENVIRON = _Environ()


def _model_dir_entry(p):
    """What a path is, when it lies in the model directory whose listing the
    launch knows (``LaunchFacts.model_files``: file names, directories with a
    trailing "/"): "dir", "file" or "absent"; None when the listing does not
    answer (another path, or no listing)."""
    e = env()
    if not isinstance(p, str) or e.model_path is None or e.fact("model_files") is None:
        return None
    p = p.rstrip("/")
    if p == e.model_path:
        return "dir"
    prefix = e.model_path + "/"
    name = p[len(prefix):] if p.startswith(prefix) else None
    if not name or "/" in name:
        return None
    return "file" if name in e.model_files else "dir" if name + "/" in e.model_files else "absent"


def _path_exists(p=None, *a, **k):
    cfg = env().fact("model_config")
    if isinstance(p, str) and p.endswith("/config.json") and cfg is not None:
        return True
    entry = _model_dir_entry(p)
    return Unknown(f"whether {p} exists") if entry is None else entry != "absent"


def _path_isfile(p=None, *a, **k):
    entry = _model_dir_entry(p)
    return _path_exists(p) if entry is None else entry == "file"


def _path_isdir(p=None, *a, **k):
    entry = _model_dir_entry(p)
    return Unknown("a directory") if entry is None else entry == "dir"


def _os():
    path = FakeModule("os.path", {
        "join": lambda *a: "/".join(a) if all(isinstance(x, str) for x in a) else Unknown("a path"),
        "exists": _path_exists, "isfile": _path_isfile, "isdir": _path_isdir,
        "isabs": lambda p: p.startswith("/") if isinstance(p, str) else Unknown("a path"),
        "basename": lambda p: p.rstrip("/").rsplit("/", 1)[-1] if isinstance(p, str) else Unknown("a path"),
        "dirname": lambda p: p.rsplit("/", 1)[0] if isinstance(p, str) else Unknown("a path"),
        "expanduser": lambda p: p, "abspath": lambda p: p, "realpath": lambda p: p, "normpath": lambda p: p,
        "splitext": lambda p: tuple(p.rsplit(".", 1)) if isinstance(p, str) and "." in p else (p, ""),
        "getsize": _unknown("a file size"), "sep": "/",
    })
    return FakeModule("os", {
        "environ": _ENVIRON, "getenv": lambda name, default=None: _ENVIRON.get(name, default),
        "path": path, "sep": "/", "cpu_count": _unknown("CPU count"), "getpid": lambda: 1,
        "listdir": _unknown("a directory listing"), "makedirs": _noop, "remove": _noop,
        "access": _unknown("file access"), "R_OK": 4, "W_OK": 2, "X_OK": 1, "name": "posix",
        "sched_getaffinity": _unknown("CPU affinity"), "getcwd": _unknown("cwd"),
        "fspath": lambda p: p,
    })


# ---- importlib ----------------------------------------------------------------------------

#: packages a CUDA install of SGLang depends on (pyproject ``srt`` extra)
CUDA_DEPENDENCIES = {"flashinfer", "sgl_kernel", "flashinfer_python", "sglang"}


def _find_spec(name, *a, **k):
    if not isinstance(name, str):
        return Unknown("a package")
    top = name.split(".")[0]
    if top in CUDA_DEPENDENCIES and _vendor() == "nvidia":
        return types.SimpleNamespace(name=name, origin=Unknown("origin"))
    return Unknown(f"whether package {name} is installed")


def _importlib(program):
    util = FakeModule("importlib.util", {"find_spec": _find_spec})
    metadata = FakeModule("importlib.metadata", {"version": _unknown("a package version"),
                                                 "PackageNotFoundError": type("PackageNotFoundError",
                                                                              (ModuleNotFoundError,), {})})
    return FakeModule("importlib", {"util": util, "metadata": metadata,
                                    "import_module": lambda name, *a: program.import_module(name)})


# ---- argparse: the launch's parsed arguments ----------------------------------------------


class Parser:
    """``argparse.ArgumentParser`` for ``prepare_server_args``: options are
    registered (nothing is parsed); ``parse_args`` answers the launch's
    namespace (the catalog's argparse defaults plus the user's values)."""

    def __init__(self, *a, **k):
        self._actions = []

    def add_argument(self, *a, **k):
        return types.SimpleNamespace(option_strings=list(a), dest=k.get("dest"), default=k.get("default"))

    def add_argument_group(self, *a, **k):
        return self

    def add_mutually_exclusive_group(self, *a, **k):
        return self

    def set_defaults(self, **k):
        pass

    def parse_args(self, argv=None, namespace=None):
        return interp.RT.namespace()

    def parse_known_args(self, argv=None, namespace=None):
        return interp.RT.namespace(), []

    def error(self, message):
        _exit(2)

    def __getattr__(self, name):
        return Unknown(f"ArgumentParser.{name}")


def _argparse_module():
    return FakeModule("argparse", {"ArgumentParser": Parser, "Namespace": _argparse.Namespace,
                                   "Action": _argparse.Action, "SUPPRESS": _argparse.SUPPRESS,
                                   "ArgumentTypeError": _argparse.ArgumentTypeError,
                                   "BooleanOptionalAction": _argparse.BooleanOptionalAction,
                                   "_StoreTrueAction": _argparse._StoreTrueAction,
                                   "_StoreConstAction": _argparse._StoreConstAction,
                                   "_StoreAction": _argparse._StoreAction, "HelpFormatter": _argparse.HelpFormatter,
                                   "ArgumentDefaultsHelpFormatter": _argparse.ArgumentDefaultsHelpFormatter,
                                   "RawTextHelpFormatter": _argparse.RawTextHelpFormatter})


# ---- msgspec (0.5.19+): Struct records ---------------------------------------------------


class _NoDefault:
    def __repr__(self):
        return "NODEFAULT"


NODEFAULT = _NoDefault()


class Struct:
    """``msgspec.Struct``: a record; subclasses get fields from annotations."""

    __struct_fields_info__: tuple = ()

    def __init_subclass__(cls, **kw):
        super().__init_subclass__()
        _make_struct(cls)

    def __setattr__(self, name, value):
        object.__setattr__(self, name, value)


@dataclasses.dataclass
class FieldInfo:
    name: str
    type: object
    default: object = NODEFAULT
    default_factory: object = NODEFAULT
    encode_name: str = ""


@dataclasses.dataclass
class _MsgField:
    default: object = NODEFAULT
    default_factory: object = NODEFAULT
    name: object = None


def _msg_field(*, default=NODEFAULT, default_factory=NODEFAULT, name=None):
    return _MsgField(default, default_factory, name)


def _make_struct(cls, annotations=None, defaults=None):
    fields = []
    seen = set()
    for base in reversed(cls.__mro__[1:]):
        for f in base.__dict__.get("__struct_fields_info__", ()):
            if f.name not in seen:
                fields.append(f)
                seen.add(f.name)
    anns = annotations if annotations is not None else cls.__dict__.get("__annotations__", {})
    for name, ann in anns.items():
        if isinstance(ann, str) and ann.startswith(("ClassVar", "typing.ClassVar")):
            continue
        if defaults is not None:
            d = defaults.get(name, NODEFAULT)
        else:
            d = cls.__dict__.get(name, NODEFAULT)
        df = NODEFAULT
        if isinstance(d, _MsgField):
            d, df = d.default, d.default_factory
        info = FieldInfo(name, ann, d, df, name)
        fields = [f for f in fields if f.name != name] + [info]
        if name in cls.__dict__:
            try:
                delattr(cls, name)
            except (AttributeError, TypeError):
                pass
    cls.__struct_fields_info__ = tuple(fields)
    cls.__struct_fields__ = tuple(f.name for f in fields)
    cls.__init__ = _struct_init


def _struct_init(self, *args, **kwargs):
    fields = type(self).__struct_fields_info__
    for i, a in enumerate(args):
        kwargs[fields[i].name] = a
    for f in fields:
        if f.name in kwargs:
            v = kwargs.pop(f.name)
        elif f.default is not NODEFAULT:
            v = f.default
        elif f.default_factory is not NODEFAULT:
            v = call_value(f.default_factory, (), None)
        else:
            raise TypeError(f"Missing required argument '{f.name}'")
        object.__setattr__(self, f.name, v)
    if kwargs:
        raise TypeError(f"Unexpected keyword argument '{next(iter(kwargs))}'")
    post = getattr(type(self), "__post_init__", None)
    if post is not None:
        call_value(post, (self,), None)


def _defstruct(name, fields, *, bases=None, module=None, namespace=None, **kw):
    ns = dict(namespace or {})
    anns, defaults = {}, {}
    for f in fields:
        if isinstance(f, str):
            anns[f] = typing.Any
        elif len(f) == 2:
            anns[f[0]] = f[1]
        else:
            anns[f[0]] = f[1]
            defaults[f[0]] = f[2]
    ns.pop("__struct_fields_info__", None)
    ns["__annotations__"] = anns
    cls = type(name, tuple(bases or (Struct,)), {k: v for k, v in ns.items() if k not in anns})
    _make_struct(cls, anns, defaults)
    setattr(cls, "$interp", True)
    return cls


def _struct_fields(cls):
    if not isinstance(cls, type):
        cls = type(cls)
    return getattr(cls, "__struct_fields_info__", ())


def _asdict(obj):
    return {f.name: getattr(obj, f.name) for f in _struct_fields(obj)}


def _msgspec():
    structs = FakeModule("msgspec.structs", {"fields": _struct_fields, "asdict": _asdict,
                                             "replace": _struct_replace, "FieldInfo": FieldInfo})
    return FakeModule("msgspec", {"Struct": Struct, "defstruct": _defstruct, "NODEFAULT": NODEFAULT,
                                  "field": _msg_field, "structs": structs, "UNSET": NODEFAULT,
                                  "ValidationError": type("ValidationError", (ValueError,), {})})


def _struct_replace(obj, **changes):
    vals = _asdict(obj)
    vals.update(changes)
    return type(obj)(**vals)


# ---- orjson (an SGLang dependency in every release) ------------------------------------------


def _orjson_loads(data, *a, **k):
    """``orjson.loads`` by the standard parser: orjson is the stricter of the
    two (no NaN, 64-bit integers only), so what json rejects orjson rejects;
    what json accepts is taken as accepted (a miss at worst, never a false
    rejection)."""
    import json

    if isinstance(data, (bytes, bytearray, memoryview)):
        data = bytes(data).decode("utf-8")
    if not isinstance(data, str):
        return Unknown("orjson.loads of a value that is not text")
    return json.loads(data)


def _orjson():
    import json

    return FakeModule("orjson", {"loads": _orjson_loads, "JSONDecodeError": json.JSONDecodeError,
                                 "dumps": lambda obj, *a, **k: json.dumps(obj).encode()})


# ---- typing --------------------------------------------------------------------------------


def _get_type_hints(obj, globalns=None, localns=None, include_extras=False):
    """Evaluate string annotations in the interpreter, in the module that declared them."""
    out = {}
    classes = reversed(obj.__mro__) if isinstance(obj, type) else [obj]
    for c in classes:
        anns = c.__dict__.get("__annotations__", {}) if isinstance(c, type) else getattr(c, "__annotations__", {})
        mod = interp.RT.modules.get(getattr(c, "__module__", ""), None)
        G = getattr(mod, "G", None) if mod is not None else None
        for k, v in anns.items():
            if isinstance(v, str):
                v = _eval_annotation(v, G)
            out[k] = v
    return out


_ANN_CACHE: dict = {}


def _eval_annotation(text, G):
    if G is None:
        return Unknown("an annotation")
    from .program import compile_expression

    key = (id(G), text)
    f = _ANN_CACHE.get(key)
    if f is None:
        try:
            f = compile_expression(text, G, G["$program"])
        except SyntaxError:
            return Unknown("an annotation")
        _ANN_CACHE[key] = f
    try:
        return f(interp.Frame(G, None, G))
    except (interp.Degrade, UnknownSignal):
        raise
    except Exception:  # noqa: BLE001
        return Unknown("an annotation")


def _typing():
    attrs = {k: getattr(typing, k) for k in dir(typing) if not k.startswith("_")}
    attrs["get_type_hints"] = _get_type_hints
    attrs["TYPE_CHECKING"] = False
    return FakeModule("typing", attrs)


# ---- functools / decorators ---------------------------------------------------------------


def _lru_cache(*a, **k):
    if a and callable(a[0]) and not isinstance(a[0], int):
        return CachedFunc(a[0])
    return CachedFunc


def _wraps(wrapped, *a, **k):
    def deco(f):
        return f
    return deco


def _functools():
    attrs = {k: getattr(functools, k) for k in dir(functools) if not k.startswith("_")}
    attrs.update({"lru_cache": _lru_cache, "cache": _lru_cache, "wraps": _wraps, "cached_property": property})
    return FakeModule("functools", attrs)


# ---- sys -----------------------------------------------------------------------------------


def _sys(program):
    return FakeModule("sys", {"modules": _SysModules(program), "version_info": __import__("sys").version_info,
                              "platform": "linux", "argv": Unknown("sys.argv"), "exit": _exit,
                              "maxsize": __import__("sys").maxsize, "stderr": Unknown("stderr"),
                              "stdout": Unknown("stdout"), "float_info": __import__("sys").float_info})


def _exit(code=None):
    e = SystemExit(code)
    interp.RT.explicit.add(id(e))
    interp.RT.keep.append(e)
    raise e


class _SysModules:
    def __init__(self, program):
        self.program = program

    def get(self, name, default=None):
        m = interp.RT.modules.get(name)
        return m if m is not None else Unknown(f"whether {name} is imported")

    def __contains__(self, name):
        if name in interp.RT.modules:
            return True
        raise UnknownSignal()

    def __getitem__(self, name):
        return self.program.import_module(name)


# ---- builtins -------------------------------------------------------------------------------


def _hasattr(obj, name):
    if type(obj) is Unknown or type(name) is Unknown:
        return Unknown("hasattr of an unknown")
    try:
        v = getattr(obj, name)
    except AttributeError:
        return False
    except UnknownSignal:
        return Unknown("hasattr")
    if type(v) is Unknown and isinstance(obj, (HFConfig, FakeModule, Unknown)):
        return Unknown(f"whether {name} is set")
    if type(v) is Unknown and getattr(type(obj), "$unknown_base", False):
        return Unknown(f"whether {name} is set")
    return True


_NOARG = object()


def _getattr(obj, name, default=_NOARG):
    if type(obj) is Unknown:
        return obj
    if type(name) is Unknown:
        return name
    try:
        v = getattr(obj, name)
    except AttributeError:
        if default is _NOARG:
            raise
        return default
    if type(v) is interp.Lazy:
        v = v.force()
    if type(v) is Unknown and default is not _NOARG and isinstance(obj, HFConfig):
        return Unknown(f"config.{name} (not in config.json; default {default!r} or the class's)")
    return v


def _isinstance(obj, cls):
    if type(obj) is Unknown or type(cls) is Unknown:
        return Unknown("isinstance of an unknown")
    if type(cls) is tuple and any(type(c) is Unknown for c in cls):
        return Unknown("isinstance against an unknown class")
    try:
        return isinstance(obj, cls)
    except TypeError:
        return Unknown("isinstance against a modelled class")


def _issubclass(c, cls):
    if type(c) is Unknown or type(cls) is Unknown:
        return Unknown("issubclass of an unknown")
    try:
        return issubclass(c, cls)
    except TypeError:
        return Unknown("issubclass")


def _super(*a):
    if not a:
        raise interp.Degrade("zero-argument super() outside a compiled method")
    return super(*a)


def _open(*a, **k):
    return Unknown("a file's contents")


def _callable(x):
    if type(x) is Unknown:
        return x
    return callable(x)


def _type(*a):
    if len(a) == 1 and type(a[0]) is Unknown:
        return a[0]
    return type(*a)


def _len(x):
    if type(x) is Unknown:
        return x
    if id(x) in interp.TAINTED:
        return Unknown("the length of a collection joined from two paths")
    return len(x)


BUILTINS = dict(builtins.__dict__)
BUILTINS.update({"hasattr": _hasattr, "getattr": _getattr, "isinstance": _isinstance, "issubclass": _issubclass,
                 "print": _noop, "open": _open, "callable": _callable, "len": _len,
                 "input": _open, "exec": _open, "eval": _open, "__import__": _open, "exit": _exit, "quit": _exit})
_getattr.__name__ = "getattr"


# ---- classes -------------------------------------------------------------------------------


def _unknown_getattr(self, name):
    if name.startswith("__") and name.endswith("__"):
        raise AttributeError(name)
    return Unknown(f"{type(self).__name__}.{name} (an unmodelled base class)")


class UnknownBase:
    """Stands for a base class outside the model (torch.nn.Module...)."""


def make_class(name, bases, ns, kws, modqual):
    bases = list(bases)
    unknown_base = False
    for i, b in enumerate(bases):
        if type(b) is Unknown or isinstance(b, FakeModule) or not isinstance(b, type):
            bases[i] = None
            unknown_base = True
    bases = [b for b in bases if b is not None]
    if unknown_base and not bases:
        bases = [UnknownBase]
    if unknown_base and "__getattr__" not in ns:
        ns["__getattr__"] = _unknown_getattr
    ns.pop("__classcell__", None)
    ns.pop("__del__", None)  # finalizers would run outside any launch
    meta = kws.pop("metaclass", None)
    if any(isinstance(b, enum.EnumMeta) for b in bases):
        return _make_enum(name, bases, ns)
    try:
        cls = types.new_class(name, tuple(bases), {}, lambda d: d.update(ns))
    except TypeError:
        cls = type(name, tuple(b for b in bases if b is not Struct) or (object,), ns)
    if unknown_base:
        setattr(cls, "$unknown_base", True)
    setattr(cls, "$interp", True)
    _ = meta
    _set_class_cell(cls, ns)
    return cls


def _set_class_cell(cls, ns):
    for v in ns.values():
        f = v
        if isinstance(v, (staticmethod, classmethod)):
            f = v.__func__
        elif isinstance(v, property):
            for g in (v.fget, v.fset):
                if type(g) is Func:
                    g.__dict__["__class_cell__"] = cls
            continue
        if type(f) is Func:
            f.__dict__["__class_cell__"] = cls


def _make_enum(name, bases, ns):
    meta = type(bases[-1]) if isinstance(bases[-1], enum.EnumMeta) else enum.EnumMeta
    d = meta.__prepare__(name, tuple(bases))
    for k, v in ns.items():
        if k in ("__module__", "__qualname__"):
            dict.__setitem__(d, k, v)
            continue
        if type(v) is Unknown:
            v = f"<unknown {k}>"
        d[k] = v
    cls = meta(name, tuple(bases), d)
    setattr(cls, "$interp", True)
    _set_class_cell(cls, ns)
    return cls


def _auto():
    return enum.auto()


def _enum():
    attrs = {k: getattr(enum, k) for k in dir(enum) if not k.startswith("_")}
    return FakeModule("enum", attrs)


def _dataclass(cls=None, /, **kw):
    """``dataclasses.dataclass`` on an interpreted class: the real one, told
    the class lives in ``typing`` while it reads string annotations (the
    interpreted module is not in ``sys.modules``)."""
    def wrap(c):
        mod = c.__module__
        c.__module__ = "typing"
        try:
            out = dataclasses.dataclass(c, **kw)
        finally:
            c.__module__ = mod
        out.__module__ = mod
        return out
    return wrap if cls is None else wrap(cls)


def _dataclasses():
    attrs = {k: getattr(dataclasses, k) for k in dir(dataclasses) if not k.startswith("_")}
    attrs["dataclass"] = _dataclass
    return FakeModule("dataclasses", attrs)


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


#: where SGLang's ``get_config`` lives: ``sglang.srt.hf_transformers_utils`` (0.4),
#: ``sglang.srt.utils.hf_transformers_utils`` (0.5.0-0.5.1x), ``sglang.srt.utils.hf_transformers.config`` (0.5.2x)
CONFIG_MODULES = ("hf_transformers_utils", "hf_transformers.config")


def _get_config(model=None, trust_remote_code=None, revision=None, model_override_args=None, *a, **k):
    """SGLang's ``get_config``: the model's config.json, with
    ``--json-model-override-args`` applied (``config.update``)."""
    cfg = _from_pretrained(model)
    if model_override_args and isinstance(cfg, HFConfig):
        if not isinstance(model_override_args, dict):
            return Unknown("model override args")
        for key, value in model_override_args.items():
            setattr(cfg, key, value)
    return cfg


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
