"""A `--served-model-name` (or, without one, a `--model-path`) containing `:`.

## What it does
Finds a served model name with a colon. Without `--served-model-name`
SGLang serves the model under its `--model-path`, so a path such as
`/models/qwen3:8b` counts too (URIs with `://` are not judged there). From 0.5.10 object-store URIs that the
Run:ai model streamer reads (`s3://`, `gs://`, `az://`) are exempt.

## Why is this bad?
The colon is reserved for the `model:adapter` LoRA syntax; the server stops at
start-up with `AssertionError: served_model_name cannot contain a colon (':')
character. The colon is reserved for the 'model:adapter' syntax used in LoRA
adapter specification. Invalid value: 'qwen:8b'`.

## Example
```sh
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --served-model-name qwen:8b
```

## Use instead
```sh
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --served-model-name qwen-8b
```

## References
- `sglang/srt/server_args.py` `ServerArgs.check_server_args` (0.5.5-0.5.18;
  with the `is_runai_obj_uri` exemption from 0.5.10) and
  `sglang/srt/arg_groups/validation_hook.py` `check_server_args`
  (0.5.19-0.5.23); absent in 0.5.4 and before.
"""

from sgllint.model.rule import ERROR, Invalid, Rule, Valid
from sgllint.semantics import effective as eff

QWEN = "python -m sglang.launch_server --model-path Qwen/Qwen3-8B"
RUNAI_SCHEMES = ("s3://", "gs://", "az://")


class ServedModelNameColon(Rule):
    code = "SGL237"
    name = "served-model-name-colon"
    severity = ERROR

    VALID = [
        Valid.sh(f"{QWEN} --served-model-name qwen-8b"),
        Valid.sh(f"{QWEN} --served-model-name qwen:8b", sglang="0.5.4"),
        Valid.sh("python -m sglang.launch_server --model-path s3://bucket/qwen3-8b --load-format runai_streamer"),
        Valid.py(
            """
            import sglang as sgl
            llm = sgl.Engine(model_path="Qwen/Qwen3-8B", served_model_name="qwen3")
            """
        ),
    ]
    INVALID = [
        Invalid.sh(f"{QWEN} --served-model-name qwen:8b", at="qwen:8b", message="cannot contain a colon"),
        Invalid.sh("python -m sglang.launch_server --model-path /models/qwen3:8b", at="/models/qwen3:8b", sglang="0.5.8",
                   message="the model path"),
        Invalid.sh(f"{QWEN} --served-model-name s3://bucket/qwen3", at="s3://bucket/qwen3", sglang="0.5.9"),
        Invalid.py(
            """
            import sglang as sgl
            llm = sgl.Engine(model_path="Qwen/Qwen3-8B", served_model_name="qwen:8b")
            """,
            at='"qwen:8b"',
        ),
    ]

    def check(self, launch):
        v = eff.version(launch)
        if not eff.at_least(v, "0.5.5"):
            return
        arg = launch.last("served_model_name")
        implicit = arg is None or arg.value is None
        if implicit:
            arg = launch.last("model_path")
        if arg is None or not isinstance(arg.value, str) or ":" not in arg.value:
            return
        name = arg.value
        if implicit and "://" in name:
            return  # remote URIs may be rewritten before the check; not judged
        if eff.at_least(v, "0.5.10") and name.lower().startswith(RUNAI_SCHEMES):
            return
        what = "the model path, which SGLang serves the model under when --served-model-name is not given," if implicit else "--served-model-name"
        yield self.diagnostic(
            arg.value_span or arg.span,
            f"{what} contains ':'; SGLang {v} stops at start-up: \"served_model_name cannot contain a colon (':') character. "
            "The colon is reserved for the 'model:adapter' syntax used in LoRA adapter specification. "
            f"Invalid value: '{name}'\"",
            help="pick a served model name without ':' (e.g. --served-model-name " + name.replace(":", "-").split("/")[-1] + ")",
            launch=launch,
        )
