"""The attention data-parallel width does not divide `--tp-size`.

## What it does
With attention data parallelism on — `--enable-dp-attention --dp-size N` up
to 0.5.21, `--attn-dp-size N` from 0.5.22 (where the deprecated spelling is
translated to it) — checks that N divides `--tp-size`: attention DP splits the
tensor-parallel group into N equal attention groups.

## Why is this bad?
SGLang asserts it while resolving the arguments, with a bare
`assert tp_size % dp_size == 0` (`tp_size % attn_dp_size` from 0.5.22): the
server dies with an `AssertionError` that carries no message at all.

## Example
```sh
python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp-size 8 --attn-dp-size 3
```

## Use instead
```sh
python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp-size 8 --attn-dp-size 4
```

## References
- `sglang/srt/server_args.py` `ServerArgs.__post_init__` (0.4.1–0.5.2) /
  `_handle_data_parallelism` (0.5.3–0.5.18); `sglang/srt/arg_groups/parallel_hook.py`
  `handle_data_parallelism` (0.5.19+, `attn_dp_size` from 0.5.22). From 0.5.1
  `--dp-size 1` silently switches `--enable-dp-attention` off instead.
"""

from sgllint.model.rule import ERROR, Invalid, Rule, Valid
from sgllint.model.unknown import divides
from sgllint.semantics import parallel as par

L = "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp-size 8"


class AttentionDpNotDividingTp(Rule):
    code = "SGL207"
    name = "attention-dp-not-dividing-tp"
    severity = ERROR

    VALID = [
        Valid.sh(f"{L} --attn-dp-size 4"),
        Valid.sh(f"{L} --attn-dp-size 8"),
        Valid.sh(f"{L} --enable-dp-attention --dp-size 8", sglang="0.5.21"),
        Valid.sh(f"{L} --dp-size 3", sglang="0.5.21"),
        Valid.sh(f"{L} --attn-dp-size $ADP"),
        Valid.py(
            """
            import sglang as sgl
            llm = sgl.Engine(model_path="deepseek-ai/DeepSeek-V3", tp_size=8, attn_dp_size=2)
            """
        ),
    ]
    INVALID = [
        Invalid.sh(f"{L} --attn-dp-size 3", at=("3", 2), message="tp_size % attn_dp_size == 0"),
        Invalid.sh(f"{L} --enable-dp-attention --dp-size 3", at=("3", 2), sglang="0.5.21", message="tp_size % dp_size == 0"),
        Invalid.sh(f"{L} --enable-dp-attention --dp-size 6", at="6", sglang="0.5.4"),
        Invalid.py(
            """
            import sglang as sgl
            llm = sgl.Engine(model_path="deepseek-ai/DeepSeek-V3", tp_size=8, attn_dp_size=5)
            """,
            at="5",
        ),
        Invalid.yaml(
            """
            apiVersion: v1
            kind: Pod
            metadata:
              name: sglang
            spec:
              containers:
                - name: sglang
                  image: lmsysorg/sglang:v0.5.23
                  command: ["python3", "-m", "sglang.launch_server"]
                  args: ["--model-path", "deepseek-ai/DeepSeek-V3", "--tp-size", "8", "--attn-dp-size", "6"]
            """,
            at='"6"',
        ),
    ]

    def check(self, launch):
        if not par.at_least(launch, "0.4.1"):
            return
        tp, tp_arg = par.int_value(launch, "tp_size")
        dp = par.data_parallel(launch)
        if dp is None or not dp.attention_dp or divides(dp.attn_dp, tp) is not False:
            return  # it divides, or tp is not known
        if dp.split_era and dp.replicas > 1:
            return  # SGLang stops earlier (SGL208)
        if dp.split_era and dp.attn_arg is not None and dp.attn_arg.field == "attn_dp_size":
            width_arg, field, expr = dp.attn_arg, "attn_dp_size", "assert tp_size % attn_dp_size == 0"
        else:
            width_arg, field = dp.dp_arg, "dp_size"
            expr = "assert tp_size % attn_dp_size == 0" if dp.split_era else "assert tp_size % dp_size == 0"
        if width_arg is None:
            return
        related = [(tp_arg.span, "the tensor-parallel group being split")] if tp_arg is not None else []
        yield self.diagnostic(
            par.value_span(width_arg),
            f"SGLang {launch.context.catalog.version} stops with a bare AssertionError (`{expr}`): "
            f"attention data parallelism {par.written(launch, width_arg, field, dp.attn_dp)} does not divide "
            f"{par.written(launch, tp_arg, 'tp_size', tp)}",
            help=f"use an attention-DP width that divides {tp} (for example {max(d for d in range(1, tp + 1) if tp % d == 0 and d <= dp.attn_dp)})",
            related=related,
            launch=launch,
        )
