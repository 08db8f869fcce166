"""A flag that needs a value was given none.

## What it does
Finds options that take a value but are followed by another option or by the
end of the command: `--model-path --tp-size 2`, a trailing `--port`.

## Why is this bad?
argparse exits at start-up with `error: argument --model-path/--model:
expected one argument`. It usually means a variable expanded to nothing or a
value was lost while editing a long command.

## Example
```sh
python -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct --port
```

## Use instead
```sh
python -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct --port 30000
```

## References
- CPython `argparse` (`expected one argument` / `expected at least one argument`),
  as used by `prepare_server_args` in `sglang/srt/server_args.py`.
"""

from sgllint.model.rule import ERROR, Invalid, Rule, Valid
from sgllint.model.kinds import ArgProblem

LAUNCH = "python -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct"


class MissingValue(Rule):
    code = "SGL105"
    name = "missing-value"
    severity = ERROR
    targets = frozenset({"sglang", "diffusion"})  # also the diffusion server's parser

    VALID = [
        Valid.sh(f"{LAUNCH} --port 30000 --cuda-graph-bs-decode 1 2 4 8"),
        Valid.sh(f"{LAUNCH} --port \"$PORT\""),
    ]
    INVALID = [
        Invalid.sh(f"{LAUNCH} --port", at="--port", message="expected one argument"),
        Invalid.sh("python -m sglang.launch_server --model-path --tp-size 2", at="--model-path"),
        Invalid.sh(f"{LAUNCH} --cuda-graph-bs-decode --port 30000", at="--cuda-graph-bs-decode", message="at least one"),
    ]

    def check(self, launch):
        version = launch.context.catalog.version
        for arg in launch.args:
            if arg.problem is not ArgProblem.MISSING_VALUE or arg.option is None:
                continue
            flag = arg.option.name
            yield self.diagnostic(
                arg.flag_span,
                f"{flag} needs a value: SGLang {version} exits with '{arg.problem_detail}'",
                help=f"give {flag} a value, or remove it" + (f" (e.g. {flag} {arg.option.choices[0]})" if arg.option.choices else ""),
                launch=launch,
            )
