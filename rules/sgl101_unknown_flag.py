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
import re

from sgllint.catalog import history
from sgllint.model.diagnostic import Edit, Fix
from sgllint.model.rule import ERROR, INFO, Invalid, Rule, Valid
from sgllint.model.kinds import HintKind, LaunchFact, Origin, Resolution
from sgllint.resolve.suggest import clearly_closest, closest, split_glued
from sgllint.resolve.wrapped import own_strings

_ELLIPSIS = re.compile(r"^(?:\.{3,}|\u2026)$")
LAUNCH = "python -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct"


class UnknownFlag(Rule):
    code = "SGL101"
    name = "unknown-flag"
    severity = ERROR
    needs = frozenset({LaunchFact.UNRESOLVED_ARGUMENT})  # it reports only unrecognized options and stray words
    #: SGLang's server parser, and the diffusion server's (``sglang serve``
    #: of an image/video model, ``sglang generate``)
    targets = frozenset({"sglang", "diffusion"})

    VALID = [
        Valid.sh(f"{LAUNCH} --enable-metrics --tp-size 2"),
        Valid.sh("sglang serve Qwen/Qwen2.5-7B-Instruct --port 30000", sglang="0.5.23"),
        Valid.sh("python -m sglang_router.launch_server --model-path Qwen/Qwen2.5-7B-Instruct --dp-size 2 --router-policy cache_aware"),
        Valid.sh(f"{LAUNCH} $EXTRA_ARGS"),
        # the wrapper's own flags are never SGLang's unknown flags
        Valid.sh("python -m dynamo.sglang --model-path Qwen/Qwen3-0.6B --endpoint dyn://dynamo.backend.generate --dyn-reasoning-parser qwen3"),
        Valid.sh("python -m sglang_router.launch_router --pd-disaggregation --prefill $PREFILL_URL --decode $DECODE_URL"),
        Valid.sh("sglang serve --model-path black-forest-labs/FLUX.1-dev --num-gpus 1 --vae-cpu-offload", sglang="0.5.23"),
    ]
    INVALID = [
        Invalid.sh(f"{LAUNCH} --enable_metrics", at="--enable_metrics", message="--enable-metrics",
                   fix='python -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct --enable-metrics', unsafe=True),
        Invalid.sh(f"{LAUNCH} --tp-sizes 2", at="--tp-sizes", message="--tp-size",
                   fix='python -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct --tp-size 2', unsafe=True),
        Invalid.sh(
            f"{LAUNCH} --disable-custom-all-reduce--enable-mscclpp",
            at="--disable-custom-all-reduce--enable-mscclpp",
            message="missing space",
        ),
        Invalid.sh("python -m sglang.launch_server Qwen/Qwen2.5-7B-Instruct --port 30000", at="Qwen/Qwen2.5-7B-Instruct"),
        Invalid.sh("python -m dynamo.sglang --model-path Qwen/Qwen3-0.6B --enable_metrics", at="--enable_metrics", message="0.5.21",
                   fix='python -m dynamo.sglang --model-path Qwen/Qwen3-0.6B --enable-metrics', unsafe=True),
        Invalid.sh("sglang serve --model-path black-forest-labs/FLUX.1-dev --vae-cpu-ofload", at="--vae-cpu-ofload",
                   message="diffusion", sglang="0.5.23",
                   fix='sglang serve --model-path black-forest-labs/FLUX.1-dev --vae-cpu-offload', unsafe=True),
    ]

    def check(self, launch):
        catalog = launch.context.catalog
        version = catalog.version
        shared = None  # what every unknown flag of the launch needs, found at the first one
        for arg in launch.args:
            if arg.resolution is Resolution.POSITIONAL and arg.option is None:
                if _ELLIPSIS.match(arg.spelling):
                    continue  # "sglang generate ... --flag": documentation leaving words out
                yield self.diagnostic(
                    arg.flag_span,
                    f"unexpected positional argument '{arg.spelling}': {launch.entry} takes only options "
                    f"(SGLang {version} exits with 'unrecognized arguments')",
                    help=f"did you mean --model-path {arg.spelling}?",
                    launch=launch,
                )
                continue
            if arg.resolution is not Resolution.UNRECOGNIZED:
                continue
            if arg.origin is Origin.KEYWORD:
                yield from self._unknown_kwarg(arg, launch)
                continue
            spelling = arg.spelling
            if launch.context.target == "sglang" and history.option_versions(spelling):
                continue  # exists in another release: SGL106 / SGL111
            if shared is None:
                shared = _Shared(launch)
            yield self._unknown_option(arg, spelling, launch, shared)

    def _unknown_option(self, arg, spelling, launch, shared: "_Shared"):
        catalog = launch.context.catalog
        strings = shared.strings
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
        guess = closest(dashed, strings, source=arg.flag_span.source)
        patch = shared.patch
        typo = guess is not None and difflib.SequenceMatcher(None, dashed, guess).ratio() >= 0.9
        if patch is not None and not typo:  # the file patches SGLang: the patch may add the option
            line = patch.span.start_line_col()[0]
            return self.diagnostic(
                arg.flag_span,
                f"'{spelling}' is not an option of SGLang {catalog.version}; this file patches SGLang "
                f"({patch.value} on line {line}), so it may come from the patch",
                help="check the patch adds this option",
                severity=INFO,
                launch=launch,
            )
        return self.diagnostic(
            arg.flag_span,
            f"'{spelling}' is not an option of {shared.parser_name}",
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
            guess = closest(name, catalog.fields, source=arg.flag_span.source)
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


class _Shared:
    """What every unknown option of one launch needs, computed once per
    launch (one line of 40,000 unknown flags asked 40,000 times)."""

    def __init__(self, launch):
        strings = launch.context.catalog.long_string_tuple()  # shared, never copied
        wrapped = launch.context.wrapped
        if wrapped is not None:  # the wrapper's own options sit in the same parser
            strings = strings + tuple(own_strings(wrapped))
        self.strings = strings
        self.patch = next((h for h in launch.site.hints if h.kind is HintKind.PATCHED_SGLANG and h.span is not None), None)
        self.parser_name = _parser_name(launch)


def _parser_name(launch):
    context = launch.context
    if context.target == "diffusion":
        return f"SGLang {context.catalog.version}'s diffusion server (sglang {context.diffusion.command})"
    if context.wrapped is not None:
        return f"SGLang {context.catalog.version} or {context.wrapped.package} {context.wrapped.version}"
    return f"SGLang {context.catalog.version}"


def _unambiguous(word, guess, candidates):
    """The guess is the only candidate at its similarity, clearly ahead of
    the next one (a typo fix must not pick between two near-equal names)."""
    return clearly_closest(word, guess, candidates, 0.05)


def _rename(arg, new):
    """Unsafe: a rename changes which setting the launch configures."""
    if arg.flag_span.text.strip("\"'") != arg.spelling or arg.origin not in (Origin.CLI, Origin.KEYWORD):
        return None  # not written as one plain word (--flag=value, a glued token)
    return Fix(message=f"replace {arg.spelling} with {new}", edits=(Edit(arg.flag_span, new),), applicability="unsafe")
