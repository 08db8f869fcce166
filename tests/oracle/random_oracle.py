"""Random differential oracle (issue 17): SGLang's own verdict on seeded random
launches (``random_launches.py``), per release, recorded as a compressed
fixture ``tests/data/oracle/random/random-<release>.json.gz`` that CI replays
without SGLang (``tests/test_random_differential.py``).

Runs inside an oracle virtualenv with one release's wheel on PYTHONPATH; never
imports sgllint (the generator reads the catalog as plain JSON). Driver:
``run_random_oracle.sh``::

    PYTHONPATH=$SITE/0.5.23 python tests/oracle/random_oracle.py --release 0.5.23 \
        --wheel sglang-0.5.23-....whl --out tests/data/oracle/random/random-0.5.23.json.gz

How a case is judged
--------------------
* One group process per faked GPU (``random_launches.GPUS``: A100, H100, B200,
  an SM120 RTX PRO 6000, AMD MI300X), set up by ``_harness.enter_group`` like
  the other oracles: the GPU is faked before SGLang is imported (``fake_gpu``
  below: ``torch.cuda`` answers, ``torch.version.cuda``/``hip``), a fake
  ``nvidia-smi`` (NVIDIA) or fake ``rocminfo``/``rocm-smi``/``amd-smi`` (AMD)
  first on ``PATH``, the stub finder, one import of ``sglang.srt.server_args``.
* The GPU count of a case (1/2/4/8) is set in its fork, before anything runs:
  ``torch.cuda.device_count()`` and the fake tools read ``ORACLE_FAKE_GPU_COUNT``.
* Each case runs in a fresh ``os.fork()`` through what SGLang's launch runs on
  the arguments before it loads a model (``launch_server.py`` ->
  ``http_server.launch_server`` -> ``Engine._launch_subprocesses``), in order:
  ``prepare_server_args(argv)`` (argparse + ``ServerArgs``; <= 0.5.18 validate
  in ``__post_init__``), ``resolve_once()`` (0.5.19+), ``check_server_args()``,
  ``PortArgs.init_new()``. Not run: ``_set_envs_and_config`` (environment
  variables and version checks of the stubbed kernel packages),
  ``prepare_model_and_tokenizer`` (<= 0.5.4: a download for non-local paths),
  ``resolve_auto_parsers`` (0.5.15+: loads the tokenizer, which the model
  directories do not have), ``publish`` and what spawns processes.
* Recorded: ``accepted`` (plus ``rw``: every user-given field whose final value
  -- through ``resolved_view`` where the release has it -- differs from the
  value argparse gave it, ``[parsed, final]`` JSON-safe) or ``rejected``
  (``stage``, exception class, first line of the message, ``at``: the innermost
  ``sglang`` frame's file:line, ``fn``: its function, ``in``: the file:line
  that raised when it is outside ``sglang``, e.g. in transformers).
* ``harness-error`` (never a verdict): an ``ImportError``; a message or frame
  naming a stub, a missing CUDA/driver/smi tool or this harness; an exception
  with no ``sglang`` frame; the case died or timed out; the release's own
  platform probes disagree with the faked GPU or count; the release's
  ``get_config`` does not load the case's model with its architecture.
"""

from __future__ import annotations

import argparse
import enum
import gzip
import io
import json
import math
import os
import re
import shutil
import sys
import tempfile
import time
import traceback
import types
from functools import partial
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import _harness as harness  # noqa: E402  (stdlib only at import)
import deterministic_oracle as det  # noqa: E402  (stdlib only at import)
import random_launches as rl  # noqa: E402  (stdlib only)

COUNT_VAR = "ORACLE_FAKE_GPU_COUNT"
STAGES = ("prepare_server_args", "resolve_once", "check_server_args", "PortArgs.init_new")
_MSG_LIMIT = 300
#: text in an exception or its traceback that means the harness, not SGLang, failed
_HARNESS_MARKERS = (*det._HARNESS_MARKERS, "rocminfo", "rocm-smi", "amd-smi", "dump_option_strings.py",
                    "random_oracle.py", "_harness.py")

# --------------------------------------------------------------------------
# Faking the GPU (group process, before anything imports sglang)
# --------------------------------------------------------------------------


def write_fake_tools(bindir: Path, gpu: str) -> None:
    """The vendor's command-line tools SGLang reads, answering for
    ``$ORACLE_FAKE_GPU_COUNT`` devices: ``nvidia-smi`` for NVIDIA;
    ``rocminfo`` (``get_amdgpu_memory_capacity`` greps its "Pool 1" sizes),
    ``rocm-smi`` and ``amd-smi`` for AMD."""
    g = rl.GPUS[gpu]
    cap, mem = g["capability"], g["memory_mib"]
    loop = f'n="${{{COUNT_VAR}:-8}}"; i=0\nwhile [ $i -lt "$n" ]; do\n'
    if g["vendor"] == "nvidia":
        tools = {"nvidia-smi": f"""#!/bin/sh
q=""
for a in "$@"; do case "$a" in --query-gpu=*) q="${{a#--query-gpu=}}";; esac; done
{loop}  out=""
  for f in $(echo "$q" | tr ',' ' '); do
    case "$f" in
      memory.total) v="{mem}";; memory.used) v="0";; memory.free) v="{mem}";;
      compute_cap) v="{cap[0]}.{cap[1]}";; name) v="{g['name']}";; index) v="$i";;
      driver_version) v="580.65.06";; *) v="[N/A]";;
    esac
    if [ -z "$out" ]; then out="$v"; else out="$out, $v"; fi
  done
  echo "$out"
  i=$((i+1))
done
"""}
    else:
        kib = mem * 1024
        tools = {
            "rocminfo": f"""#!/bin/sh
{loop}  echo "  Name:                    {g['gcn_arch'].split(':')[0]}"
  echo "  Marketing Name:          {g['name']}"
  echo "  Pool Info:"
  echo "    Pool 1"
  echo "      Segment:                 GLOBAL; FLAGS: COARSE GRAINED"
  echo "      Size:                    {kib}({hex(kib)}) KB"
  i=$((i+1))
done
""",
            "rocm-smi": f"""#!/bin/sh
{loop}  echo "GPU[$i]		: VRAM Total Memory (B): {mem * 1024 * 1024}"
  i=$((i+1))
done
""",
            "amd-smi": f"""#!/bin/sh
{loop}  echo "GPU: $i"
  echo "    MARKET_NAME: {g['name']}"
  echo "    VRAM_TOTAL: {mem} MB"
  i=$((i+1))
done
""",
        }
    for name, text in tools.items():
        p = bindir / name
        p.write_text(text)
        p.chmod(0o755)


def _gpu_count() -> int:
    return int(os.environ.get(COUNT_VAR, "8"))


def fake_gpu(gpu: str) -> dict:
    """``torch.cuda`` answers for ``gpu`` (``random_launches.GPUS``), as
    ``deterministic_oracle.fake_gpu`` does for NVIDIA, extended to AMD: a ROCm
    torch reports ``torch.version.hip`` and no ``torch.version.cuda``, the
    device capability (9, 4) and ``gcnArchName`` gfx942 (SGLang's ``is_hip``,
    ``is_cuda``, ``is_gfx95_supported``, the platform registry read these).
    The count is ``$ORACLE_FAKE_GPU_COUNT``, read at each call."""
    import torch

    g = rl.GPUS[gpu]
    cap, total = tuple(g["capability"]), g["memory_mib"] * 1024 * 1024
    amd = g["vendor"] == "amd"
    props = types.SimpleNamespace(
        name=g["name"], major=cap[0], minor=cap[1], total_memory=total, multi_processor_count=g["sms"],
        is_integrated=False, is_multi_gpu_board=False, L2_cache_size=50 * 1024 * 1024,
        gcnArchName=g.get("gcn_arch", ""), uuid="GPU-00000000-0000-0000-0000-000000000000",
        warp_size=64 if amd else 32, max_threads_per_multi_processor=2048, regs_per_multiprocessor=65536,
        shared_memory_per_block_optin=65536 if amd else 232448,
    )
    c = torch.cuda
    c.is_available = lambda: True
    c.device_count = _gpu_count
    c.get_device_capability = lambda device=None: cap
    c.get_device_name = lambda device=None: g["name"]
    c.get_device_properties = lambda device=None: props
    c.mem_get_info = lambda device=None: (total, total)
    c.current_device = lambda: 0
    c.is_initialized = lambda: False
    c.get_arch_list = lambda: [g["gcn_arch"].split(":")[0]] if amd else [f"sm_{cap[0]}{cap[1]}"]
    if amd:
        try:  # torchvision checks its CUDA build against torch.version.cuda at import: let it see the real one
            import torchvision  # noqa: F401
        except Exception:
            pass
        torch.version.cuda = None
        torch.version.hip = "6.4.43482"
    else:
        if torch.version.cuda is None:
            torch.version.cuda = "12.9"
        torch.version.hip = None
    _no_fake_kernels_for_stubs(torch)
    _removed_torch_apis(torch)
    return {"gpu": gpu, **g, "cuda": torch.version.cuda, "hip": torch.version.hip}


def _removed_torch_apis(torch) -> None:
    """Torch APIs an old release calls at import that the venv's torch no
    longer has. ``torch._C._cpu._is_amx_tile_supported`` (0.4.10
    ``utils.cpu_has_amx_support``, run at import by a dozen modules; gone
    from torch 2.13): answered False -- SGLang ANDs it with the
    ``sgl_kernel`` AMX op, absent here (a stub), so the result is the same."""
    cpu = getattr(torch._C, "_cpu", None)
    if cpu is not None and not hasattr(cpu, "_is_amx_tile_supported"):
        cpu._is_amx_tile_supported = lambda: False


def _no_fake_kernels_for_stubs(torch) -> None:
    """``torch.library.register_fake("sgl_kernel::op")`` at SGLang's import is
    a no-op for ops of the stubbed ``sgl_kernel`` (as deterministic_oracle)."""
    real_register_fake = torch.library.register_fake

    def register_fake(op, *a, **k):
        if isinstance(op, str) and op.split("::")[0] in ("sgl_kernel",):
            try:
                torch._C._dispatch_find_schema_or_throw(op, "")
            except Exception:
                return (lambda fn: fn) if not a else a[0]
        return real_register_fake(op, *a, **k)

    torch.library.register_fake = register_fake


# --------------------------------------------------------------------------
# Harness sanity: the release's own probes against the faked GPU
# --------------------------------------------------------------------------


def probe_platform(gpu: str) -> list[str]:
    """Disagreements between SGLang's platform probes and the faked GPU/count."""
    import importlib

    g = rl.GPUS[gpu]
    cap, nvidia = tuple(g["capability"]), g["vendor"] == "nvidia"
    expect: dict[str, object] = {"is_cuda": nvidia, "is_hip": not nvidia, "is_npu": False, "is_xpu": False,
                                 "get_device_count": _gpu_count()}
    if nvidia:
        expect.update({"is_sm90_supported": cap[0] == 9, "is_sm100_supported": cap[0] == 10,
                       "is_sm120_supported": cap[0] == 12, "get_device_sm": cap[0] * 10 + cap[1],
                       "get_device_capability": cap})
    mods = []
    for name in ("sglang.srt.utils.common", "sglang.srt.utils"):
        try:
            mods.append(importlib.import_module(name))
        except Exception:
            pass
    bad = []
    for fname, want in expect.items():
        fn = next((getattr(m, fname) for m in mods if hasattr(m, fname)), None)
        if fn is None:
            continue
        try:
            got = fn()
        except Exception as e:  # noqa: BLE001
            bad.append(f"{fname}() raised {type(e).__name__}: {e}")
            continue
        got = tuple(got) if isinstance(got, list) else got
        if (bool(got) != want) if isinstance(want, bool) else (got != want):
            bad.append(f"{fname}() = {got!r}, expected {want!r}")
    return bad


# --------------------------------------------------------------------------
# One case (forked child)
# --------------------------------------------------------------------------


def jsonable(v):
    """A JSON-safe, comparable form of a field value (enums by value, tuples
    as lists, other objects by their repr without memory addresses)."""
    if v is None or isinstance(v, (bool, int, str)):
        return v
    if isinstance(v, float):
        return v if math.isfinite(v) else repr(v)
    if isinstance(v, enum.Enum):
        return jsonable(v.value)
    if isinstance(v, (list, tuple, set, frozenset)):
        items = [jsonable(x) for x in v]
        return sorted(items, key=repr) if isinstance(v, (set, frozenset)) else items
    if isinstance(v, dict):
        return {str(k): jsonable(x) for k, x in v.items()}
    return re.sub(r"\b[0-9a-f]{32}\b", "<uuid>", re.sub(r" at 0x[0-9a-fA-F]+", "", repr(v)))


def same_value(parsed, final) -> bool:
    """JSON-safe values equal, lists also when only the order differs (SGLang
    turns some lists into sets: not a rewrite of what the user asked for)."""
    if parsed == final:
        return True
    return isinstance(parsed, list) and isinstance(final, list) and sorted(map(repr, parsed)) == sorted(map(repr, final))


def user_fields(parser, argv: list[str]) -> list[str]:
    """The dests of the options written in ``argv`` (full option strings, as
    the generator writes them), in order."""
    out: list[str] = []
    for word in argv:
        if not word.startswith("-"):
            continue
        action = parser._option_string_actions.get(word.split("=", 1)[0])
        if action is not None and action.dest not in out:
            out.append(action.dest)
    return out


#: the release's parser, built once in the group process (as prepare_server_args builds it)
_PARSER: list = [None]


def release_parser(sa) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser()
    sa.ServerArgs.add_cli_args(parser)
    return parser


def rewrites(sa, server_args, argv: list[str]) -> dict:
    """User-given fields whose final value differs from the parsed one:
    ``{field: [parsed, final]}``."""
    parser = _PARSER[0] or release_parser(sa)
    ns = parser.parse_args(argv)
    view = harness.resolved_view(server_args)
    out = {}
    for dest in user_fields(parser, argv):
        if not hasattr(server_args, dest) or not hasattr(ns, dest):
            continue
        try:
            final = getattr(view, dest)
        except Exception:  # noqa: BLE001
            final = getattr(server_args, dest)
        parsed, final = jsonable(getattr(ns, dest)), jsonable(final)
        if not same_value(parsed, final):
            out[dest] = [parsed, final]
    return out


def _rel(frame: traceback.FrameSummary) -> str:
    return portable_path(f"{frame.filename}:{frame.lineno}")


def portable_path(path_line: str) -> str:
    """A frame's ``file:line`` without this machine's directories: from
    ``sglang/`` on inside SGLang, else relative to site-packages or to the
    standard library (``json/decoder.py:353``)."""
    p = path_line.replace(os.sep, "/")
    if "/sglang/" in p:
        return p[p.rindex("/sglang/") + 1:]
    if "/tests/oracle/" in p:
        return p[p.rindex("/tests/oracle/") + 1:]
    if "/site-packages/" in p:
        return p[p.rindex("/site-packages/") + len("/site-packages/"):]
    m = re.search(r"/lib/python3\.\d+/", p)
    return p[m.end():] if m else p


def portable_record(rec: dict) -> dict:
    """``rec`` with its frame paths made portable (also for fixtures recorded
    before ``portable_path`` knew the standard library)."""
    for key in ("at", "in"):
        if rec.get(key):
            rec[key] = portable_path(rec[key])
    if rec.get("tb"):
        rec["tb"] = [portable_path(t) for t in rec["tb"]]
    if rec.get("rw"):
        rw = json.loads(re.sub(r"\b[0-9a-f]{32}\b", "<uuid>", json.dumps(rec["rw"])))
        rec["rw"] = {k: v for k, v in rw.items() if not same_value(*v)}
        if not rec["rw"]:
            del rec["rw"]
    return rec


def classify_exception(e: BaseException) -> dict:
    """``rejected`` with the innermost sglang frame, or ``harness-error``."""
    frames = traceback.extract_tb(e.__traceback__)
    msg = str(e).strip().splitlines()[0][:_MSG_LIMIT] if str(e).strip() else ""
    ours = [f for f in frames if "/sglang/" in f.filename.replace(os.sep, "/")]
    # the frames from SGLang's entry inward (the oracle's own callers are outside)
    inner = frames[frames.index(ours[0]):] if ours else frames
    text = str(e) + "".join(traceback.format_list(inner))
    # an API the venv's torch lacks (the release was built against another torch)
    torch_api = isinstance(e, AttributeError) and str(e).startswith("module 'torch")
    if isinstance(e, ImportError) or torch_api or any(m in text for m in _HARNESS_MARKERS) or not ours:
        return {"v": "harness-error", "err": f"{type(e).__name__}: {msg}",
                "tb": [_rel(f) for f in frames[-6:]]}
    out = {"v": "rejected", "exc": type(e).__name__, "msg": msg, "at": _rel(ours[-1]), "fn": ours[-1].name}
    if frames[-1] is not ours[-1]:
        out["in"] = _rel(frames[-1])
    return out


def judge(case: dict, root: Path, gpu: str) -> dict:
    from sglang.srt import server_args as sa

    argv = case_argv(case, root)
    res: dict = {}
    stage = STAGES[0]
    try:
        # argparse alone first, so that a SystemExit that SGLang's own code
        # raises later in prepare_server_args is not taken for argparse's
        argparse_error = parse_error(_PARSER[0] or release_parser(sa), argv)
        if argparse_error is not None:
            res = {"v": "rejected", "stage": "argparse", "exc": "SystemExit", "msg": argparse_error[:_MSG_LIMIT]}
        else:
            obj = prepare_server_args(sa, argv)
            for stage in STAGES[1:]:
                if stage == "PortArgs.init_new":
                    sa.PortArgs.init_new(obj)
                elif hasattr(obj, stage):
                    getattr(obj, stage)()
            res = {"v": "accepted"}
    except BaseException as e:  # noqa: BLE001
        res = classify_exception(e)
        if res["v"] == "rejected":
            res["stage"] = stage
    if res["v"] == "accepted":
        try:
            rw = rewrites(sa, obj, argv)
        except Exception as e:  # noqa: BLE001
            res = {"v": "harness-error", "err": f"reading the rewrites failed: {type(e).__name__}: {e}"[:_MSG_LIMIT]}
        else:
            if rw:
                res["rw"] = json.loads(json.dumps(rw).replace(str(root), "{ROOT}"))
    if "msg" in res:
        res["msg"] = res["msg"].replace(str(root), "{ROOT}")
    return harness_check(res, probe_platform(gpu))


def prepare_server_args(sa, argv: list[str]):
    """``sa.prepare_server_args(argv)``; a SystemExit it raises (SGLang's own
    ``parser.error``/``sys.exit``) keeps its traceback and gets the last line
    SGLang wrote to stderr as its message."""
    err, old = io.StringIO(), sys.stderr
    sys.stderr = err
    try:
        return sa.prepare_server_args(argv)
    except SystemExit as e:
        text = err.getvalue().strip()
        e.args = (text.splitlines()[-1] if text else f"exit {e.code}",)
        raise
    finally:
        sys.stderr = old


def parse_error(parser: argparse.ArgumentParser, argv: list[str]) -> str | None:
    """argparse's error for ``argv`` (its last stderr line), or None."""
    err, old = io.StringIO(), sys.stderr
    sys.stderr = err
    try:
        parser.parse_args(argv)
    except SystemExit as e:
        text = err.getvalue().strip()
        return text.splitlines()[-1] if text else f"exit {e.code}"
    finally:
        sys.stderr = old
    return None


def harness_check(res: dict, problems: list[str]) -> dict:
    """``res``, or a harness-error naming ``problems`` (what SGLang said kept)."""
    if not problems:
        return res
    said = {k: res[k] for k in ("v", "exc", "msg", "at") if k in res}
    return {"v": "harness-error", "err": "; ".join(problems)[:_MSG_LIMIT], "sglang_said": said}


def model_config_problem(model: str, root: Path) -> dict:
    """Does the release's own ``get_config`` load the model directory with its
    architecture? (``{"problem": text or None}``; run once per model and group,
    in a fork: the answer does not depend on the launch.)"""
    arch = rl.MODELS[model][0]["architectures"][0]
    return {"problem": det._check_model_config(str(root / "models" / model), arch)}


# --------------------------------------------------------------------------
# Model directories, argv, groups
# --------------------------------------------------------------------------


def write_model_dirs(root: Path) -> None:
    """``root/models/<key>``, ``root/<DRAFT_*>``: config.json only; ``root/LORA``:
    adapter_config.json."""
    assert rl.MODEL_DIR_FILES == ("config.json",)  # the evaluator is told this listing
    for key, (cfg, _) in rl.MODELS.items():
        (root / "models" / key).mkdir(parents=True, exist_ok=True)
        (root / "models" / key / "config.json").write_text(json.dumps(cfg, indent=1) + "\n")
    for key, cfg in rl.DRAFTS.items():
        (root / key).mkdir(parents=True, exist_ok=True)
        (root / key / "config.json").write_text(json.dumps(cfg, indent=1) + "\n")
    (root / "LORA").mkdir(parents=True, exist_ok=True)
    (root / "LORA" / "adapter_config.json").write_text(json.dumps(rl.LORA_ADAPTER, indent=1) + "\n")


def case_argv(case: dict, root: Path) -> list[str]:
    subst = {"{MODEL}": str(root / "models" / case["model"]), "{LORA}": str(root / "LORA"),
             **{"{%s}" % k: str(root / k) for k in rl.DRAFTS}}
    out = []
    for word in case["argv"]:
        for k, v in subst.items():
            word = word.replace(k, v)
        out.append(word)
    return out


def _case_setup(count: int, tmp_root: Path):
    def setup() -> None:
        os.environ[COUNT_VAR] = str(count)
        os.environ["TMPDIR"] = tempfile.mkdtemp(prefix="case-", dir=tmp_root)  # PortArgs' ipc files
        tempfile.tempdir = None
    return setup


def run_group(gpu: str, cases: list[dict], root: Path, timeout: float, out_path: Path) -> None:
    gpu_info, finder = harness.enter_group(lambda bindir: write_fake_tools(bindir, gpu), lambda: fake_gpu(gpu),
                                           __file__, det.__file__)
    import_error, import_s = harness.import_server_args()
    if not import_error and os.environ.get("SGL_ORACLE_PRELOAD", "1") == "1":
        for model in sorted({c["model"] for c in cases}):  # speed-up only: lazily imported modules
            probe = {"model": model, "argv": ["--model-path", "{MODEL}"]}
            harness.preload(json.loads(harness.lazy_imports_in_fork(partial(judge, probe, root, gpu)) or b"[]"))
    config_problem = {}
    if not import_error:
        from sglang.srt import server_args as sa

        _PARSER[0] = release_parser(sa)
        for model in sorted({c["model"] for c in cases}):
            out = harness.run_in_fork(partial(model_config_problem, model, root), timeout)
            config_problem[model] = out.get("problem") if "problem" in out else out.get("error")
    results = []
    tmp_root = Path(tempfile.mkdtemp(prefix="rnd-cases-"))
    t0 = time.time()
    for i, case in enumerate(cases):
        if import_error:
            out = {"v": "harness-error", "err": import_error[:_MSG_LIMIT]}
        else:
            out = harness.run_in_fork(partial(judge, case, root, gpu), timeout, _case_setup(case["count"], tmp_root))
            if out.get("verdict") == "harness-error":  # the fork runner's own failures
                out = {"v": "harness-error", "err": out["error"][:_MSG_LIMIT]}
            elif config_problem.get(case["model"]):
                out = harness_check(out, [config_problem[case["model"]]])
        results.append({"id": case["id"], **out})
        if i % 100 == 99:
            print(f"[{gpu}] {i + 1}/{len(cases)} cases, {time.time() - t0:.0f}s", flush=True)
    shutil.rmtree(tmp_root, ignore_errors=True)
    out_path.write_text(json.dumps({"gpu": gpu, "gpu_info": gpu_info, "import_seconds": import_s,
                                    "stubbed_modules": sorted(finder.stubbed), "results": results}))


# --------------------------------------------------------------------------
# Driver
# --------------------------------------------------------------------------


def write_fixture(path: Path, data: dict) -> None:
    """Compact JSON, gzip with a fixed mtime (the same data gives the same bytes)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    raw = json.dumps(data, separators=(",", ":"), sort_keys=True).encode()
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode="wb", compresslevel=9, mtime=0) as f:
        f.write(raw)
    path.write_bytes(buf.getvalue())


def count_verdicts(records: list[dict]) -> dict:
    counts: dict[str, int] = {}
    for rec in records:
        for key in (rec["v"], "rewritten") if rec.get("rw") else (rec["v"],):
            counts[key] = counts.get(key, 0) + 1
    return counts


def make_portable(fixture: Path) -> None:
    """Rewrite a recorded fixture with portable frame paths."""
    with gzip.open(fixture, "rt", encoding="utf-8") as f:
        data = json.load(f)
    data["cases"] = [portable_record(c) for c in data["cases"]]
    data["counts"] = count_verdicts(data["cases"])
    write_fixture(fixture, data)


def main() -> int:
    if sys.argv[1:2] == ["--portable"]:  # random_oracle.py --portable FIXTURE...
        for p in sys.argv[2:]:
            make_portable(Path(p))
        return 0
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--release", required=True, help="catalog release (0.5.23)")
    ap.add_argument("--wheel", required=True, help="file name of the wheel on PYTHONPATH (recorded)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=rl.DEFAULT_SEED)
    ap.add_argument("--jobs", type=int, default=2, help="GPU groups run in parallel")
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds per case")
    ap.add_argument("--gpus", default=",".join(rl.GPUS), help="debugging: a subset of GPUs")
    ap.add_argument("--root", default=None, help=argparse.SUPPRESS)
    args = harness.parse_args(ap)

    if args._group:
        run_group(args._group, json.loads(Path(args._cases).read_text()), Path(args.root), args.timeout,
                  Path(args._result))
        return 0

    for var in [v for v in os.environ if v.startswith(("SGLANG_", "SGL_")) and v != "SGL_ORACLE_PRELOAD"]:
        del os.environ[var]  # the evaluator is told no SGLang variable is set
    version = harness.release_version()
    if not version.startswith(args.release):
        raise SystemExit(f"PYTHONPATH has sglang {version}, not {args.release}")
    cases = rl.generate(args.release, args.n, args.seed)
    gpus = [g for g in args.gpus.split(",") if g]
    work = Path(tempfile.mkdtemp(prefix="sgl-random-oracle-"))
    root = work / "root"
    write_model_dirs(root)
    t0 = time.time()
    done = harness.run_groups(
        [(gpu, gpu, [c for c in cases if c["gpu"] == gpu]) for gpu in gpus],
        [sys.executable, str(Path(__file__).resolve()), "--release", args.release, "--wheel", args.wheel,
         "--out", args.out, "--root", str(root), "--timeout", str(args.timeout)],
        args.jobs, work, version, lambda c, error: {"id": c["id"], "v": "harness-error", "err": error})
    seconds = round(time.time() - t0)
    by_id = {c["id"]: c for c in cases}
    records, stubbed = [], set()
    for gpu in gpus:
        stubbed.update(done[gpu].get("stubbed_modules", []))
        for rec in done[gpu]["results"]:
            records.append(portable_record({**by_id[rec["id"]], **rec}))
    records.sort(key=lambda r: r["id"])
    counts = count_verdicts(records)
    write_fixture(Path(args.out), {
        "release": args.release, "wheel": args.wheel, "sglang_version": version, "seed": args.seed,
        "generator_version": rl.GENERATOR_VERSION, "n": args.n, "env": harness.env_versions(),
        "stages": list(STAGES), "stubbed_modules": sorted(stubbed), "seconds": seconds, "counts": counts,
        "models": {k: cfg for k, (cfg, _) in rl.MODELS.items()}, "gpus": rl.GPUS, "environment": {},
        "cases": records,
    })
    print(f"{args.out}: {len(records)} cases {counts}; stubbed: {', '.join(sorted(stubbed))}; {seconds}s")
    if not counts.get("harness-error"):  # else its group logs may say why
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
