"""A FlashInfer MoE runner with an explicit `--quantization` that runner does not support.

## What it does
Checks `--moe-runner-backend flashinfer_cutlass`, `flashinfer_trtllm` or
`flashinfer_cutedsl` against the `--quantization` written on the command
line, with the allowed lists of the target release:

* `flashinfer_cutlass`: `modelopt_fp4` only (0.5.1–0.5.5), then
  `modelopt_fp4`/`modelopt_fp8`/none (0.5.6), `+modelopt_mixed` (0.5.10);
* `flashinfer_trtllm` (0.5.2+): `modelopt_fp4`/`fp8` (0.5.2–0.5.3),
  `+modelopt_fp8` (0.5.4–0.5.6), `+compressed-tensors`/none (0.5.7),
  `+mxfp8`/`modelopt_mixed` (0.5.10), `+nvfp4_online` (0.5.14);
* `flashinfer_cutedsl` (0.5.11+): `modelopt_fp4`, `+modelopt_mixed`
  (0.5.16), `+nvfp4_online` (0.5.18).

Without `--quantization` the checkpoint decides, and the rule is silent,
except in the releases whose list has no "none" entry and that do not read
the checkpoint's method before the check (`flashinfer_cutlass` 0.5.1–0.5.5,
`flashinfer_trtllm` 0.5.2–0.5.6). Not judged: `--quantization unquant`
(none), `nvfp4_online` from 0.5.14 (its own runner check raises first),
`mxfp8` with `flashinfer_cutlass`/`flashinfer_cutedsl` from 0.5.10 (SGLang
switches the runner to `flashinfer_trtllm` with a warning), NemotronH models
(SGLang replaces the quantization with the checkpoint's), and hybrid NVFP4
checkpoints, which `flashinfer_cutedsl` also accepts from 0.5.15.

## Why is this bad?
SGLang stops at start-up with an `AssertionError`, e.g. `Invalid quantization
'fp8'. \nFlashInfer Cutlass MOE supports only: 'modelopt_fp4', 'modelopt_fp8',
'modelopt_mixed', or bfloat16 (None).` (`modelopt_fp4 quantization is required
for Flashinfer MOE` up to 0.5.5).

## Example
```sh
python -m sglang.launch_server --model-path Qwen/Qwen3-30B-A3B --moe-runner-backend flashinfer_cutlass --quantization fp8
```

## Use instead
```sh
python -m sglang.launch_server --model-path Qwen/Qwen3-30B-A3B --moe-runner-backend flashinfer_trtllm --quantization fp8
```

## References
- `sglang/srt/server_args.py` `ServerArgs._handle_moe_kernel_config`
  (0.5.1 :549–556, 0.5.4.post3 :1363–1381, 0.5.6.post2 :1582–1600,
  0.5.10.post1 :2667–2700, 0.5.13.post1 :3362–3420, 0.5.15.post1 :4929–4980,
  0.5.18 :6734–6795) and `sglang/srt/arg_groups/moe_hook.py`
  `handle_moe_kernel_config` (0.5.19 :44–105, 0.5.23 :80–150); the runner
  rewrites before it in `arg_groups/overrides.py`
  `_moe_runner_backend_quant_constraints` (0.5.15.post1–0.5.23). Lists read
  in every wheel 0.5.1–0.5.23.
"""

from sgllint.model.rule import ERROR, Invalid, Rule, Valid
from sgllint.semantics import effective as eff

Q = "python -m sglang.launch_server --model-path Qwen/Qwen3-30B-A3B"
NONE = None

#: runner -> ((since, allowed, message template), ...), newest last; None in allowed: no --quantization is fine
TABLE = {
    "flashinfer_cutlass": (
        ("0.5.1", ("modelopt_fp4",), "modelopt_fp4 quantization is required for Flashinfer MOE"),
        ("0.5.5", ("modelopt_fp4",), "modelopt_fp4 quantization is required for Flashinfer Cutlass MOE"),
        ("0.5.6", ("modelopt_fp4", "modelopt_fp8", NONE),
         "Invalid quantization '{q}'. \\nFlashInfer Cutlass MOE supports only: 'modelopt_fp4', 'modelopt_fp8', or bfloat16 (None)."),
        ("0.5.10", ("modelopt_fp4", "modelopt_fp8", "modelopt_mixed", NONE),
         "Invalid quantization '{q}'. \\nFlashInfer Cutlass MOE supports only: 'modelopt_fp4', 'modelopt_fp8', 'modelopt_mixed', "
         "or bfloat16 (None)."),
    ),
    "flashinfer_trtllm": (
        ("0.5.2", ("modelopt_fp4", "fp8"), "modelopt_fp4 quantization is required for Flashinfer TRTLLM MoE"),
        ("0.5.3", ("modelopt_fp4", "fp8"), "modelopt_fp4 or fp8 quantization is required for Flashinfer TRTLLM MoE"),
        ("0.5.4", ("modelopt_fp4", "modelopt_fp8", "fp8"),
         "modelopt_fp4, modelopt_fp8 or fp8 quantization is required for Flashinfer TRTLLM MoE"),
        ("0.5.7", ("modelopt_fp4", "fp8", "modelopt_fp8", "compressed-tensors", NONE),
         "Invalid quantization '{q}'. \\nFlashInfer TRTLLM MOE supports only: 'modelopt_fp4', 'fp8', 'modelopt_fp8', "
         "'compressed-tensors', or bfloat16 (None)."),
        ("0.5.10", ("modelopt_fp4", "fp8", "mxfp8", "modelopt_fp8", "modelopt_mixed", "compressed-tensors", NONE),
         "Invalid quantization '{q}'. \\nFlashInfer TRTLLM MOE supports only: 'modelopt_fp4', 'fp8', 'modelopt_fp8', "
         "'modelopt_mixed', 'compressed-tensors', or bfloat16 (None)."),
        ("0.5.14", ("modelopt_fp4", "nvfp4_online", "fp8", "mxfp8", "modelopt_fp8", "modelopt_mixed", "compressed-tensors", NONE),
         "Invalid quantization '{q}'. \\nFlashInfer TRTLLM MOE supports only: 'modelopt_fp4', 'nvfp4_online', 'fp8', "
         "'modelopt_fp8', 'modelopt_mixed', 'compressed-tensors', or bfloat16 (None)."),
    ),
    "flashinfer_cutedsl": (
        ("0.5.11", ("modelopt_fp4",), "Invalid quantization '{q}'. \\nFlashInfer CuteDSL MOE currently supports only: 'modelopt_fp4'."),
        ("0.5.15", ("modelopt_fp4",),
         "Invalid quantization '{q}'. \\nFlashInfer CuteDSL MOE currently supports only: 'modelopt_fp4' or hybrid NVFP4 models."),
        ("0.5.16", ("modelopt_fp4", "modelopt_mixed"),
         "Invalid quantization '{q}'. \\nFlashInfer CuteDSL MOE currently supports only: 'modelopt_fp4', 'modelopt_mixed' "
         "(with NVFP4 MoE layers), or hybrid NVFP4 models."),
        ("0.5.18", ("modelopt_fp4", "modelopt_mixed", "nvfp4_online"),
         "Invalid quantization '{q}'. \\nFlashInfer CuteDSL MOE currently supports only: 'modelopt_fp4', 'modelopt_mixed' "
         "(with NVFP4 MoE layers), 'nvfp4_online', or hybrid NVFP4 models."),
    ),
}

FIX = {
    "flashinfer_cutlass": "use --moe-runner-backend flashinfer_trtllm (B200) or triton/auto for this quantization, "
                          "or a ModelOpt FP4/FP8 checkpoint",
    "flashinfer_trtllm": "use --moe-runner-backend triton (or auto) for this quantization",
    "flashinfer_cutedsl": "flashinfer_cutedsl runs NVFP4 (ModelOpt FP4) MoE only; use --moe-runner-backend triton "
                          "(or auto) for this quantization",
}


def entry(runner, v):
    found = None
    for since, allowed, msg in TABLE[runner]:
        if eff.at_least(v, since):
            found = (allowed, msg)
    return found


class MoeRunnerQuantizationUnsupported(Rule):
    code = "SGL223"
    name = "moe-runner-quantization-unsupported"
    severity = ERROR

    VALID = [
        Valid.sh(f"# sgllint: gpu=B200\n{Q} --moe-runner-backend flashinfer_trtllm --quantization fp8"),
        Valid.sh(f"# sgllint: gpu=B200\n{Q} --moe-runner-backend triton --quantization fp8"),
        Valid.sh(f"{Q} --moe-runner-backend flashinfer_cutlass", sglang="0.5.10"),
        Valid.sh(f"{Q} --moe-runner-backend flashinfer_cutedsl --quantization fp8", sglang="0.5.10"),
        Valid.py(
            """
            # sgllint: gpu=B200
            import sglang as sgl
            llm = sgl.Engine(model_path="Qwen/Qwen3-30B-A3B", moe_runner_backend="flashinfer_trtllm", quantization="fp8")
            """
        ),
    ]
    INVALID = [
        Invalid.sh(f"{Q} --moe-runner-backend flashinfer_cutlass --quantization fp8", at="fp8",
                   message="FlashInfer Cutlass MOE supports only: 'modelopt_fp4', 'modelopt_fp8', 'modelopt_mixed'"),
        Invalid.sh(f"{Q} --moe-runner-backend flashinfer_cutlass --quantization fp8", at="fp8", sglang="0.5.4",
                   message="modelopt_fp4 quantization is required for Flashinfer MOE"),
        Invalid.sh(f"# sgllint: gpu=B200\n{Q} --moe-runner-backend flashinfer_trtllm --quantization awq", at="awq",
                   message="FlashInfer TRTLLM MOE supports only"),
        Invalid.sh(f"# sgllint: gpu=B200\n{Q} --moe-runner-backend flashinfer_cutedsl --quantization fp8", at="fp8",
                   message="FlashInfer CuteDSL MOE currently supports only"),
        Invalid.sh(f"{Q} --moe-runner-backend flashinfer_trtllm", at="flashinfer_trtllm", sglang="0.5.4",
                   message="modelopt_fp4, modelopt_fp8 or fp8 quantization is required for Flashinfer TRTLLM MoE"),
        Invalid.py(
            """
            import sglang as sgl
            llm = sgl.Engine(model_path="Qwen/Qwen3-30B-A3B", moe_runner_backend="flashinfer_cutlass", quantization="fp8")
            """,
            at='"fp8"',
        ),
        Invalid.yaml(
            """
            containers:
              - name: sglang
                command: ["python3", "-m", "sglang.launch_server"]
                args: ["--model-path", "Qwen/Qwen3-30B-A3B", "--moe-runner-backend", "flashinfer_cutlass", "--quantization", "w8a8_int8"]
            """,
            at='"w8a8_int8"',
        ),
    ]

    def check(self, launch):
        v = eff.version(launch)
        if launch.opaque:
            return
        runner = eff.given(launch, "moe_runner_backend")
        if not isinstance(runner, str) or runner not in TABLE:
            return
        found = entry(runner, v)
        if found is None:
            return
        allowed, msg = found
        quant = eff.given(launch, "quantization")
        if quant is eff.UNKNOWN or (quant is not None and not isinstance(quant, str)):
            return
        arch = launch.context.arch or ""
        if arch.startswith("NemotronH"):
            return
        if quant == "unquant" or (quant == "nvfp4_online" and eff.at_least(v, "0.5.14")):
            return
        if quant == "mxfp8" and runner != "flashinfer_trtllm" and eff.at_least(v, "0.5.10"):
            return
        if quant in allowed:
            return
        runner_arg = launch.last("moe_runner_backend")
        text = msg.format(q=quant)
        if quant is None:
            yield self.diagnostic(
                runner_arg.value_span or runner_arg.span,
                f"{runner} without --quantization; SGLang {v} does not take the method from the checkpoint here and "
                f"stops at start-up: \"{text}\"",
                help=f"add --quantization ({', '.join(a for a in allowed if a)}) matching the checkpoint, or drop "
                     f"--moe-runner-backend",
                launch=launch,
            )
            return
        q_arg = launch.last("quantization")
        yield self.diagnostic(
            q_arg.value_span or q_arg.span,
            f"{runner} does not run {quant} MoE weights; SGLang {v} stops at start-up: \"{text}\"",
            help=FIX[runner],
            related=[(runner_arg.value_span or runner_arg.span, f"--moe-runner-backend {runner}")],
            launch=launch,
        )
