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
import atexit
import io
import json
import logging
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
import types
from pathlib import Path

HERE = Path(__file__).resolve().parent

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
    view = server_args
    try:
        from sglang.srt.arg_groups.model_override_base import resolved_view  # 0.5.20+

        view = resolved_view(server_args)
    except Exception:
        pass
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
    err_buf = io.StringIO()
    obj = None
    old_stderr = sys.stderr
    try:
        sys.stderr = err_buf
        try:
            obj = sa.prepare_server_args(argv)
        except SystemExit as e:
            sys.stderr = old_stderr
            res.update({"verdict": "rejected", "error_class": "SystemExit(argparse)",
                        "error": err_buf.getvalue().strip().splitlines()[-1] if err_buf.getvalue().strip() else f"exit {e.code}",
                        "raised_at": "argparse"})
            return res
        finally:
            sys.stderr = old_stderr
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
    # Harness sanity: SGLang's probes and config loading must agree with the case.
    probes, bad = _probe_platform(gpu)
    res["probes"] = probes
    problems = list(bad)
    cfg_problem = _check_model_config(str(model_dir / case["arch"]), case["arch"])
    res["sglang_arch"] = _SEEN_ARCH[0]
    if cfg_problem:
        problems.append(cfg_problem)
    if problems:
        if res["verdict"] != "harness-error":
            res["sglang_said"] = {k: res.get(k) for k in ("verdict", "error_class", "error", "backend")}
        res["verdict"] = "harness-error"
        res["error"] = "harness-error: " + "; ".join(problems)
    elif res["verdict"] == "harness-error":
        res["error"] = "harness-error: " + f"{res.get('error_class')}: {res.get('error')}"
    return res


def _warm_up_torch_probes() -> None:
    """Let torch answer "is triton installed?" before any stub exists (the
    answer is cached), and import the torch modules that probe it at import."""
    try:
        from torch.utils import _triton

        _triton.has_triton_package()
        _triton.has_triton()
    except Exception:
        pass
    for m in ("torch.utils.flop_counter", "torch._inductor.runtime.hints", "torch._inductor.runtime.triton_compat",
              "torch._inductor.codecache", "torch._functorch.aot_autograd", "torch._dynamo",
              "torch._inductor.ir", "torch._inductor.compile_fx"):
        try:
            __import__(m)
        except Exception:
            pass


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
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(r)
            before = set(sys.modules)
            try:
                judge(probe_case, model_dir, gpu)
            except BaseException:  # noqa: BLE001
                pass
            new = [m for m in sys.modules if m not in before]
            with os.fdopen(w, "wb") as f:
                f.write(json.dumps(new).encode())
            os._exit(0)
        os.close(w)
        with os.fdopen(r, "rb") as f:
            data = f.read()
        os.waitpid(pid, 0)
        try:
            for m in json.loads(data or b"[]"):
                if m not in names:
                    names.append(m)
        except Exception:
            pass
    n = 0
    for m in names:
        if m in sys.modules or m.split(".")[0] not in ("sglang", "transformers"):
            continue
        try:
            __import__(m)
            n += 1
        except BaseException:  # noqa: BLE001
            pass
    return n


def run_group(gpu: str, cases: list[dict], model_dir: Path, timeout: float, out_path: Path) -> None:
    """Group process: fake the GPU, import sglang once, fork per case."""
    sys.path.insert(0, str(HERE))
    from dump_option_strings import _StubFinder, _warm_up_third_party_probes

    class _OracleStubFinder(_StubFinder):
        """The dump's stub finder, stricter: a submodule of a stubbed package
        is stubbed only for SGLang's own imports too (torch probing
        ``triton.runtime.jit`` must get the real ImportError)."""

        def _importer(self) -> str:
            skip = {self.this_file, __file__}
            f = sys._getframe(1)
            while f is not None:
                fn = f.f_code.co_filename
                if "importlib" not in fn and not fn.startswith("<frozen") and fn not in skip:
                    return str(f.f_globals.get("__name__", ""))
                f = f.f_back
            return ""

        def _should_stub(self, fullname: str) -> bool:
            if fullname.split(".")[0] != "sglang" and not self._importer().startswith("sglang"):
                return False
            return super()._should_stub(fullname)

    bindir = Path(tempfile.mkdtemp(prefix="fake-smi-"))
    atexit.register(shutil.rmtree, bindir, True)  # one per group process
    write_fake_nvidia_smi(bindir, gpu)
    os.environ["PATH"] = f"{bindir}{os.pathsep}{os.environ.get('PATH', '')}"
    gpu_info = fake_gpu(gpu)
    _warm_up_third_party_probes()
    _warm_up_torch_probes()
    finder = _OracleStubFinder()
    sys.meta_path.append(finder)
    results = []
    t0 = time.time()
    import_error = None
    try:
        from sglang.srt import server_args as _sa  # noqa: F401
        # Modules the validation imports lazily; importing them here only
        # saves time in each fork (a launch imports them too).
        for m in ("sglang.srt.configs.model_config", "sglang.srt.arg_groups.pipeline"):
            try:
                __import__(m)
            except Exception:
                pass
    except BaseException as e:  # noqa: BLE001
        import_error = f"import sglang.srt.server_args failed: {type(e).__name__}: {e}"
    import_s = round(time.time() - t0, 1)
    preloaded = 0
    if not import_error and os.environ.get("SGL_ORACLE_PRELOAD", "1") == "1":
        preloaded = _preload_lazy_imports(cases, model_dir, gpu)
    for case in cases:
        base = {**case, "sm": list(GPUS[gpu][0]), "tp_size": 1}
        if import_error:
            results.append({**base, "verdict": "harness-error", "backend": None, "radix_disabled": False,
                            "error": "harness-error: " + import_error})
            continue
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:  # case process
            os.close(r)
            try:
                out = judge(case, model_dir, gpu)
            except BaseException as e:  # noqa: BLE001
                out = {"verdict": "harness-error", "error": f"harness-error: judge crashed: {type(e).__name__}: {e}"}
            try:
                data = json.dumps(out, default=repr).encode()
            except Exception as e:  # noqa: BLE001
                data = json.dumps({"verdict": "harness-error", "error": f"harness-error: unserialisable result {e}"}).encode()
            with os.fdopen(w, "wb") as f:
                f.write(data)
            os._exit(0)
        os.close(w)
        chunks, deadline, timed_out = [], time.time() + timeout, False
        with os.fdopen(r, "rb") as f:
            while True:
                left = deadline - time.time()
                if left <= 0:
                    timed_out = True
                    break
                ready, _, _ = select.select([f], [], [], left)
                if not ready:
                    continue
                chunk = os.read(f.fileno(), 1 << 16)
                if not chunk:
                    break
                chunks.append(chunk)
        if timed_out:
            os.kill(pid, 9)
        _, status = os.waitpid(pid, 0)
        if timed_out:
            out = {"verdict": "harness-error", "error": f"harness-error: case timed out after {timeout}s"}
        elif not chunks:
            out = {"verdict": "harness-error", "error": f"harness-error: case process died (wait status {status})"}
        else:
            out = json.loads(b"".join(chunks))
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


def _release_version() -> str:
    import importlib.util

    spec = importlib.util.find_spec("sglang")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("sglang is not importable: put the release's --target dir on PYTHONPATH")
    vfile = Path(list(spec.submodule_search_locations)[0]) / "version.py"
    ns: dict = {}
    exec(vfile.read_text(), ns)
    return ns["__version__"]


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
    # internal: run one group
    ap.add_argument("--_group", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--_cases", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--_result", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

    if args._group:
        cases = json.loads(Path(args._cases).read_text())
        run_group(args._group, cases, Path(args.models_dir), args.timeout, Path(args._result))
        return 0

    version = _release_version()
    has_rl = _has_rl_flag()
    gpus = [g for g in args.gpus.split(",") if g]
    archs = [a for a in args.archs.split(",") if a]
    work = Path(tempfile.mkdtemp(prefix="sgl-det-oracle-"))
    model_dir = Path(args.models_dir) if args.models_dir else work / "models"
    write_models(model_dir)
    procs: list[tuple[str, subprocess.Popen, Path]] = []
    pending = list(gpus)
    done: dict[str, dict] = {}
    t0 = time.time()
    while pending or procs:
        while pending and len(procs) < args.jobs:
            gpu = pending.pop(0)
            cf, rf = work / f"cases-{gpu}.json", work / f"result-{gpu}.json"
            cf.write_text(json.dumps(build_cases(has_rl, [gpu], archs)))
            log = open(work / f"group-{gpu}.log", "w")
            p = subprocess.Popen([sys.executable, str(Path(__file__).resolve()), "--wheel", args.wheel, "--out", args.out,
                                  "--models-dir", str(model_dir), "--timeout", str(args.timeout),
                                  "--_group", gpu, "--_cases", str(cf), "--_result", str(rf)],
                                 stdout=log, stderr=subprocess.STDOUT)
            procs.append((gpu, p, rf))
        time.sleep(0.5)
        for item in list(procs):
            gpu, p, rf = item
            if p.poll() is not None:
                procs.remove(item)
                if rf.exists():
                    done[gpu] = json.loads(rf.read_text())
                else:
                    cases = build_cases(has_rl, [gpu], archs)
                    done[gpu] = {"gpu": gpu, "results": [
                        {**c, "sm": list(GPUS[gpu][0]), "tp_size": 1, "verdict": "harness-error", "backend": None,
                         "radix_disabled": False,
                         "error": f"harness-error: group process exited {p.returncode}; see {work}/group-{gpu}.log"}
                        for c in cases]}
                n = len(done[gpu]["results"])
                print(f"[{version}] {gpu}: {n} cases, import {done[gpu].get('import_seconds')}s, "
                      f"elapsed {time.time() - t0:.0f}s", flush=True)
    env = {"python": sys.version.split()[0]}
    for dist in ("torch", "transformers", "torchvision"):
        try:
            import importlib.metadata as md

            env[dist] = md.version(dist)
        except Exception:
            env[dist] = None
    records = []
    stubbed: set[str] = set()
    for gpu in gpus:
        stubbed.update(done[gpu].get("stubbed_modules", []))
        for rec in done[gpu]["results"]:
            records.append({"release": version, "wheel": args.wheel, "env": env, **rec})
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
