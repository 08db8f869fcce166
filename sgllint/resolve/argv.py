"""Argv and keyword semantics: turn a `LaunchSite` into `Arg`s exactly as the
target SGLang release's parser would.

The CLI path reproduces CPython's ``argparse`` (``allow_abbrev=True``) as
SGLang builds it in ``prepare_server_args``: exact option match, else a
unique prefix, else ambiguous or unrecognized; ``--flag=value``; store_true
flags take no value; ``nargs='+'`` consumes up to the next option-like token;
negative numbers are values; repeated flags all stay (the last wins).
``tests/test_argv.py`` checks this against the real ``argparse`` module.
"""

from __future__ import annotations

import re
from typing import Optional

from sgllint.catalog import Catalog, Option, version_key
from sgllint.catalog.types import convert
from sgllint.model.facts import Arg, LaunchSite, Span, Token, Unresolved, is_known
from sgllint.model.kinds import ArgProblem, LaunchForm, Origin, Resolution

_NEGATIVE_NUMBER = re.compile(r"^-\d+$|^-\d*\.\d+$")

def _field_of(option: Option) -> Optional[str]:
    return option.field if option.field is not None else option.dest


def classify(text: str, catalog: Catalog):
    """argparse's ``_parse_optional``: returns ``None`` for a positional
    word, else ``(kind, option_string, explicit_value, candidates)`` with kind
    a `Resolution`: exact, prefix, ambiguous or unrecognized."""
    if not text or text[0] != "-":
        return None
    if text in catalog.by_string:
        return (Resolution.EXACT, text, None, ())
    if len(text) == 1:
        return None
    if "=" in text:
        opt, explicit = text.split("=", 1)
        if opt in catalog.by_string:
            return (Resolution.EXACT, opt, explicit, ())
    matches = _option_tuples(text, catalog)
    if len(matches) > 1:
        prefix = text.split("=", 1)[0] if text.startswith("--") else text
        return (Resolution.AMBIGUOUS, prefix, None, tuple(m[0] for m in matches))
    if len(matches) == 1:
        opt, explicit = matches[0]
        return (Resolution.PREFIX, opt, explicit, ())
    if _NEGATIVE_NUMBER.match(text):
        return None  # SGLang declares no option that looks like a negative number
    if " " in text:
        return None
    if "=" in text and text.startswith("--"):
        opt, explicit = text.split("=", 1)
        return (Resolution.UNRECOGNIZED, opt, explicit, ())
    return (Resolution.UNRECOGNIZED, text, None, ())


def _option_tuples(text: str, catalog: Catalog) -> list[tuple[str, Optional[str]]]:
    """CPython 3.11 ``ArgumentParser._get_option_tuples``."""
    result: list[tuple[str, Optional[str]]] = []
    if text.startswith("--"):
        if "=" in text:
            prefix, explicit = text.split("=", 1)
        else:
            prefix, explicit = text, None
        if not catalog.has_prefix(prefix):
            return result  # the common case for an unknown flag: no scan of every option
        for s in catalog.by_string:
            if s.startswith(prefix):
                result.append((s, explicit))
    elif text.startswith("-"):
        prefix = text
        short_prefix, short_explicit = text[:2], text[2:]
        if short_prefix not in catalog.by_string and not catalog.has_prefix(prefix):
            return result
        for s in catalog.by_string:
            if s == short_prefix:
                result.append((s, short_explicit))
            elif s.startswith(prefix):
                result.append((s, None))
    return result


def _is_option_like(tok: Token, catalog: Catalog) -> bool:
    value = tok.value
    if isinstance(value, Unresolved):
        return value.known_prefix.startswith("-") and value.known_prefix != "-"
    if not isinstance(value, str):
        return False
    if value == "--":
        return True
    return classify(value, catalog) is not None


def _convert(option: Option, raw) -> tuple[object, Optional[ArgProblem], str]:
    """Convert one value; returns (value, problem, detail)."""
    if isinstance(raw, Unresolved):
        return raw, None, ""
    if not isinstance(raw, str):
        raw = str(raw)
    try:
        value = convert(option.type, raw)
    except ValueError as e:
        return raw, ArgProblem.INVALID_TYPE, str(e)
    if option.choices is not None and not option.choices_open:
        if value not in option.choices and raw not in [str(c) for c in option.choices]:
            return value, ArgProblem.INVALID_CHOICE, raw
    return value, None, ""


def _preprocess_serve(site: LaunchSite, catalog: Catalog) -> list[Token]:
    """``sglang serve``: ``--model-type`` is taken by the CLI (0.5.10+) and a
    leading positional word is the model path (0.5.16+); sglang/cli/serve.py."""
    tokens = list(site.tokens)
    ver = version_key(catalog.version)
    if ver >= (0, 5, 10):
        kept: list[Token] = []
        i = 0
        while i < len(tokens):
            v = tokens[i].value
            if v == "--model-type":
                i += 2
                continue
            if isinstance(v, str) and v.startswith("--model-type="):
                i += 1
                continue
            kept.append(tokens[i])
            i += 1
        tokens = kept
    return tokens


def resolve(site: LaunchSite, catalog: Catalog) -> list[Arg]:
    if site.form is LaunchForm.KWARGS:
        return resolve_kwargs(site, catalog)
    return resolve_argv(site, catalog)


def resolve_argv(site: LaunchSite, catalog: Catalog) -> list[Arg]:
    # long on purpose: SGLang's argparse semantics over one argv in a single pass (abbreviations, nargs, flags, =
    # forms), as argparse does it
    tokens = site.tokens
    positional_model: Optional[Token] = None
    if site.entry == "sglang serve":
        tokens = _preprocess_serve(site, catalog)
        if (
            version_key(catalog.version) >= (0, 5, 16)
            and tokens
            and not (isinstance(tokens[0].value, str) and tokens[0].value.startswith("-"))
            and not isinstance(tokens[0].value, Unresolved)
        ):
            positional_model = tokens[0]
            tokens = tokens[1:]

    args: list[Arg] = []
    if positional_model is not None:
        opt = catalog.by_string.get("--model-path")
        args.append(
            Arg(
                spelling="<model>",
                field="model_path",
                option=opt,
                value=positional_model.value,
                raw=positional_model.value,
                flag_span=positional_model.span,
                value_span=positional_model.span,
                origin=positional_model.origin or site.origin,
                resolution=Resolution.POSITIONAL,
            )
        )

    i = 0
    n = len(tokens)
    after_double_dash = False
    while i < n:
        tok = tokens[i]
        value = tok.value
        i += 1
        if after_double_dash:
            _stray(args, tok)
            continue
        if value == "--":
            after_double_dash = True
            continue
        if isinstance(value, Unresolved):
            prefix = value.known_prefix
            if prefix.startswith("-") and "=" in prefix:
                # --flag=$VALUE: the flag is known, the value is not
                args.append(_flag_with_unresolved_value(tok, catalog, tok.origin or site.origin))
            # any other unknown word may expand to anything: extractors mark
            # the launch opaque; argv does not guess what it holds
            continue
        if not isinstance(value, str):
            value = str(value)
        parsed = classify(value, catalog)
        if parsed is None:
            _stray(args, tok)
            continue
        kind, opt_string, explicit, candidates = parsed
        # the flag as written: "--mem-fraction" in "--mem-fraction=0.8"
        flag_len = len(value.split("=", 1)[0]) if explicit is not None else len(value)
        flag_span = tok.sub_span(0, flag_len) if explicit is not None else tok.span
        if kind.names_no_option:
            arg = Arg(
                spelling=opt_string,
                field=None,
                option=None,
                value=explicit,
                raw=value,
                flag_span=flag_span,
                value_span=tok.sub_span(flag_len + 1, len(value)) if explicit is not None else None,
                origin=tok.origin or site.origin,
                resolution=kind,
                candidates=candidates,
            )
            # an unrecognized option's following words are unrecognized too;
            # keep them with it so they are reported once
            while explicit is None and i < n and not _is_option_like(tokens[i], catalog):
                arg.extra.append(tokens[i])
                i += 1
            args.append(arg)
            continue

        option = catalog.by_string[opt_string]
        spelling = opt_string if kind is Resolution.EXACT else value.split("=", 1)[0]
        arg = Arg(
            spelling=spelling,
            field=_field_of(option),
            option=option,
            value=None,
            raw=value,
            flag_span=flag_span,
            value_span=None,
            origin=tok.origin or site.origin,
            resolution=kind,
            candidates=(opt_string,) if kind is Resolution.PREFIX else (),
        )
        args.append(arg)

        if not option.takes_value:
            if explicit is not None:
                arg.problem = ArgProblem.UNEXPECTED_VALUE
                arg.problem_detail = explicit
                arg.value_span = tok.sub_span(flag_len + 1, len(value))
                arg.value = explicit
                continue
            arg.value = _flag_value(option, opt_string)
            continue

        if explicit is not None:
            vspan = tok.sub_span(flag_len + 1, len(value))
            _set_values(arg, option, [(explicit, vspan)], single=option.nargs in (None, "?"))
            continue

        nargs = option.nargs
        taken: list[Token] = []
        if nargs in (None, "?"):
            if i < n and not _is_option_like(tokens[i], catalog):
                taken.append(tokens[i])
                i += 1
        elif nargs in ("+", "*", "..."):
            while i < n and not _is_option_like(tokens[i], catalog):
                taken.append(tokens[i])
                i += 1
        elif isinstance(nargs, int):
            while len(taken) < nargs and i < n and not _is_option_like(tokens[i], catalog):
                taken.append(tokens[i])
                i += 1
        if not taken:
            if nargs in ("?", "*"):
                arg.value = option.default if nargs == "*" else None
                continue
            arg.problem = ArgProblem.MISSING_VALUE
            arg.problem_detail = "expected one argument" if nargs in (None,) else "expected at least one argument"
            continue
        if isinstance(nargs, int) and len(taken) < nargs:
            arg.problem = ArgProblem.MISSING_VALUE
            arg.problem_detail = f"expected {nargs} arguments"
        _set_values(arg, option, [(t.value, t.span) for t in taken], single=nargs in (None, "?"))
    return args


def _flag_value(option: Option, spelled: str):
    if option.action == "boolean_optional":
        return not spelled.startswith("--no-")
    if option.action in ("store_false",):
        return False
    if option.action in ("store_const", "deprecated_store_const"):
        return option.default if option.default is not None else True
    return True


def _set_values(arg: Arg, option: Option, values: list[tuple[object, Span]], single: bool) -> None:
    converted = []
    spans = []
    for raw, span in values:
        v, problem, detail = _convert(option, raw)
        converted.append(v)
        spans.append(span)
        if problem and arg.problem is None:
            arg.problem = problem
            arg.problem_detail = detail
            arg.value_span = span  # point at the offending word
    arg.raw = values[0][0] if single else [r for r, _ in values]
    arg.value = converted[0] if single else converted
    arg.value_spans = tuple(spans)
    if arg.value_span is None:
        arg.value_span = spans[0].cover(spans[-1])


def _flag_with_unresolved_value(tok: Token, catalog: Catalog, origin: Origin) -> Arg:
    assert isinstance(tok.value, Unresolved)
    prefix = tok.value.known_prefix
    flag_text = prefix.split("=", 1)[0]
    parsed = classify(flag_text, catalog)
    flag_span = tok.sub_span(0, len(flag_text))
    value_span = Span(tok.span.source, min(flag_span.end + 1, tok.span.end), tok.span.end)
    if parsed is None or parsed[0].names_no_option:
        kind = parsed[0] if parsed else Resolution.UNRECOGNIZED
        return Arg(flag_text, None, None, tok.value, tok.value, flag_span, value_span, origin, kind,
                   candidates=parsed[3] if parsed else ())
    option = catalog.by_string[parsed[1]]
    return Arg(flag_text, _field_of(option), option, tok.value, tok.value, flag_span, value_span, origin, parsed[0],
               candidates=(parsed[1],) if parsed[0] is Resolution.PREFIX else ())


def _stray(args: list[Arg], tok: Token) -> None:
    """A word argparse cannot place: it ends up in "unrecognized arguments".
    It is kept with the preceding arg (a value given to a store_true flag,
    a second value to a one-value flag) or as a positional of its own."""
    if args:
        prev = args[-1]
        if prev.resolution.names_no_option:
            prev.extra.append(tok)
            return
        prev.extra.append(tok)
        if prev.problem is None and prev.option is not None:
            prev.problem = ArgProblem.UNEXPECTED_VALUE
            prev.problem_detail = str(tok.value)
        return
    args.append(
        Arg(
            spelling=str(tok.value),
            field=None,
            option=None,
            value=tok.value,
            raw=tok.value,
            flag_span=tok.span,
            value_span=None,
            origin=tok.origin or Origin.CLI,
            resolution=Resolution.POSITIONAL,
            problem=ArgProblem.UNEXPECTED_VALUE,
            problem_detail=str(tok.value),
        )
    )


# ---------------------------------------------------------------------------
# Keyword form: Engine(**kwargs), ServerArgs(...), Runtime(...)
# ---------------------------------------------------------------------------


def resolve_kwargs(site: LaunchSite, catalog: Catalog) -> list[Arg]:
    """Keyword arguments are ServerArgs field names; no abbreviation, no
    argparse conversion (the Python value is used as given)."""
    args = []
    for kw in site.kwargs:
        info = catalog.fields.get(kw.name)
        if info is None and kw.only_if_field:
            continue  # the file passes it only to a release that has the field
        option = catalog.option_for_field(kw.name) if info else None
        arg = Arg(
            spelling=kw.name,
            field=kw.name if info else None,
            option=option,
            value=kw.value,
            raw=kw.value,
            flag_span=kw.name_span,
            value_span=kw.value_span,
            origin=Origin.KEYWORD,
            resolution=Resolution.KEYWORD if info else Resolution.UNRECOGNIZED,
        )
        if info and option is not None and is_known(kw.value) and kw.value is not None:
            if option.choices is not None and not option.choices_open and not isinstance(kw.value, (list, dict)):
                if kw.value not in option.choices:
                    arg.problem = ArgProblem.INVALID_CHOICE
                    arg.problem_detail = str(kw.value)
        args.append(arg)
    return args
