"""Differential oracle: SGLang's own verdict on deterministic-inference launches.

For each case of a matrix (architecture x GPU x attention backend x way of
enabling determinism) this runs the REAL start-up validation of one SGLang
release on a CPU-only machine, with a faked GPU, and records what SGLang
decided: accepted (with the effective attention backend and whether the radix
cache was turned off) or rejected (exception class and message).

Run it inside the oracle virtualenv with the release's wheel on PYTHONPATH
(see ``README.md`` and ``run_deterministic_oracle.sh`` beside this file)::

    PYTHONPATH=/tmp/sgl-oracle-site/0.5.23 python tests/oracle/deterministic_oracle.py \
        --wheel sglang-0.5.23-cp311-cp311-manylinux_2_34_x86_64.whl \
        --out tests/data/oracle/deterministic-0.5.23.json

How a case is judged
--------------------
* One *group* process per GPU: it fakes that GPU (``torch.cuda.*`` answers,
  ``torch.version.cuda``, a fake ``nvidia-smi`` first on ``PATH``), installs
  the stub finder of ``dump_option_strings.py`` (CUDA-only packages imported by
  SGLang's own modules become permissive stubs; nothing under ``sglang.*`` is
  ever stubbed) and imports ``sglang.srt.server_args`` once.
* Every case then runs in a FRESH ``os.fork()`` of that group process:
  ``prepare_server_args(argv)`` (argparse + ``ServerArgs.from_cli_args``;
  releases <= 0.5.18 validate in ``__post_init__``), then
  ``server_args.resolve_once()`` when the release has it (0.5.19+).
  ``check_server_args()`` is run afterwards when it exists and its outcome is
  recorded in a separate field (it never changes the verdict).
* ``harness-error`` (never SGLang's verdict) is recorded when: the exception
  was not raised from a frame inside ``sglang`` (torch/transformers/stub
  failure), its text names a stub / missing CUDA / nvidia-smi, the case
  process died or timed out, the release's own platform probes disagree with
  the faked GPU, or the release's own ``get_config`` does not load the model
  directory with the expected ``architectures[0]`` (the deterministic check
  swallows config errors and would otherwise silently treat a DeepSeek model
  as non-DeepSeek).
"""

from __future__ import annotations

import argparse
import io
import json
import logging
import os
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

# --------------------------------------------------------------------------
# The matrix
# --------------------------------------------------------------------------

# name -> (SM (major, minor), torch.cuda device name, total memory MiB, CUDA version)
GPUS = {
    "A100": ((8, 0), "NVIDIA A100-SXM4-80GB", 81920, "12.9"),
    "H100": ((9, 0), "NVIDIA H100 80GB HBM3", 81559, "12.9"),
    "B200": ((10, 0), "NVIDIA B200", 183359, "12.9"),
    "B300": ((10, 3), "NVIDIA B300 SXM6 AC", 275040, "12.9"),
    "Thor": ((11, 0), "NVIDIA Thor", 125772, "13.0"),
    "RTX5090": ((12, 0), "NVIDIA GeForce RTX 5090", 32607, "12.9"),
}

_MLA = dict(
    kv_lora_rank=512,
    q_lora_rank=1536,
    qk_rope_head_dim=64,
    qk_nope_head_dim=128,
    v_head_dim=128,
)
_COMMON = dict(
    hidden_size=1024,
    intermediate_size=2048,
    num_hidden_layers=2,
    num_attention_heads=16,
    num_key_value_heads=16,
    vocab_size=32000,
    max_position_embeddings=4096,
    rms_norm_eps=1e-6,
    torch_dtype="bfloat16",
    tie_word_embeddings=False,
    bos_token_id=0,
    eos_token_id=1,
)
_MOE = dict(
    n_routed_experts=8,
    num_experts_per_tok=2,
    n_shared_experts=1,
    moe_intermediate_size=256,
    first_k_dense_replace=1,
    moe_layer_freq=1,
    n_group=1,
    topk_group=1,
    routed_scaling_factor=1.0,
    norm_topk_prob=True,
    scoring_func="sigmoid",
    topk_method="noaux_tc",
)

# architecture -> minimal config.json (no weights, no tokenizer)
MODEL_CONFIGS: dict[str, dict] = {
    "DeepseekV3ForCausalLM": {
        "architectures": ["DeepseekV3ForCausalLM"],
        "model_type": "deepseek_v3",
        **_COMMON,
        **_MLA,
        **_MOE,
    },
    "DeepseekV2ForCausalLM": {
        "architectures": ["DeepseekV2ForCausalLM"],
        "model_type": "deepseek_v2",
        **_COMMON,
        **_MLA,
        **{**_MOE, "scoring_func": "softmax", "topk_method": "greedy"},
    },
    "DeepseekV32ForCausalLM": {
        "architectures": ["DeepseekV32ForCausalLM"],
        "model_type": "deepseek_v32",
        **_COMMON,
        **_MLA,
        **_MOE,
        "index_topk": 2048,
        "index_head_dim": 128,
        "index_n_heads": 64,
    },
    "Qwen2ForCausalLM": {
        "architectures": ["Qwen2ForCausalLM"],
        "model_type": "qwen2",
        **_COMMON,
        "num_key_value_heads": 4,
    },
    "KimiK25ForConditionalGeneration": {
        "architectures": ["KimiK25ForConditionalGeneration"],
        "model_type": "kimi_k25",
        "text_config": {
            "architectures": ["DeepseekV3ForCausalLM"],
            "model_type": "deepseek_v3",
            **_COMMON,
            **_MLA,
            **_MOE,
        },
        "vision_config": {},
        "torch_dtype": "bfloat16",
    },
    "Glm4MoeLiteForCausalLM": {
        "architectures": ["Glm4MoeLiteForCausalLM"],
        "model_type": "glm4_moe_lite",
        **_COMMON,
        **_MLA,
        **_MOE,
    },
    "GptOssForCausalLM": {
        "architectures": ["GptOssForCausalLM"],
        "model_type": "gpt_oss",
        **_COMMON,
        "num_key_value_heads": 8,
        "head_dim": 64,
        "num_local_experts": 8,
        "num_experts_per_tok": 2,
        "sliding_window": 128,
        "layer_types": ["sliding_attention", "full_attention"],
    },
}

BACKENDS = [None, "flashinfer", "fa3", "fa4", "triton", "trtllm_mla", "trtllm_mha", "flashmla"]
MODES = ["flag", "rl_on_policy_target"]  # + "off" controls (backend None only)

_HARNESS_MARKERS = (
    "stubbed module",
    "_StubAny",
    "not compiled with CUDA",
    "nvidia-smi",
    "NVIDIA driver",
    "No CUDA GPUs",
    "CUDA driver",
    "libcuda",
)


def build_cases(release_has_rl: bool, sms: list[str], archs: list[str]) -> list[dict]:
    cases = []
    for gpu in sms:
        for arch in archs:
            modes = MODES if release_has_rl else ["flag"]
            for mode in modes:
                for be in BACKENDS:
                    cases.append({"gpu": gpu, "arch": arch, "backend_arg": be, "deterministic": mode})
            cases.append({"gpu": gpu, "arch": arch, "backend_arg": None, "deterministic": "off"})
    return cases


def case_argv(case: dict, model_dir: Path) -> list[str]:
    argv = ["--model-path", str(model_dir / case["arch"]), "--tp-size", "1"]
    if case["backend_arg"]:
        argv += ["--attention-backend", case["backend_arg"]]
    if case["deterministic"] == "flag":
        argv += ["--enable-deterministic-inference"]
    elif case["deterministic"] == "rl_on_policy_target":
        argv += ["--rl-on-policy-target", "fsdp"]
    return argv


def write_models(root: Path) -> None:
    for arch, cfg in MODEL_CONFIGS.items():
        d = root / arch
        d.mkdir(parents=True, exist_ok=True)
        (d / "config.json").write_text(json.dumps(cfg, indent=1) + "\n")


# --------------------------------------------------------------------------
# Faking the GPU (group process, before anything imports sglang)
# --------------------------------------------------------------------------


def write_fake_nvidia_smi(bindir: Path, gpu: str) -> None:
    (sm, name, mem, cuda) = GPUS[gpu]
    script = f"""#!/bin/sh
# fake nvidia-smi for the deterministic oracle: 8 x {name}
q=""
for a in "$@"; do case "$a" in --query-gpu=*) q="${{a#--query-gpu=}}";; esac; done
i=0
while [ $i -lt 8 ]; do
  out=""
  for f in $(echo "$q" | tr ',' ' '); do
    case "$f" in
      memory.total) v="{mem}";; memory.used) v="0";; memory.free) v="{mem}";;
      compute_cap) v="{sm[0]}.{sm[1]}";; name) v="{name}";; index) v="$i";;
      driver_version) v="580.65.06";; *) v="[N/A]";;
    esac
    if [ -z "$out" ]; then out="$v"; else out="$out, $v"; fi
  done
  echo "$out"
  i=$((i+1))
done
"""
    p = bindir / "nvidia-smi"
    p.write_text(script)
    p.chmod(0o755)


def fake_gpu(gpu: str) -> dict:
    import torch

    (sm, name, mem_mib, cuda) = GPUS[gpu]
    total = mem_mib * 1024 * 1024
    props = types.SimpleNamespace(
        name=name,
        major=sm[0],
        minor=sm[1],
        total_memory=total,
        multi_processor_count=148 if sm[0] == 10 else 132 if sm[0] == 9 else 108,
        is_integrated=sm[0] == 11,
        is_multi_gpu_board=False,
        L2_cache_size=50 * 1024 * 1024,
        gcnArchName="",
        uuid="GPU-00000000-0000-0000-0000-000000000000",
        warp_size=32,
        max_threads_per_multi_processor=2048,
        regs_per_multiprocessor=65536,
        shared_memory_per_block_optin=232448,
    )
    c = torch.cuda
    c.is_available = lambda: True
    c.device_count = lambda: 8
    c.get_device_capability = lambda device=None: sm
    c.get_device_name = lambda device=None: name
    c.get_device_properties = lambda device=None: props
    c.mem_get_info = lambda device=None: (total, total)
    c.current_device = lambda: 0
    c.is_initialized = lambda: False
    c.get_arch_list = lambda: [f"sm_{sm[0]}{sm[1]}"]
    # A CUDA build of torch keeps its own CUDA version (torchvision checks that
    # they agree); a CPU build gets the table's version.
    if torch.version.cuda is None:
        torch.version.cuda = cuda
    torch.version.hip = None
    # sgl_kernel is stubbed, so its ops are never defined; SGLang's
    # `@torch.library.register_fake("sgl_kernel::op")` at import would fail.
    # Registering a fake kernel only matters for torch.compile tracing.
    real_register_fake = torch.library.register_fake

    def register_fake(op, *a, **k):
        if isinstance(op, str) and op.split("::")[0] in ("sgl_kernel",):
            try:
                torch._C._dispatch_find_schema_or_throw(op, "")
            except Exception:
                return (lambda fn: fn) if not a else a[0]
        return real_register_fake(op, *a, **k)

    torch.library.register_fake = register_fake
    return {"sm": list(sm), "device_name": name, "total_memory_mib": mem_mib, "cuda": torch.version.cuda,
            "device_count": 8}


# --------------------------------------------------------------------------
# Per-case judging (forked child)
# --------------------------------------------------------------------------


def _sglang_frame(tb) -> str | None:
    """file:line of the innermost traceback frame, if it is inside sglang."""
    last = None
    for fs in traceback.extract_tb(tb):
        last = fs
    if last is None:
        return None
    fn = last.filename.replace(os.sep, "/")
    if "/sglang/" in fn:
        return fn[fn.rindex("/sglang/") + 1 :] + f":{last.lineno}"
    return None


def _first_line(s: str) -> str:
    return s.strip()


def _classify_exception(e: BaseException) -> dict:
    tb = e.__traceback__
    where = _sglang_frame(tb)
    msg = str(e)
    text = msg + "".join(traceback.format_exception(type(e), e, tb))
    if any(m in text for m in _HARNESS_MARKERS) or isinstance(e, ImportError):
        return {"verdict": "harness-error", "error_class": type(e).__name__, "error": msg, "raised_at": where,
                "traceback": traceback.format_exception(type(e), e, tb)[-14:]}
    if where is None:
        last = traceback.extract_tb(tb)[-1] if tb else None
        return {"verdict": "harness-error", "error_class": type(e).__name__, "error": msg,
                "raised_at": f"{last.filename}:{last.lineno}" if last else None,
                "traceback": traceback.format_exception(type(e), e, tb)[-14:]}
    return {"verdict": "rejected", "error_class": type(e).__name__, "error": msg, "raised_at": where}


def _probe_platform(gpu: str) -> tuple[dict, list[str]]:
    """The release's own platform probes, checked against the faked GPU."""
    import importlib

    sm = GPUS[gpu][0]
    mods = []
    for name in ("sglang.srt.utils.common", "sglang.srt.utils"):
        try:
            mods.append(importlib.import_module(name))
        except Exception:
            pass
    expect = {
        "is_cuda": True,
        "is_hip": False,
        "is_npu": False,
        "is_xpu": False,
        "is_sm90_supported": sm[0] == 9,
        "is_sm100_supported": sm[0] == 10,
        "is_sm100_or_sm110_supported": sm[0] in (10, 11),
        "is_sm110_supported": sm[0] == 11,
        "is_sm120_supported": sm[0] == 12,
        "is_hopper_with_cuda_12_3": sm[0] == 9,
        "get_device_sm": sm[0] * 10 + sm[1],
        "get_device_capability": tuple(sm),
        "is_flashinfer_available": True,
    }
    seen, bad = {}, []
    # Recorded, not checked: what "Blackwell" means changed between releases
    # (0.5.4: majors 10 and 12 only, so SM110 is not Blackwell there).
    for fname in ("is_blackwell_supported", "is_blackwell"):
        for m in mods:
            fn = getattr(m, fname, None)
            if fn is not None:
                try:
                    seen[fname] = bool(fn())
                except Exception as e:  # noqa: BLE001
                    seen[fname] = f"error: {type(e).__name__}: {e}"
                break
    for fname, want in expect.items():
        fn = None
        for m in mods:
            fn = getattr(m, fname, None)
            if fn is not None:
                break
        if fn is None:
            continue
        try:
            got = fn()
        except Exception as e:  # noqa: BLE001
            got = f"error: {type(e).__name__}: {e}"
        if isinstance(got, list):
            got = tuple(got)
        seen[fname] = list(got) if isinstance(got, tuple) else got
        ok = (bool(got) == want and not str(got).startswith("error")) if isinstance(want, bool) else got == want
        if not ok:
            bad.append(f"{fname}() = {got!r}, expected {want!r}")
    return seen, bad


# Rewrites SGLang's own config loading does (recorded as "sglang_arch"):
# 0.5.4 loads deepseek_v32 configs as deepseek_v3 / DeepseekV3ForCausalLM.
SGLANG_ARCH_REWRITES = {"DeepseekV32ForCausalLM": ("DeepseekV3ForCausalLM",)}
_SEEN_ARCH: list = [None]


def _check_model_config(model_path: str, arch: str) -> str | None:
    import importlib

    for name in ("sglang.srt.utils.hf_transformers.config", "sglang.srt.utils.hf_transformers_utils",
                 "sglang.srt.hf_transformers_utils"):
        try:
            mod = importlib.import_module(name)
        except Exception:
            continue
        get_config = getattr(mod, "get_config", None)
        if get_config is None:
            continue
        try:
            cfg = get_config(model_path, trust_remote_code=False)
        except Exception as e:  # noqa: BLE001
            return f"get_config({model_path}) failed: {type(e).__name__}: {e}"
        got = (getattr(cfg, "architectures", None) or [None])[0]
        _SEEN_ARCH[0] = got
        if got != arch and got not in SGLANG_ARCH_REWRITES.get(arch, ()):
            return f"get_config({model_path}).architectures[0] = {got!r}, expected {arch!r}"
        return None
    return "no get_config found in this release"


def _effective(server_args) -> dict:
    view = harness.resolved_view(server_args)  # 0.5.20+
    out = {}
    for f in ("attention_backend", "prefill_attention_backend", "decode_attention_backend",
              "disable_radix_cache", "enable_deterministic_inference", "sampling_backend", "page_size"):
        try:
            out[f] = getattr(view, f)
        except Exception:
            try:
                out[f] = getattr(server_args, f)
            except Exception:
                out[f] = None
    return out


def judge(case: dict, model_dir: Path, gpu: str) -> dict:
    from sglang.srt import server_args as sa

    argv = case_argv(case, model_dir)
    res: dict = {"argv": argv}
    t_start = time.time()
    n_mods = len(sys.modules)
    log_buf = io.StringIO()
    handler = logging.StreamHandler(log_buf)
    handler.setLevel(logging.WARNING)
    obj = None
    try:
        obj, rejected = harness.prepare_server_args(sa, argv)
        if rejected:
            res.update(rejected)
            return res
        logging.getLogger().addHandler(handler)
        if hasattr(obj, "resolve_once"):
            obj.resolve_once()
        res["verdict"] = "accepted"
    except BaseException as e:  # noqa: BLE001
        res.update(_classify_exception(e))
    finally:
        logging.getLogger().removeHandler(handler)
    if res["verdict"] == "accepted":
        eff = _effective(obj)
        res["backend"] = eff["attention_backend"]
        res["radix_disabled"] = bool(eff["disable_radix_cache"])
        res["effective"] = eff
        if hasattr(obj, "check_server_args"):
            try:
                obj.check_server_args()
                res["check_server_args"] = "ok"
            except BaseException as e:  # noqa: BLE001
                c = _classify_exception(e)
                res["check_server_args"] = f"{c['verdict']}: {c['error_class']}: {c['error']}"
        else:
            res["check_server_args"] = "absent"
    warnings = [ln for ln in log_buf.getvalue().splitlines() if "eterministic" in ln or "adix" in ln or "ttention backend" in ln]
    if warnings:
        res["warnings"] = warnings[:8]
    res["seconds"] = round(time.time() - t_start, 2)
    res["modules_imported"] = len(sys.modules) - n_mods
    return check_harness(res, gpu, str(model_dir / case["arch"]), case["arch"],
                         said=("verdict", "error_class", "error", "backend"), record_probes=True)


def check_harness(res: dict, gpu: str, model_path: str, arch: str, said: tuple, record_probes: bool = False) -> dict:
    """Harness sanity, after a case: SGLang's probes and config loading must
    agree with the case, else ``res`` becomes a ``harness-error`` (what SGLang
    said kept under ``sglang_said``, its ``said`` keys); a ``harness-error``
    gets its ``error`` prefixed."""
    probes, bad = _probe_platform(gpu)
    if record_probes:
        res["probes"] = probes
    problems = list(bad)
    cfg_problem = _check_model_config(model_path, arch)
    res["sglang_arch"] = _SEEN_ARCH[0]
    if cfg_problem:
        problems.append(cfg_problem)
    if problems:
        if res["verdict"] != "harness-error":
            res["sglang_said"] = {k: res.get(k) for k in said}
        res["verdict"] = "harness-error"
        res["error"] = "harness-error: " + "; ".join(problems)
    elif res["verdict"] == "harness-error":
        res["error"] = "harness-error: " + f"{res.get('error_class')}: {res.get('error')}"
    return res


def _preload_lazy_imports(cases: list[dict], model_dir: Path, gpu: str) -> int:
    """Speed-up only: learn which modules a case imports lazily (one throwaway
    fork per architecture, deterministic flag, no backend) and import them in
    the group process, so each case fork does not pay for them again. Only
    imports are done here -- no resolution runs in the group process."""
    seen_arch: set[str] = set()
    names: list[str] = []
    for case in cases:
        if case["arch"] in seen_arch:
            continue
        seen_arch.add(case["arch"])
        probe_case = {**case, "backend_arg": None, "deterministic": "flag"}
        data = harness.lazy_imports_in_fork(partial(judge, probe_case, model_dir, gpu))
        try:
            for m in json.loads(data or b"[]"):
                if m not in names:
                    names.append(m)
        except Exception:
            pass
    return harness.preload(names)


def run_group(gpu: str, cases: list[dict], model_dir: Path, timeout: float, out_path: Path) -> None:
    """Group process: fake the GPU, import sglang once, fork per case."""
    sys.path.insert(0, str(HERE))
    gpu_info, finder = harness.enter_group(lambda bindir: write_fake_nvidia_smi(bindir, gpu), lambda: fake_gpu(gpu),
                                           __file__)
    results = []
    import_error, import_s = harness.import_server_args()
    preloaded = 0
    if not import_error and os.environ.get("SGL_ORACLE_PRELOAD", "1") == "1":
        preloaded = _preload_lazy_imports(cases, model_dir, gpu)
    for case in cases:
        base = {**case, "sm": list(GPUS[gpu][0]), "tp_size": 1}
        if import_error:
            results.append({**base, "verdict": "harness-error", "backend": None, "radix_disabled": False,
                            "error": "harness-error: " + import_error})
            continue
        out = harness.run_in_fork(partial(judge, case, model_dir, gpu), timeout)
        rec = {**base, **out}
        rec.setdefault("backend", None)
        rec.setdefault("radix_disabled", False)
        rec.setdefault("error", None)
        results.append(rec)
    out_path.write_text(json.dumps({"gpu": gpu, "gpu_info": gpu_info, "import_seconds": import_s,
                                    "preloaded_modules": preloaded,
                                    "stubbed_modules": sorted(finder.stubbed), "results": results}))


# --------------------------------------------------------------------------
# Driver
# --------------------------------------------------------------------------


def _has_rl_flag() -> bool:
    import importlib.util

    spec = importlib.util.find_spec("sglang")
    root = Path(list(spec.submodule_search_locations)[0]) / "srt"
    for p in [root / "server_args.py", *sorted((root / "arg_groups").rglob("*.py"))] if (root / "arg_groups").exists() else [root / "server_args.py"]:
        if p.exists() and "rl_on_policy_target" in p.read_text(errors="replace"):
            return True
    return False


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--wheel", required=True, help="file name of the wheel on PYTHONPATH (recorded)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--gpus", default=",".join(GPUS), help="comma list of " + ",".join(GPUS))
    ap.add_argument("--archs", default=",".join(MODEL_CONFIGS))
    ap.add_argument("--jobs", type=int, default=2, help="GPU groups run in parallel")
    ap.add_argument("--timeout", type=float, default=180.0, help="seconds per case")
    ap.add_argument("--models-dir", default=None, help="where to write the model config dirs (default: a temp dir)")
    args = harness.parse_args(ap)  # + internal: run one group

    if args._group:
        cases = json.loads(Path(args._cases).read_text())
        run_group(args._group, cases, Path(args.models_dir), args.timeout, Path(args._result))
        return 0

    version = harness.release_version()
    has_rl = _has_rl_flag()
    gpus = [g for g in args.gpus.split(",") if g]
    archs = [a for a in args.archs.split(",") if a]
    work = Path(tempfile.mkdtemp(prefix="sgl-det-oracle-"))
    model_dir = Path(args.models_dir) if args.models_dir else work / "models"
    write_models(model_dir)
    t0 = time.time()
    done = harness.run_groups(
        [(gpu, gpu, build_cases(has_rl, [gpu], archs)) for gpu in gpus],
        [sys.executable, str(Path(__file__).resolve()), "--wheel", args.wheel, "--out", args.out,
         "--models-dir", str(model_dir), "--timeout", str(args.timeout)],
        args.jobs, work, version,
        lambda c, error: {**c, "sm": list(GPUS[c["gpu"]][0]), "tp_size": 1, "verdict": "harness-error", "backend": None,
                          "radix_disabled": False, "error": error})
    env = harness.env_versions()
    records = []
    stubbed: set[str] = set()
    for gpu in gpus:
        stubbed.update(done[gpu].get("stubbed_modules", []))
        for rec in done[gpu]["results"]:
            records.append({"release": version, "wheel": args.wheel, "env": env, **rec})
    records = harness.portable(records, models=model_dir)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(records, indent=1, default=repr) + "\n")
    counts: dict[str, int] = {}
    for rec in records:
        counts[rec["verdict"]] = counts.get(rec["verdict"], 0) + 1
    print(f"{out}: {len(records)} cases {counts}; stubbed: {', '.join(sorted(stubbed))}; {time.time() - t0:.0f}s")
    (work / "stubbed.json").write_text(json.dumps(sorted(stubbed)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
