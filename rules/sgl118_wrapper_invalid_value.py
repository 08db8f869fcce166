"""A value the wrapper's own parser refuses for one of its options.

## What it does
Checks the values given to the options of the wrapper in front of SGLang
(the SGLang router's `--policy`, `--port`, Dynamo's own options) against the
choices and types its generated parser declares, and flags values given to
its switches (`--pd-disaggregation=true`).

## Why is this bad?
`argparse` exits with `argument --policy: invalid choice: ...` or `invalid
int value`, or `ignored explicit argument`, and the router or worker never
starts.

## Example
```sh
python -m sglang_router.launch_router --worker-urls $WORKER_URL --policy fastest
```

## Use instead
```sh
python -m sglang_router.launch_router --worker-urls $WORKER_URL --policy cache_aware
```

## References
- The wrappers' parsers in `sgllint/catalog/data/wrappers/` (generated from
  `sglang_router/router_args.py`, `dynamo/sglang/args.py` per release).
"""

from sgllint.catalog.wrappers import Reason
from sgllint.resolve.wrapped import problems_of
from sgllint.model.rule import ERROR, Invalid, Rule, Valid

ROUTER = "python -m sglang_router.launch_router --worker-urls $WORKER_URL"

_WHAT = {
    Reason.INVALID_CHOICE: "is not one of its choices",
    Reason.INVALID_VALUE: "is not a value it accepts",
    Reason.IGNORED_EXPLICIT: "takes no value",
    Reason.NOT_IMPLEMENTED: "is not implemented: giving it fails",
}


class WrapperInvalidValue(Rule):
    code = "SGL118"
    name = "wrapper-invalid-value"
    severity = ERROR
    targets = frozenset({"sglang", "router"})

    VALID = [Valid.sh(f"{ROUTER} --policy cache_aware --port 8000")]
    INVALID = [
        Invalid.sh(f"{ROUTER} --policy fastest", at="fastest", message="--policy"),
        Invalid.sh(f"{ROUTER} --port eighty", at="eighty"),
        Invalid.sh(
            "python -m sglang_router.launch_server --model-path Qwen/Qwen2.5-7B-Instruct --router-policy fastest",
            at="fastest",
        ),
    ]

    def check(self, launch):
        for wrapped, problem in problems_of(launch, tuple(_WHAT)):
            option = problem.detail or problem.word
            value = problem.span.text
            subject = f"'{value}' for {option}" if problem.reason in (Reason.INVALID_CHOICE, Reason.INVALID_VALUE) else option
            yield self.diagnostic(
                problem.span,
                f"{subject} {_WHAT[problem.reason]} in {wrapped.where}",
                help=f"run `{wrapped.entry} --help` for what {option} takes",
                launch=launch,
            )
