"""`trtllm_mla` as attention or decode backend on a GPU that is not Blackwell.

## What it does
When the GPU target is pinned, checks `--attention-backend trtllm_mla` /
`--decode-attention-backend trtllm_mla` against the GPUs SGLang's probe
accepts in the target release: SM10x only in 0.5.1-0.5.3
(`is_sm100_supported`), SM10x/SM12x in 0.5.4-0.5.8 (`is_blackwell_supported`),
SM10x/SM11x/SM12x from 0.5.9. Without a pinned GPU it stays silent.

## Why is this bad?
The server stops at start-up with `ValueError: TRTLLM MLA backend is only
supported on Blackwell GPUs (SM100). Please use a different backend.`
(`(SM100/SM12x)` from 0.5.9).

## Example
```sh
# sgllint: gpu=H100
python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp-size 8 --attention-backend trtllm_mla
```

## Use instead
```sh
# sgllint: gpu=H100
python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp-size 8 --attention-backend fa3
```

## References
- `sglang/srt/server_args.py` `ServerArgs._handle_attention_backend_compatibility`
  (0.5.1-0.5.18) and `sglang/srt/arg_groups/overrides.py`
  `_mla_kv_cache_dtype_checks` (0.5.19-0.5.23); the probes in
  `sglang/srt/utils/common.py` (`is_blackwell_supported`: majors [10, 12] in
  0.5.7-0.5.8, [10, 11, 12] from 0.5.9).
"""

from sgllint.model.rule import ERROR, Invalid, Rule, Valid
from sgllint.semantics import effective as eff

DSV3 = "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp-size 8"


def supported_majors(version):
    if not eff.at_least(version, "0.5.4"):
        return (10,)
    if not eff.at_least(version, "0.5.9"):
        return (10, 12)
    return (10, 11, 12)


class TrtllmMlaRequiresBlackwell(Rule):
    code = "SGL302"
    name = "trtllm-mla-requires-blackwell"
    severity = ERROR

    VALID = [
        Valid.sh(f"# sgllint: gpu=B200\n{DSV3} --attention-backend trtllm_mla"),
        Valid.sh(f"{DSV3} --attention-backend trtllm_mla"),
        Valid.sh(f"# sgllint: gpu=RTXPRO6000\n{DSV3} --attention-backend trtllm_mla", sglang="0.5.9"),
        Valid.py(
            """
            # sgllint: gpu=B200
            import sglang as sgl
            llm = sgl.Engine(model_path="deepseek-ai/DeepSeek-V3", tp_size=8, attention_backend="trtllm_mla")
            """
        ),
    ]
    INVALID = [
        Invalid.sh(f"# sgllint: gpu=H100\n{DSV3} --attention-backend trtllm_mla", at="trtllm_mla", message="(SM100/SM12x)"),
        Invalid.sh(f"# sgllint: gpu=RTXPRO6000\n{DSV3} --decode-attention-backend trtllm_mla", at="trtllm_mla", sglang="0.5.3",
                   message="(SM100)"),
        Invalid.py(
            """
            # sgllint: gpu=H100
            import sglang as sgl
            llm = sgl.Engine(model_path="deepseek-ai/DeepSeek-V3", tp_size=8, attention_backend="trtllm_mla")
            """,
            at='"trtllm_mla"',
        ),
    ]

    def check(self, launch):
        v = eff.version(launch)
        g = eff.gpu(launch)
        if g is None or not eff.at_least(v, "0.5.1"):
            return
        b = eff.backends(launch)
        if not b.any("trtllm_mla", ("attention", "decode")):
            return
        majors = supported_majors(v)
        if not eff.gpu_fails(g, majors):
            return
        arg = eff.backend_arg(launch, "trtllm_mla", ("attention", "decode"))
        sm = "(SM100/SM12x)" if eff.at_least(v, "0.5.9") else "(SM100)"
        yield self.diagnostic(
            arg.value_span or arg.span,
            f"trtllm_mla needs a {eff.describe_majors(majors)} GPU in SGLang {v}, but the target is {g.describe()}; "
            f"SGLang stops at start-up: \"TRTLLM MLA backend is only supported on Blackwell GPUs {sm}. Please use a different backend.\"",
            help="on Hopper use --attention-backend fa3 or flashmla; triton works everywhere",
            related=eff.gpu_related(launch),
            launch=launch,
        )
