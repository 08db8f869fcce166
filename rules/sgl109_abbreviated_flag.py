"""A flag written as an abbreviation of a longer option.

## What it does
Finds options written as a unique prefix of a real option (argparse's
`allow_abbrev`), such as `--tp` for `--tp-size` or `--mem-fraction` for
`--mem-fraction-static`, and offers the full name.

## Why is this bad?
It works today, but the prefix becomes ambiguous as soon as SGLang adds an
option that shares it, and the launch then fails with `ambiguous option`
(`--cuda-graph-max-bs` and `--speculative-draft` broke this way). The full
name is also what the docs and `--help` show, so it is easier to search for.

## Example
```sh
python -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct --mem-fraction 0.8
```

## Use instead
```sh
python -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct --mem-fraction-static 0.8
```

## References
- CPython `argparse` `allow_abbrev=True` (the default, which SGLang keeps).
"""

from sgllint.model.diagnostic import Edit, Fix
from sgllint.model.rule import INFO, Invalid, Rule, Valid
from sgllint.model.kinds import Origin, Resolution

LAUNCH = "python -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct"


class AbbreviatedFlag(Rule):
    code = "SGL109"
    name = "abbreviated-flag"
    severity = INFO
    targets = frozenset({"sglang", "diffusion"})  # also the diffusion server's parser

    VALID = [
        Valid.sh(f"{LAUNCH} --tp-size 2 --mem-fraction-static 0.8"),
        Valid.sh("python -m sglang.launch_server --model Qwen/Qwen2.5-7B-Instruct"),
    ]
    INVALID = [
        Invalid.sh(f"{LAUNCH} --tp 2", at="--tp", message="--tp-size",
                   fix_to='--tp-size'),
        Invalid.sh(f"{LAUNCH} --mem-fraction=0.8", at="--mem-fraction",
                   fix_to='--mem-fraction-static'),
    ]

    def check(self, launch):
        for arg in launch.args:
            if arg.resolution is not Resolution.PREFIX or not arg.candidates or arg.field == "config":
                continue  # an abbreviated --config is not merged at all: SGL114
            full = arg.candidates[0]
            # a --config file's key is the flag without its dashes (tp: 2)
            written = full[2:] if arg.origin is Origin.CONFIG_FILE and not arg.flag_span.text.startswith("-") else full
            yield self.diagnostic(
                arg.flag_span,
                f"'{arg.spelling}' is an abbreviation of '{full}'",
                help=f"write {written}; an abbreviation breaks when SGLang adds another option with the same prefix",
                fix=Fix(message=f"expand to {written}", edits=(Edit(arg.flag_span, written),), applicability="safe"),
                launch=launch,
            )
