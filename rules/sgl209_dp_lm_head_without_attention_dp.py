"""`--enable-dp-lm-head` on data-parallel replicas without attention DP.

## What it does
Flags `--enable-dp-lm-head` when the launch runs `--dp-size N` (N > 1)
replicas but no attention data parallelism (`--enable-dp-attention` up to
0.5.21, `--attn-dp-size` from 0.5.22). With a single replica SGLang quietly
switches the flag off instead, so that case is not reported.

## Why is this bad?
The vocabulary-parallel LM head only exists inside attention-DP groups.
SGLang asserts it while resolving the arguments: up to 0.5.21
`AssertionError: Please enable dp attention when setting enable_dp_lm_head. `,
from 0.5.22 `AssertionError: --enable-dp-lm-head requires attention DP (--attn-dp-size).`

## Example
```sh
python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp-size 8 --dp-size 2 --enable-dp-lm-head
```

## Use instead
```sh
python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp-size 8 --attn-dp-size 8 --enable-dp-lm-head
```

## References
- `sglang/srt/server_args.py` `ServerArgs._handle_data_parallelism`
  (0.4.9–0.5.18), `sglang/srt/arg_groups/overrides.py` `_dp_lm_head_validation`
  and `_data_parallelism_defaults` (0.5.19+; message changed in 0.5.22).
"""

from sgllint.model.rule import ERROR, Invalid, Rule, Valid
from sgllint.semantics import parallel as par

L = "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp-size 8"
OLD = "Please enable dp attention when setting enable_dp_lm_head. "
NEW = "--enable-dp-lm-head requires attention DP (--attn-dp-size)."


class DpLmHeadWithoutAttentionDp(Rule):
    code = "SGL209"
    name = "dp-lm-head-without-attention-dp"
    severity = ERROR

    VALID = [
        Valid.sh(f"{L} --attn-dp-size 8 --enable-dp-lm-head"),
        Valid.sh(f"{L} --enable-dp-lm-head"),
        Valid.sh(f"{L} --dp-size 8 --enable-dp-attention --enable-dp-lm-head", sglang="0.5.21"),
        Valid.sh(f"{L} --dp-size $DP --enable-dp-lm-head"),
        Valid.py(
            """
            import sglang as sgl
            llm = sgl.Engine(model_path="deepseek-ai/DeepSeek-V3", tp_size=8, attn_dp_size=8, enable_dp_lm_head=True)
            """
        ),
    ]
    INVALID = [
        Invalid.sh(f"{L} --dp-size 2 --enable-dp-lm-head", at="--enable-dp-lm-head", message=NEW),
        Invalid.sh(f"{L} --dp-size 2 --enable-dp-lm-head", at="--enable-dp-lm-head", sglang="0.5.21", message=OLD.strip()),
        Invalid.sh(f"{L} --dp-size 4 --enable-dp-lm-head", at="--enable-dp-lm-head", sglang="0.5.4", message=OLD.strip()),
        Invalid.py(
            """
            import sglang as sgl
            llm = sgl.Engine(model_path="deepseek-ai/DeepSeek-V3", tp_size=8, dp_size=2, enable_dp_lm_head=True)
            """,
            at="enable_dp_lm_head",
        ),
    ]

    def check(self, launch):
        if not par.at_least(launch, "0.4.9"):
            return
        on, arg = par.flag_value(launch, "enable_dp_lm_head")
        dp = par.data_parallel(launch)
        if not on or arg is None or dp is None or dp.attention_dp or dp.replicas <= 1:
            return
        if par.at_least(launch, "0.5.18"):
            join, join_arg = par.str_value(launch, "ep_join_mode")
            if join_arg is not None and (not par.known(join) or join == "scale"):
                return
        message = NEW if dp.split_era else OLD.strip()
        related = [(dp.dp_arg.span, f"{dp.replicas} data-parallel replicas, no attention DP")] if dp.dp_arg is not None else []
        yield self.diagnostic(
            arg.flag_span,
            f"SGLang {launch.context.catalog.version} rejects this at start-up: '{message}'",
            help=(
                "turn attention DP on (--attn-dp-size N instead of --dp-size N), or drop --enable-dp-lm-head"
                if dp.split_era
                else "add --enable-dp-attention (with --dp-size as its width), or drop --enable-dp-lm-head"
            ),
            related=related,
            launch=launch,
        )
