"""An abbreviated flag that matches several SGLang options.

## What it does
Finds options written as a prefix (argparse's `allow_abbrev`) that match more
than one option of the target release, such as `--pp` or `--quant`, and lists
the options it could mean. Ambiguity is judged per release: `--cuda-graph-max-bs`
is an exact option up to 0.5.19 and an ambiguous prefix from 0.5.20 on.

## Why is this bad?
argparse exits at once with `error: ambiguous option: --pp could match
--pp-size, --pp-max-micro-batch-size, ...`. A prefix that used to be unique
becomes ambiguous whenever SGLang adds a flag that shares it, so configs break
on upgrade.

## Example
```sh
python -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct --pp 2
```

## Use instead
```sh
python -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct --pp-size 2
```

## References
- CPython `argparse.ArgumentParser._parse_optional` / `_get_option_tuples`,
  used by `prepare_server_args` in `sglang/srt/server_args.py` (every release).
"""

from sgllint.catalog import history
from sgllint.model.rule import ERROR, Invalid, Rule, Valid
from sgllint.model.kinds import Resolution
from sgllint.resolve.suggest import format_choices

LAUNCH = "python -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct"


class AmbiguousFlag(Rule):
    code = "SGL102"
    name = "ambiguous-flag"
    severity = ERROR
    targets = frozenset({"sglang", "diffusion"})  # also the diffusion server's parser

    VALID = [
        Valid.sh(f"{LAUNCH} --pp-size 2 --quantization fp8"),
        Valid.sh(f"{LAUNCH} --cuda-graph-max-bs 256", sglang="0.5.10"),
    ]
    INVALID = [
        Invalid.sh(f"{LAUNCH} --pp 2", at="--pp", message="--pp-size"),
        Invalid.sh(f"{LAUNCH} --quant fp8", at="--quant"),
        Invalid.sh(f"{LAUNCH} --cuda-graph-max-bs 256", at="--cuda-graph-max-bs", sglang="0.5.23"),
    ]

    def check(self, launch):
        version = launch.context.catalog.version
        for arg in launch.args:
            if arg.resolution is not Resolution.AMBIGUOUS:
                continue
            # the LLM server's history (the diffusion server's flags have none recorded)
            earlier = history.before(history.option_versions(arg.spelling), version) if launch.context.target == "sglang" else ()
            was = f" ({arg.spelling} itself was an option up to {earlier[-1]})" if earlier else ""
            yield self.diagnostic(
                arg.flag_span,
                f"'{arg.spelling}' is ambiguous in SGLang {version}: it could match "
                f"{format_choices(arg.candidates, limit=8)}{was}",
                help="write the full option name",
                launch=launch,
            )
