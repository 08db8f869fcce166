"""A `--config` file that SGLang silently ignores.

## What it does
Finds `--config` written in a way SGLang's merger does not see: with `=`
(`--config=server.yaml`), abbreviated (`--conf server.yaml`), or passed to a
launcher that parses its arguments without the merger
(`python -m sglang_router.launch_server`).

## Why is this bad?
`prepare_server_args` only merges when the exact word `--config` is in argv.
Otherwise argparse stores the path in an unused attribute and the server
starts with none of the file's settings, with no error or warning.

## Example
```sh
python -m sglang.launch_server --config=server.yaml
```

## Use instead
```sh
python -m sglang.launch_server --config server.yaml
```

## References
- `sglang/srt/server_args.py`: `prepare_server_args` (`if "--config" in argv:`),
  0.5.3–0.5.23; `sglang_router/launch_server.py` calls `parse_args` directly.
"""

from sgllint.model.kinds import HintKind
from sgllint.model.rule import ERROR, Invalid, Rule, Valid

_WHY = {
    HintKind.CONFIG_EQUALS_IGNORED: "'--config=FILE' is not merged: SGLang only looks for the separate word --config",
    HintKind.CONFIG_ABBREV_IGNORED: "an abbreviated --config is not merged: SGLang only looks for the exact word --config",
    HintKind.CONFIG_IGNORED: "this launcher does not read --config files",
}


class ConfigFileIgnored(Rule):
    code = "SGL114"
    name = "config-file-ignored"
    severity = ERROR

    VALID = [
        Valid.sh("python -m sglang.launch_server --config server.yaml"),
    ]
    INVALID = [
        Invalid.sh("python -m sglang.launch_server --config=server.yaml", at="--config=server.yaml", message="separate word"),
        Invalid.sh("python -m sglang.launch_server --model-path m --conf server.yaml", at="--conf"),
    ]

    def check(self, launch):
        for hint in launch.site.hints:
            why = _WHY.get(hint.kind)
            if why is None or hint.span is None:
                continue
            yield self.diagnostic(
                hint.span,
                f"{why}; none of the file's settings reach the server",
                help="write --config FILE as two words" if hint.kind is not HintKind.CONFIG_IGNORED else "pass the settings as flags",
                launch=launch,
            )
