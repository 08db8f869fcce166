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

from sgllint.model.diagnostic import Edit, Fix, Severity
from sgllint.model.rule import WARNING, Invalid, Rule, Valid
from sgllint.model.kinds import Origin, Resolution

LAUNCH = "python -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct"


class DeprecatedFlag(Rule):
    code = "SGL107"
    name = "deprecated-flag"
    severity = WARNING

    VALID = [
        Valid.sh(f"{LAUNCH} --cuda-graph-backend-decode disabled"),
        Valid.sh(f"{LAUNCH} --tp-size 2 --attn-dp-size 2", sglang="0.5.23"),
    ]
    INVALID = [
        Invalid.sh(f"{LAUNCH} --disable-cuda-graph", at="--disable-cuda-graph", message="--cuda-graph-backend", sglang="0.5.23"),
        Invalid.sh(f"{LAUNCH} --tp-size 2 --dp-size 2 --enable-dp-attention", at="--enable-dp-attention", sglang="0.5.23"),
        Invalid.sh(f"{LAUNCH} --cuda-graph-max-bs 16", at="--cuda-graph-max-bs", message="deprecated", sglang="0.5.19",
                   fix_to='--cuda-graph-max-bs-decode'),
    ]

    def check(self, launch):
        version = launch.context.catalog.version
        for arg in launch.args:
            dep = arg.option.deprecated if arg.option is not None else None
            if dep is None or arg.origin is Origin.KEYWORD:
                continue
            flag = arg.spelling if arg.resolution is Resolution.EXACT else arg.option.name
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
            fix = _replacement_fix(arg, dep.replacement, launch.context.catalog)
            yield self.diagnostic(arg.flag_span, message, help=help_text, severity=severity, fix=fix, launch=launch)


def _replacement_fix(arg, replacement, catalog):
    """Rename the flag only when the replacement is one flag spelling that
    stores the same value into the same setting (an alias), never when the
    replacement is a different flag, a value or several flags."""
    if not replacement or arg.origin is not Origin.CLI:
        return None
    new = catalog.by_string.get(replacement)
    old = arg.option
    if new is None or new.deprecated is not None or new.field is None or new.field != old.field:
        return None
    if (old.takes_value, old.nargs, old.type) != (new.takes_value, new.nargs, new.type):
        return None
    if arg.flag_span.text.strip("\"'") != arg.spelling:
        return None  # the flag is not written as one plain word
    return Fix(message=f"replace {arg.spelling} with {replacement}", edits=(Edit(arg.flag_span, replacement),), applicability="safe")
