"""`--enable-dp-attention` without `--dp-size`, which SGLang silently switches off (the width defaults to 1).

## What it does
Reports `--enable-dp-attention` when `--dp-size` is not given, so the
attention-DP width stays at its default 1. In 0.5.2–0.5.21 `--dp-size` is the
number of attention-DP groups, and SGLang resets `enable_dp_attention` (and
`enable_dp_lm_head`) to False when it is 1. From 0.5.22 the flag is the
deprecated spelling of `--attn-dp-size`: without `--attn-dp-size` SGLang
moves `--dp-size` (1) into `attn_dp_size`, so attention DP stays off too.
Skipped with `--elastic-ep-join-mode` (0.5.21's reset spares `scale`). An
explicit `--dp-size 1` is not reported: attention DP over one group is what
the launch writes, and it is the same as no attention DP.

## Why is this bad?
Nothing fails and nothing is logged: the server runs plain tensor
parallelism, with every GPU holding the full KV cache of every request,
instead of the attention data parallelism the launch asks for (the usual
set-up for DeepSeek-style MLA models, where it multiplies the KV-cache
capacity). Up to 0.5.1 the same launch stopped with `Please set a dp-size > 1.
You can use 1 < dp-size <= tp-size`.

## Example
```sh
python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp-size 8 --enable-dp-attention
```

## Use instead
```sh
python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp-size 8 --enable-dp-attention --dp-size 8
```

## References
- `sglang/srt/server_args.py` `ServerArgs.__post_init__` (0.5.2) and
  `ServerArgs._handle_data_parallelism` (0.5.3–0.5.18): `if self.dp_size == 1:
  self.enable_dp_attention = False; self.enable_dp_lm_head = False`;
  `sglang/srt/arg_groups/overrides.py` `_data_parallelism_defaults`
  (0.5.19–0.5.21, `and view.ep_join_mode != "scale"` in 0.5.21);
  `sglang/srt/arg_groups/parallel_hook.py` `handle_deprecated_dp_attention`
  (0.5.22–0.5.23: `attn_dp_size=cfg.dp_size` when `attn_dp_size == 1`).
  0.5.1 asserts `dp_size > 1` instead. Read in the wheels 0.5.1, 0.5.2, 0.5.3,
  0.5.4.post3, 0.5.19, 0.5.21, 0.5.22, 0.5.23.
"""

from sgllint.model.rule import WARNING, Invalid, Rule, Valid
from sgllint.semantics import effective as eff
from sgllint.semantics import parallel as par

DSV3 = "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp-size 8"


class DpAttentionDisabledByDpSizeOne(Rule):
    code = "SGL246"
    name = "dp-attention-disabled-by-dp-size-one"
    severity = WARNING

    VALID = [
        Valid.sh(f"{DSV3} --enable-dp-attention --dp-size 8", sglang="0.5.21"),
        Valid.sh(f"{DSV3} --enable-dp-attention --dp-size 4", sglang="0.5.10"),
        Valid.sh(f"{DSV3} --attn-dp-size 8"),
        Valid.sh(f"{DSV3} --enable-dp-attention --dp-size $DP", sglang="0.5.21"),
        Valid.sh(f"{DSV3}", sglang="0.5.21"),
        Valid.sh(f"{DSV3} --enable-dp-attention --dp-size 1", sglang="0.5.10"),
        Valid.py(
            """
            import sglang as sgl
            llm = sgl.Engine(model_path="deepseek-ai/DeepSeek-V3", tp_size=8, enable_dp_attention=True, dp_size=8)
            """,
            sglang="0.5.21",
        ),
    ]
    INVALID = [
        Invalid.sh(f"{DSV3} --enable-dp-attention", at="--enable-dp-attention", sglang="0.5.21",
                   message="silently switches attention DP off"),
        Invalid.sh(f"{DSV3} --enable-dp-attention", at="--enable-dp-attention", sglang="0.5.10",
                   message="--dp-size left at its default 1"),
        Invalid.sh(f"{DSV3} --enable-dp-attention --enable-dp-lm-head", at="--enable-dp-attention", sglang="0.5.4",
                   message="--enable-dp-lm-head"),
        Invalid.py(
            """
            import sglang as sgl
            llm = sgl.Engine(model_path="deepseek-ai/DeepSeek-V3", tp_size=8, enable_dp_attention=True)
            """,
            at="enable_dp_attention",
            sglang="0.5.21",
        ),
        Invalid.yaml(
            """
            services:
              sglang:
                image: lmsysorg/sglang:v0.5.21
                command: >-
                  python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp-size 8
                  --enable-dp-attention --chunked-prefill-size 8192
            """,
            at="--enable-dp-attention",
            sglang="0.5.21",
        ),
    ]

    def check(self, launch):
        v = eff.version(launch)
        if not eff.at_least(v, "0.5.2") or launch.opaque:
            return
        enable = launch.last("enable_dp_attention")
        if enable is None or enable.value is not True:
            return
        dp, dp_arg = par.int_value(launch, "dp_size", 1)
        if not par.known(dp) or dp != 1 or dp_arg is not None:
            return  # an explicit --dp-size 1 says what runs
        if eff.has_field(launch, "ep_join_mode") and launch.last("ep_join_mode") is not None:
            return
        split = eff.at_least(v, "0.5.22") and eff.has_field(launch, "attn_dp_size")
        if split:
            attn, _ = par.int_value(launch, "attn_dp_size", 1)
            if not par.known(attn) or attn != 1:
                return
        tp, _ = par.int_value(launch, "tp_size", 1)
        related = []
        if dp_arg is not None:
            related.append((dp_arg.value_span or dp_arg.span, "--dp-size 1"))
        lm_head = launch.last("enable_dp_lm_head")
        also = ""
        if lm_head is not None and lm_head.value is True:
            also = " and --enable-dp-lm-head"
            related.append((lm_head.flag_span, "switched off too"))
        written = "--dp-size 1" if dp_arg is not None else "--dp-size left at its default 1"
        width_flag = "--attn-dp-size" if split else "--dp-size"
        if split:
            how = "moves --dp-size (1) into --attn-dp-size, so attention DP stays off"
            fix = f"use {width_flag} N instead"
        else:
            how = "silently switches attention DP off (enable_dp_attention = False, no log line)"
            fix = f"add {width_flag} N"
        if par.known(tp) and tp > 1:
            fix += f" (N attention-DP groups dividing --tp-size {tp}, e.g. {width_flag} {tp})"
        yield self.diagnostic(
            enable.flag_span,
            f"--enable-dp-attention{also} is overridden: with {written} SGLang {v} {how}; the server runs plain tensor "
            "parallelism",
            help=f"{fix}, or drop --enable-dp-attention",
            related=related,
            launch=launch,
        )
