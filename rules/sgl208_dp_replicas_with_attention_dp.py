"""Data-parallel replicas combined with attention data parallelism (0.5.22+).

## What it does
From 0.5.22, `--dp-size` counts replicas and `--attn-dp-size` counts
attention-DP groups inside one replica; flags `--dp-size N` (N > 1) together
with `--attn-dp-size M` (M > 1). The deprecated `--enable-dp-attention` does
not help: next to an explicit `--attn-dp-size` it adds nothing.

## Why is this bad?
SGLang refuses the combination while resolving the arguments:
`ValueError: --dp-size N with --attn-dp-size M: data-parallel replicas
combined with attention data parallelism are not supported.`

## Example
```sh
python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp-size 8 --dp-size 2 --attn-dp-size 8
```

## Use instead
```sh
python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp-size 8 --attn-dp-size 8
```

## References
- `sglang/srt/arg_groups/parallel_hook.py` `handle_data_parallelism` and
  `handle_deprecated_dp_attention`, releases 0.5.22+ (before 0.5.22
  `--dp-size` with `--enable-dp-attention` *was* the attention-DP width).
"""

from sgllint.model.rule import ERROR, Invalid, Rule, Valid
from sgllint.semantics import parallel as par

L = "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp-size 8"


class DpReplicasWithAttentionDp(Rule):
    code = "SGL208"
    name = "dp-replicas-with-attention-dp"
    severity = ERROR

    VALID = [
        Valid.sh(f"{L} --attn-dp-size 8"),
        Valid.sh(f"{L} --dp-size 2"),
        Valid.sh(f"{L} --dp-size 8 --enable-dp-attention", sglang="0.5.21"),
        Valid.sh(f"{L} --dp-size 2 --attn-dp-size $ADP"),
        Valid.py(
            """
            import sglang as sgl
            llm = sgl.Engine(model_path="deepseek-ai/DeepSeek-V3", tp_size=8, attn_dp_size=4)
            """
        ),
    ]
    INVALID = [
        Invalid.sh(f"{L} --dp-size 2 --attn-dp-size 8", at="2", message="data-parallel replicas combined with attention data parallelism are not supported"),
        Invalid.sh(f"{L} --attn-dp-size 4 --dp-size 2", at=("2", 1), sglang="0.5.22", message="--dp-size 2 with --attn-dp-size 4"),
        Invalid.py(
            """
            import sglang as sgl
            llm = sgl.Engine(model_path="deepseek-ai/DeepSeek-V3", tp_size=8, dp_size=2, attn_dp_size=4)
            """,
            at="2",
        ),
    ]

    def check(self, launch):
        if not par.at_least(launch, "0.5.22"):
            return
        dp = par.data_parallel(launch)
        if dp is None or not dp.split_era or dp.attn_dp <= 1 or dp.replicas <= 1 or dp.dp_arg is None:
            return
        yield self.diagnostic(
            par.value_span(dp.dp_arg),
            f"SGLang {launch.context.catalog.version} rejects this at start-up: '--dp-size {dp.replicas} with --attn-dp-size {dp.attn_dp}: "
            "data-parallel replicas combined with attention data parallelism are not supported.'",
            help="drop --dp-size (attention DP already spreads requests), or drop --attn-dp-size and run plain replicas",
            related=[(dp.attn_arg.span, "attention data parallelism set here")] if dp.attn_arg is not None else [],
            launch=launch,
        )
