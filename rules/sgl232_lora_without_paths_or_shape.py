"""`--enable-lora` with neither `--lora-paths` nor both `--max-lora-rank` and `--lora-target-modules`.

## What it does
Finds launches that enable LoRA without any initial adapter and without
telling SGLang the shape of the adapters it will load later (both the
maximum rank and the target modules are needed to size the LoRA buffers).

## Why is this bad?
The server stops at start-up with `AssertionError: When no initial
--lora-paths is provided, you need to specify both --max-lora-rank and
--lora-target-modules for LoRA initialization.`

## Example
```sh
python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct --enable-lora --max-lora-rank 64
```

## Use instead
```sh
python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct --enable-lora --max-lora-rank 64 --lora-target-modules all
```

## References
- `sglang/srt/server_args.py` `ServerArgs.check_lora_server_args`
  (0.4.10-0.5.18) and `sglang/srt/arg_groups/lora_hook.py`
  `check_lora_server_args` (0.5.19-0.5.23); verified in every wheel
  0.4.10-0.5.23.
"""

from sgllint.model.rule import ERROR, Invalid, Rule, Valid
from sgllint.semantics import effective as eff

LLAMA = "python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct"
MSG = ("When no initial --lora-paths is provided, you need to specify both --max-lora-rank and "
       "--lora-target-modules for LoRA initialization.")


class LoraWithoutPathsOrShape(Rule):
    code = "SGL232"
    name = "lora-without-paths-or-shape"
    severity = ERROR

    VALID = [
        Valid.sh(f"{LLAMA} --enable-lora --lora-paths a=org/adapter-a"),
        Valid.sh(f"{LLAMA} --enable-lora --max-lora-rank 64 --lora-target-modules q_proj v_proj"),
        Valid.sh(f"{LLAMA} --max-lora-rank 64"),
        Valid.sh(f"{LLAMA} --enable-lora $LORA_ARGS"),
        Valid.py(
            """
            import sglang as sgl
            llm = sgl.Engine(model_path="meta-llama/Llama-3.1-8B-Instruct", enable_lora=True, max_lora_rank=16, lora_target_modules=["all"])
            """
        ),
    ]
    INVALID = [
        Invalid.sh(f"{LLAMA} --enable-lora --max-lora-rank 64", at="--enable-lora", message="--lora-target-modules"),
        Invalid.sh(f"{LLAMA} --enable-lora", at="--enable-lora", sglang="0.5.10"),
        Invalid.py(
            """
            import sglang as sgl
            llm = sgl.Engine(model_path="meta-llama/Llama-3.1-8B-Instruct", enable_lora=True, lora_target_modules=["all"])
            """,
            at="enable_lora",
            message="--max-lora-rank",
        ),
    ]

    def check(self, launch):
        v = eff.version(launch)
        if not eff.at_least(v, "0.4.10") or launch.opaque or not eff.has_field(launch, "enable_lora"):
            return
        enable = launch.last("enable_lora")
        if enable is None or enable.value is not True:
            return
        paths = eff.given(launch, "lora_paths")
        rank = eff.given(launch, "max_lora_rank")
        modules = eff.given(launch, "lora_target_modules")
        if eff.UNKNOWN in (paths, rank, modules) or any(x is eff.UNKNOWN for x in (paths, rank, modules)):
            return
        if paths or (rank and modules):
            return
        missing = [f for f, val in (("--max-lora-rank", rank), ("--lora-target-modules", modules)) if not val]
        yield self.diagnostic(
            enable.flag_span,
            f"LoRA is enabled with no --lora-paths and without {' and '.join(missing)}; SGLang {v} stops at start-up: \"{MSG}\"",
            help="give the initial adapters with --lora-paths, or both --max-lora-rank N and --lora-target-modules "
                 "(e.g. `all`) so adapters can be loaded later",
            related=[(launch.last(f).span, "given here") for f in ("max_lora_rank", "lora_target_modules") if launch.last(f)],
            launch=launch,
        )
