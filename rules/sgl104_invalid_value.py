"""A value of the wrong type, or a value given to a flag that takes none.

## What it does
Checks each value against the flag's declared type in the target release
(`int`, `float`, JSON, SGLang's human-readable integers such as `16k`), and
finds values given to switches that take none: `--enable-metrics true`,
`--enable-metrics=false`, or a second value after a one-value flag.

## Why is this bad?
argparse exits at start-up: `error: argument --tp-size: invalid int value:
'two'`, or `error: unrecognized arguments: false` (a store_true flag takes no
value; `--enable-x false` does not turn anything off, it fails). A JSON value
that does not parse fails the same way or later, inside the server.

## Example
```sh
python -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct --enable-metrics false
```

## Use instead
```sh
python -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct
```

## References
- `type=` converters in `sglang/srt/server_args.py` / `arg_groups`, and
  `human_readable_int`, `json_list_type` in `sglang/srt/utils/common.py`.
"""

from sgllint.model.rule import ERROR, Invalid, Rule, Valid
from sgllint.model.kinds import ArgProblem

LAUNCH = "python -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct"


class InvalidValue(Rule):
    code = "SGL104"
    name = "invalid-value"
    severity = ERROR
    targets = frozenset({"sglang", "diffusion"})  # also the diffusion server's parser

    VALID = [
        Valid.sh(f"{LAUNCH} --tp-size 2 --mem-fraction-static 0.85 --enable-metrics"),
        Valid.sh(f"""{LAUNCH} --cuda-graph-config '{{"decode": {{"max_bs": 256}}}}'""", sglang="0.5.23"),
        Valid.sh(f"{LAUNCH} --tp-size $TP"),
    ]
    INVALID = [
        Invalid.sh(f"{LAUNCH} --tp-size two", at="two", message="invalid int value"),
        Invalid.sh(f"{LAUNCH} --mem-fraction-static 85%", at="85%"),
        Invalid.sh(f"{LAUNCH} --enable-metrics false", at="false", message="takes no value"),
        Invalid.sh(f"{LAUNCH} --enable-metrics=true", at="true"),
        Invalid.sh(f"""{LAUNCH} --cuda-graph-config '{{"decode": }}'""", at="""'{"decode": }'""", sglang="0.5.23"),
    ]

    def check(self, launch):
        version = launch.context.catalog.version
        for arg in launch.args:
            if arg.option is None:
                continue
            flag = arg.option.name
            if arg.problem is ArgProblem.INVALID_TYPE:
                yield self.diagnostic(
                    arg.value_span or arg.flag_span,
                    f"{flag}: {arg.problem_detail} (SGLang {version} expects {_type_name(arg.option.type)})",
                    help=_type_help(arg.option.type),
                    launch=launch,
                )
            elif arg.problem is ArgProblem.UNEXPECTED_VALUE:
                if arg.extra:
                    span = arg.extra[0].span.cover(arg.extra[-1].span)
                else:  # --switch=value
                    span = arg.value_span or arg.flag_span
                if arg.option.takes_value:
                    message = (
                        f"{flag} takes {'one value' if arg.option.nargs in (None, '?') else 'its values'}; "
                        f"'{arg.problem_detail}' is left over and SGLang {version} exits with 'unrecognized arguments'"
                    )
                    help_text = "remove the extra word or quote the value if it contains spaces"
                else:
                    message = (
                        f"{flag} is a switch and takes no value; '{arg.problem_detail}' is rejected "
                        f"by SGLang {version}"
                    )
                    help_text = f"write {flag} alone to enable it, and leave it out to keep it disabled"
                yield self.diagnostic(span, message, help=help_text, launch=launch)


def _type_name(t: str) -> str:
    return {
        "int": "an integer",
        "float": "a number",
        "json": "a JSON value",
        "json_list": "a JSON list",
        "human_readable_int": "an integer such as 4096, 16k or 1Mi",
        "parse_cuda_graph_config_arg": "a JSON object",
    }.get(t, f"a {t}")


def _type_help(t: str) -> str:
    if t in ("json", "json_list", "parse_cuda_graph_config_arg"):
        return "quote the JSON so the shell passes it as one word: --flag '{\"key\": 1}'"
    return f"give {_type_name(t)}"
