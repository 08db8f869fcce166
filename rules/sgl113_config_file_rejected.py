"""SGLang refuses the `--config` file or the way it is passed.

## What it does
Reports what SGLang's config merger rejects before the server starts, for
the target release: an option that cannot be set from a config file
(deprecated flags, `BooleanOptionalAction` flags such as
`--mm-enable-dp-encoder`, `--lora-paths` in 0.5.8+), a file that is not YAML,
whose root is not a mapping or that does not parse, two `--config` flags, or
a `--config` with no file after it.

## Why is this bad?
`prepare_server_args` raises (`ValueError: Unsupported config option
'enable_dp_attention' with action 'DeprecatedStoreTrueAction'`, `Config file
must be YAML format`, `Multiple config files specified! Only one allowed.`)
and the server never starts.

## Example
```sh
python -m sglang.launch_server --config a.yaml --config b.yaml
```

## Use instead
```sh
python -m sglang.launch_server --config a.yaml
```

## References
- `sglang/srt/utils/server_args_config_parser.py` (0.5.19+) and
  `sglang/srt/server_args_config_parser.py` (0.5.3–0.5.18):
  `ConfigArgumentMerger`, used by `prepare_server_args`.
"""

from sgllint.resolve.sglang_config import unsupported_option_message
from sgllint.model.rule import ERROR, Invalid, Rule, Valid
from sgllint.model.kinds import ArgProblem, HintKind


class ConfigFileRejected(Rule):
    code = "SGL113"
    name = "config-file-rejected"
    severity = ERROR

    VALID = [
        Valid.sh("python -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct --config server.yaml"),
        Valid.yaml(
            """
            model-path: Qwen/Qwen2.5-7B-Instruct
            tp-size: 2
            enable-metrics: true
            chunked-prefill-size: 4096
            """,
            path="server.yaml",
            sglang="0.5.23",
        ),
    ]
    INVALID = [
        Invalid.sh(
            "python -m sglang.launch_server --config a.yaml --config b.yaml",
            at=("--config", 2),
            message="Only one allowed",
        ),
        # a config file linted on its own: keys whose action the merger refuses
        Invalid.yaml(
            """
            model-path: Qwen/Qwen2.5-7B-Instruct
            enable-lora: true
            lora-paths:
              - adapter=org/lora-a
            """,
            path="server.yaml",
            at="lora-paths",
            message="LoRAPathAction",
            sglang="0.5.23",
        ),
        Invalid.yaml(
            """
            model-path: Qwen/Qwen2.5-VL-7B-Instruct
            mm-enable-dp-encoder: true
            """,
            path="server.yaml",
            at="mm-enable-dp-encoder",
            message="BooleanOptionalAction",
            sglang="0.5.23",
        ),
        Invalid.yaml(
            """
            model-path: Qwen/Qwen2.5-7B-Instruct
            tp-size: 2
            dp-size: 2
            enable-dp-attention: true
            """,
            path="server.yaml",
            at="enable-dp-attention",
            message="DeprecatedStoreTrueAction",
            sglang="0.5.23",
        ),
    ]

    def check(self, launch):
        version = launch.context.catalog.version
        for hint in launch.site.hints:
            if hint.kind is HintKind.CONFIG_UNSUPPORTED_OPTION and hint.span is not None:
                message = unsupported_option_message(hint.value, launch.context.catalog)
                if message:
                    yield self.diagnostic(
                        hint.span,
                        f"SGLang {version} refuses this config key: {message}",
                        help="set this option on the command line; the config merger accepts only plain value options and store_true switches",
                        launch=launch,
                    )
        # a trailing --config with no file is argparse's missing value (SGL105)
        valueless = {a.flag_span for a in launch.args if a.field == "config" and a.problem is ArgProblem.MISSING_VALUE}
        for hint in launch.site.hints:
            if hint.kind is not HintKind.CONFIG_ERROR or hint.span is None or hint.span in valueless:
                continue
            yield self.diagnostic(
                hint.span,
                f"SGLang {version} refuses this config: {hint.value}",
                help="move the option to the command line, or fix the config file as the message says",
                launch=launch,
            )
