"""An abbreviated flag that matches several options of the wrapper's own parser.

## What it does
Finds a prefix (argparse `allow_abbrev`) that the parser of the wrapper in
front of SGLang (`python -m dynamo.sglang`'s own argument groups, the SGLang
router's) cannot resolve to one of its options.

## Why is this bad?
`argparse` exits with `error: ambiguous option: --x could match --x-a,
--x-b` before the wrapper starts anything.

## Example
```sh
python -m sglang_router.launch_router --pd-disaggregation --prefill $PREFILL_URL --decode $DECODE_URL --retry-max 3
```

## Use instead
```sh
python -m sglang_router.launch_router --pd-disaggregation --prefill $PREFILL_URL --decode $DECODE_URL --retry-max-retries 3
```

## References
- CPython `argparse` `_parse_optional` (`allow_abbrev=True`, the wrappers'
  default); the parsers of `sgllint/catalog/data/wrappers/`.
"""

from sgllint.catalog.wrappers import Reason
from sgllint.resolve.wrapped import own_strings, problems_of
from sgllint.model.rule import ERROR, Invalid, Rule, Valid

ROUTER = "python -m sglang_router.launch_router --pd-disaggregation --prefill $PREFILL_URL --decode $DECODE_URL"


class WrapperAmbiguousFlag(Rule):
    code = "SGL117"
    name = "wrapper-ambiguous-flag"
    severity = ERROR
    targets = frozenset({"sglang", "router"})

    VALID = [Valid.sh(f"{ROUTER} --retry-max-retries 3 --retry-max-backoff-ms 100 --prefill-pol random")]
    INVALID = [Invalid.sh(f"{ROUTER} --retry-max 3", at="--retry-max", message="--retry-max-backoff-ms")]

    def check(self, launch):
        for wrapped, problem in problems_of(launch, (Reason.AMBIGUOUS,)):
            prefix = problem.detail or problem.word
            matches = [s for s in own_strings(wrapped) if s.startswith(prefix)]
            yield self.diagnostic(
                problem.span,
                f"'{prefix}' is ambiguous in {wrapped.where}: it could match {', '.join(matches)}",
                help="write the full option name",
                launch=launch,
            )
