"""Differential oracle for the rule pack: SGLang's own verdict on every case of
``tests/data/oracle/rulepack-cases.json`` (made by ``rulepack_cases.py`` from
the rules' VALID/INVALID examples).

Runs inside the oracle virtualenv with one release's wheel on PYTHONPATH; it
never imports sgllint (the cases file is plain JSON). Driver:
``run_rulepack_oracle.sh``::

    PYTHONPATH=/tmp/sgl-rp-site/0.5.23 python tests/oracle/rulepack_oracle.py \
        --wheel sglang-0.5.23-....whl --out tests/data/oracle/rulepack-0.5.23.json

How a case is judged
--------------------
* One group process per faked GPU (``deterministic_oracle.fake_gpu`` and its
  fake ``nvidia-smi``, the same stub finder), importing
  ``sglang.srt.server_args`` once.
* Each case runs in a fresh ``os.fork()`` and goes through what
  ``Engine._launch_subprocesses`` (``sglang/srt/entrypoints/engine.py``) does
  before it spawns any process, in the same order:

  1. ``prepare_server_args(argv)`` -- argparse + ``ServerArgs`` construction
     (releases <= 0.5.18 validate and rewrite in ``__post_init__``);
  2. ``server_args.resolve_once()`` when the release has it (0.5.19+:
     engine.py:1064 / 1153);
  3. ``server_args.check_server_args()`` (0.5.4 engine.py:777, 0.5.10 :642,
     0.5.19 :1076, 0.5.23 :1165);
  4. ``PortArgs.init_new(server_args)`` (0.5.4 engine.py:782 ... 0.5.23
     :1184; with attention DP it parses ``--dist-init-addr``).

  ``_set_envs_and_config`` (environment variables, kernel-package version
  checks against the stubbed ``sgl_kernel``/``flashinfer``) is not run.
  The verdict is ``accepted`` or ``rejected`` with the ``stage`` that raised,
  the exception class, message and the raising ``sglang`` file:line. An
  accepted case also records ``effective``: the resolved values of
  ``EFFECTIVE_FIELDS`` (what the warning rules SGL241, SGL243-SGL246 say SGLang
  overwrites), read after ``PortArgs.init_new``.
* ``harness-error`` is recorded (never as SGLang's verdict) by the same rules
  as ``deterministic_oracle``: the exception was raised outside ``sglang``,
  names a stub / missing CUDA, is an ``ImportError``, the case died or timed
  out, the release's platform probes disagree with the faked GPU, or the
  release's ``get_config`` does not load the case's model directory.
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
from functools import partial
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import deterministic_oracle as det  # noqa: E402  (stdlib-only at import)
import _harness as harness  # noqa: E402  (stdlib only at import)

# SM (x10) -> the oracle GPU faked for it (deterministic_oracle.GPUS)
GPU_BY_SM = {80: "A100", 90: "H100", 100: "B200", 103: "B300", 110: "Thor", 120: "RTX5090"}
DEFAULT_GPU = "H100"

#: deterministic_oracle's dense fields, with GQA, a longer context and a rope theta
_DENSE = {**det._COMMON, "num_key_value_heads": 4, "max_position_embeddings": 32768, "rope_theta": 1000000.0}

#: architectures the rule pack's examples name, beyond deterministic_oracle's
EXTRA_MODEL_CONFIGS: dict[str, dict] = {
    "LlamaForCausalLM": {"architectures": ["LlamaForCausalLM"], "model_type": "llama", **_DENSE, "num_key_value_heads": 8},
    "Qwen3ForCausalLM": {"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", **_DENSE, "head_dim": 64},
    "Qwen2_5_VLForConditionalGeneration": {
        "architectures": ["Qwen2_5_VLForConditionalGeneration"],
        "model_type": "qwen2_5_vl",
        **_DENSE,
        "vision_start_token_id": 151652,
        "vision_end_token_id": 151653,
        "image_token_id": 151655,
        "video_token_id": 151656,
        "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]},
        "vision_config": {
            "depth": 2,
            "hidden_size": 128,
            "intermediate_size": 256,
            "num_heads": 4,
            "out_hidden_size": 1024,
            "patch_size": 14,
            "spatial_merge_size": 2,
            "temporal_patch_size": 2,
            "window_size": 112,
            "fullatt_block_indexes": [1],
            "in_chans": 3,
            "tokens_per_second": 2,
        },
    },
}
MODEL_CONFIGS = {**det.MODEL_CONFIGS, **EXTRA_MODEL_CONFIGS}
#: draft models (``{DRAFT}``): a one-layer Llama draft as EAGLE / EAGLE3 checkpoints declare it
for _a in ("LlamaForCausalLMEagle", "LlamaForCausalLMEagle3"):
    MODEL_CONFIGS[_a] = {**EXTRA_MODEL_CONFIGS["LlamaForCausalLM"], "architectures": [_a], "num_hidden_layers": 1}


def draft_arch(argv: list[str]) -> str:
    """The draft architecture for a launch's speculative algorithm."""
    algo = ""
    for i, w in enumerate(argv):
        if w == "--speculative-algorithm" and i + 1 < len(argv):
            algo = argv[i + 1]
        elif w.startswith("--speculative-algorithm="):
            algo = w.split("=", 1)[1]
    return "LlamaForCausalLMEagle3" if algo.upper() == "EAGLE3" else "LlamaForCausalLMEagle"


def write_models(root: Path, names: dict[str, str]) -> None:
    """``names``: model directory name (relative to root) -> architecture."""
    for name, arch in names.items():
        d = root / name
        d.mkdir(parents=True, exist_ok=True)
        (d / "config.json").write_text(json.dumps(MODEL_CONFIGS[arch], indent=1) + "\n")


def case_argv(case: dict, model_root: Path) -> list[str]:
    subst = {"{MODEL}": str(model_root / case["model"]), "{DRAFT}": str(model_root / "draft" / case.get("draft_arch", ""))}
    out = []
    for a in case["argv"]:
        for k, v in subst.items():
            a = a.replace(k, v)
        out.append(a)
    return out


# --------------------------------------------------------------------------
# Per-case judging (forked child)
# --------------------------------------------------------------------------


#: fields whose value after resolution is recorded for accepted cases (the
#: warning rules say SGLang overwrites an explicit value of one of these)
EFFECTIVE_FIELDS = (
    "page_size", "chunked_prefill_size", "sampling_backend", "enable_mixed_chunk", "enable_dp_attention", "dp_size",
    "attn_dp_size", "enable_dp_lm_head", "ep_size", "attention_backend", "prefill_attention_backend",
    "decode_attention_backend", "disable_radix_cache", "enable_deterministic_inference", "speculative_algorithm",
)


def effective(server_args) -> dict:
    """The values the server runs with, read from the resolved ``ServerArgs``
    (as ``deterministic_oracle._effective``): through ``resolved_view`` where
    the release has it (0.5.19+ keep resolution's writes as declarations),
    else the record itself. A field the release does not have is left out."""
    view = harness.resolved_view(server_args)  # 0.5.19+
    out = {}
    for f in EFFECTIVE_FIELDS:
        for src in (view, server_args):
            try:
                v = getattr(src, f)
            except Exception:
                continue
            out[f] = v if v is None or isinstance(v, (bool, int, float, str)) else repr(v)
            break
    return out


def judge(case: dict, model_root: Path, gpu: str) -> dict:
    from sglang.srt import server_args as sa

    argv = case_argv(case, model_root)
    res: dict = {}
    t_start = time.time()
    log_buf = io.StringIO()
    handler = logging.StreamHandler(log_buf)
    handler.setLevel(logging.WARNING)
    stage = "prepare_server_args"
    obj = None
    try:
        obj, rejected = harness.prepare_server_args(sa, argv)
        if rejected:
            res.update({"verdict": "rejected", "stage": "argparse", **rejected})
            return _finish(res, case, model_root, gpu, t_start, log_buf)
        logging.getLogger().addHandler(handler)
        if hasattr(obj, "resolve_once"):
            stage = "resolve_once"
            obj.resolve_once()
        if hasattr(obj, "check_server_args"):
            stage = "check_server_args"
            obj.check_server_args()
        stage = "PortArgs.init_new"
        sa.PortArgs.init_new(obj)
        res["verdict"] = "accepted"
        res["effective"] = effective(obj)
        res["stages"] = [s for s in ("prepare_server_args", "resolve_once", "check_server_args", "PortArgs.init_new")
                         if s in ("prepare_server_args", "PortArgs.init_new") or hasattr(obj, s)]
    except BaseException as e:  # noqa: BLE001
        res.update(det._classify_exception(e))
        res["stage"] = stage
    finally:
        logging.getLogger().removeHandler(handler)
    return _finish(res, case, model_root, gpu, t_start, log_buf)


def _finish(res: dict, case: dict, model_root: Path, gpu: str, t_start: float, log_buf) -> dict:
    res["seconds"] = round(time.time() - t_start, 2)
    warnings = [ln for ln in log_buf.getvalue().splitlines() if ln.strip()]
    if warnings:
        res["warnings"] = warnings[:6]
    return det.check_harness(res, gpu, str(model_root / case["model"]), case["arch"],
                             said=("verdict", "error_class", "error", "raised_at"))


def _case_tmpdir() -> None:
    os.environ["TMPDIR"] = tempfile.mkdtemp(prefix="rp-case-")  # PortArgs' ipc files
    tempfile.tempdir = None


def run_group(gpu: str, cases: list[dict], model_root: Path, timeout: float, out_path: Path) -> None:
    gpu_info, finder = harness.enter_group(lambda bindir: det.write_fake_nvidia_smi(bindir, gpu),
                                           lambda: det.fake_gpu(gpu), __file__, det.__file__)
    import_error, import_s = harness.import_server_args()
    # Speed-up only (as deterministic_oracle): one throwaway fork per model
    # learns the lazily imported sglang/transformers modules; the group imports them.
    if not import_error and os.environ.get("SGL_ORACLE_PRELOAD", "1") == "1":
        seen: set = set()
        for case in cases:
            if case["model"] in seen:
                continue
            seen.add(case["model"])
            probe_case = {**case, "argv": ["--model-path", "{MODEL}"]}
            data = harness.lazy_imports_in_fork(partial(judge, probe_case, model_root, gpu))
            harness.preload(json.loads(data or b"[]"))
    results = []
    for case in cases:
        if import_error:
            out = {"verdict": "harness-error", "error": "harness-error: " + import_error}
        else:
            out = harness.run_in_fork(partial(judge, case, model_root, gpu), timeout, _case_tmpdir)
        results.append({"id": case["id"], **out})
    out_path.write_text(json.dumps({"gpu": gpu, "gpu_info": gpu_info, "import_seconds": import_s,
                                    "stubbed_modules": sorted(finder.stubbed), "results": results}))


# --------------------------------------------------------------------------
# Driver
# --------------------------------------------------------------------------


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--wheel", required=True, help="file name of the wheel on PYTHONPATH (recorded)")
    ap.add_argument("--cases", default=str(HERE.parent / "data" / "oracle" / "rulepack-cases.json"))
    ap.add_argument("--out", required=True)
    ap.add_argument("--jobs", type=int, default=2, help="GPU groups run in parallel")
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds per case")
    ap.add_argument("--only", default=None, help="comma list of case ids or rule codes (debugging)")
    ap.add_argument("--models-dir", default=None, help=argparse.SUPPRESS)
    args = harness.parse_args(ap)

    if args._group:
        run_group(args._group, json.loads(Path(args._cases).read_text()), Path(args.models_dir), args.timeout,
                  Path(args._result))
        return 0

    version = harness.release_version()
    base = ".".join(version.split(".")[:3])
    all_cases = json.loads(Path(args.cases).read_text())["cases"]
    cases = [c for c in all_cases if c["release"] == base]
    if args.only:
        keep = set(args.only.split(","))
        cases = [c for c in cases if c["id"] in keep or keep & {o["rule"] for o in c["origins"]}]
    work = Path(tempfile.mkdtemp(prefix="sgl-rp-oracle-"))
    model_root = work / "models"
    write_models(model_root, {c["model"]: c["arch"] for c in cases})
    write_models(model_root, {f"draft/{c['draft_arch']}": c["draft_arch"] for c in cases if c.get("draft_arch")})
    by_gpu: dict[str, list[dict]] = {}
    for c in cases:
        by_gpu.setdefault(c["gpu"], []).append(c)
    # split big groups so that --jobs processes stay busy
    chunks: list[tuple[str, str, list[dict]]] = []
    for gpu, cs in sorted(by_gpu.items()):
        n = max(1, min(args.jobs, len(cs) // 40 or 1))
        for i in range(n):
            part = cs[i::n]
            if part:
                chunks.append((f"{gpu}-{i}", gpu, part))
    t0 = time.time()
    done = harness.run_groups(
        chunks,
        [sys.executable, str(Path(__file__).resolve()), "--wheel", args.wheel, "--out", args.out,
         "--models-dir", str(model_root), "--timeout", str(args.timeout)],
        args.jobs, work, version,
        lambda c, error: {"id": c["id"], "verdict": "harness-error", "error": error})
    env = harness.env_versions()
    by_id = {c["id"]: c for c in cases}
    records, stubbed = [], set()
    for name in sorted(done):
        stubbed.update(done[name].get("stubbed_modules", []))
        for rec in done[name]["results"]:
            c = by_id[rec["id"]]
            rec.pop("seconds", None) if os.environ.get("SGL_ORACLE_KEEP_TIMES") != "1" else None
            # the temp model dir is not part of SGLang's verdict: keep the files reproducible
            rec = json.loads(json.dumps(rec, default=repr).replace(str(model_root), "{MODELS}"))
            records.append({"id": c["id"], "release": base, "gpu": c["gpu"], "sm": c["sm"], "arch": c["arch"],
                            "argv": c["argv"], **{k: v for k, v in rec.items() if k != "id"}})
    records.sort(key=lambda r: r["id"])
    counts: dict[str, int] = {}
    for rec in records:
        counts[rec["verdict"]] = counts.get(rec["verdict"], 0) + 1
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"release": version, "wheel": args.wheel, "env": env, "stubbed_modules": sorted(stubbed),
                               "counts": counts, "results": records},
                              indent=1, sort_keys=False, default=repr) + "\n")
    print(f"{out}: {len(records)} cases {counts}; stubbed: {', '.join(sorted(stubbed))}; {time.time() - t0:.0f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
