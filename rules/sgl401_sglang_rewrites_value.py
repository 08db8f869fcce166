"""A value you set that SGLang's start-up code definitely replaces with another, found by running the release's derived checks.

## What it does
Runs the target release's derived start-up validation on the launch (as
SGL400 does) and reports each argument the launch sets whose final value,
after SGLang's start-up resolution, is definitely another one: at the
argument's value, with the value SGLang runs with and the assignment's
`file:line`. A rewrite that depends on something not known is not reported.
A curated rule that already reports rewrites of a field (its
`sglang_rewrites`, e.g. SGL241 for `page_size`) wins.

## Why is this bad?
Nothing fails: SGLang logs a line (or nothing) and serves with a value the
launch does not say, so sizing, throughput and behaviour differ from what the
configuration claims and from what a reviewer reads.

## Example
```sh
# sgllint: gpu=H100
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --enable-dp-attention --dp-size 1
```

## Use instead
```sh
# sgllint: gpu=H100
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp-size 2
```

## References
- the rewrite sites of each release, derived from its wheel:
  `sgllint/catalog/data/validation/sglang-<version>.json.gz` (`rewrites`)
- `sglang/srt/server_args.py` `ServerArgs.__post_init__` and (0.5.19+)
  `sglang/srt/arg_groups/overrides.py`, every release 0.4.0–0.5.23
"""

from sgllint.model.rule import WARNING, Invalid, Rule, Valid
from sgllint.semantics import launch_validation as lv

QWEN = "python -m sglang.launch_server --model-path Qwen/Qwen3-8B"


def _show(value) -> str:
    return repr(value) if isinstance(value, str) else str(value)


class SglangRewritesValue(Rule):
    code = "SGL401"
    name = "sglang-rewrites-value"
    severity = WARNING
    #: its examples need the evaluator (tests/test_rules.py skips them while it is missing)
    needs_evaluator = True

    VALID = [
        Valid.sh(f"# sgllint: gpu=H100\n{QWEN} --tp-size 2"),
    ]
    INVALID = [
        Invalid.sh(f"# sgllint: gpu=H100\n{QWEN} --enable-dp-attention --dp-size 1", at="--enable-dp-attention"),
    ]

    def check(self, launch):
        v = lv.verdict(launch)
        if v is None or not v.rewrites:
            return
        covered = lv.covered_rewrites()
        version = launch.context.catalog.version
        for r in v.rewrites:
            if r.field in covered:
                continue
            arg = launch.last(r.field)
            if arg is None:
                continue  # only values the user wrote
            where = f"sglang/{r.file.split('sglang/', 1)[-1]}:{r.line}" if r.file else ""
            because = (r.reason or "its start-up code assigns it") + (f" ({where})" if where else "")
            d = self.diagnostic(
                lv.value_span(arg),
                f"SGLang {version} will run with {arg.spelling} = {_show(r.final_value)}, not your {_show(r.user_value)}, "
                f"because {because}",
                help=f"write {arg.spelling} {_show(r.final_value)} (or change what makes SGLang replace it) "
                     "so the launch says what runs",
                launch=launch,
            )
            d.context = {**launch.context.as_dict(), **({"sglang_site": where} if where else {})}
            yield d
