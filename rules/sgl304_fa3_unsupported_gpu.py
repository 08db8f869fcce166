"""`fa3` attention on a GPU other than SM90, or on SM8x with an MLA model.

## What it does
When the GPU target is pinned, checks whether any attention backend
(`--attention-backend`, `--prefill-attention-backend`,
`--decode-attention-backend`) is `fa3` and the GPU is neither Hopper (SM9x)
nor Ampere/Ada (SM8x) with a non-MLA model. On SM8x it needs the model's
architecture; an unknown one stays silent. `--kv-cache-dtype fp8_e5m2` makes
SGLang switch `--attention-backend fa3` to triton (0.5.5+), so that case is
not reported.

## Why is this bad?
The launch passes argument parsing, loads the weights and then fails when the
attention backend is built: `AssertionError: FlashAttention v3 Backend
requires SM>=80 and SM<=90. Please use `--attention-backend flashinfer`.`

## Example
```sh
# sgllint: gpu=B200
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --attention-backend fa3
```

## Use instead
```sh
# sgllint: gpu=B200
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --attention-backend flashinfer
```

## References
- `sglang/srt/layers/attention/attention_registry.py`
  `create_flashattention_v3_backend` (0.5.4-0.5.23: `(major == 8 and not
  runner.use_mla_backend) or major == 9`); the fp8_e5m2 fallback in
  `server_args.py` / `arg_groups/overrides.py`
  `_attention_backend_fa3_fp8_fallback`.
"""

from sgllint.model.rule import ERROR, Invalid, Rule, Valid
from sgllint.semantics import effective as eff

QWEN = "python -m sglang.launch_server --model-path Qwen/Qwen3-8B"
DSV2 = "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V2-Lite"
MSG = "FlashAttention v3 Backend requires SM>=80 and SM<=90. Please use `--attention-backend flashinfer`."


class Fa3UnsupportedGpu(Rule):
    code = "SGL304"
    name = "fa3-unsupported-gpu"
    severity = ERROR

    VALID = [
        Valid.sh(f"# sgllint: gpu=H100\n{QWEN} --attention-backend fa3"),
        Valid.sh(f"# sgllint: gpu=A100\n{QWEN} --attention-backend fa3"),
        Valid.sh(f"{QWEN} --attention-backend fa3"),
        Valid.sh("# sgllint: gpu=A100\npython -m sglang.launch_server --model-path /models/private --attention-backend fa3"),
        Valid.py(
            """
            # sgllint: gpu=H100
            import sglang as sgl
            llm = sgl.Engine(model_path="deepseek-ai/DeepSeek-V2-Lite", attention_backend="fa3")
            """
        ),
    ]
    INVALID = [
        Invalid.sh(f"# sgllint: gpu=B200\n{QWEN} --attention-backend fa3", at="fa3", message="SM>=80 and SM<=90"),
        Invalid.sh(f"# sgllint: gpu=A100\n{DSV2} --attention-backend fa3", at="fa3", sglang="0.5.10", message="MLA"),
        Invalid.py(
            """
            # sgllint: gpu=B200
            import sglang as sgl
            llm = sgl.Engine(model_path="Qwen/Qwen3-8B", attention_backend="fa3")
            """,
            at='"fa3"',
        ),
    ]

    def check(self, launch):
        v = eff.version(launch)
        g = eff.gpu(launch)
        if g is None or g.vendor != "nvidia" or not eff.at_least(v, "0.5.4"):
            return
        b = eff.backends(launch)
        if not b.any("fa3"):
            return
        if b.attention == "fa3" and b.prefill_given is None and b.decode_given is None and eff.at_least(v, "0.5.5"):
            if eff.value(launch, "kv_cache_dtype") in ("fp8_e5m2", eff.UNKNOWN):
                return
        major = g.sm_major
        if major == 9:
            return
        why = ""
        if major == 8:
            mla = eff.is_mla(launch)
            if mla is not True:
                return
            why = f" with an MLA model ({launch.context.arch})"
        arg = eff.backend_arg(launch, "fa3", ("attention", "prefill", "decode"))
        yield self.diagnostic(
            arg.value_span or arg.span,
            f"fa3 cannot run on {g.describe()}{why}; SGLang {v} fails when it builds the attention backend, after loading "
            f"the weights: \"{MSG}\"",
            help=("use --attention-backend flashinfer or triton on this GPU" if major != 10 else
                  "on Blackwell use --attention-backend trtllm_mha/flashinfer (MHA) or trtllm_mla/flashinfer (MLA)"),
            related=eff.gpu_related(launch) + (eff.model_related(launch) if why else []),
            launch=launch,
        )
