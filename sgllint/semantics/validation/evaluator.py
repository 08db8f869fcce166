"""``evaluate(LaunchFacts) -> Verdict``: a release's start-up path run on a
launch by the abstract interpreter, in SGLang's order:

``prepare_server_args(argv)`` (argparse answered by the launch's namespace;
<= 0.5.18 validate in ``ServerArgs.__post_init__``), ``resolve_once()``
(0.5.19+), ``check_server_args()``, ``PortArgs.init_new()`` -- what
``Engine._launch_subprocesses`` runs on the arguments before a model loads.
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import os
import re
import threading
from pathlib import Path

from . import interp
from .domain import TAINTED, Unknown
from .envmodel import Env, EnvModel, install_builtins
from .facts import LaunchFacts, Rewrite, SiteHit, Verdict
from .interp import Degrade, Level, Run, UnknownSignal, call_value
from .program import Program, SourceTree

_LOCK = threading.RLock()
_PROGRAMS: dict[str, Program] = {}


def _wheel_sources() -> Path | None:
    """Unpacked SGLang wheels (``<dir>/<version>/sglang/...``), for developing
    the evaluator before a release's derived data is checked in: only when
    ``SGLLINT_SGLANG_SOURCES`` names them (a linter reads nothing else)."""
    d = os.environ.get("SGLLINT_SGLANG_SOURCES")
    return Path(d) if d else None


def _source_for(release: str):
    """The release's start-up code: the generated IR when present, else the
    unpacked wheel's source tree (``SGLLINT_SGLANG_SOURCES``)."""
    from . import ir

    src = ir.load(release)
    if src is not None:
        return src
    root = _wheel_sources()
    if root is not None and root.is_dir():
        for d in sorted(root.iterdir()):
            if d.name == release or d.name.startswith(release + ".post") or d.name.startswith(release + "rc"):
                return SourceTree(d)
    return None


def program(release: str, source=None) -> Program | None:
    """The release's compiled program (loaded lazily, once); ``source``
    overrides where its modules come from (tests)."""
    with _LOCK:
        p = _PROGRAMS.get(release) if source is None else None
        if p is None:
            src = source if source is not None else _source_for(release)
            if src is None:
                return None
            holder: list = []
            p = Program(release, src, EnvModel(lambda: holder[0]))
            holder.append(p)
            if source is None:
                _PROGRAMS[release] = p
        return p


def _catalog_defaults(release: str) -> dict:
    from sgllint import catalog

    cat = catalog.load(release)
    out = {}
    for o in cat.options:
        if o.dest and o.dest != "help" and o.dest not in out:
            out[o.dest] = o.default
    return out


_DEFAULTS: dict[str, dict] = {}


def _by_dest(user_args: dict, release: str) -> dict:
    """The user's fields under their argparse dests (``tp_size`` is parsed
    into ``tensor_parallel_size`` in 0.4.x, which ``from_cli_args`` copies back)."""
    from sgllint import catalog

    cat = catalog.load(release)
    out = dict(user_args)
    for field, value in user_args.items():
        o = cat.option_for_field(field) if hasattr(cat, "option_for_field") else None
        if o is not None and o.dest:
            out[o.dest] = value
    return out


def _argv_for(user_args: dict, release: str) -> list[str]:
    """A command line for the user's fields (SGLang reads argv for a few
    "was this flag given" questions)."""
    from sgllint import catalog

    cat = catalog.load(release)
    argv: list[str] = []
    for field, value in user_args.items():
        o = cat.option_for_field(field) if hasattr(cat, "option_for_field") else None
        flag = o.name if o is not None else "--" + field.replace("_", "-")
        argv.append(flag)
        if o is None or o.takes_value:
            argv.append(value if isinstance(value, str) else json.dumps(value))
    return argv


def evaluate(facts: LaunchFacts, program_: Program | None = None) -> Verdict:
    """Run the release's start-up validation on ``facts`` (``program_``:
    another program than the release's, e.g. in tests)."""
    prog = program_ or program(facts.release)
    if prog is None:
        return Verdict(degraded=f"no derived validation for SGLang {facts.release}")
    with _LOCK:
        size = _program_size(prog)
        verdict = _evaluate(prog, facts)
        if _program_size(prog) != size:
            _settle_heap()
        return verdict


def _program_size(prog: Program) -> tuple[int, int]:
    return len(prog.compiled), sum(len(v) for v in prog.instances.values())


def _settle_heap() -> None:
    """After a launch that compiled or instantiated modules: move what is alive
    out of the cyclic collector's generations (``gc.freeze``). A compiled
    release and its module instances (millions of closures and AST nodes)
    live as long as the process; left in the oldest generation, each full
    collection -- about one every two launches -- traversed all of them, some
    40% of a launch's time. The launch's own state is dropped and collected
    first, so no garbage is frozen."""
    interp.set_run(None)
    gc.collect()
    gc.freeze()


def _evaluate(prog: Program, facts: LaunchFacts) -> Verdict:
    # long on purpose: SGLang's start-up entry steps in their order, each guarded for degradation the same way
    install_builtins()
    rt = Run(Env(facts))
    rt.modules = {}
    rt.recorders = []
    rt.env_writes = {}
    defaults = _DEFAULTS.get(facts.release)
    if defaults is None:
        defaults = _DEFAULTS[facts.release] = _catalog_defaults(facts.release)
    ns_values = {**defaults, **_by_dest(facts.user_args, facts.release)}
    rt.namespace = lambda: argparse.Namespace(**ns_values)
    interp.set_run(rt)
    TAINTED.clear()
    interp._depth[0] = 0
    verdict = Verdict()
    rt.base = Level()
    obj = None
    try:
        sa = prog.import_module("sglang.srt.server_args")
        rt.watch = interp.get_attr(sa, "ServerArgs")  # where a write to a field is a rewrite
        stage = "prepare_server_args"
        try:
            argv = _argv_for(facts.user_args, facts.release)
            prep = interp.get_attr(sa, "prepare_server_args")
            if type(prep) is Unknown:
                raise Degrade("prepare_server_args is not in the start-up code")
            obj = call_value(prep, (argv,), None)
            for stage in ("resolve_once", "check_server_args"):
                m = getattr(type(obj), stage, None) if not isinstance(obj, Unknown) else None
                if m is not None:
                    call_value(getattr(obj, stage), (), None)
            stage = "PortArgs.init_new"
            port_args = interp.get_attr(sa, "PortArgs")
            if type(port_args) is not Unknown:
                try:
                    call_value(interp.get_attr(port_args, "init_new"), (obj,), None)
                except (Degrade, UnknownSignal) as d:
                    # ports and IPC names are run-time facts; the record is final by now,
                    # so what this stage cannot follow leaves the verdict on the fields intact
                    verdict.notes.append(f"PortArgs.init_new not followed: {getattr(d, 'why', 'unknown value')}")
        except (Degrade, UnknownSignal):
            raise
        except BaseException as e:  # noqa: BLE001 - SGLang raising is the verdict
            site = rt.sites.get(id(e))
            if site is None or id(e) in rt.uncertain:
                verdict.notes.append(f"{stage}: {type(e).__name__}: {e} (site unknown)")
                if site is not None:
                    verdict.possible.append(_hit(site, e, "one of two paths"))
            elif rt.tainted is not None:
                verdict.possible.append(_hit(site, e, f"after {rt.tainted}"))
            elif id(e) not in rt.explicit:
                # an operation raised (TypeError, AttributeError, KeyError...), not SGLang's own
                # raise/assert: as likely a gap of the model as a real failure -- possible only
                verdict.possible.append(_hit(site, e, f"an implicit {type(e).__name__} in {stage}"))
            else:
                verdict.rejection = _hit(site, e)
    except Degrade as d:
        verdict.degraded = d.why
        verdict.notes.append("degraded at " + " <- ".join(f"{f}:{ln}" for f, ln, _e in d.trace[:12]))
    except UnknownSignal:
        verdict.degraded = "an unknown value reached a native operation"
    finally:
        try:
            for site, e, why in rt.possible:
                verdict.possible.append(_hit(site, e, why))
            if rt.tainted is not None:
                verdict.notes.append(f"no definite result after: {rt.tainted}")
            if verdict.rejection is None and verdict.degraded is None and obj is not None and rt.tainted is None:
                verdict.rewrites = _rewrites(rt, obj, facts, verdict.unknown_fields)
        except (Degrade, UnknownSignal) as d:
            verdict.degraded = getattr(d, "why", "rewrites not known")
        finally:
            rt.restore_launch()
            rt.levels = []
    return verdict


def _message(e) -> str:
    try:
        args = getattr(e, "args", ())
        if args and type(args[0]) is Unknown:
            return args[0].why
        return str(e)
    except Exception:  # noqa: BLE001
        return type(e).__name__


def _hit(site, e, why: str = "") -> SiteHit:
    file, line, end = site
    msg = _message(e)
    return SiteHit(file=file, line=line, end_line=end, id=_site_id(file, line), message=msg,
                   exc=type(e).__name__, why=why)


def _site_id(file: str, line: int) -> str:
    from . import ir

    rt = interp.RT
    return ir.site_id(file, line, getattr(getattr(rt, "env", None), "facts", None) and rt.env.facts.release)


# --------------------------------------------------------------------------
# Rewrites
# --------------------------------------------------------------------------


def _jsonable(v):
    import enum

    if v is None or isinstance(v, (bool, int, str)):
        return v
    if isinstance(v, float):
        return v if math.isfinite(v) else repr(v)
    if isinstance(v, enum.Enum):
        return _jsonable(v.value)
    if isinstance(v, (list, tuple, set, frozenset)):
        items = [_jsonable(x) for x in v]
        return sorted(items, key=repr) if isinstance(v, (set, frozenset)) else items
    if isinstance(v, dict):
        return {str(k): _jsonable(x) for k, x in v.items()}
    if type(v) is Unknown:
        raise ValueError("unknown")
    return re.sub(r"\b[0-9a-f]{32}\b", "<uuid>", re.sub(r" at 0x[0-9a-fA-F]+", "", repr(v)))


def _contains_unknown(v, depth=0) -> bool:
    if type(v) is Unknown:
        return True
    if depth > 4:
        return False
    if isinstance(v, (list, tuple, set, frozenset)):
        return any(_contains_unknown(x, depth + 1) for x in v)
    if isinstance(v, dict):
        return any(_contains_unknown(x, depth + 1) for x in v.values())
    return False


def _same(parsed, final) -> bool:
    if parsed == final:
        return True
    if not (isinstance(parsed, list) and isinstance(final, list)):
        return False
    return sorted(map(repr, parsed)) == sorted(map(repr, final))


def _final_reader(rt, obj):
    """Where the final value of a field is read: ``resolved_view`` where the
    release has it (resolution writes declarations), else the record."""
    prog_mods = rt.modules
    base = prog_mods.get("sglang.srt.arg_groups.model_override_base")
    view = None
    if base is not None and hasattr(base, "G") and "resolved_view" in base.G:
        try:
            view = call_value(interp.get_attr(base, "resolved_view"), (obj,), None)
        except (Degrade, UnknownSignal):
            raise
        except Exception:  # noqa: BLE001
            view = None
    target = view if view is not None and type(view) is not Unknown else obj

    def read(field):
        try:
            return getattr(target, field)
        except (Degrade, UnknownSignal):
            raise
        except Exception:  # noqa: BLE001
            return getattr(obj, field)
    return read


def _rewrites(rt, obj, facts: LaunchFacts, unknown: list) -> list[Rewrite]:
    if type(obj) is Unknown:
        return []
    read = _final_reader(rt, obj)
    out = []
    for field, value in facts.user_args.items():
        if not hasattr(type(obj), "__struct_fields_info__") and field not in getattr(obj, "__dict__", {}) \
                and not hasattr(obj, field):
            continue
        try:
            final = read(field)
        except (Degrade, UnknownSignal):
            unknown.append(field)
            continue
        if _contains_unknown(final):
            unknown.append(field)
            continue
        try:
            a, b = _jsonable(value), _jsonable(final)
        except ValueError:
            continue
        if not _same(a, b):
            file, line = rt.writes.get(field, ("", 0))
            out.append(Rewrite(field=field, user_value=value, final_value=b, file=file, line=line,
                               reason="SGLang's start-up code assigns it"))
    return out
