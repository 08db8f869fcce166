"""A value that is not one of the flag's allowed choices.

## What it does
Checks values of flags with a fixed set of choices (`--attention-backend`,
`--quantization`, `--dtype`, `--load-format`, ...) against the target
release's list, and suggests the closest valid value. Keyword arguments of
`Engine(...)`/`ServerArgs(...)` are checked the same way.

## Why is this bad?
argparse exits at start-up with `error: argument --attention-backend: invalid
choice: 'flashinfer2' (choose from ...)`. Choice lists change between releases
(backends are added, renamed and removed), so a value copied from another
version's docs often fails.

## Example
```sh
python -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct --attention-backend flash_infer
```

## Use instead
```sh
python -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct --attention-backend flashinfer
```

## References
- The `*_CHOICES` lists of `sglang/srt/server_args.py` (up to 0.5.19) and
  `sglang/srt/arg_groups/choices.py` (0.5.20+), as shipped in the catalogs.
"""

from sgllint.catalog import history
from sgllint.model.rule import ERROR, Invalid, Rule, Valid
from sgllint.model.kinds import ArgProblem
from sgllint.resolve.suggest import closest, format_choices

LAUNCH = "python -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct"


class InvalidChoice(Rule):
    code = "SGL103"
    name = "invalid-choice"
    severity = ERROR
    targets = frozenset({"sglang", "diffusion"})  # also the diffusion server's parser

    VALID = [
        Valid.sh(f"{LAUNCH} --attention-backend flashinfer --dtype bfloat16"),
        Valid.sh(f"{LAUNCH} --attention-backend=triton"),
        Valid.sh(f"{LAUNCH} --attention-backend $BACKEND"),
    ]
    INVALID = [
        Invalid.sh(f"{LAUNCH} --attention-backend flash_infer", at="flash_infer", message="flashinfer"),
        Invalid.sh(f"{LAUNCH} --attention-backend=flashinfer2", at="flashinfer2"),
        Invalid.sh(f"{LAUNCH} --dtype bf16", at="bf16"),
    ]

    def check(self, launch):
        version = launch.context.catalog.version
        for arg in launch.args:
            if arg.problem is not ArgProblem.INVALID_CHOICE or arg.option is None:
                continue
            value = arg.problem_detail
            choices = [str(c) for c in arg.option.choices or ()]
            flag = arg.option.name
            guess = closest(value, choices)
            # the LLM server's history (the diffusion server's choices have none recorded)
            elsewhere = history.choice_versions(flag, value) if launch.context.target == "sglang" else ()
            note = f"; '{value}' was valid in SGLang {history.span_text(elsewhere)}" if elsewhere else ""
            help_text = f"did you mean '{guess}'? " if guess else ""
            help_text += f"valid values: {format_choices(choices)}"
            yield self.diagnostic(
                arg.value_span or arg.flag_span,
                f"'{value}' is not a valid {flag} in SGLang {version}{note}",
                help=help_text,
                launch=launch,
            )
