"""A launch that never says which model to serve.

## What it does
Finds server launches without `--model-path` (or its alias `--model`, or the
positional model of `sglang serve`) and keyword launches without
`model_path=`. Launches whose arguments may come from somewhere the linter
cannot see (`$EXTRA_ARGS`, a `--config` file it cannot read) are skipped.

## Why is this bad?
`--model-path` is the only required option: argparse exits with `error: the
following arguments are required: --model-path/--model`.

## Example
```sh
python -m sglang.launch_server --tp-size 2 --port 30000
```

## Use instead
```sh
python -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct --tp-size 2 --port 30000
```

## References
- `sglang/srt/server_args.py`: `--model-path` is declared with `required=True`
  (every release).
"""

from sgllint.model.rule import ERROR, Invalid, Rule, Valid
from sgllint.model.kinds import LaunchForm, Resolution


class MissingModelPath(Rule):
    code = "SGL110"
    name = "missing-model-path"
    severity = ERROR

    VALID = [
        Valid.sh("python -m sglang.launch_server --model Qwen/Qwen2.5-7B-Instruct --tp-size 2"),
        Valid.sh("sglang serve Qwen/Qwen2.5-7B-Instruct --tp-size 2"),
        Valid.sh("python -m sglang.launch_server $ARGS --tp-size 2"),
        Valid.sh("python -m sglang.launch_server --config server.yaml"),
    ]
    INVALID = [
        Invalid.sh("python -m sglang.launch_server --tp-size 2 --port 30000", at="python -m sglang.launch_server"),
        Invalid.sh("sglang serve --port 30000", at="sglang serve"),
    ]

    def check(self, launch):
        if launch.opaque or launch.last("model_path") is not None:
            return
        if launch.last("config") is not None:
            return  # the config file may set it; merged launches come from the YAML extractor
        if any(a.resolution.names_no_option and "mod" in a.spelling for a in launch.args):
            return  # a misspelt --model-path is reported as that (SGL101/SGL102), once
        if any(a.resolution is Resolution.POSITIONAL and a.option is None for a in launch.args):
            return  # a stray positional word is probably the model: SGL101 says to use --model-path
        if any(a.field == "help" or a.spelling in ("-h", "--help") for a in launch.args):
            return
        if launch.site.form is LaunchForm.KWARGS:
            message = f"{launch.entry} is called without model_path"
            help_text = "pass model_path='org/model' or a local directory"
        else:
            message = f"this launch has no --model-path; SGLang {launch.context.catalog.version} exits with 'the following arguments are required: --model-path/--model'"
            help_text = "add --model-path with a Hugging Face model id or a local directory"
        yield self.diagnostic(launch.site.entry_span, message, help=help_text, launch=launch)
