"""TOML extractor: launches in task-runner commands and SGLang launch-profile
tables.

Measured against tomlkit on a generated 2,000-line TOML file (tasks,
profiles, every string kind, arrays of tables, dates; CPython 3.11, best of
7): the position scanner (`_toml_scan`) takes 20 ms and tomllib's validation
17 ms, against 279 ms for ``tomlkit.parse`` (about 7.5x slower than both
together); the scanner's values agree with tomllib and tomlkit on every key.

**Commands.** Every string or array of strings in the file that holds a
launch is linted, wherever it sits: poe (``[tool.poe.tasks]`` strings,
``cmd``, ``shell``), taskipy, pdm, mise (``[tasks.x] run``, a string or an
array of command strings), pixi (``[tasks]``/``[feature.*.tasks]`` ``cmd``),
cargo-make ``Makefile.toml`` (``command`` plus its ``args`` array, joined
into one argv). A string is a shell command line: it is handed to the shell
extractor with a map back into the TOML file, through the string's escapes.
An array of words that is itself a launch (``cmd = ["python", "-m", ...]``)
is taken as argv; otherwise each string in it is a command of its own.
Values under prose keys (``help``, ``description``) are never commands.
``env`` tables of the task and of its enclosing tables (``[env]``,
``[tool.poe.env]``, ``[tasks.x.env]``) become the launch's environment.
Poe ``args`` declare task parameters; ``${name}`` references to them, like
any ``$VAR`` and template ``{{ ... }}``, stay unresolved.

**Profiles.** A table named ``sglang`` (``[sglang]``, ``[tool.sglang]``,
``[profiles.prod.sglang]``, an inline ``sglang = {...}``) or a top-level
``[server_args]`` holds server arguments, one key each: a kwargs-like site
with entry ``"[sglang] table"``. When any key is spelled as a flag
(``tp-size``, ``--tp-size``) the table is read the way SGLang reads a
``--config`` file: ``form=LaunchForm.ARGV`` tokens ``--tp-size`` ``2``, ``true`` as a
bare flag, ``false`` left out, a list as one value per item, a table as a
JSON string. Otherwise the keys are ServerArgs field names (``tp_size``):
``form=LaunchForm.KWARGS`` with the TOML values as they are (``false`` included, as
``ServerArgs(**table)`` would receive it). A profile whose keys are all
sub-tables (``[sglang.prefill]``, ``[sglang.decode]``) is one launch per
sub-table. Tables named ``sglang`` that describe a dependency (under
``dependencies``, ``tool.uv.sources``, ...) are not profiles; other engines'
tables (``[vllm]``) are ignored.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Optional, Union

from sgllint.formats.shell.embedded import FORMAT_FIELD_RE, TEMPLATE_RE, argv_launch, shell_script, string_token
from sgllint.formats.toml.scan import TArray, TDocument, TKey, TScalar, TString, TTable, scan, tomllib
from sgllint.model.facts import EnvVar, FileFacts, Kwarg, LaunchSite, ParseProblem, Source, SourceMap, Span, Token, Unresolved
from sgllint.model.kinds import LaunchForm

__all__ = ["extract"]

PROFILE_ENTRY = "[sglang] table"

#: keys whose strings are prose, not commands
_PROSE_KEYS = {"help", "description", "desc", "doc", "docs", "summary", "title", "comment", "about", "usage", "name"}
#: a table named ``sglang`` below one of these is a dependency, not a profile
_NOT_PROFILE_PARENTS = re.compile(r"depend|sources|index|extras|override|constraint|requires|tasks|scripts", re.I)
#: the keys of a dependency specification
_DEPENDENCY_KEYS = {
    "version", "git", "rev", "branch", "tag", "path", "url", "extras", "markers", "optional",
    "index", "workspace", "editable", "python", "platform", "source", "develop", "subdirectory",
}
_VARIABLE = re.compile(r"\$\{?[A-Za-z_@*]")
#: a PEP 508 requirement (``sglang[all]>=0.4.6``, ``sglang @ git+https://...``,
#: ``sglang; sys_platform == 'linux'``): a dependency, never a command
_REQUIREMENT = re.compile(
    r"[A-Za-z0-9][\w.-]*(?:\s*\[[\w.,\s-]*\])?"
    r"(?:\s*(?:===|[<>=!~]=|[<>])\s*[\w.*+!-]+(?:\s*,\s*(?:===|[<>=!~]=|[<>])\s*[\w.*+!-]+)*)?"
    r"(?:\s*@\s*\S+)?(?:\s*;.*)?\Z",
    re.S,
)  # each \s* stands before a required character: no two ways to split a blank run
#: templates a task runner or harness fills in: ``{{ x }}``, ``{model}``, ``%(tp)s``
_MASKS = ((TEMPLATE_RE, "template expression"), (FORMAT_FIELD_RE, "template expression"))
_POSITION = re.compile(r"\s*\(at line (\d+), column (\d+)\)\s*$")


def extract(source: Source) -> FileFacts:
    facts = FileFacts(source, "toml")
    try:
        tomllib.loads(source.text)
    except ValueError as exc:  # TOMLDecodeError, or an int past int()'s digit limit
        facts.comments.extend(_line_comments(source.text))
        if "sglang" in source.text:
            facts.problems.append(_syntax_problem(source, exc))
        return facts
    document = scan(source.text)
    facts.comments.extend(document.comments)
    _Extractor(source, facts).walk(_tree(document))
    facts.sites.sort(key=lambda s: s.span.start)
    return facts


def _syntax_problem(source: Source, exc: Exception) -> ParseProblem:
    message = str(exc)
    m = _POSITION.search(message)
    offset = len(source.text)
    if m:
        line = min(int(m.group(1)), len(source.line_starts))
        offset = min(source.offset_of(line, int(m.group(2))), len(source.text))
        message = message[: m.start()]
    end = min(offset + 1, len(source.text))
    return ParseProblem(Span(source, offset, end), f"TOML syntax error: {message}")


def _line_comments(text: str) -> list[tuple[int, str]]:
    """Full-line comments of a file tomllib rejected (for suppressions)."""
    return [(m.start(1), m.group(1)) for m in re.finditer(r"^[ \t]*(#[^\r\n]*)", text, re.M)]


# ---------------------------------------------------------------------------
# The document as a tree of tables, with positions
# ---------------------------------------------------------------------------


@dataclass
class _List:
    items: list["_Value"]
    start: int
    end: int


@dataclass
class _Item:
    key: TKey
    value: "_Value"


@dataclass
class _Group:
    """A table, however it was written: ``[header]``, dotted keys, inline."""

    path: tuple[str, ...]
    items: dict[str, _Item] = field(default_factory=dict)
    places: list[tuple[int, int]] = field(default_factory=list)  # headers / inline braces / dotted keys
    name_span: Optional[tuple[int, int]] = None  # the header, or the key naming it

    def extent(self) -> tuple[int, int]:
        """From the first place it is written to the end of its last entry."""
        ends = list(self.places)
        for item in self.items.values():
            ends.append((item.key.start, _end(item.value)))
            if isinstance(item.value, _Group):
                ends.append(item.value.extent())
        if not ends:
            return 0, 0
        return min(s for s, _ in ends), max(e for _, e in ends)


_Value = Union[TString, TScalar, _List, _Group]


def _end(value: _Value) -> int:
    return value.extent()[1] if isinstance(value, _Group) else value.end


def _start(value: _Value) -> int:
    return value.extent()[0] if isinstance(value, _Group) else value.start


def _tree(document: TDocument) -> _Group:
    root = _Group(())
    for table in document.tables:
        group = _header_group(root, table) if table.path else root
        for entry in table.entries:
            _put(group, entry.key, _convert(entry.value, group.path + entry.key.parts))
    return root


def _header_group(root: _Group, table: TTable) -> _Group:
    group = root
    for part in table.path[:-1]:
        group = _child(group, part)
    last = table.path[-1]
    if table.array:
        existing = group.items.get(last)
        if existing is None or not isinstance(existing.value, _List):
            existing = _Item(_key_at(table), _List([], table.start, table.end))
            group.items[last] = existing
        child = _Group(table.path, name_span=(table.start, table.end))
        existing.value.items.append(child)
    else:
        child = _child(group, last, _key_at(table))
        child.name_span = child.name_span or (table.start, table.end)
    child.places.append((table.start, table.end))
    return child


def _key_at(table: TTable) -> TKey:
    return TKey(table.path, table.start, table.end, table.start, table.end)


def _child(group: _Group, name: str, key: Optional[TKey] = None) -> _Group:
    """The sub-table ``name`` (the last element of an array of tables)."""
    item = group.items.get(name)
    if item is not None and isinstance(item.value, _List) and item.value.items:
        last = item.value.items[-1]
        if isinstance(last, _Group):
            return last
    if item is not None and isinstance(item.value, _Group):
        return item.value
    child = _Group(group.path + (name,))
    group.items[name] = _Item(key or TKey((name,), 0, 0, 0, 0), child)
    return child


def _put(group: _Group, key: TKey, value: _Value) -> None:
    for i, part in enumerate(key.parts[:-1]):
        group = _child(group, part, TKey(key.parts[: i + 1], key.start, key.end, key.start, key.end))
        group.places.append((key.start, key.end))
        group.name_span = group.name_span or (key.start, key.end)
    if isinstance(value, _Group):
        value.name_span = (key.last_start, key.last_end)
    group.items[key.parts[-1]] = _Item(key, value)


def _convert(node, path: tuple[str, ...]) -> _Value:
    if isinstance(node, TArray):
        return _List([_convert(item, path) for item in node.items], node.start, node.end)
    if isinstance(node, TTable):
        group = _Group(path, places=[(node.start, node.end)])
        for entry in node.entries:
            _put(group, entry.key, _convert(entry.value, path + entry.key.parts))
        return group
    return node


def _python(value: _Value):
    """The value as tomllib gives it."""
    if isinstance(value, (TString, TScalar)):
        return value.value
    if isinstance(value, _List):
        return [_python(v) for v in value.items]
    return {name: _python(item.value) for name, item in value.items.items()}


# ---------------------------------------------------------------------------
# Walking the tree
# ---------------------------------------------------------------------------


class _Extractor:
    def __init__(self, source: Source, facts: FileFacts):
        self.source = source
        self.facts = facts
        self.smap = SourceMap(source)

    def span(self, start: int, end: int) -> Span:
        return Span(self.source, start, end)

    def walk(self, group: _Group, env: tuple[dict, ...] = ()) -> None:
        env = env + (self._env_of(group),)
        handled = self._command_and_args(group, env)
        for name, item in group.items.items():
            value = item.value
            if name in handled or name in _PROSE_KEYS or (name == "env" and isinstance(value, _Group)):
                continue
            path = group.path + (name,)
            if isinstance(value, _Group):
                if _is_profile(path, value):
                    self._profile(value, env)
                else:
                    self.walk(value, env)
            elif isinstance(value, TString):
                self._command_string(value, env)
            elif isinstance(value, _List):
                if name == "sglang" and all(isinstance(v, _Group) for v in value.items) and _is_profile(path, None):
                    for profile in value.items:
                        self._profile(profile, env)
                else:
                    self._list(value, env)

    # -- commands ------------------------------------------------------------

    def _command_string(self, value: TString, env: tuple[dict, ...]) -> None:
        if "sglang" not in value.value or _REQUIREMENT.match(value.value.strip()):
            return
        smap = SourceMap(self.source, 0, value.offsets)
        shell_script(value.value, smap, self.facts, _merged(env), masks=_MASKS)

    def _list(self, value: _List, env: tuple[dict, ...]) -> None:
        strings = [v for v in value.items if isinstance(v, TString)]
        if strings and len(strings) == len(value.items) and any("sglang" in s.value for s in strings):
            words = [self._word(s) for s in strings]
            if self._argv(words, value.start, value.end, env):
                return
        for item in value.items:
            if isinstance(item, TString):
                self._command_string(item, env)
            elif isinstance(item, _Group):
                self.walk(item, env)
            elif isinstance(item, _List):
                self._list(item, env)

    def _command_and_args(self, group: _Group, env: tuple[dict, ...]) -> set[str]:
        """cargo-make: ``command = "python"`` plus ``args = [...]`` is one argv."""
        command, args = group.items.get("command"), group.items.get("args")
        if command is None or args is None:
            return set()
        if not isinstance(command.value, TString) or not isinstance(args.value, _List):
            return set()
        items = args.value.items
        if not all(isinstance(v, TString) for v in items):
            return set()
        words = [self._word(command.value)] + [self._word(v) for v in items]
        self._argv(words, command.key.start, args.value.end, env)
        return {"command", "args"}

    def _argv(self, words: list[Token], start: int, end: int, env: tuple[dict, ...]) -> bool:
        found = argv_launch(
            words,
            self.facts,
            self.span(start, end),
            env=list(_merged(env).values()),
            shell_env=_merged(env),
        )
        return bool(found)

    def _word(self, value: TString) -> Token:
        """An argv word; task runners expand variables and templates in it."""
        token = string_token(value.value, value.start, value.end, value.offsets, self.smap)
        return Token(_expanded(value.value, "variable expanded by the task runner"), token.span, token.value_map)

    # -- environment ---------------------------------------------------------

    def _env_of(self, group: _Group) -> dict:
        item = group.items.get("env")
        if item is None or not isinstance(item.value, _Group):
            return {}
        env = {}
        for name, var in item.value.items.items():
            value = var.value
            if isinstance(value, (TString, TScalar)):
                env[name] = EnvVar(
                    name,
                    _env_value(value),
                    self.span(var.key.start, value.end),
                    self.span(value.start, value.end),
                )
        return env

    # -- profiles ------------------------------------------------------------

    def _profile(self, group: _Group, env: tuple[dict, ...]) -> None:
        args = {name: item for name, item in group.items.items() if name != "env"}
        if args and all(isinstance(item.value, _Group) for item in args.values()):
            for item in args.values():  # one launch per role: [sglang.prefill], [sglang.decode]
                self._profile(item.value, env + (self._env_of(group),))
            return
        if not args:
            return
        start, end = group.extent()
        name_start, name_end = group.name_span or (start, start)
        site = LaunchSite(
            source=self.source,
            span=self.span(min(start, name_start), end),
            entry=PROFILE_ENTRY,
            entry_span=self.span(name_start, name_end),
            form=LaunchForm.ARGV if any("-" in name for name in args) else LaunchForm.KWARGS,
            env=list(_merged(env + (self._env_of(group),)).values()),
        )
        for item in args.values():
            if site.form is LaunchForm.ARGV:
                site.tokens += self._flag_tokens(item)
            else:
                site.kwargs.append(self._kwarg(item))
        self.facts.sites.append(site)

    def _flag_tokens(self, item: _Item) -> list[Token]:
        value = item.value
        if isinstance(value, TScalar) and value.value is False:
            return []  # false: the flag is left out
        tokens = [self._flag(item.key)]
        if isinstance(value, TScalar) and value.value is True:
            return tokens  # true: a bare flag
        if isinstance(value, _List):
            return tokens + [self._value_token(v) for v in value.items]
        return tokens + [self._value_token(value)]

    def _flag(self, key: TKey) -> Token:
        """``--name`` for the key ``name``, mapped onto the key as written."""
        name = key.parts[-1]
        written = self.source.text[key.last_start : key.last_end]
        first = key.last_start + (1 if written[:1] in "\"'" else 0)
        span = self.span(key.last_start, key.last_end)
        flag = name if name.startswith("-") else "--" + name
        if written.strip("\"'") != name:  # an escape in a quoted key: no character map
            return Token(flag, span)
        added = len(flag) - len(name)
        offsets = [first] * added + list(range(first, first + len(name))) + [first + len(name)]
        return Token(flag, span, SourceMap(self.source, 0, offsets) if span.text != flag else None)

    def _value_token(self, value: _Value) -> Token:
        start, end = _start(value), _end(value)
        if isinstance(value, TString):
            token = string_token(value.value, value.start, value.end, value.offsets, self.smap)
            return Token(_expanded(value.value, "variable reference"), token.span, token.value_map)
        if isinstance(value, TScalar):
            return Token(_argv_text(value.value), self.span(start, end))
        return Token(json.dumps(_python(value)), self.span(start, end))  # a table or nested list

    def _kwarg(self, item: _Item) -> Kwarg:
        value = item.value
        python = _python(value)
        if isinstance(value, TString):
            python = _expanded(value.value, "variable reference")
        return Kwarg(
            name=item.key.parts[-1],
            value=python,
            name_span=self.span(item.key.last_start, item.key.last_end),
            value_span=self.span(_start(value), _end(value)),
        )


def _is_profile(path: tuple[str, ...], group: Optional[_Group]) -> bool:
    if path not in (("server_args",),) and (not path or path[-1] != "sglang"):
        return False
    if any(_NOT_PROFILE_PARENTS.search(part) for part in path[:-1]):
        return False
    if group is not None and group.items and set(group.items) <= _DEPENDENCY_KEYS:
        return False
    return True


def _merged(env: tuple[dict, ...]) -> dict:
    """Inner tables override outer ones."""
    out: dict = {}
    for layer in env:
        out.update(layer)
    return out


# ---------------------------------------------------------------------------
# Values
# ---------------------------------------------------------------------------


def _argv_text(value) -> str:
    """A scalar as a tool passes it on a command line (``str()``)."""
    return str(value)


def _expanded(value: str, variable_reason: str):
    """A string the task runner (or the tool reading a profile) expands:
    templates and variable references are unknown."""
    template = TEMPLATE_RE.search(value) or FORMAT_FIELD_RE.search(value)
    if template:
        return Unresolved(value, "template expression", value[: template.start()])
    m = _VARIABLE.search(value)
    if m:
        return Unresolved(value, variable_reason, value[: m.start()])
    return value


def _env_value(value: Union[TString, TScalar]):
    if isinstance(value, TString):
        return _expanded(value.value, "variable expanded by the task runner")
    if isinstance(value.value, bool):
        return "true" if value.value else "false"
    return str(value.value)
