"""A flag that only later SGLang releases accept.

## What it does
Finds options that the target release's parser does not know but a newer
release does, and says which release added them, so a config written against
the latest docs is not deployed on an older image.

## Why is this bad?
argparse exits at start-up with `error: unrecognized arguments`. This happens
when docs or examples for the newest SGLang are used with a pinned, older
image tag.

## Example
```sh
# sgllint: sglang=0.5.10
python -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct --tp-size 2 --attn-dp-size 2
```

## Use instead
```sh
# sgllint: sglang=0.5.10
python -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct --tp-size 2 --dp-size 2 --enable-dp-attention
```

## References
- The per-release option sets in `sgllint/catalog/data/`, generated from the
  SGLang wheels.
"""

from sgllint.catalog import history
from sgllint.model.rule import ERROR, Invalid, Rule, Valid
from sgllint.model.kinds import Origin, Resolution

LAUNCH = "python -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct"


class FlagNotYetAvailable(Rule):
    code = "SGL111"
    name = "flag-not-yet-available"
    severity = ERROR

    VALID = [
        Valid.sh(f"{LAUNCH} --tp-size 2 --attn-dp-size 2", sglang="0.5.23"),
    ]
    INVALID = [
        Invalid.sh(f"{LAUNCH} --tp-size 2 --attn-dp-size 2", at="--attn-dp-size", message="0.5.10", sglang="0.5.10"),
    ]

    def check(self, launch):
        version = launch.context.catalog.version
        for arg in launch.args:
            if arg.resolution is not Resolution.UNRECOGNIZED or arg.origin is Origin.KEYWORD:
                continue
            found = history.option_versions(arg.spelling)
            if history.before(found, version) or not history.after(found, version):
                continue  # removed (SGL106) or unknown everywhere (SGL101)
            yield self.diagnostic(
                arg.flag_span,
                f"{arg.spelling} needs SGLang >= {found[0]}; this launch targets {version}",
                help=f"upgrade SGLang to {found[0]} or later, or remove the flag",
                launch=launch,
            )
