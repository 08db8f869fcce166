"""`--quantization nvfp4_online` or `--kv-cache-dtype mxfp8` on a GPU that is not Blackwell.

## What it does
When the GPU target is pinned, checks two Blackwell-only data types against
SGLang's start-up probes: `--quantization nvfp4_online` (0.5.14+) needs an
SM10x GPU (`is_sm100_supported`: B200/B300/GB200, not SM12x RTX/GB10 parts),
and `--kv-cache-dtype mxfp8` (0.5.16+) needs an SM10x/SM11x/SM12x GPU
(`is_blackwell_supported`). Without a pinned GPU it stays silent.

## Why is this bad?
The server stops at start-up with `ValueError: --quantization nvfp4_online
is supported only on NVIDIA Blackwell SM100/SM103 GPUs.` or `ValueError:
--kv-cache-dtype mxfp8 requires an SM100+ (Blackwell) GPU for the
block-scaled operands used by the FA4 MXFP8 attention path.`, before any
weight is loaded.

## Example
```sh
# sgllint: gpu=H100
python -m sglang.launch_server --model-path Qwen/Qwen3-30B-A3B --quantization nvfp4_online
```

## Use instead
```sh
# sgllint: gpu=H100
python -m sglang.launch_server --model-path Qwen/Qwen3-30B-A3B --quantization fp8
```

## References
- `sglang/srt/server_args.py` `ServerArgs._handle_moe_kernel_config`
  (nvfp4_online, 0.5.14) and `sglang/srt/arg_groups/overrides.py`
  `_moe_runner_backend_quant_constraints` (0.5.15.post1–0.5.23);
  `ServerArgs._handle_mxfp8_kv_cache_compatibility` (0.5.16–0.5.18) and
  `sglang/srt/arg_groups/kv_cache_hook.py` `handle_mxfp8_kv_cache_compatibility`
  (0.5.19–0.5.23); probes in `sglang/srt/utils/common.py`
  (`is_sm100_supported`: majors [10]; `is_blackwell_supported`: [10, 11, 12]).
"""

from sgllint.model.rule import ERROR, Invalid, Rule, Valid
from sgllint.semantics import effective as eff

Q = "python -m sglang.launch_server --model-path Qwen/Qwen3-30B-A3B"
NVFP4_MSG = "--quantization nvfp4_online is supported only on NVIDIA Blackwell SM100/SM103 GPUs."
MXFP8_MSG = ("--kv-cache-dtype mxfp8 requires an SM100+ (Blackwell) GPU for the block-scaled operands used by the "
             "FA4 MXFP8 attention path.")


class BlackwellOnlyDtype(Rule):
    code = "SGL307"
    name = "blackwell-only-dtype"
    severity = ERROR

    VALID = [
        Valid.sh(f"# sgllint: gpu=B200\n{Q} --quantization nvfp4_online"),
        Valid.sh(f"{Q} --quantization nvfp4_online"),
        Valid.sh(f"# sgllint: gpu=RTXPRO6000\n{Q} --kv-cache-dtype mxfp8"),
        Valid.sh(f"# sgllint: gpu=H100\n{Q} --kv-cache-dtype fp8_e4m3"),
        Valid.py(
            """
            # sgllint: gpu=B200
            import sglang as sgl
            llm = sgl.Engine(model_path="Qwen/Qwen3-30B-A3B", quantization="nvfp4_online", kv_cache_dtype="mxfp8")
            """
        ),
    ]
    INVALID = [
        Invalid.sh(f"# sgllint: gpu=H100\n{Q} --quantization nvfp4_online", at="nvfp4_online", message="SM100/SM103"),
        Invalid.sh(f"# sgllint: gpu=RTXPRO6000\n{Q} --quantization nvfp4_online", at="nvfp4_online", sglang="0.5.14"),
        Invalid.sh(f"# sgllint: gpu=H100\n{Q} --kv-cache-dtype mxfp8", at="mxfp8", sglang="0.5.16",
                   message="requires an SM100+ (Blackwell) GPU"),
        Invalid.py(
            """
            # sgllint: gpu=A100
            import sglang as sgl
            llm = sgl.Engine(model_path="Qwen/Qwen3-30B-A3B", kv_cache_dtype="mxfp8")
            """,
            at='"mxfp8"',
        ),
        Invalid.toml(
            """
            # sgllint: gpu=H200
            [tool.poe.tasks]
            serve = "python -m sglang.launch_server --model-path Qwen/Qwen3-30B-A3B --quantization nvfp4_online"
            """,
            at="nvfp4_online",
        ),
    ]

    def check(self, launch):
        v = eff.version(launch)
        g = eff.gpu(launch)
        if g is None or launch.opaque:
            return
        device = eff.given(launch, "device")
        if device is eff.UNKNOWN or (isinstance(device, str) and not device.startswith("cuda")):
            return
        checks = (
            ("quantization", "nvfp4_online", "0.5.14", (10,), NVFP4_MSG,
             "use --quantization fp8 (or modelopt_fp4 weights with a Marlin/Cutlass runner) off SM10x, or run on B200/B300/GB200"),
            ("kv_cache_dtype", "mxfp8", "0.5.16", (10, 11, 12), MXFP8_MSG,
             "use --kv-cache-dtype fp8_e4m3 (or auto) off Blackwell"),
        )
        for field, value, since, majors, msg, fix in checks:
            if not eff.at_least(v, since) or eff.given(launch, field) != value:
                continue
            if not eff.gpu_fails(g, majors):
                continue
            arg = launch.last(field)
            yield self.diagnostic(
                arg.value_span or arg.span,
                f"{value} needs a {eff.describe_majors(majors)} GPU, but the target is {g.describe()}; "
                f"SGLang {v} stops at start-up: \"{msg}\"",
                help=fix,
                related=eff.gpu_related(launch),
                launch=launch,
            )
            return
