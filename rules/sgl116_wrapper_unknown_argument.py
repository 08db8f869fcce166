"""A word the wrapper in front of SGLang (Dynamo, the SGLang router) does not accept.

## What it does
Finds arguments that the wrapper's own parser rejects before anything
starts: an option `python -m sglang_router.launch_router` (or the
`sglang-router` console script, or a stage of `python -m dynamo.sglang`
that parses strictly) does not declare, a stray positional word, or a
`sglang-router` command line without its `launch`/`server` subcommand.
The parser is the one generated from the wrapper's wheel for the release
the file uses (a pin, a Dynamo runtime image tag, a `# sgllint:
sglang-router=X` pragma; the newest otherwise).

Options that reach SGLang's own parser are checked by SGL101.

## Why is this bad?
The wrapper calls `argparse`'s `parse_args`, which exits with `error:
unrecognized arguments: ...` (or `invalid choice` for the subcommand), so the
router or worker never starts.

## Example
```sh
python -m sglang_router.launch_router --pd-disaggregation --prefill $PREFILL_URL --decode $DECODE_URL --polizy random
```

## Use instead
```sh
python -m sglang_router.launch_router --pd-disaggregation --prefill $PREFILL_URL --decode $DECODE_URL --policy random
```

## References
- `sglang_router/launch_router.py` (`parse_router_args`), `sglang_router/cli.py`
  (0.2.4+ console scripts), `dynamo/sglang/args.py`: the parsers
  `sgllint/catalog/data/wrappers/` is generated from, per release.
"""

from sgllint.catalog.wrappers import Reason
from sgllint.resolve.wrapped import own_strings, problems_of, releases_with
from sgllint.model.rule import ERROR, Invalid, Rule, Valid
from sgllint.resolve.suggest import closest

ROUTER = "python -m sglang_router.launch_router --pd-disaggregation --prefill $PREFILL_URL --decode $DECODE_URL"


class WrapperUnknownArgument(Rule):
    code = "SGL116"
    name = "wrapper-unknown-argument"
    severity = ERROR
    targets = frozenset({"sglang", "router"})

    VALID = [
        Valid.sh(f"{ROUTER} --policy random --host 0.0.0.0 --port 8000"),
        Valid.sh("sglang-router launch --pd-disaggregation --prefill $PREFILL_URL --decode $DECODE_URL"),
        Valid.sh("python -m dynamo.sglang --model-path Qwen/Qwen3-0.6B --endpoint dyn://dynamo.backend.generate"),
    ]
    INVALID = [
        Invalid.sh(f"{ROUTER} --polizy random", at="--polizy", message="--policy"),
        Invalid.sh(f"{ROUTER} extra", at="extra"),
        # an option of older router releases only
        Invalid.sh(f"{ROUTER} --verbose", at="--verbose", message="it is one in sglang-router 0.0.9 to 0.1.4"),
        Invalid.sh("sglang-router --pd-disaggregation --prefill $PREFILL_URL", at="--pd-disaggregation", message="launch"),
    ]

    def check(self, launch):
        for wrapped, problem in problems_of(launch, (Reason.UNRECOGNIZED, Reason.FIRST_WORD)):
            if problem.reason is Reason.FIRST_WORD:
                yield self.diagnostic(
                    problem.span,
                    f"{wrapped.where} takes a subcommand first, not '{problem.word}'",
                    help=f"start with one of: {problem.detail}",
                    launch=launch,
                )
                continue
            if not problem.word.startswith("-"):
                yield self.diagnostic(
                    problem.span,
                    f"unexpected positional argument '{problem.word}': {wrapped.where} exits with 'unrecognized arguments'",
                    help="remove it, or give it the option it belongs to",
                    launch=launch,
                )
                continue
            guess = closest(problem.word.replace("_", "-"), own_strings(wrapped))
            elsewhere = releases_with(wrapped, problem.word)
            note = f"; it is one in {wrapped.package} {_span(elsewhere)}" if elsewhere else ""
            yield self.diagnostic(
                problem.span,
                f"'{problem.word}' is not an option of {wrapped.where}{note}",
                help=f"did you mean {guess}?" if guess else f"run `{wrapped.entry} --help` for its options",
                launch=launch,
            )


def _span(versions):
    return versions[0] if len(versions) == 1 else f"{versions[0]} to {versions[-1]}"
