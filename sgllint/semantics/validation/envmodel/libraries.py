"""The libraries SGLang's start-up code imports, modelled: ``logging`` (a no-op logger),
``os`` (the launch's environment; file-system probes Unknown), ``importlib`` (installed
packages), ``argparse`` (the launch's parsed arguments), ``msgspec`` records (0.5.19+),
``typing``, ``functools`` and ``sys``."""

from __future__ import annotations

import argparse as _argparse
import dataclasses
import functools
import types
import typing

from .. import interp
from ..domain import Unknown
from ..interp import CachedFunc, UnknownSignal, call_value
from .fake_modules import ABSENT, FakeModule, _noop, _unknown
from .gpu import _vendor
from .launch import env


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


_orjson_loads.exact_parser = True  # a rejection of a concrete text is SGLang's (runtime.call_value)


def _orjson():
    import json

    return FakeModule("orjson", {"loads": _orjson_loads, "JSONDecodeError": json.JSONDecodeError,
                                 "dumps": lambda obj, *a, **k: json.dumps(obj).encode()})


def _struct_replace(obj, **changes):
    vals = _asdict(obj)
    vals.update(changes)
    return type(obj)(**vals)


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
    from ..program import compile_expression

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
