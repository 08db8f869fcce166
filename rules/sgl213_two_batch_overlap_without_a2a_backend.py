"""`--enable-two-batch-overlap` without an expert-parallel all-to-all backend.

## What it does
Flags `--enable-two-batch-overlap` when `--moe-a2a-backend` stays `none`:
always in 0.5.7–0.5.14; from 0.5.15 only when attention data parallelism is
off too (`--enable-dp-attention` with `--dp-size` > 1 up to 0.5.21,
`--attn-dp-size` > 1 from 0.5.22).

## Why is this bad?
SGLang raises at start-up: `ValueError: When enabling two batch overlap,
moe_a2a_backend cannot be 'none'.` (0.5.7–0.5.14), later `When enabling two
batch overlap without an EP a2a backend (moe_a2a_backend='none'),
--enable-dp-attention is required (DeepSeek-V4 non-EP DP TBO path).`
(`attention DP (--attn-dp-size) is required` from 0.5.22).

## Example
```sh
python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp-size 8 --enable-two-batch-overlap
```

## Use instead
```sh
python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp-size 8 --enable-two-batch-overlap --moe-a2a-backend deepep
```

## References
- `sglang/srt/server_args.py` `ServerArgs.check_server_args` (0.5.7–0.5.18),
  `sglang/srt/arg_groups/validation_hook.py` (0.5.19+).
"""

from sgllint.model.rule import ERROR, Invalid, Rule, Valid
from sgllint.semantics import parallel as par

L = "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp-size 8 --enable-two-batch-overlap"
M1 = "When enabling two batch overlap, moe_a2a_backend cannot be 'none'."
M2 = ("When enabling two batch overlap without an EP a2a backend (moe_a2a_backend='none'), "
      "--enable-dp-attention is required (DeepSeek-V4 non-EP DP TBO path).")
M3 = ("When enabling two batch overlap without an EP a2a backend (moe_a2a_backend='none'), "
      "attention DP (--attn-dp-size) is required (DeepSeek-V4 non-EP DP TBO path).")


class TwoBatchOverlapWithoutA2aBackend(Rule):
    code = "SGL213"
    name = "two-batch-overlap-without-a2a-backend"
    severity = ERROR

    VALID = [
        Valid.sh(f"{L} --moe-a2a-backend deepep"),
        Valid.sh(f"{L} --attn-dp-size 8"),
        Valid.sh(f"{L} --enable-dp-attention --dp-size 8", sglang="0.5.15"),
        Valid.sh(f"{L} --moe-a2a-backend $A2A"),
        Valid.py(
            """
            import sglang as sgl
            llm = sgl.Engine(model_path="deepseek-ai/DeepSeek-V3", tp_size=8, enable_two_batch_overlap=True, moe_a2a_backend="deepep")
            """
        ),
    ]
    INVALID = [
        Invalid.sh(L, at="--enable-two-batch-overlap", message=M3),
        Invalid.sh(L, at="--enable-two-batch-overlap", sglang="0.5.18", message=M2),
        Invalid.sh(f"{L} --enable-dp-attention --dp-size 8", at="--enable-two-batch-overlap", sglang="0.5.10", message=M1),
        Invalid.py(
            """
            import sglang as sgl
            llm = sgl.Engine(model_path="deepseek-ai/DeepSeek-V3", tp_size=8, enable_two_batch_overlap=True)
            """,
            at="enable_two_batch_overlap",
        ),
    ]

    def check(self, launch):
        if not par.at_least(launch, "0.5.7"):
            return
        on, arg = par.flag_value(launch, "enable_two_batch_overlap")
        if not on or arg is None:
            return
        a2a, a2a_arg = par.str_value(launch, "moe_a2a_backend")
        if a2a_arg is not None and (not par.known(a2a) or a2a != "none"):
            return
        if any(a.field in ("enable_deepep_moe", "enable_mooncake_moe") for a in launch.args):
            return
        if par.at_least(launch, "0.5.15"):
            dp = par.data_parallel(launch)
            if dp is None or dp.attention_dp:
                return
            message = M3 if dp.split_era else M2
            fix = "set --moe-a2a-backend (e.g. deepep) or turn attention DP on" + (" (--attn-dp-size N)" if dp.split_era else " (--enable-dp-attention --dp-size N)")
        else:
            message, fix = M1, "set --moe-a2a-backend (e.g. deepep), or drop --enable-two-batch-overlap"
        yield self.diagnostic(
            arg.flag_span,
            f"SGLang {launch.context.catalog.version} rejects this at start-up: '{message}'",
            help=fix,
            related=[(a2a_arg.span, "all-to-all backend 'none'")] if a2a_arg is not None else [],
            launch=launch,
        )
