"""A launch the wrapper's own start-up checks refuse after its parsers accepted it.

## What it does
Evaluates the checks a wrapper in front of SGLang runs on what it parsed,
before anything starts: Dynamo's `python -m dynamo.sglang` refuses
`--custom-jinja-template` with `--use-sglang-tokenizer` (0.6.0 to 0.9.1), a
`--gateway-workers`, `--engine-request-limit` or `--tcp-tls-handshake-timeout`
below 1, `--rerank-worker` with another worker mode, `--frontend-decoding` on
an internal multimodal worker. The checks are generated from each wrapper
release's own code (file, line, condition and message in
`sgllint/catalog/data/wrappers/`), never typed per case.

A check is reported only when the options written on the line decide it:
an option left out whose default the environment may set (Dynamo's
`DYN_*` variables), an SGLang option a `--config` file may set, or a
condition on anything but the options (a file on disk, the model) leaves it
undecided, and it is not reported.

## Why is this bad?
The worker exits with the wrapper's error (`ValueError` or `sys.exit(1)`)
before it registers; the deployment crash-loops.

## Example
```sh
python -m dynamo.sglang --model-path Qwen/Qwen3-8B --gateway-workers 0
```

## Use instead
```sh
python -m dynamo.sglang --model-path Qwen/Qwen3-8B --gateway-workers 2
```

## References
- `dynamo/sglang/args.py` (`parse_args`), `dynamo/sglang/backend_args.py` and
  `dynamo/common/configuration/groups/runtime_args.py` (`validate`), per
  release: the `rejections` of `sgllint/catalog/data/wrappers/ai-dynamo-*.json`,
  written by `python -m sgllint.catalog._gen_wrappers`.
"""

import re

from sgllint.model.rule import ERROR, Invalid, Rule, Valid
from sgllint.resolve.wrapped import startup_rejections

DYN = "python -m dynamo.sglang --model-path Qwen/Qwen3-8B"
#: an f-string field of the wrapper's message (``{self.gateway_workers}``)
_FIELD = re.compile(r"\{[^{}]*\}")


class WrapperStartupRejection(Rule):
    code = "SGL120"
    name = "wrapper-startup-rejection"
    severity = ERROR
    targets = frozenset({"sglang", "router"})

    VALID = [
        Valid.sh(f"{DYN} --gateway-workers 2"),
        Valid.sh(f"{DYN} --engine-request-limit 16"),
        Valid.sh(f"{DYN} --rerank-worker"),
        Valid.sh(f"{DYN} --frontend-decoding --enable-multimodal"),
        # 0.6.0 to 0.9.1 refuse the pair; 1.x reads the template elsewhere
        Valid.sh(f"# sgllint: ai-dynamo=0.9.1\n{DYN} --custom-jinja-template t.jinja"),
        Valid.sh(f"# sgllint: ai-dynamo=0.9.1\n{DYN} --use-sglang-tokenizer"),
        # the value is not known: never a guess
        Valid.sh(f"{DYN} --gateway-workers $N"),
    ]
    INVALID = [
        Invalid.sh(f"{DYN} --gateway-workers 0", at="0", message="--gateway-workers must be a positive integer"),
        Invalid.sh(f"{DYN} --engine-request-limit=-1", at="-1", message="runtime_args.py"),
        Invalid.sh(f"{DYN} --rerank-worker --embedding-worker", at="--embedding-worker", message="cannot be combined"),
        Invalid.sh(f"{DYN} --frontend-decoding --dedicated-mm-encoder --enable-multimodal", at="--dedicated-mm-encoder"),
        Invalid.sh(
            f"# sgllint: ai-dynamo=0.9.1\n{DYN} --custom-jinja-template t.jinja --use-sglang-tokenizer",
            at="--use-sglang-tokenizer",
            message="0.6.0 to 0.9.1",
        ),
    ]

    def check(self, launch):
        wrapped = launch.context.wrapped
        for r in startup_rejections(launch):
            text = _FIELD.sub("…", r.message)
            releases = r.releases
            span_text = releases[0] if len(releases) == 1 else f"{releases[0]} to {releases[-1]}"
            yield self.diagnostic(
                r.span,
                f"{wrapped.where} refuses this at start-up ({r.file}:{r.line}): {text}",
                help=(
                    f"the check is in {wrapped.package} {span_text}; "
                    f"change {', '.join(dict.fromkeys(r.options))} so it passes"
                ),
                launch=launch,
            )
