"""A flag the target release still accepts but has deprecated.

## What it does
Finds options that the target SGLang release marks as deprecated (they print
a warning and map to a replacement, or do nothing) and says what replaces
them. In releases whose deprecated flags fail at start-up (SGLang 0.5.7 and
older raise `ValueError`; some newer ones call `parser.error`), the
diagnostic is an error.

## Why is this bad?
A deprecated flag disappears in a later release, and the launch then fails
with `unrecognized arguments`. Some deprecated flags are no-ops already, so
the config does not do what it says.

## Example
```sh
python -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct --disable-cuda-graph
```

## Use instead
```sh
python -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct --cuda-graph-backend-decode disabled --cuda-graph-backend-prefill disabled
```

## References
- `sglang/srt/arg_groups/argparse_actions.py` (`DeprecatedAction`,
  `DeprecatedStoreTrueAction`, `DeprecatedStoreConstAction`,
  `DeprecatedAliasStoreAction`); before 0.5.14 the same classes in
  `sglang/srt/server_args.py`.
"""

from sgllint.diagnostic import Severity
from sgllint.rule import WARNING, Invalid, Rule, Valid

LAUNCH = "python -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct"


class DeprecatedFlag(Rule):
    code = "SGL107"
    name = "deprecated-flag"
    severity = WARNING

    VALID = [
        Valid.sh(f"{LAUNCH} --cuda-graph-backend-decode disabled"),
        Valid.sh(f"{LAUNCH} --attn-dp-size 2", sglang="0.5.23"),
    ]
    INVALID = [
        Invalid.sh(f"{LAUNCH} --disable-cuda-graph", at="--disable-cuda-graph", message="--cuda-graph-backend", sglang="0.5.23"),
        Invalid.sh(f"{LAUNCH} --dp-size 2 --enable-dp-attention", at="--enable-dp-attention", sglang="0.5.23"),
    ]

    def check(self, launch):
        version = launch.context.catalog.version
        for arg in launch.args:
            dep = arg.option.deprecated if arg.option is not None else None
            if dep is None or arg.origin == "kwarg":
                continue
            flag = arg.spelling if arg.resolution == "exact" else arg.option.name
            if dep.behaviour in ("error", "exit"):
                message = f"{flag} is deprecated and SGLang {version} rejects it at start-up"
                severity = Severity.ERROR
            else:
                message = f"{flag} is deprecated in SGLang {version}"
                severity = None
            if dep.replacement:
                help_text = f"use {dep.replacement} instead"
            elif dep.message:
                help_text = dep.message
            else:
                help_text = "remove it; it has no effect"
            yield self.diagnostic(arg.flag_span, message, help=help_text, severity=severity, launch=launch)
