"""`--max-loaded-loras` smaller than `--max-loras-per-batch` (default 8) or than the number of `--lora-paths`.

## What it does
With LoRA enabled (`--enable-lora`, or `--lora-paths` which turns it on),
compares `--max-loaded-loras` with `--max-loras-per-batch` — whose default,
8, is easy to forget — and with the number of initial adapters.

## Why is this bad?
The server stops at start-up with `AssertionError: max_loaded_loras should be
greater than or equal to max_loras_per_batch. max_loaded_loras=4,
max_loras_per_batch=8` (or `The number of LoRA paths should not exceed
max_loaded_loras. ...`).

## Example
```sh
python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct --lora-paths a=org/adapter-a --max-loaded-loras 4
```

## Use instead
```sh
python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct --lora-paths a=org/adapter-a --max-loaded-loras 4 --max-loras-per-batch 4
```

## References
- `sglang/srt/server_args.py` `ServerArgs.check_lora_server_args`
  (0.4.10-0.5.18) and `sglang/srt/arg_groups/lora_hook.py`
  `check_lora_server_args` (0.5.19-0.5.23); verified in every wheel
  0.4.10-0.5.23 (`max_loras_per_batch` defaults to 8 in all of them).
"""

from sgllint.model.rule import ERROR, Invalid, Rule, Valid
from sgllint.semantics import effective as eff

LLAMA = "python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct"


class MaxLoadedLorasBelowBatch(Rule):
    code = "SGL233"
    name = "max-loaded-loras-below-batch"
    severity = ERROR

    VALID = [
        Valid.sh(f"{LLAMA} --lora-paths a=org/adapter-a --max-loaded-loras 8"),
        Valid.sh(f"{LLAMA} --lora-paths a=org/adapter-a --max-loaded-loras 4 --max-loras-per-batch 4"),
        Valid.sh(f"{LLAMA} --max-loaded-loras 2"),
        Valid.sh(f"{LLAMA} --lora-paths a=org/adapter-a --max-loaded-loras $N"),
        Valid.py(
            """
            import sglang as sgl
            llm = sgl.Engine(model_path="meta-llama/Llama-3.1-8B-Instruct", lora_paths=["a=org/adapter-a"], max_loaded_loras=2, max_loras_per_batch=2)
            """
        ),
    ]
    INVALID = [
        Invalid.sh(f"{LLAMA} --lora-paths a=org/adapter-a --max-loaded-loras 4", at="4", message="max_loras_per_batch=8"),
        Invalid.sh(f"{LLAMA} --lora-paths a=org/a b=org/b c=org/c --max-loaded-loras 2 --max-loras-per-batch 2",
                   at="--max-loaded-loras 2", message="should not exceed", sglang="0.5.10"),
        Invalid.py(
            """
            import sglang as sgl
            llm = sgl.Engine(model_path="meta-llama/Llama-3.1-8B-Instruct", enable_lora=True, lora_paths=["a=org/adapter-a"], max_loaded_loras=2)
            """,
            at="2",
        ),
    ]

    def check(self, launch):
        v = eff.version(launch)
        if not eff.at_least(v, "0.4.10") or launch.opaque or not eff.has_field(launch, "max_loaded_loras"):
            return
        loaded_arg = launch.last("max_loaded_loras")
        if loaded_arg is None or not loaded_arg.known or not isinstance(loaded_arg.value, int):
            return
        enable = eff.given(launch, "enable_lora")
        paths = eff.given(launch, "lora_paths")
        if enable is eff.UNKNOWN or paths is eff.UNKNOWN:
            return
        if not (enable is True or (paths and enable is not False)):
            return
        per_batch = eff.int_value(launch, "max_loras_per_batch")
        if per_batch is eff.UNKNOWN or per_batch is None:
            return
        loaded = loaded_arg.value
        span = loaded_arg.value_span or loaded_arg.span
        if loaded < per_batch:
            pb = launch.last("max_loras_per_batch")
            yield self.diagnostic(
                span,
                f"--max-loaded-loras {loaded} is below --max-loras-per-batch {per_batch}"
                + ("" if pb else " (its default)")
                + f"; SGLang {v} stops at start-up: \"max_loaded_loras should be greater than or equal to "
                f"max_loras_per_batch. max_loaded_loras={loaded}, max_loras_per_batch={per_batch}\"",
                help=f"raise --max-loaded-loras to at least {per_batch}, or set --max-loras-per-batch {loaded}",
                related=[(pb.span, "adapters per batch")] if pb else [],
                launch=launch,
            )
            return
        n = len(paths) if isinstance(paths, (list, tuple)) else (1 if isinstance(paths, str) and paths else 0)
        if n > loaded:
            pa = launch.last("lora_paths")
            yield self.diagnostic(
                loaded_arg.span,
                f"{n} adapters in --lora-paths exceed --max-loaded-loras {loaded}; SGLang {v} stops at start-up: "
                f"\"The number of LoRA paths should not exceed max_loaded_loras. max_loaded_loras={loaded}, "
                f"lora_paths={n}\"",
                help=f"raise --max-loaded-loras to at least {n}",
                related=[(pa.span, f"{n} adapters")],
                launch=launch,
            )
