"""`SGLANG_ENABLE_DETERMINISTIC_INFERENCE=1` in the launch's environment without the flag, which does nothing.

## What it does
Finds `SGLANG_ENABLE_DETERMINISTIC_INFERENCE` set to a true value in the
environment of a launch that does not pass `--enable-deterministic-inference`
(or `--rl-on-policy-target`), on releases that have deterministic inference.

This pattern was reported as a warning under SGL201 until that code was split
into one code per bad pattern.

## Why is this bad?
SGLang writes the variable from the flag at start-up, so the variable alone
does not enable deterministic inference: the launch starts, but its outputs
are not batch-invariant, and nothing says so.

## Example
```sh
SGLANG_ENABLE_DETERMINISTIC_INFERENCE=1 python -m sglang.launch_server --model-path Qwen/Qwen3-8B
```

## Use instead
```sh
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --enable-deterministic-inference
```

## References
- `sglang/srt/server_args.py` `ServerArgs._handle_deterministic_inference`
  (0.5.3–0.5.18) and `sglang/srt/arg_groups/attention_hook.py`
  `handle_deterministic_inference` (0.5.19+) set the variable from the flag.
"""

from sgllint.model.rule import WARNING, Invalid, Rule, Valid
from sgllint.semantics import deterministic as det


class DeterministicEnvWithoutFlag(Rule):
    code = "SGL259"
    name = "deterministic-env-without-flag"
    severity = WARNING

    VALID = [
        Valid.sh("python -m sglang.launch_server --model-path Qwen/Qwen3-8B --enable-deterministic-inference"),
        Valid.sh(
            "SGLANG_ENABLE_DETERMINISTIC_INFERENCE=1 python -m sglang.launch_server --model-path Qwen/Qwen3-8B "
            "--enable-deterministic-inference"
        ),
        Valid.sh("SGLANG_ENABLE_DETERMINISTIC_INFERENCE=0 python -m sglang.launch_server --model-path Qwen/Qwen3-8B"),
    ]
    INVALID = [
        Invalid.sh(
            "SGLANG_ENABLE_DETERMINISTIC_INFERENCE=1 python -m sglang.launch_server --model-path Qwen/Qwen3-8B",
            at="SGLANG_ENABLE_DETERMINISTIC_INFERENCE=1",
            message="overwrites",
        ),
    ]

    def check(self, launch):
        env = det.env_only(launch)
        if env is None:
            return
        flag = launch.context.catalog.flag_for_field("enable_deterministic_inference")
        yield self.diagnostic(
            env.span,
            f"{det.ENV_FLAG}=1 alone does not enable deterministic inference: SGLang {launch.context.catalog.version} "
            f"overwrites the variable from {flag} at start-up",
            help=f"pass {flag} instead",
            launch=launch,
        )
