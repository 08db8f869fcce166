"""Generated parsers of launchers that wrap SGLang (``data/wrappers/``).

``load("ai-dynamo", "1.6.1")`` gives a `Wrapper`: its entry points (``python
-m dynamo.sglang``, ``python -m sglang_router.launch_router``, ``sglang-router``
...), each a list of *stages* a launch's words pass through, and the parsers
those stages use.  `Wrapper.judge(entry, argv, sglang)` replays the stages
the way CPython 3.11's ``argparse`` does (``allow_abbrev``, ``--opt=value``,
nargs, choices, type converters, required options, ``parse_known_args``
handing its leftovers on) and tells whether the launch gets past the
parsers, and if not, why.  ``sglang`` is the SGLang `Catalog` whose options
join a parser where the wrapper calls ``ServerArgs.add_cli_args``.

The files are written by ``python -m sgllint.catalog._gen_wrappers`` (never
by hand); their shape is documented there.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any, Optional

from sgllint.model.unknown import UNKNOWN

from . import Catalog, Option, version_key
from .types import convert

DATA_DIR = Path(__file__).parent / "data" / "wrappers"
_FILE_RE = re.compile(r"^(?P<package>[a-z][a-z-]*?)-(?P<version>\d[0-9A-Za-z.]*)\.json$")
_NEGATIVE_NUMBER = re.compile(r"^-\d+$|^-\d*\.\d+$")
_NO_VALUE = frozenset({"store_true", "store_false", "store_const", "boolean_optional", "help", "count", "version", "append_const"})
#: what one of the wrapper's own option types accepts (others: any string)
_TYPES = {"int": "int", "float": "float", "str": "str"}


class Reason(str, Enum):
    """Why a parser refuses a launch (argparse's error kinds)."""

    UNRECOGNIZED = "unrecognized"
    AMBIGUOUS = "ambiguous"
    EXPECTED_VALUE = "expected_value"
    INVALID_VALUE = "invalid_value"
    INVALID_CHOICE = "invalid_choice"
    REQUIRED = "required"
    IGNORED_EXPLICIT = "ignored_explicit"
    FIRST_WORD = "first_word"
    #: the option's own Action raises when it is given (multimodal_gen's
    #: ``RaiseNotImplementedAction``)
    NOT_IMPLEMENTED = "not_implemented"


class Outcome(str, Enum):
    ACCEPTED = "accepted"
    REJECTED = "rejected"
    EXITED = "exited"  # --help / --version: the parser exits 0


@dataclass(frozen=True)
class Verdict:
    outcome: Outcome
    reason: Optional[Reason] = None
    option: Optional[str] = None  # the option string (or words) the reason is about
    stage: int = -1


@dataclass(frozen=True)
class WrapperOption:
    strings: tuple[str, ...]
    dest: str
    action: str
    type: str
    nargs: Any
    choices: Optional[tuple]
    choices_open: bool
    default: Any
    required: bool
    help: str
    line: int
    file: str
    #: the only words a custom Action takes (compared lower-cased), e.g.
    #: multimodal_gen's ``StoreBoolean``: true/false
    accepts: Optional[tuple] = None
    #: the exception a custom Action raises whenever the option is given
    raises: Optional[str] = None

    @property
    def takes_value(self) -> bool:
        return self.action not in _NO_VALUE and self.nargs != 0


@dataclass
class Parser:
    ident: str
    file: str
    line: int
    add_help: bool
    allow_abbrev: bool
    options: list[WrapperOption]
    #: index into `options` where SGLang's ServerArgs options join (None: never)
    sglang_at: Optional[int]
    choice_extensions: dict[str, tuple] = field(default_factory=dict)


@dataclass
class Entry:
    name: str
    raw: dict

    @property
    def deprecated(self) -> Optional[str]:
        return self.raw.get("deprecated")

    @property
    def rejections(self) -> list[dict]:
        return list(self.raw.get("rejections") or [])

    @property
    def includes_sglang(self) -> bool:
        return bool(self.raw.get("_sglang"))


@dataclass
class Wrapper:
    package: str
    version: str
    source: str
    requires_sglang: Optional[str]
    sglang_pin: Optional[str]
    entries: dict[str, Entry]
    parsers: dict[str, Parser]

    def entry(self, name: str) -> Entry:
        return self.entries[name]

    def own_option_strings(self, entry: str) -> set[str]:
        """Every option string the wrapper itself declares for ``entry``
        (never an "unknown SGLang flag")."""
        out: set[str] = set()
        for stage in _all_stages(self.entries[entry].raw):
            if "parser" in stage:
                for o in self.parsers[stage["parser"]].options:
                    out.update(o.strings)
            out.update(stage.get("strings") or [])
        return out

    def judge(self, entry: str, argv: list[str], sglang: Optional[Catalog] = None) -> Verdict:
        raw = self.entries[entry].raw
        words = list(argv)
        if "subcommands" in raw:
            return self._judge_subcommands(raw, words, sglang)
        return self._run_stages(raw["stages"], words, sglang)

    def _judge_subcommands(self, raw: dict, words: list[str], sglang: Optional[Catalog]) -> Verdict:
        rule = raw.get("first_word") or {}
        early = rule.get("early_exit_words")
        if early and words and words[0] in early["words"]:
            return Verdict(Outcome.EXITED if early.get("exit") == 0 else Outcome.REJECTED)
        accepted = rule.get("accepted_first_words")
        if accepted is not None and (not words or words[0] not in accepted):
            return Verdict(Outcome.REJECTED, Reason.FIRST_WORD, words[0] if words else None)
        if words and words[0] in ("-h", "--help"):
            return Verdict(Outcome.EXITED)
        sub = raw["subcommands"].get(words[0])
        if sub is None:
            return Verdict(Outcome.REJECTED, Reason.INVALID_CHOICE, words[0])
        return self._run_stages(sub["stages"], words[1:], sglang)

    def _run_stages(self, stages: list[dict], words: list[str], sglang: Optional[Catalog]) -> Verdict:
        for i, stage in enumerate(stages):
            if stage.get("kind") == "remove_pair":
                words = _remove_pair(stage, words)
                continue
            parser = self.parsers[stage["parser"]]
            table = _table(parser, sglang)
            known = stage["kind"] == "parse_known"
            verdict, words = _parse(table, parser, words, known, i)
            if verdict is not None:
                return verdict
        return Verdict(Outcome.ACCEPTED)


def _all_stages(raw: dict) -> list[dict]:
    out = list(raw.get("stages") or [])
    for sub in (raw.get("subcommands") or {}).values():
        out.extend(sub.get("stages") or [])
    return out


def _remove_pair(stage: dict, words: list[str]) -> list[str]:
    """Dynamo 0.4.0: the first exact ``FLAG VALUE`` pair is cut out when the
    value converts; otherwise both stay (the ``except: pass``)."""
    flag = stage["strings"][0]
    if flag not in words:
        return words
    idx = words.index(flag)
    if idx + 1 >= len(words):
        return words
    try:
        convert(stage.get("type", "str"), words[idx + 1])
    except ValueError:
        return words
    return words[:idx] + words[idx + 2:]


# ---------------------------------------------------------------------------
# argparse
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _Spec:
    """One option as the emulated parser sees it (wrapper's or SGLang's)."""

    strings: tuple[str, ...]
    dest: str
    takes_value: bool
    nargs: Any
    type: str
    choices: Optional[tuple]
    choices_open: bool
    required: bool
    exits: bool  # help / version
    raises: bool  # SGLang's deprecated-and-removed actions fail when given
    accepts: Optional[tuple] = None
    not_implemented: bool = False


def _from_wrapper(o: WrapperOption, extra: dict) -> _Spec:
    choices = o.choices
    return _Spec(o.strings, o.dest, o.takes_value, o.nargs, o.type, choices, o.choices_open, o.required,
                 o.action in ("help", "version"), False, o.accepts, o.raises is not None)


def _from_sglang(o: Option, extra: dict) -> _Spec:
    choices = o.choices
    if choices is not None and o.dest in extra:
        choices = tuple(choices) + tuple(extra[o.dest])
    raises = o.deprecated is not None and o.deprecated.behaviour in ("error", "exit") and o.action == "deprecated"
    return _Spec(o.strings, o.dest, o.takes_value, o.nargs, o.type, choices, o.choices_open, o.required, o.action == "help", raises)


def _table(parser: Parser, sglang: Optional[Catalog]) -> list[_Spec]:
    own = [_from_wrapper(o, parser.choice_extensions) for o in parser.options]
    if parser.add_help and not any("-h" in s.strings for s in own):
        own.insert(0, _Spec(("-h", "--help"), "help", False, 0, "bool", None, False, False, True, False))
    if parser.sglang_at is None or sglang is None:
        return own
    # ServerArgs.add_cli_args registers -h/--help only through the parser
    # itself; the catalog lists it first, so drop it when the wrapper parser
    # already has one (or was built with add_help=False).
    theirs = [_from_sglang(o, parser.choice_extensions) for o in sglang.options if o.action != "help"]
    at = parser.sglang_at + (1 if parser.add_help and own and own[0].dest == "help" else 0)
    return own[:at] + theirs + own[at:]


def _lookup(table: list[_Spec], word: str, allow_abbrev: bool):
    """argparse's ``_parse_optional``: (spec, option string, explicit value)
    or a `Verdict` for an ambiguous prefix, or None for an unknown option."""
    by_string = {s: spec for spec in table for s in spec.strings}
    if word in by_string:
        return by_string[word], word, None
    if "=" in word:
        opt, explicit = word.split("=", 1)
        if opt in by_string:
            return by_string[opt], opt, explicit
    if allow_abbrev and word.startswith("--"):
        prefix, _, explicit = word.partition("=")
        matches = [s for s in by_string if s.startswith(prefix)]
        if len(matches) > 1:
            return Verdict(Outcome.REJECTED, Reason.AMBIGUOUS, prefix)
        if len(matches) == 1:
            return by_string[matches[0]], matches[0], (explicit if "=" in word else None)
    return None


def _is_optional_word(word: str, table: list[_Spec]) -> bool:
    if not word or word[0] != "-" or word == "-":
        return False
    if _NEGATIVE_NUMBER.match(word) and not any(_NEGATIVE_NUMBER.match(s) for sp in table for s in sp.strings):
        return False
    if " " in word and not any(word.split("=", 1)[0] == s for sp in table for s in sp.strings):
        return False
    return True


def _check_value(spec: _Spec, opt: str, value: str, index: int) -> Optional[Verdict]:
    if spec.type in ("int", "float", "json", "human_readable_int", "json_list"):
        try:
            converted = convert(spec.type, value)
        except ValueError:
            return Verdict(Outcome.REJECTED, Reason.INVALID_VALUE, opt, index)
    else:
        converted = value
    if spec.choices is not None and not spec.choices_open and converted not in spec.choices:
        return Verdict(Outcome.REJECTED, Reason.INVALID_CHOICE, opt, index)
    if spec.accepts is not None and value.lower() not in spec.accepts:
        return Verdict(Outcome.REJECTED, Reason.INVALID_VALUE, opt, index)
    return None


def _parse(table: list[_Spec], parser: Parser, words: list[str], known: bool, index: int):
    # argparse classifies every word before it consumes any (``_parse_optional``
    # over all of them), so an ambiguous prefix anywhere is reported before a
    # bad value earlier in the line
    # long on purpose: argparse's parse loop (classify every word, then consume) kept as one loop, as argparse has it
    for word in words:
        if word == "--":
            break
        if len(word) > 1 and word[0] == "-":
            found = _lookup(table, word, parser.allow_abbrev)
            if isinstance(found, Verdict):
                return Verdict(found.outcome, found.reason, found.option, index), []
    extras: list[str] = []
    seen: set[str] = set()
    i = 0
    while i < len(words):
        word = words[i]
        if word == "--":
            extras.extend(words[i + 1:])
            break
        if not _is_optional_word(word, table):
            extras.append(word)
            i += 1
            continue
        found = _lookup(table, word, parser.allow_abbrev)
        if isinstance(found, Verdict):
            return Verdict(found.outcome, found.reason, found.option, index), []
        if found is None:
            extras.append(word)
            i += 1
            continue
        spec, opt, explicit = found
        i += 1
        if spec.not_implemented:
            return Verdict(Outcome.REJECTED, Reason.NOT_IMPLEMENTED, opt, index), []
        if spec.exits:
            return Verdict(Outcome.EXITED, None, opt, index), []
        if not spec.takes_value:
            if explicit is not None:
                return Verdict(Outcome.REJECTED, Reason.IGNORED_EXPLICIT, opt, index), []
            if spec.raises:
                return Verdict(Outcome.REJECTED, Reason.INVALID_VALUE, opt, index), []
            seen.add(spec.dest)
            continue
        if explicit is not None:
            values = [explicit]
        else:
            values, i = _values(spec, words, i, table)
            if values is None:
                return Verdict(Outcome.REJECTED, Reason.EXPECTED_VALUE, opt, index), []
        if spec.raises:
            return Verdict(Outcome.REJECTED, Reason.INVALID_VALUE, opt, index), []
        for v in values:
            bad = _check_value(spec, opt, v, index)
            if bad is not None:
                return bad, []
        seen.add(spec.dest)
    missing = [sp for sp in table if sp.required and sp.dest not in seen]
    if missing:
        return Verdict(Outcome.REJECTED, Reason.REQUIRED, missing[0].strings[-1], index), []
    if extras and not known:
        return Verdict(Outcome.REJECTED, Reason.UNRECOGNIZED, " ".join(extras), index), []
    return None, extras


def _values(spec: _Spec, words: list[str], i: int, table: list[_Spec]) -> tuple[Optional[list[str]], int]:
    """The value words an option takes from the run of non-option words at
    ``i`` (argparse matches nargs against that run; the rest stays in the
    stream), and the position after them; None when too few."""
    run = []
    j = i
    while j < len(words) and words[j] != "--" and not _is_optional_word(words[j], table):
        run.append(words[j])
        j += 1
    want = 1 if spec.nargs is None else spec.nargs
    if want == "?":
        take = run[:1]
    elif want in ("*", "+"):
        take = run
        if want == "+" and not take:
            return None, i
    elif isinstance(want, int):
        if len(run) < want:
            return None, i
        take = run[:want]
    else:
        take = run[:1]
    return take, i + len(take)


# ---------------------------------------------------------------------------
# Loading
# ---------------------------------------------------------------------------


@functools.lru_cache(maxsize=None)
def help_table(data_dir: Path = DATA_DIR) -> dict:
    """The shared help texts of a generated data directory."""
    path = data_dir / "help.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def _wrapper_option(raw: dict, helps: dict) -> WrapperOption:
    choices = raw.get("choices")
    return WrapperOption(
        strings=tuple(raw["strings"]),
        dest=raw["dest"],
        action=raw.get("action", "store"),
        type=raw.get("type") or "str",
        nargs=raw.get("nargs"),
        choices=tuple(choices) if choices is not None else None,
        choices_open=bool(raw.get("choices_open", False)),
        default=raw.get("default"),
        required=bool(raw.get("required", False)),
        help=raw.get("help") or helps.get(raw.get("help_id", ""), ""),
        line=raw.get("line", 0),
        file=raw.get("file", ""),
        accepts=tuple(raw["accepts"]) if raw.get("accepts") else None,
        raises=raw.get("raises"),
    )


def _parser(ident: str, raw: dict, helps: dict) -> Parser:
    options: list[WrapperOption] = []
    sglang_at = None
    for item in raw["items"]:
        if "strings" in item:
            options.append(_wrapper_option(item, helps))
        elif "include" in item and sglang_at is None:
            sglang_at = len(options)
    ext = {e["dest"]: tuple(e["add"]) for e in raw.get("choice_extensions") or []}
    return Parser(ident, raw["file"], raw["line"], raw["add_help"], raw["allow_abbrev"], options, sglang_at, ext)


def packages() -> tuple[str, ...]:
    return tuple(sorted({p for p, _ in _index()}))


@functools.lru_cache(maxsize=None)
def _index() -> tuple[tuple[str, str], ...]:
    out = []
    for p in DATA_DIR.glob("*.json"):
        m = _FILE_RE.match(p.name)
        if m:
            out.append((m.group("package"), m.group("version")))
    return tuple(sorted(out, key=lambda pv: (pv[0], version_key(pv[1]))))


def versions(package: str) -> tuple[str, ...]:
    """Every release of ``package`` with generated data, oldest first."""
    return tuple(v for p, v in _index() if p == package)


@functools.lru_cache(maxsize=None)
def load(package: str, version: str) -> Wrapper:
    path = DATA_DIR / f"{package}-{version}.json"
    if not path.exists():
        raise KeyError(f"no generated data for {package} {version}")
    raw = json.loads(path.read_text(encoding="utf-8"))
    helps = help_table()
    parsers = {k: _parser(k, v, helps) for k, v in raw["parsers"].items()}
    entries = {}
    for name, e in raw["entry_points"].items():
        e = dict(e)
        e["_sglang"] = any(
            parsers[s["parser"]].sglang_at is not None for s in _all_stages(e) if "parser" in s
        )
        entries[name] = Entry(name, e)
    return Wrapper(
        package=raw["package"],
        version=raw["version"],
        source=raw.get("source", ""),
        requires_sglang=raw.get("requires_sglang"),
        sglang_pin=raw.get("sglang_pin"),
        entries=entries,
        parsers=parsers,
    )


# ---------------------------------------------------------------------------
# Start-up checks the launch decides
# ---------------------------------------------------------------------------

# A value the launch does not decide is the model's one `UNKNOWN`
# (three-valued logic: it never makes a check definitely true unless the
# rest of the check does).


def _truth(value: Any) -> Any:
    if value is UNKNOWN:
        return UNKNOWN
    return bool(value)


def _compare(op: str, left: Any, right: Any) -> Any:
    if left is UNKNOWN or right is UNKNOWN:
        return UNKNOWN
    try:
        if op in ("is", "is not"):
            if not (right is None or isinstance(right, bool)):
                return UNKNOWN
            same = left is right if right is None else (isinstance(left, bool) and left == right)
            return same if op == "is" else not same
        if op in ("in", "not in"):
            found = left in right
            return found if op == "in" else not found
        return {
            "==": lambda: left == right, "!=": lambda: left != right,
            "<": lambda: left < right, "<=": lambda: left <= right,
            ">": lambda: left > right, ">=": lambda: left >= right,
        }[op]()
    except (TypeError, KeyError):
        return UNKNOWN


def evaluate_check(ir: dict, value_of) -> Any:
    """A rejection's generated ``check`` (see `sgllint.catalog._gen_wrappers`)
    with ``value_of(dest)`` the launch's parsed value of an option, or
    `UNKNOWN`: True only when the launch makes the check definitely true."""
    if "opt" in ir:
        return value_of(ir["opt"])
    if "const" in ir:
        value = ir["const"]
        return tuple(value) if isinstance(value, list) else value
    if "unknown" in ir:
        return UNKNOWN
    if "not" in ir:
        inner = _truth(evaluate_check(ir["not"], value_of))
        return UNKNOWN if inner is UNKNOWN else not inner
    if "and" in ir or "or" in ir:
        is_and = "and" in ir
        values = [_truth(evaluate_check(t, value_of)) for t in ir["and" if is_and else "or"]]
        decisive = not is_and  # False decides an "and", True an "or"
        if any(v is not UNKNOWN and v is decisive for v in values):
            return decisive
        return UNKNOWN if any(v is UNKNOWN for v in values) else not decisive
    if "xor" in ir:
        a, b = (_truth(evaluate_check(t, value_of)) for t in ir["xor"])
        return UNKNOWN if UNKNOWN in (a, b) else a != b
    if "cmp" in ir:
        return _compare(ir["cmp"], evaluate_check(ir["left"], value_of), evaluate_check(ir["right"], value_of))
    return UNKNOWN


def check_dests(ir: Any) -> list[str]:
    """The dests a check reads, in order of first mention."""
    out: list[str] = []
    if isinstance(ir, dict):
        if "opt" in ir and ir["opt"] not in out:
            out.append(ir["opt"])
        for v in ir.values():
            out.extend(d for d in check_dests(v) if d not in out)
    elif isinstance(ir, list):
        for v in ir:
            out.extend(d for d in check_dests(v) if d not in out)
    return out
