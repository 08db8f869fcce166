"""`--prefill-kv-cache-dequant-dtype` without `--kv-cache-dtype nvfp4`.

## What it does
From 0.5.21, flags a `--prefill-kv-cache-dequant-dtype` other than `auto`
when the KV cache is not NVFP4 (`--kv-cache-dtype` unset or another dtype).

## Why is this bad?
The option only selects how an NVFP4 KV cache is dequantized for prefill;
SGLang stops at start-up with `ValueError: --prefill-kv-cache-dequant-dtype
applies only with --kv-cache-dtype=nvfp4.`

## Example
```sh
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --kv-cache-dtype fp8_e4m3 --prefill-kv-cache-dequant-dtype fp8_e4m3
```

## Use instead
```sh
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --kv-cache-dtype fp8_e4m3
```

## References
- `sglang/srt/arg_groups/kv_cache_hook.py` `handle_nvfp4_prefill_kv_dequant_dtype`,
  releases 0.5.21, 0.5.22 and 0.5.23 (the flag does not exist before 0.5.21).
"""

from sgllint.model.rule import ERROR, Invalid, Rule, Valid
from sgllint.semantics import effective as eff

Q = "python -m sglang.launch_server --model-path Qwen/Qwen3-8B"
MSG = "--prefill-kv-cache-dequant-dtype applies only with --kv-cache-dtype=nvfp4."


class PrefillKvDequantWithoutNvfp4(Rule):
    code = "SGL242"
    name = "prefill-kv-dequant-without-nvfp4"
    severity = ERROR

    VALID = [
        Valid.sh(f"# sgllint: gpu=B200\n{Q} --kv-cache-dtype nvfp4 --prefill-kv-cache-dequant-dtype fp8_e4m3"),
        Valid.sh(f"{Q} --kv-cache-dtype fp8_e4m3 --prefill-kv-cache-dequant-dtype auto"),
        Valid.sh(f"{Q} --kv-cache-dtype $KV --prefill-kv-cache-dequant-dtype fp8_e4m3"),
        Valid.py(
            """
            # sgllint: gpu=B200
            import sglang as sgl
            llm = sgl.Engine(model_path="Qwen/Qwen3-8B", kv_cache_dtype="nvfp4", prefill_kv_cache_dequant_dtype="nvfp4")
            """
        ),
    ]
    INVALID = [
        Invalid.sh(f"{Q} --kv-cache-dtype fp8_e4m3 --prefill-kv-cache-dequant-dtype fp8_e4m3", at="--prefill-kv-cache-dequant-dtype fp8_e4m3",
                   message="applies only with --kv-cache-dtype=nvfp4"),
        Invalid.sh(f"{Q} --prefill-kv-cache-dequant-dtype nvfp4", at="--prefill-kv-cache-dequant-dtype nvfp4", sglang="0.5.21"),
        Invalid.py(
            """
            import sglang as sgl
            llm = sgl.Engine(model_path="Qwen/Qwen3-8B", prefill_kv_cache_dequant_dtype="fp8_e4m3")
            """,
            at='prefill_kv_cache_dequant_dtype="fp8_e4m3"',
        ),
        Invalid.yaml(
            """
            services:
              sglang:
                image: lmsysorg/sglang:v0.5.23
                command: python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --prefill-kv-cache-dequant-dtype nvfp4
            """,
            at="--prefill-kv-cache-dequant-dtype nvfp4",
        ),
    ]

    def check(self, launch):
        v = eff.version(launch)
        if not eff.at_least(v, "0.5.21") or launch.opaque or not eff.has_field(launch, "prefill_kv_cache_dequant_dtype"):
            return
        dq = eff.given(launch, "prefill_kv_cache_dequant_dtype")
        if dq is None or dq is eff.UNKNOWN or dq == "auto":
            return
        kv = eff.value(launch, "kv_cache_dtype")
        if kv is eff.UNKNOWN or kv == "nvfp4":
            return
        arg = launch.last("prefill_kv_cache_dequant_dtype")
        kv_arg = launch.last("kv_cache_dtype")
        yield self.diagnostic(
            arg.span,
            f"{eff.flag(launch, 'prefill_kv_cache_dequant_dtype')} {dq} with KV-cache dtype {kv!r}; "
            f"SGLang {v} stops at start-up: \"{MSG}\"",
            help="remove --prefill-kv-cache-dequant-dtype, or use --kv-cache-dtype nvfp4 (Blackwell)",
            related=[(kv_arg.span, f"--kv-cache-dtype {kv}")] if kv_arg is not None else [],
            launch=launch,
        )
