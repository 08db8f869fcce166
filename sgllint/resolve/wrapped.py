"""Launches that go through a wrapper's parser before SGLang's.

``python -m dynamo.sglang``, ``python -m sglang_router.launch_server``,
``python -m sglang_router.launch_router`` and the ``sglang-router`` console
script hand their words to the stages of the wrapper's generated parser
(`sgllint.catalog.wrappers`): each ``parse_known`` stage takes the options it
knows and passes the rest on; the stage whose parser includes SGLang's
``ServerArgs.add_cli_args`` sees SGLang's options and the wrapper's own in one
parser.  `split` replays that per token, so the wrapper's own options are
never "unknown SGLang flags", every word that reaches SGLang is resolved as
SGLang resolves it (with the wrapper's options beside SGLang's in the final
parser, so abbreviations and ambiguity are argparse's), and what the wrapper
itself rejects becomes a `WrapperProblem` at the word.

`wrapper_release` picks the wrapper version (pragma, a Dynamo runtime image
tag, a project pin, else the newest with data); the SGLang release a Dynamo
wheel pins (``sglang==0.5.21``) is the one its launches are judged against
unless the command line, a pragma or the configuration name another.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Optional

from sgllint import catalog as catalogs
from sgllint.catalog import Catalog, Option, version_key
from sgllint.catalog import wrappers as wrapper_data
from sgllint.catalog.wrappers import Parser, Reason, Wrapper, _check_value, _is_optional_word, _lookup, _Spec, _table, _values
from sgllint.model.facts import Span, Token, Unresolved
from sgllint.model.kinds import ArgProblem, HintKind
from sgllint.model.unknown import UNKNOWN

#: a word whose text is not known (a variable): never an option
_OPAQUE = "\0"
#: Dynamo's runtime images carry the Dynamo release, not SGLang's
DYNAMO_IMAGE_RE = re.compile(r"(?:^|/)ai-dynamo/sglang-runtime:v?(\d+\.\d+\.\d+(?:\.post\d+)?)")
_PIN_RES = {
    "ai-dynamo": re.compile(r"(?<![\w-])ai[-_]dynamo(?:\[[^\]]*\])?\s*(?:==|===)\s*v?(\d+(?:\.\d+){1,3}(?:\.?post\d+)?)", re.I),
    "sglang-router": re.compile(r"(?<![\w-])sglang[-_]router\s*(?:==|===)\s*v?(\d+(?:\.\d+){1,3}(?:\.?post\d+)?)", re.I),
}


@dataclass(frozen=True)
class WrapperProblem:
    """Something the wrapper's own parser refuses, at the word."""

    reason: Reason
    span: Span
    word: str  # the word as written (or the option it concerns)
    detail: str = ""


@dataclass
class OwnArg:
    """A word (and its values) the wrapper's parser takes for itself."""

    option: str  # the option string it resolved to
    spelling: str
    span: Span
    parser: str  # file:line of the parser that took it
    #: the value argparse stores for it (`UNKNOWN` when the words do not tell)
    value: object = UNKNOWN
    flag_span: Optional[Span] = None
    value_span: Optional[Span] = None


@dataclass
class WrappedLaunch:
    """What the wrapper made of a launch's words."""

    package: str
    version: str
    entry: str
    own: list[OwnArg] = field(default_factory=list)
    problems: list[WrapperProblem] = field(default_factory=list)
    #: the words that reach SGLang's parser (None: the entry never starts SGLang)
    sglang_tokens: Optional[list[Token]] = None
    #: the parser SGLang's options join, with the wrapper's options beside them
    final: Optional[Parser] = None
    #: where the wrapper version came from (pragma, image tag, pin, default)
    source: str = ""

    @property
    def where(self) -> str:
        """The entry point and release, for messages."""
        return f"{self.entry} ({self.package} {self.version})"

    @property
    def label(self) -> str:
        return f"{self.package} {self.version} from {self.source}" if self.source else f"{self.package} {self.version}"


# ---------------------------------------------------------------------------
# Releases
# ---------------------------------------------------------------------------


def data_version(package: str, requested: str) -> Optional[str]:
    """The generated release that applies to ``requested`` (the same one, the
    newest of the same base release, the newest older one, or the newest
    when it is newer than all); None when nothing applies."""
    shipped = wrapper_data.versions(package)
    if not shipped:
        return None
    req = requested.strip().lstrip("vV")
    if req in shipped:
        return req
    key = version_key(req)
    if not key:
        return None
    ordered = sorted(shipped, key=version_key)
    older = [v for v in ordered if version_key(v) <= key]
    if older:
        return older[-1]
    same_base = [v for v in ordered if version_key(v)[:3] == key[:3]]
    return same_base[-1] if same_base else None


def wrapper_release(package: str, hints, file_pragmas: dict, pin) -> tuple[str, str]:
    """(version, where it came from) of ``package`` for a launch: a ``#
    sgllint: <package>=X`` pragma, a Dynamo runtime image tag, a project pin
    (``pin(package, regex)``), else the newest release with data."""
    candidates: list[tuple[str, str]] = []
    if package in file_pragmas:
        candidates.append((file_pragmas[package][0], "pragma"))
    if package == "ai-dynamo":
        for hint in hints:
            if hint.kind is HintKind.SGLANG_IMAGE and isinstance(hint.value, str):
                m = DYNAMO_IMAGE_RE.search(hint.value)
                if m:
                    candidates.append((m.group(1), f"image tag {hint.value}"))
    found = pin(package, _PIN_RES[package]) if pin else None
    if found:
        candidates.append((found[0], f"{package}=={found[0]} in {found[1]}"))
    for requested, source in candidates:
        version = data_version(package, requested)
        if version:
            return version, source
    return wrapper_data.versions(package)[-1], "default (newest wrapper data)"


def pinned_sglang(wrapper: Wrapper) -> Optional[str]:
    """The SGLang catalog release the wrapper's ``sglang==`` pin selects (an
    unreleased ``0.5.0rc2`` gives the newest catalog before it)."""
    pin = wrapper.sglang_pin
    if not pin:
        return None
    try:
        return catalogs.resolve_version(pin)
    except catalogs.UnknownVersion:
        key = version_key(pin)
        older = [v for v in catalogs.versions() if version_key(v) < key]
        return older[-1] if older else None


# ---------------------------------------------------------------------------
# Splitting a launch's words
# ---------------------------------------------------------------------------


def _word(token: Token) -> str:
    value = token.value
    if isinstance(value, Unresolved):
        prefix = value.known_prefix
        if prefix.startswith("-") and "=" in prefix:
            return prefix + _OPAQUE
        return _OPAQUE + prefix if not prefix.startswith("-") else _OPAQUE
    return value if isinstance(value, str) else str(value)


def _opaque(word: str) -> bool:
    return word.startswith(_OPAQUE)


def _where(parser: Parser) -> str:
    return f"{parser.file}:{parser.line}"


@dataclass
class _Parsed:
    used: list[tuple[_Spec, str, int, list[int], list[str]]]  # spec, option string, flag index, value indices, values
    extras: list[int]
    problems: list[tuple[Reason, int, str]]  # reason, word index, option


def _parse(table: list[_Spec], parser: Parser, words: list[str], known: bool) -> _Parsed:
    """``argparse`` over ``words`` as `sgllint.catalog.wrappers._parse` does
    it, keeping which word went where and every problem (not only the
    first): words that are not known stay in ``extras`` for the next stage."""
    # long on purpose: argparse's parse loop (classify every word, then consume) kept as one loop, as argparse has it
    out = _Parsed([], [], [])
    ambiguous: set[int] = set()
    for i, word in enumerate(words):
        if word == "--":
            break
        if len(word) > 1 and word[0] == "-" and not word.endswith(_OPAQUE):
            found = _lookup(table, word, parser.allow_abbrev)
            if isinstance(found, wrapper_data.Verdict):
                ambiguous.add(i)
                out.problems.append((Reason.AMBIGUOUS, i, found.option or word))
    i = 0
    n = len(words)
    while i < n:
        word = words[i]
        if word == "--":
            out.extras.extend(range(i + 1, n))
            break
        if _opaque(word) or i in ambiguous or not _is_optional_word(word, table):
            out.extras.append(i)
            i += 1
            continue
        found = _lookup(table, word, parser.allow_abbrev)
        if found is None or isinstance(found, wrapper_data.Verdict):
            out.extras.append(i)
            i += 1
            continue
        spec, opt, explicit = found
        at = i
        i += 1
        if spec.exits:
            out.used.append((spec, opt, at, [], []))
            continue
        if spec.not_implemented:
            out.problems.append((Reason.NOT_IMPLEMENTED, at, opt))
        if not spec.takes_value:
            if explicit is not None:
                out.problems.append((Reason.IGNORED_EXPLICIT, at, opt))
            out.used.append((spec, opt, at, [], []))
            continue
        if explicit is not None:
            values = [explicit]
            taken: list[int] = []
        else:
            got, j = _values(spec, words, i, table)
            if got is None:
                out.problems.append((Reason.EXPECTED_VALUE, at, opt))
                out.used.append((spec, opt, at, [], []))
                continue
            values, taken, i = got, list(range(i, j)), j
        for k, v in enumerate(values):
            if _OPAQUE in v:
                continue
            bad = _check_value(spec, opt, v, 0)
            if bad is not None:
                out.problems.append((bad.reason, taken[k] if taken else at, opt))
                break
        out.used.append((spec, opt, at, taken, list(values)))
    return out


def split(wrapper: Wrapper, entry: str, tokens: list[Token], opaque: bool, sglang: Optional[Catalog]) -> WrappedLaunch:
    """Run ``tokens`` through the wrapper's stages for ``entry``."""
    result = WrappedLaunch(wrapper.package, wrapper.version, entry)
    raw = wrapper.entry(entry).raw
    stages = raw.get("stages") or []
    if "subcommands" in raw:
        picked = _subcommand(raw, tokens, result)
        if picked is None:
            return result
        stages = picked
        tokens = tokens[1:]
    remaining = list(tokens)
    for stage in stages:
        if stage.get("kind") == "remove_pair":
            remaining = _remove_pair(stage, remaining)
            continue
        parser = wrapper.parsers[stage["parser"]]
        if parser.sglang_at is not None and sglang is not None:
            result.sglang_tokens = remaining
            result.final = parser
            return result
        words = [_word(t) for t in remaining]
        parsed = _parse(_table(parser, None), parser, words, stage["kind"] == "parse_known")
        for spec, opt, at, taken, values in parsed.used:
            span = remaining[at].span
            for k in taken:
                span = span.cover(remaining[k].span)
            vspan = None
            for k in taken:
                vspan = remaining[k].span if vspan is None else vspan.cover(remaining[k].span)
            if not taken and values and "=" in words[at]:  # --opt=value
                flag_len = len(words[at].split("=", 1)[0])
                vspan = remaining[at].sub_span(flag_len + 1, len(words[at]))
            result.own.append(OwnArg(opt, words[at], span, _where(parser), _own_value(parser, opt, values), remaining[at].span, vspan))
        for reason, at, opt in parsed.problems:
            result.problems.append(WrapperProblem(reason, remaining[at].span, words[at], opt))
        if stage["kind"] == "parse":
            reported = {at for reason, at, _ in parsed.problems if reason is Reason.AMBIGUOUS}
            _unrecognized(parsed.extras, remaining, words, result, reported)
            missing = _missing_required(parser, parsed, opaque)
            if missing:
                result.problems.append(WrapperProblem(Reason.REQUIRED, _entry_span(tokens), missing, missing))
            remaining = []
        else:
            remaining = [remaining[k] for k in parsed.extras]
    return result


def _entry_span(tokens: list[Token]) -> Span:
    return tokens[0].span if tokens else Span(None, 0, 0)  # type: ignore[arg-type]


def _missing_required(parser: Parser, parsed: _Parsed, opaque: bool) -> Optional[str]:
    if opaque:
        return None
    seen = {spec.dest for spec, *_ in parsed.used}
    for o in parser.options:
        if o.required and o.dest not in seen:
            return o.strings[-1]
    return None


def _unrecognized(extras: list[int], tokens: list[Token], words: list[str], result: WrappedLaunch, reported: set) -> None:
    """argparse's ``unrecognized arguments``: one problem per option-like
    word (its following values with it) or stray positional word; words
    ``reported`` already (an ambiguous prefix) are left with their problem."""
    previous = -2
    for k in extras:
        word = words[k]
        if k in reported:
            previous = k
            continue
        if _opaque(word) or word.endswith(_OPAQUE) and not word.startswith("-"):
            previous = -2
            continue
        if not word.startswith("-") and previous == k - 1:
            previous = k  # a value of the unrecognized option before it
            continue
        result.problems.append(WrapperProblem(Reason.UNRECOGNIZED, tokens[k].span, word.split("=", 1)[0] if word.startswith("--") else word))
        previous = k if word.startswith("-") else -2


def _subcommand(raw: dict, tokens: list[Token], result: WrappedLaunch) -> Optional[list[dict]]:
    """The stages of the console script's subcommand (``sglang-router
    launch``), or None with a problem when the first word picks none."""
    rule = raw.get("first_word") or {}
    first = _word(tokens[0]) if tokens else None
    if first is not None and _opaque(first):
        return None
    early = rule.get("early_exit_words")
    if early and first in early["words"]:
        return None
    if first in ("-h", "--help"):
        return None
    accepted = rule.get("accepted_first_words")
    sub = raw["subcommands"].get(first) if first is not None else None
    if sub is None or (accepted is not None and first not in accepted):
        if tokens:
            choices = ", ".join(w for w in (accepted or raw["subcommands"]) if not w.startswith("-"))
            result.problems.append(WrapperProblem(Reason.FIRST_WORD, tokens[0].span, first or "", choices))
        return None
    return sub["stages"]


def _remove_pair(stage: dict, tokens: list[Token]) -> list[Token]:
    words = [_word(t) for t in tokens]
    kept = wrapper_data._remove_pair(stage, words)
    if len(kept) == len(words):
        return tokens
    idx = words.index(stage["strings"][0])
    return tokens[:idx] + tokens[idx + 2:]


# ---------------------------------------------------------------------------
# The final parser: SGLang's options with the wrapper's beside them
# ---------------------------------------------------------------------------


def combined_catalog(wrapper: Wrapper, parser: Parser, sglang: Catalog) -> tuple[Catalog, frozenset]:
    """SGLang's catalog with the parser's own options at the place the
    wrapper adds them (and its choice extensions), and the ids of the
    wrapper's options in it."""
    return _combined(wrapper.package, wrapper.version, parser.ident, sglang.version)


@functools.lru_cache(maxsize=64)
def _combined(package: str, version: str, parser_id: str, sglang_version: str) -> tuple[Catalog, frozenset]:
    wrapper = wrapper_data.load(package, version)
    parser = wrapper.parsers[parser_id]
    sglang = catalogs.load(sglang_version)
    theirs = []
    for o in sglang.options:
        extra = parser.choice_extensions.get(o.dest)
        if extra and o.choices is not None:
            o = replace(o, choices=tuple(o.choices) + tuple(c for c in extra if c not in o.choices))
        theirs.append(o)
    own = [
        Option(
            strings=w.strings, dest=w.dest, field=None, action=w.action, type=w.type, nargs=w.nargs,
            choices=w.choices, choices_open=w.choices_open, default=w.default, required=w.required,
            help=w.help, deprecated=None,
        )
        for w in parser.options
        if w.action != "help"
    ]
    at = parser.sglang_at or 0
    options = own[:at] + theirs + own[at:]
    cat = Catalog(version=sglang.version, source=sglang.source, era=sglang.era, options=options,
                  fields=sglang.fields, lists=sglang.lists, facts=sglang.facts)
    return cat, frozenset(id(o) for o in own)


def take_own(args: list, own_ids: frozenset, wrapped: WrappedLaunch, parser: Parser) -> list:
    """Move the args the final parser resolved to the wrapper's own options
    out of the SGLang args; their value problems become the wrapper's."""
    kept = []
    for arg in args:
        if arg.option is None or id(arg.option) not in own_ids:
            kept.append(arg)
            continue
        value = arg.value if arg.known and arg.problem is None else UNKNOWN
        wrapped.own.append(OwnArg(arg.option.name, arg.spelling, arg.span, _where(parser), value, arg.flag_span, arg.value_span))
        reason = _REASONS.get(arg.problem)
        if reason is not None:
            span = arg.value_span if arg.value_span is not None and reason is not Reason.EXPECTED_VALUE else arg.flag_span
            wrapped.problems.append(WrapperProblem(reason, span, arg.spelling, arg.option.name))
    return kept


def _own_value(parser: Parser, opt: str, values: list[str]):
    """What argparse stores for ``opt`` of the wrapper's ``parser`` given
    ``values`` (a switch's constant, one converted value), or `UNKNOWN`."""
    from sgllint.catalog.types import convert

    option = next((o for o in parser.options if opt in o.strings), None)
    if option is None or any(_OPAQUE in v for v in values):
        return UNKNOWN
    if not option.takes_value:
        if option.action == "boolean_optional":
            return not (opt.startswith("--no-") and "--" + opt[5:] in option.strings)
        return {"store_true": True, "store_false": False}.get(option.action, UNKNOWN)
    if option.nargs is not None or len(values) != 1 or option.type not in ("int", "float", "str"):
        return UNKNOWN
    try:
        return convert(option.type, values[0]) if option.type != "str" else values[0]
    except ValueError:
        return UNKNOWN


_REASONS = {
    ArgProblem.MISSING_VALUE: Reason.EXPECTED_VALUE,
    ArgProblem.INVALID_TYPE: Reason.INVALID_VALUE,
    ArgProblem.INVALID_CHOICE: Reason.INVALID_CHOICE,
    ArgProblem.UNEXPECTED_VALUE: Reason.IGNORED_EXPLICIT,
}


def pin_reader(source_path: str, scope):
    """``pin(package, regex)`` for `wrapper_release`: the nearest project pin."""
    from sgllint.resolve.context import project_pin

    def pin(package: str, regex):
        found = project_pin(Path(source_path), scope, regex)
        return (found[0], found[1].name) if found else None

    return pin


def problems_of(launch, reasons) -> list[tuple[WrappedLaunch, WrapperProblem]]:
    """The wrapper problems of ``launch`` whose reason is one of ``reasons``."""
    wrapped = getattr(launch.context, "wrapped", None)
    if wrapped is None:
        return []
    return [(wrapped, p) for p in wrapped.problems if p.reason in reasons]


def own_strings(wrapped: WrappedLaunch) -> list[str]:
    """The long option strings the wrapper declares for the launch's entry."""
    wrapper = wrapper_data.load(wrapped.package, wrapped.version)
    return sorted(s for s in wrapper.own_option_strings(wrapped.entry) if s.startswith("--"))


def releases_with(wrapped: WrappedLaunch, option: str) -> list[str]:
    """The releases of the wrapper whose parser for the launch's entry
    declares ``option`` (oldest first)."""
    return _releases_with(wrapped.package, wrapped.entry, option)


@functools.lru_cache(maxsize=1024)
def _releases_with(package: str, entry: str, option: str) -> list[str]:
    out = []
    for version in wrapper_data.versions(package):
        wrapper = wrapper_data.load(package, version)
        if entry in wrapper.entries and option in wrapper.own_option_strings(entry):
            out.append(version)
    return out


# ---------------------------------------------------------------------------
# The wrapper's own start-up checks
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class StartupRejection:
    """A start-up check of the wrapper the launch definitely fails."""

    file: str
    line: int
    message: str
    span: Span
    #: the options whose values decide it, as written
    options: tuple[str, ...]
    #: the releases of the wrapper with the same check (oldest first)
    releases: tuple[str, ...]


def startup_rejections(launch) -> list[StartupRejection]:
    """The generated start-up checks of the launch's wrapper release
    (`sgllint.catalog._gen_wrappers`, ``check``) that the launch's options
    make definitely true.  Only for a launch the wrapper's parsers and
    SGLang's accept as written: a value the words do not give is undecided
    (an option left out whose default the environment may set, any SGLang
    option left out when a ``--config`` file may set it, anything when the
    launch's words are not all known)."""
    # long on purpose: each generated check in the wrapper's order, sharing the option values already decided
    wrapped = getattr(launch.context, "wrapped", None)
    if wrapped is None or wrapped.problems:
        return []
    wrapper = wrapper_data.load(wrapped.package, wrapped.version)
    entry = wrapper.entries.get(wrapped.entry)
    if entry is None:
        return []
    checks = [r for r in entry.rejections if r.get("check")]
    if not checks or any(a.problem or a.resolution.names_no_option for a in launch.args):
        return []
    own_dests = _own_dests(wrapper, wrapped.entry)
    given_own: dict = {}
    for arg in wrapped.own:
        option = own_dests.get(arg.option)
        if option is not None:
            given_own[option.dest] = arg
    catalog = getattr(launch.context, "catalog", None)
    sglang_given = {a.option.dest: a for a in launch.args if a.option is not None}
    config = "config" in sglang_given or any(getattr(a.option, "dest", None) == "config" for a in launch.args)
    opaque = launch.opaque
    out = []
    for r in checks:
        env = set(r.get("env") or ())

        def value_of(dest: str):
            if dest in given_own:
                return given_own[dest].value
            if dest in sglang_given:
                arg = sglang_given[dest]
                return arg.value if arg.known else UNKNOWN
            if opaque:
                return UNKNOWN
            own = [o for o in own_dests.values() if o.dest == dest]
            if own:
                if dest in env or len({repr(o.default) for o in own}) != 1:
                    return UNKNOWN
                return own[0].default
            if config or catalog is None:
                return UNKNOWN
            theirs = [o for o in catalog.options if o.dest == dest]
            return theirs[0].default if len(theirs) == 1 else UNKNOWN

        if wrapper_data.evaluate_check(r["check"], value_of) is not True:
            continue
        dests = wrapper_data.check_dests(r["check"])
        given = [a for d, a in given_own.items() if d in dests] + [a for d, a in sglang_given.items() if d in dests]
        if not given:
            continue  # decided by defaults alone: the wrapper's own defaults never fail
        given.sort(key=lambda a: (a.flag_span or a.span).start)
        last = given[-1]
        # one option's value out of range: at the value; a combination: at
        # the option that completes it
        span = last.value_span if len(dests) == 1 and last.value_span is not None else (last.flag_span or last.span)
        out.append(StartupRejection(
            r["file"], r["line"], r.get("message") or r.get("when", ""), span,
            tuple(a.spelling for a in given), _releases_with_check(wrapped.package, wrapped.entry, r.get("message") or ""),
        ))
    return out


def _own_dests(wrapper: Wrapper, entry: str) -> dict:
    """Option string -> the wrapper's own option, over every parser of ``entry``."""
    out: dict = {}
    for stage in wrapper_data._all_stages(wrapper.entries[entry].raw):
        if "parser" in stage:
            for o in wrapper.parsers[stage["parser"]].options:
                for s in o.strings:
                    out.setdefault(s, o)
    return out


@functools.lru_cache(maxsize=256)
def _releases_with_check(package: str, entry: str, message: str) -> tuple[str, ...]:
    out = []
    for version in wrapper_data.versions(package):
        e = wrapper_data.load(package, version).entries.get(entry)
        if e is not None and any(r.get("check") and r.get("message") == message for r in e.rejections):
            out.append(version)
    return tuple(out)
