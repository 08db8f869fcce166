"""An option of the wrapper's own parser without its value, or a required one left out.

## What it does
Finds options of the wrapper in front of SGLang (the SGLang router, Dynamo)
given without the value they need (`--policy` at the end of the line or
before another option) and required options of the wrapper's parser that
the launch does not give.

## Why is this bad?
`argparse` exits with `argument --policy: expected one argument` or `the
following arguments are required: ...` before anything starts.

## Example
```sh
python -m sglang_router.launch_router --worker-urls $WORKER_URL --policy
```

## Use instead
```sh
python -m sglang_router.launch_router --worker-urls $WORKER_URL --policy cache_aware
```

## References
- The wrappers' parsers in `sgllint/catalog/data/wrappers/`, generated per
  release.
"""

from sgllint.catalog.wrappers import Reason
from sgllint.resolve.wrapped import problems_of
from sgllint.model.rule import ERROR, Invalid, Rule, Valid

ROUTER = "python -m sglang_router.launch_router --worker-urls $WORKER_URL"


class WrapperMissingArgument(Rule):
    code = "SGL119"
    name = "wrapper-missing-argument"
    severity = ERROR
    targets = frozenset({"sglang", "router"})

    VALID = [Valid.sh(f"{ROUTER} --policy cache_aware")]
    INVALID = [
        Invalid.sh(f"{ROUTER} --policy", at="--policy", message="expected"),
        Invalid.sh(f"{ROUTER} --policy --port 8000", at="--policy"),
    ]

    def check(self, launch):
        for wrapped, problem in problems_of(launch, (Reason.EXPECTED_VALUE, Reason.REQUIRED)):
            if problem.reason is Reason.REQUIRED:
                message = f"{wrapped.where} requires {problem.word}; it exits with 'the following arguments are required'"
                span = launch.site.entry_span
            else:
                message = f"{problem.detail or problem.word} needs a value: {wrapped.where} exits with 'expected one argument'"
                span = problem.span
            yield self.diagnostic(span, message, help="give the value after the option", launch=launch)
