"""A flag that earlier SGLang releases had and the target release removed.

## What it does
Finds options that the target release's parser does not accept but an older
release did, says in which release it disappeared, and names the replacement
when SGLang's deprecation history records one (`--enable-ep-moe` → `--ep-size`).

## Why is this bad?
argparse exits at start-up with `error: unrecognized arguments` (or, when the
old name is now the prefix of newer options, `ambiguous option`). Removed
flags are the most common failure after bumping the SGLang image tag.

## Example
```sh
python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp-size 8 --enable-ep-moe
```

## Use instead
```sh
python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp-size 8 --ep-size 8
```

## References
- The per-release option sets in `sgllint/catalog/data/` (generated from the
  SGLang wheels), and the deprecation actions that named each replacement
  (`sglang/srt/server_args.py`, `sglang/srt/arg_groups/argparse_actions.py`).
"""

from sgllint.catalog import history, load
from sgllint.model.rule import ERROR, Invalid, Rule, Valid
from sgllint.model.kinds import Origin, Resolution

LAUNCH = "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp-size 8"


class RemovedFlag(Rule):
    code = "SGL106"
    name = "removed-flag"
    severity = ERROR

    VALID = [
        Valid.sh(f"{LAUNCH} --ep-size 8"),
        Valid.sh(f"{LAUNCH} --enable-double-sparsity", sglang="0.5.10"),
    ]
    INVALID = [
        Invalid.sh(f"{LAUNCH} --enable-ep-moe", at="--enable-ep-moe", message="--ep-size", sglang="0.5.23"),
        Invalid.sh(f"{LAUNCH} --stream-output", at="--stream-output", sglang="0.5.23"),
        Invalid.sh(f"{LAUNCH} --enable-double-sparsity", at="--enable-double-sparsity", message="last in 0.5.10", sglang="0.5.11"),
    ]

    def check(self, launch):
        catalog = launch.context.catalog
        version = catalog.version
        for arg in launch.args:
            if arg.resolution is not Resolution.UNRECOGNIZED or arg.origin is Origin.KEYWORD:
                continue  # a removed name that is now an ambiguous prefix is SGL102's
            found = history.before(history.option_versions(arg.spelling), version)
            if not found:
                continue
            last = found[-1]
            replacement = _replacement(arg.spelling, found)
            removed_in = history.next_release(last) or "a later release"
            message = f"{arg.spelling} was removed in SGLang {removed_in} (last in {last}); this launch targets {version}"
            if replacement:
                help_text = f"use {replacement}"
            else:
                help_text = f"remove it, or pin SGLang {last} (`# sgllint: sglang={last}`) if that is what runs"
            yield self.diagnostic(arg.flag_span, message, help=help_text, launch=launch)
    # kwargs of removed fields are SGL101's (the field name is the fact there)


def _replacement(spelling, found):
    """The replacement SGLang named while the flag was deprecated, newest first."""
    for v in reversed(found):
        opt = load(v).by_string.get(spelling)
        if opt is not None and opt.deprecated is not None and opt.deprecated.replacement:
            return opt.deprecated.replacement
    return None
