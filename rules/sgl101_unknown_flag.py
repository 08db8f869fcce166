"""A flag or keyword that SGLang does not accept at all.

## What it does
Finds command-line options that the target SGLang release's parser does not
know (typos, underscore spellings such as `--enable_metrics`, two flags glued
together by a missing space), positional words SGLang does not take, and
keyword arguments of `Engine(...)`/`ServerArgs(...)` that are not ServerArgs
fields (`tensor_parallel_size=` instead of `tp_size=`). It suggests the
closest real flag or field.

Flags that exist in other releases are reported by SGL106 (removed-flag) and
SGL111 (flag-not-yet-available) instead.

## Why is this bad?
SGLang parses its command line with argparse and exits at once with
`error: unrecognized arguments: ...`; `Engine(...)` raises `TypeError:
Unexpected keyword argument`. Found at start-up, that costs a full image pull
and scheduling wait on a GPU node.

## Example
```sh
python -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct --enable_metrics
```

## Use instead
```sh
python -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct --enable-metrics
```

## References
- `sglang/srt/server_args.py`: `prepare_server_args` builds an
  `argparse.ArgumentParser` and calls `parse_args` (every release).
- Underscore spellings: sgl-project/sglang#5032, #12818.
"""

import difflib
import functools

from sgllint.catalog import history
from sgllint.diagnostic import Edit, Fix
from sgllint.rule import ERROR, Invalid, Rule, Valid
from sgllint.suggest import closest, split_glued

LAUNCH = "python -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct"


class UnknownFlag(Rule):
    code = "SGL101"
    name = "unknown-flag"
    severity = ERROR

    VALID = [
        Valid.sh(f"{LAUNCH} --enable-metrics --tp-size 2"),
        Valid.sh("sglang serve Qwen/Qwen2.5-7B-Instruct --port 30000", sglang="0.5.23"),
        Valid.sh(f"python -m sglang_router.launch_server --model-path Qwen/Qwen2.5-7B-Instruct --dp-size 2 --router-policy cache_aware"),
        Valid.sh(f"{LAUNCH} $EXTRA_ARGS"),
    ]
    INVALID = [
        Invalid.sh(f"{LAUNCH} --enable_metrics", at="--enable_metrics", message="--enable-metrics"),
        Invalid.sh(f"{LAUNCH} --tp-sizes 2", at="--tp-sizes", message="--tp-size"),
        Invalid.sh(
            f"{LAUNCH} --disable-custom-all-reduce--enable-mscclpp",
            at="--disable-custom-all-reduce--enable-mscclpp",
            message="missing space",
        ),
        Invalid.sh("python -m sglang.launch_server Qwen/Qwen2.5-7B-Instruct --port 30000", at="Qwen/Qwen2.5-7B-Instruct"),
    ]

    def check(self, launch):
        catalog = launch.context.catalog
        version = catalog.version
        for arg in launch.args:
            if arg.resolution == "positional" and arg.option is None:
                yield self.diagnostic(
                    arg.flag_span,
                    f"unexpected positional argument '{arg.spelling}': {launch.entry} takes only options "
                    f"(SGLang {version} exits with 'unrecognized arguments')",
                    help=f"did you mean --model-path {arg.spelling}?",
                    launch=launch,
                )
                continue
            if arg.resolution != "unknown":
                continue
            if arg.origin == "kwarg":
                yield from self._unknown_kwarg(arg, launch)
                continue
            spelling = arg.spelling
            if history.option_versions(spelling):
                continue  # exists in another release: SGL106 / SGL111
            yield self._unknown_option(arg, spelling, launch)

    def _unknown_option(self, arg, spelling, launch):
        catalog = launch.context.catalog
        strings = catalog.long_strings()
        glued = split_glued(spelling, strings)
        if glued:
            return self.diagnostic(
                arg.flag_span,
                f"'{spelling}' is two flags with a missing space: '{glued[0]}' and '{glued[1]}'",
                help=f"separate them: {glued[0]} {glued[1]}",
                launch=launch,
            )
        dashed = "--" + spelling.lstrip("-").replace("_", "-")
        if "_" in spelling and dashed in catalog.by_string:
            return self.diagnostic(
                arg.flag_span,
                f"'{spelling}' is not an option of SGLang {catalog.version}; SGLang flags are spelled with dashes",
                help=f"use {dashed}",
                fix=_rename(arg, dashed),
                launch=launch,
            )
        guess = closest(dashed, strings)
        return self.diagnostic(
            arg.flag_span,
            f"'{spelling}' is not an option of SGLang {catalog.version}",
            help=f"did you mean {guess}?" if guess else "run `sglang serve --help` for the list of options",
            fix=_rename(arg, guess) if guess and _unambiguous(dashed, guess, strings) else None,
            launch=launch,
        )

    def _unknown_kwarg(self, arg, launch):
        catalog = launch.context.catalog
        name = arg.spelling
        cli = catalog.by_string.get("--" + name.replace("_", "-"))
        fix = None
        if cli is not None and cli.field and cli.field != name:
            hint = f"keyword arguments are ServerArgs field names: use {cli.field}="
            fix = _rename(arg, cli.field)
        else:
            guess = closest(name, catalog.fields)
            hint = f"did you mean {guess}=?" if guess else "keyword arguments must be ServerArgs field names"
            if guess and _unambiguous(name, guess, catalog.fields):
                fix = _rename(arg, guess)
        yield self.diagnostic(
            arg.flag_span,
            f"'{name}' is not a ServerArgs field in SGLang {catalog.version}",
            help=hint,
            fix=fix,
            launch=launch,
        )


def _unambiguous(word, guess, candidates):
    """The guess is the only candidate at its similarity, clearly ahead of
    the next one (a typo fix must not pick between two near-equal names)."""
    return _unambiguous_in(word, guess, tuple(dict.fromkeys(candidates)))


@functools.lru_cache(maxsize=4096)
def _unambiguous_in(word, guess, candidates):
    # A monorepo repeats the same unknown flags; the full ratio is computed
    # only for candidates whose cheap upper bounds could reach the threshold.
    matcher = difflib.SequenceMatcher(None, word, guess)
    threshold = matcher.ratio() - 0.05
    for c in candidates:
        if c == guess:
            continue
        matcher.set_seq2(c)
        if matcher.real_quick_ratio() < threshold or matcher.quick_ratio() < threshold:
            continue
        if matcher.ratio() >= threshold:
            return False
    return True


def _rename(arg, new):
    """Unsafe: a rename changes which setting the launch configures."""
    if arg.flag_span.text.strip("\"'") != arg.spelling or arg.origin not in ("cli", "kwarg"):
        return None  # not written as one plain word (--flag=value, a glued token)
    return Fix(message=f"replace {arg.spelling} with {new}", edits=(Edit(arg.flag_span, new),), applicability="unsafe")
