"""A `--moe-dense-tp-size` SGLang does not support.

## What it does
Checks `--moe-dense-tp-size` against the values SGLang accepts: `1` (or
unset) up to 0.5.12, `1` or `--tp-size` (or unset) from 0.5.13.

## Why is this bad?
`check_server_args` asserts it at start-up: `AssertionError: moe_dense_tp_size
only support 1 and None currently` (0.4.5–0.5.12) / `moe_dense_tp_size only
supports None, 1, or tp_size currently` (0.5.13+).

## Example
```sh
python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp-size 8 --moe-dense-tp-size 2
```

## Use instead
```sh
python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp-size 8 --moe-dense-tp-size 1
```

## References
- `sglang/srt/server_args.py` `ServerArgs.check_server_args` (0.4.5–0.5.18),
  `sglang/srt/arg_groups/validation_hook.py` `check_server_args` (0.5.19+);
  `tp_size` became allowed in 0.5.13.
"""

from sgllint.model.rule import ERROR, Invalid, Rule, Valid
from sgllint.semantics import parallel as par

L = "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp-size 8"
OLD = "moe_dense_tp_size only support 1 and None currently"
NEW = "moe_dense_tp_size only supports None, 1, or tp_size currently"


class UnsupportedMoeDenseTpSize(Rule):
    code = "SGL210"
    name = "unsupported-moe-dense-tp-size"
    severity = ERROR

    VALID = [
        Valid.sh(f"{L} --moe-dense-tp-size 1"),
        Valid.sh(f"{L} --moe-dense-tp-size 8"),
        Valid.sh(f"{L} --moe-dense-tp-size $N"),
        Valid.py(
            """
            import sglang as sgl
            llm = sgl.Engine(model_path="deepseek-ai/DeepSeek-V3", tp_size=8, moe_dense_tp_size=1)
            """
        ),
    ]
    INVALID = [
        Invalid.sh(f"{L} --moe-dense-tp-size 2", at="2", message=NEW),
        Invalid.sh(f"{L} --moe-dense-tp-size 8", at=("8", 2), sglang="0.5.12", message=OLD),
        Invalid.sh(f"{L} --moe-dense-tp-size 4", at="4", sglang="0.5.4", message=OLD),
        Invalid.py(
            """
            import sglang as sgl
            llm = sgl.Engine(model_path="deepseek-ai/DeepSeek-V3", tp_size=8, moe_dense_tp_size=4)
            """,
            at="4",
        ),
    ]

    def check(self, launch):
        if not par.at_least(launch, "0.4.5"):
            return
        value, arg = par.int_value(launch, "moe_dense_tp_size", 1)
        if arg is None or arg.value is None:
            return
        if value is par.UNKNOWN:
            return
        tp, tp_arg = par.int_value(launch, "tp_size")
        new = par.at_least(launch, "0.5.13")
        if value == 1:
            return
        if new and (not par.known(tp) or value == tp):
            return
        message = NEW if new else OLD
        yield self.diagnostic(
            par.value_span(arg),
            f"SGLang {launch.context.catalog.version} rejects this at start-up: '{message}' (got {value}"
            + (f", tp_size {tp})" if new else ")"),
            help=f"use --moe-dense-tp-size 1{f' or {tp}' if new and tp else ''}, or leave it unset",
            related=[(tp_arg.span, "tensor parallel size")] if new and tp_arg is not None else [],
            launch=launch,
        )
