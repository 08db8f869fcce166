"""The same setting given twice; only the last one counts.

## What it does
Finds a server argument given more than once in one launch, under the same
or another spelling (`--tp 2 ... --tensor-parallel-size 4`), and points at
both.

## Why is this bad?
argparse keeps the last value silently. In a long launch script the earlier
value is what a reader sees, so the server runs with a setting nobody meant.

## Example
```sh
python -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct --port 30000 --port 8000
```

## Use instead
```sh
python -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct --port 8000
```

## References
- CPython `argparse` `_StoreAction`: each occurrence overwrites the attribute.
"""

from sgllint.model.diagnostic import Edit, Fix
from sgllint.model.rule import WARNING, Invalid, Rule, Valid
from sgllint.model.kinds import Origin

LAUNCH = "python -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct"


def _shown(arg) -> str:
    value = arg.value
    if isinstance(value, list):
        return " ".join(str(v) for v in value)
    if value is True and arg.value_span is None:
        return "set"
    return str(value)


class DuplicateFlag(Rule):
    code = "SGL108"
    name = "duplicate-flag"
    severity = WARNING
    targets = frozenset({"sglang", "diffusion"})  # also the diffusion server's parser

    VALID = [
        Valid.sh(f"{LAUNCH} --port 30000 --tp-size 2"),
    ]
    INVALID = [
        Invalid.sh(f"{LAUNCH} --port 30000 --port 8000", at=("--port", 2), message="8000",
                   fix='python -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct --port 8000'),
        Invalid.sh(f"{LAUNCH} --tp-size 2 --tensor-parallel-size 4", at="--tensor-parallel-size",
                   fix='python -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct --tensor-parallel-size 4'),
    ]

    def check(self, launch):
        seen = {}
        for arg in launch.args:
            if arg.field is None or arg.origin is Origin.CONFIG_FILE or arg.field == "config":
                continue  # config-file values are meant to be overridden; two --config files are SGL113's
            first = seen.get(arg.field)
            if first is None:
                seen[arg.field] = arg
                continue
            fix = None
            if first.origin is Origin.CLI and arg.origin is Origin.CLI:
                fix = Fix(
                    message=f"remove the earlier {first.spelling}",
                    edits=(Edit(first.span, ""),),
                    applicability="safe",
                )
            yield self.diagnostic(
                arg.flag_span,
                f"{arg.spelling} is given more than once; the last value ({_shown(arg)}) wins over "
                f"{first.spelling} {_shown(first)}",
                help="keep one of them",
                related=[(first.span, "first given here")],
                fix=fix,
                launch=launch,
            )
            seen[arg.field] = arg
