"""SGLang's flag catalogs, one per release, generated from the real wheels.

Each ``data/sglang-<version>.json`` is written by ``python -m
sgllint.catalog.generate`` (never by hand) and has this shape::

    {
      "notice": "GENERATED ... DO NOT EDIT",
      "sglang_version": "0.5.23",
      "source": "sglang-0.5.23-...whl",          # what it was generated from
      "era": "add_argument" | "annotated" | "msgspec",
      "options": [                               # parser order
        {"strings": ["--model-path", "--model"], # every option string
         "dest": "model_path",                   # argparse dest
         "field": "model_path",                  # ServerArgs field after from_cli_args (null: none)
         "action": "store" | "store_true" | "store_const" | "boolean_optional"
                   | "deprecated" | "deprecated_store_true" | "deprecated_store_const"
                   | "deprecated_alias" | "lora_paths" | "help" | "<other class>",
         "type": "str" | "int" | "float" | "json" | "json_list" | "human_readable_int"
                 | "nullable_str" | "<other parser name>",
         "nargs": null | "+" | "*" | "?" | <int>,
         "choices": null | [...],
         "choices_open": false,                  # choices computed at run time
         "default": <json>,
         "required": false,
         "help": "...",
         "deprecated": null | {"behaviour": "error" | "warn" | "exit",
                               "message": "...", "replacement": "--flag" | null}}
      ],
      "fields": {"tp_size": {"type": "int", "default": 1, "cli": true}, ...},
      "lists": {"DETERMINISTIC_ATTENTION_BACKEND_CHOICES": [...], ...}
    }

Loading one catalog reads one file (plus the shared help-text table when a
catalog refers to it); nothing else is parsed.

Size-saving conventions of generated catalogs (all optional for readers of
hand-written files): an option's ``help`` may be replaced by ``"help_id"``,
a key into ``data/<help_table>`` (``"help_table": "help.json"`` at the top);
``field`` is left out when it equals ``dest``; keys at their default above
(``action`` "store", ``type`` "str", null ``nargs``/``choices``/``default``/
``const``/``deprecated``, false ``choices_open``/``required``) are left out;
in ``fields``, ``cli`` is left out when true.  Extra keys: ``const``,
``hidden`` (help=SUPPRESS), ``help_deprecated`` (help says deprecated but
SGLang neither warns nor errors), top-level ``test_constants`` (UPPER_CASE
str/int constants of ``sglang/test/test_utils.py``), ``sglang_full_version``.

Facts extracted from SGLang's validation code (by
``sgllint/catalog/_gen_deterministic.py``; read them through
`Catalog.facts`, which is ``{}`` for catalogs without them):

``"deterministic"`` (releases with ``--enable-deterministic-inference``,
0.5.3+)::

    {"check": "<file>:<function>",          # the deterministic hook
     "backend_pass": "<file>:<function>",   # fills/validates the backend
     "rl_on_policy_target_implies": bool,   # --rl-on-policy-target turns it on
     "allow_list": "DETERMINISTIC_ATTENTION_BACKEND_CHOICES",  # a "lists" key
     "fallback": bool,                      # None gets a default (else rejected)
     "check_architectures": [...],          # architectures[0] the absorbed-MLA
                                            # ("DeepSeek") validation uses
     "fallback_architectures": [...],       # the list the fallback choice uses
     "mla_backends": [...] | null,          # backends allowed for those models
     "mla_backends_from": "literal" | "<list constant>" | null,
     "fa4_sm_check": "<predicate>" | null,  # fa4 + MLA needs SM100/SM110
     "radix_backends": [...] | null,        # backends that keep the radix cache
     "radix_backends_from": "literal" | "<list constant>" | null,
     "messages": {"allow_list", "mla_backend", "mla_fa4", "radix_disabled",
                  "fallback": SGLang's message with {backend} and
                  {<LIST CONSTANT>} placeholders}}

``"mla_architectures"``: the architectures ``sglang/srt/configs/model_config.py``
marks ``AttentionArch.MLA`` (SGLang's ``use_mla_backend``; any entry of
``config.json`` ``architectures``).
"""

from __future__ import annotations

import bisect
import functools
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

DATA_DIR = Path(__file__).parent / "data"
#: top-level catalog keys loaded into `Catalog.facts`
FACT_KEYS = ("deterministic", "mla_architectures")
_FILE_RE = re.compile(r"^sglang-(\d+(?:\.\d+)*)\.json$")


@functools.lru_cache(maxsize=256)  # rules compare releases per launch: thousands of calls per file
def version_key(version: str) -> tuple[int, ...]:
    parts = []
    for piece in re.split(r"[.\-]", version):
        m = re.match(r"\d+", piece)
        if m:
            parts.append(int(m.group()))
    return tuple(parts)


#: actions that never take a value on the command line
_NO_VALUE_ACTIONS = frozenset(
    {"store_true", "store_false", "store_const", "boolean_optional", "help", "count", "version", "append_const"}
)


@dataclass(frozen=True)
class Deprecation:
    behaviour: str  # "error": rejected at start-up; "exit": parser error; "warn": accepted
    message: str
    replacement: Optional[str]


@dataclass(frozen=True)
class Option:
    strings: tuple[str, ...]
    dest: str
    field: Optional[str]
    action: str
    type: str
    nargs: Any
    choices: Optional[tuple]
    choices_open: bool
    default: Any
    required: bool
    help: str
    deprecated: Optional[Deprecation]

    @property
    def name(self) -> str:
        """The primary long spelling, used in messages."""
        for s in self.strings:
            if s.startswith("--"):
                return s
        return self.strings[0]

    @property
    def takes_value(self) -> bool:
        """Whether the option consumes words after it: argparse's flag
        actions never do, and any action declared with ``nargs=0`` does not
        (SGLang's deprecated switches)."""
        return self.action not in _NO_VALUE_ACTIONS and self.nargs != 0

    @property
    def is_flag(self) -> bool:
        return not self.takes_value


@dataclass(frozen=True)
class FieldInfo:
    name: str
    type: str
    default: Any
    cli: bool


@dataclass
class Catalog:
    version: str
    source: str
    era: str
    options: list[Option]
    fields: dict[str, FieldInfo]
    lists: dict[str, list]
    by_string: dict[str, Option] = field(default_factory=dict)
    by_field: dict[str, list[Option]] = field(default_factory=dict)
    #: facts extracted from SGLang's validation code, by top-level key
    #: ("deterministic", "mla_architectures"); {} for catalogs without them
    facts: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for opt in self.options:
            for s in opt.strings:
                self.by_string[s] = opt
            if opt.field:
                self.by_field.setdefault(opt.field, []).append(opt)

    @property
    def option_strings(self) -> set[str]:
        return set(self.by_string)

    def long_strings(self) -> list[str]:
        return list(self.long_string_tuple())

    def long_string_tuple(self) -> tuple[str, ...]:
        """`long_strings` computed once and shared (asked for each unknown flag)."""
        cached = self.__dict__.get("_long_strings")
        if cached is None:
            cached = self.__dict__["_long_strings"] = tuple(s for s in self.by_string if s.startswith("--"))
        return cached

    def has_prefix(self, prefix: str) -> bool:
        """Whether any option string starts with ``prefix`` (a binary search
        in the sorted strings, computed once)."""
        ordered = self.__dict__.get("_sorted_strings")
        if ordered is None:
            ordered = self.__dict__["_sorted_strings"] = sorted(self.by_string)
        i = bisect.bisect_left(ordered, prefix)
        return i < len(ordered) and ordered[i].startswith(prefix)

    def prefix_matches(self, prefix: str) -> list[str]:
        """argparse's `_get_option_tuples` for ``--`` options: every option
        string that starts with ``prefix``, in parser order."""
        return [s for s in self.by_string if s.startswith(prefix)]

    def option_for_field(self, name: str) -> Optional[Option]:
        """The non-deprecated option storing into ``name`` (for messages)."""
        opts = self.by_field.get(name) or []
        for opt in opts:
            if opt.deprecated is None:
                return opt
        return opts[0] if opts else None

    def flag_for_field(self, name: str) -> str:
        opt = self.option_for_field(name)
        return opt.name if opt else "--" + name.replace("_", "-")

    def list(self, name: str) -> Optional[list]:
        return self.lists.get(name)

    @property
    def deterministic(self) -> Optional[dict]:
        """The ``"deterministic"`` facts, None when the release has no
        deterministic inference (or the catalog predates the key)."""
        return self.facts.get("deterministic")

    @property
    def mla_architectures(self) -> Optional[list]:
        return self.facts.get("mla_architectures")


@functools.lru_cache(maxsize=None)
def _help_table(name: str) -> dict:
    """The shared help-text table (``{"<id>": "<text>"}``) next to the catalogs."""
    path = DATA_DIR / name
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def _option(raw: dict, helps: Optional[dict] = None) -> Option:
    dep = raw.get("deprecated")
    choices = raw.get("choices")
    help_text = raw.get("help")
    if help_text is None and raw.get("help_id") is not None and helps is not None:
        help_text = helps.get(raw["help_id"], "")
    return Option(
        strings=tuple(raw["strings"]),
        dest=raw["dest"],
        # Generated catalogs leave "field" out when it equals "dest"; an
        # explicit null means "no ServerArgs field".
        field=raw.get("field", raw["dest"]),
        action=raw.get("action", "store"),
        type=raw.get("type") or "str",
        nargs=raw.get("nargs"),
        choices=tuple(choices) if choices is not None else None,
        choices_open=bool(raw.get("choices_open", False)),
        default=raw.get("default"),
        required=bool(raw.get("required", False)),
        help=help_text or "",
        deprecated=Deprecation(dep.get("behaviour", "warn"), dep.get("message", ""), dep.get("replacement"))
        if dep
        else None,
    )


@functools.lru_cache(maxsize=None)
def versions() -> tuple[str, ...]:
    """Every release a catalog ships for, oldest first."""
    found = []
    for p in DATA_DIR.iterdir():
        m = _FILE_RE.match(p.name)
        if m:
            found.append(m.group(1))
    return tuple(sorted(found, key=version_key))


def latest() -> str:
    return versions()[-1]


class UnknownVersion(ValueError):
    pass


#: longer than any release name a pin, tag or pragma could hold
MAX_VERSION_CHARS = 64


def resolve_version(requested: str) -> str:
    """Map a requested release (``0.5.4``, ``v0.5.4.post3``, ``latest``) to a
    shipped catalog: the same release, or for a patch/post release its base.
    A string no release could have (a part of 10+ digits, 65+ characters)
    is no version."""
    from sgllint.model.numbers import has_huge_number

    req = requested.strip().lstrip("vV")
    if len(req) > MAX_VERSION_CHARS or has_huge_number(req):
        raise UnknownVersion(requested)
    if req.lower() in {"latest", "main", "dev", "nightly", ""}:
        return latest()
    shipped = versions()
    if req in shipped:
        return req
    key = version_key(req)
    if not key:
        raise UnknownVersion(requested)
    for v in reversed(shipped):
        vk = version_key(v)
        if key[: len(vk)] == vk:
            return v
    if key > version_key(shipped[-1]):
        return shipped[-1]
    raise UnknownVersion(requested)


@functools.lru_cache(maxsize=None)
def load(version: str) -> Catalog:
    path = DATA_DIR / f"sglang-{version}.json"
    if not path.exists():
        raise UnknownVersion(version)
    raw = json.loads(path.read_text(encoding="utf-8"))
    helps = _help_table(raw["help_table"]) if raw.get("help_table") else None
    fields = {
        name: FieldInfo(name, info.get("type") or "str", info.get("default"), bool(info.get("cli", True)))
        for name, info in (raw.get("fields") or {}).items()
    }
    return Catalog(
        version=raw["sglang_version"],
        source=raw.get("source", ""),
        era=raw.get("era", ""),
        options=[_option(o, helps) for o in raw["options"]],
        fields=fields,
        lists={k: list(v) for k, v in (raw.get("lists") or {}).items()},
        facts={k: raw[k] for k in FACT_KEYS if raw.get(k) is not None},
    )
