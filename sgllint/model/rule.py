"""The rule base class, its examples, and the loader of ``rules/``.

A rule is a small class in one file of ``rules/``: its code, name, severity,
docs (the module docstring, in fixed sections) and VALID/INVALID examples,
which are both its documentation and its tests. ``check(launch)`` reads a
resolved `Launch`; ``check_file(facts)`` reads what an extractor learned about
a whole file. Rules never see source syntax.

``rules/`` is not an installed top-level package (PyPI's django-rules owns
that import name): the wheel carries it as ``sgllint/rules/`` (setuptools'
``package-dir`` only places the files) and a source checkout or editable
install keeps it beside ``sgllint/``; `builtin_rules_dir` is the one place
that knows which, and `load_rules_dir` the one loader: it imports a folder by
path under a synthetic package (``sgllint.rules`` for the built-in rules, a
package of its own for each of a user's ``--rule-dir`` folders), so the
three installs and a user's rules load the same way.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib.util
import os
import re
import sys
import textwrap
import types
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, Iterable, Iterator, Optional, Union

from sgllint.model.diagnostic import DOCS_URL, Diagnostic, Fix, Related, Severity
from sgllint.model.facts import FileFacts, Launch, Span
from sgllint.model.kinds import LaunchFact

ERROR = Severity.ERROR
WARNING = Severity.WARNING
INFO = Severity.INFO

DOC_SECTIONS = ("What it does", "Why is this bad?", "Example", "Use instead", "References")

#: format name -> file name an example is linted as
EXAMPLE_FILES = {
    "sh": "example.sh",
    "py": "example.py",
    "yaml": "example.yaml",
    "toml": "example.toml",
    "dockerfile": "Dockerfile",
    "md": "example.md",
}


@dataclass(frozen=True)
class Example:
    code: str
    fmt: str = "sh"
    valid: bool = True
    at: Union[str, tuple[str, int], None] = None  # text the primary span covers
    count: int = 1  # diagnostics of this rule an invalid example yields
    message: Optional[str] = None  # a substring the message must contain
    sglang: Optional[str] = None  # the release the example is judged against
    path: Optional[str] = None  # file name to lint it as
    #: an invalid example of a fixable rule: the text after its fix (dedented
    #: like ``code``), and whether that fix is unsafe (`sgllint check --fix
    #: --unsafe-fixes` only); None: the rule offers no fix here
    fix: Optional[str] = None
    #: shorthand for ``fix=``: the fix replaces exactly the text ``at`` names
    #: with this (most fixes rewrite one value), so the example is written once
    fix_to: Optional[str] = None
    unsafe: bool = False

    def __post_init__(self):
        if self.fix is not None and self.fix_to is not None:
            raise TypeError("give an example's fix as fix= or as fix_to=, not both")
        if self.fix_to is not None and self.at is None:
            raise TypeError("fix_to= replaces the text at= names: give at=")

    @property
    def has_fix(self) -> bool:
        return self.fix is not None or self.fix_to is not None

    @property
    def source(self) -> str:
        return textwrap.dedent(self.code).lstrip("\n")

    @property
    def fixed(self) -> Optional[str]:
        """The expected text after the fix, dedented like `source`."""
        if self.fix_to is not None:
            start, end = self.at_span()
            return self.source[:start] + self.fix_to + self.source[end:]
        return None if self.fix is None else textwrap.dedent(self.fix).lstrip("\n")

    @property
    def filename(self) -> str:
        return self.path or EXAMPLE_FILES[self.fmt]

    def at_span(self) -> tuple[int, int]:
        """Offsets of the text ``at`` names in `source`."""
        if self.at is None:
            raise ValueError("example has no 'at'")
        text, nth = (self.at, 1) if isinstance(self.at, str) else self.at
        src = self.source
        pos = -1
        for _ in range(nth):
            pos = src.find(text, pos + 1)
            if pos < 0:
                raise ValueError(f"{text!r} (occurrence {nth}) not in example")
        return pos, pos + len(text)


def _example_factory(valid: bool):
    def make(fmt: str):
        def build(code: str, **kw) -> Example:
            return Example(code=code, fmt=fmt, valid=valid, **kw)

        return staticmethod(build)

    return make


class Valid(Example):
    """A snippet the rule must accept: ``Valid.sh("...")``."""

    def __new__(cls, code: str, fmt: str = "sh", **kw):  # type: ignore[misc]
        return Example(code=code, fmt=fmt, valid=True, **kw)

    sh = _example_factory(True)("sh")
    py = _example_factory(True)("py")
    yaml = _example_factory(True)("yaml")
    toml = _example_factory(True)("toml")
    dockerfile = _example_factory(True)("dockerfile")
    md = _example_factory(True)("md")


class Invalid(Example):
    """A snippet the rule must flag, with ``at=`` the text its primary span
    covers: ``Invalid.sh("...", at="--tp-sizes")``."""

    def __new__(cls, code: str, fmt: str = "sh", **kw):  # type: ignore[misc]
        return Example(code=code, fmt=fmt, valid=False, **kw)

    sh = _example_factory(False)("sh")
    py = _example_factory(False)("py")
    yaml = _example_factory(False)("yaml")
    toml = _example_factory(False)("toml")
    dockerfile = _example_factory(False)("dockerfile")
    md = _example_factory(False)("md")


_CODE_RE = re.compile(r"^SGL\d{3}$")
_NAME_RE = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")

REGISTRY: dict[str, type["Rule"]] = {}


class Rule:
    """Base class of every rule. Subclasses set the class attributes and
    implement `check` (one launch) and/or `check_file` (one file)."""

    code: ClassVar[str]
    name: ClassVar[str]
    severity: ClassVar[Severity]
    VALID: ClassVar[list[Example]] = []
    INVALID: ClassVar[list[Example]] = []
    #: False: the rule runs only when selected by its code, a prefix of it or
    #: its name (``--extend-select SGL501``), never through ``ALL`` alone
    default_enabled: ClassVar[bool] = True
    #: (code, name) of a removed umbrella code this rule took one pattern of:
    #: selecting, ignoring or documenting the old code reaches its successors
    replaces: ClassVar[tuple[str, str]] = ()
    #: `check` finds nothing on a launch that shows none of these facts, so the
    #: rule is not even imported for a file without such a launch (empty: any
    #: launch of its targets may trigger it); tests/test_rule_index.py holds
    #: every rule to it on every launch of the examples and fixtures
    needs: ClassVar[frozenset[LaunchFact]] = frozenset()
    #: `check` finds nothing on a launch that gives none of these ServerArgs
    #: fields (e.g. ``tp_size``: the rule judges a ``--tp-size`` written), so
    #: the rule is imported only for a file with such a launch (empty: any);
    #: held to it like `needs`
    needs_args: ClassVar[frozenset[str]] = frozenset()

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        code = cls.__dict__.get("code")
        if code is None:
            return  # an abstract helper base
        if not _CODE_RE.match(code):
            raise TypeError(f"{cls.__name__}: code {code!r} is not SGL + 3 digits")
        if not _NAME_RE.match(cls.__dict__.get("name", "")):
            raise TypeError(f"{cls.__name__}: name must be kebab-case")
        previous = REGISTRY.get(code)
        if previous is not None and previous.__qualname__ != cls.__qualname__:
            raise TypeError(f"{code} defined twice: {previous.__qualname__} and {cls.__qualname__}")
        if previous is None and not cls.__module__.startswith(SYNTHETIC_PACKAGE + "."):
            # a user's rule meets the built-in rules whether or not they are imported yet
            builtin = builtin_index().get(code)
            if builtin is not None and builtin.cls != cls.__qualname__:
                raise TypeError(f"{code} defined twice: {builtin.cls} and {cls.__qualname__}")
        REGISTRY[code] = cls

    # -- metadata --------------------------------------------------------

    @classmethod
    def doc(cls) -> str:
        module = sys.modules.get(cls.__module__)
        return textwrap.dedent((module.__doc__ if module else None) or cls.__doc__ or "").strip()

    @classmethod
    def summary(cls) -> str:
        return cls.doc().splitlines()[0].strip() if cls.doc() else ""

    @classmethod
    def url(cls) -> str:
        return _docs_url(cls.code)  # every finding carries it: formatted once per code

    # -- checking --------------------------------------------------------

    def check(self, launch: Launch) -> Iterable[Diagnostic]:
        return ()

    def check_file(self, facts: FileFacts) -> Iterable[Diagnostic]:
        return ()

    def check_group(self, launches: list[Launch]) -> Iterable[Diagnostic]:
        """The launches of one file together (every target: a router's too),
        for rules that judge a group: prefill/decode pairs, a router and its
        workers, the ranks of a multi-node launch."""
        return ()

    def diagnostic(
        self,
        span: Span,
        message: str,
        *,
        help: str = "",
        related: Iterable[tuple[Span, str]] = (),
        fix: Optional[Fix] = None,
        severity: Optional[Severity] = None,
        launch: Optional[Launch] = None,
    ) -> Diagnostic:
        return Diagnostic(
            code=self.code,
            name=self.name,
            severity=severity or self.severity,
            message=message,
            span=span,
            related=[Related(s, m) for s, m in related],
            help=help,
            fix=fix,
            url=self.url(),
            launch_span=launch.span if launch is not None else None,
        )


@functools.lru_cache(maxsize=None)
def _docs_url(code: str) -> str:
    return DOCS_URL.format(code=code.lower())


# ---------------------------------------------------------------------------
# Codes the engine emits itself (documented like rules, but not in rules/)
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class EngineCode:
    code: str
    name: str
    severity: Severity
    description: str

    def summary(self) -> str:
        return self.description.splitlines()[0]

    def doc(self) -> str:
        return self.description

    def url(self) -> str:
        return DOCS_URL.format(code=self.code.lower())


INTERNAL_ERROR = EngineCode(
    "SGL999",
    "internal-error",
    ERROR,
    "A rule or an extractor raised an exception; the run continues.\n\n"
    "## What it does\nReports, at the launch or file being checked, that sgllint itself failed on it and names "
    "the rule or extractor that failed (or the exception, when reading or resolving the file failed). Every "
    "other rule, launch and file is still checked, and the run exits with code 2.\n\n"
    "## Why is this bad?\nThe launch was not fully checked, so a real problem may be hidden. Please report it "
    "with the file that triggers it.",
)
FILE_NOT_READ = EngineCode(
    "SGL002",
    "file-not-read",
    WARNING,
    "A file or directory in the linted tree was not read, so nothing in it was checked.\n\n"
    "## What it does\nReports, at the path, why sgllint did not read it: it is not a regular file (a FIFO, a "
    "socket, a device, or a symbolic link to one), it is larger than `max-file-size` (default 2 MiB; "
    "`--max-file-size` on the command line), it or its directory cannot be read, it is a symbolic link that "
    "leads out of the linted directory, or it is an ignore file (`.gitignore`, `.ignore`) whose patterns "
    "could not be applied. Every other file is still linted.\n\n"
    "## Why is this bad?\nA launch in a file that was not read is not checked. Reading such a path could "
    "hang the run (a FIFO waits for a writer forever), never end (`/dev/zero`), exhaust memory, or read "
    "a file outside the project that the tree points at.\n\n"
    "## Example\nA FIFO named `serve.sh`, a 40 MB generated `launch.py`, or `config.yaml` linked to "
    "`/etc/secret.yaml`.\n\n"
    "## Use instead\nKeep launch configurations as regular files inside the project; raise "
    "`max-file-size` in `[tool.sgllint]` for a large file that should be linted, or add it to "
    "`extend-exclude`.",
)
CONFIG_ERROR = EngineCode(
    "SGL003",
    "invalid-configuration",
    ERROR,
    "sgllint's own configuration (`[tool.sgllint]`, `.sgllint.toml`, `sgllint.toml`) has an error.\n\n"
    "## What it does\nReports an unknown key, a bad value or TOML that does not parse in the configuration "
    "file that applies to the linted file, with the nearest valid key or value. `sgllint check` stops with exit "
    "code 2; the flake8 plugin reports it on line 1 of each file it checks and the language server shows it on "
    "the configuration file and as a message, and both go on linting with the default configuration.\n\n"
    "## Why is this bad?\nA misspelt `ignore` or `sglang-version` is silently not applied: findings the team "
    "meant to silence show up, or launches are judged against the wrong SGLang release.\n\n"
    "## Example\n```toml\n[tool.sgllint]\nignores = [\"SGL109\"]\n```\n\n"
    "## Use instead\n```toml\n[tool.sgllint]\nignore = [\"SGL109\"]\n```",
)
ENGINE_CODES = {
    FILE_NOT_READ.code: FILE_NOT_READ,
    CONFIG_ERROR.code: CONFIG_ERROR,
    INTERNAL_ERROR.code: INTERNAL_ERROR,
}


@dataclass(frozen=True)
class RemovedCode:
    """A code that reported several unrelated patterns and was split into one
    code per pattern. Codes are a public contract, so it stays documented
    (`sgllint rule`, docs/rules.md) and, as ruff's redirects do, selecting or
    ignoring it (configuration, ``--select``, ``# noqa``) means its successors.
    Declared by the successors themselves (`Rule.replaces`)."""

    code: str
    name: str
    successors: tuple[type[Rule], ...]
    removed = True

    def summary(self) -> str:
        return "Removed: split into " + ", ".join(f"{r.code} ({r.name})" for r in self.successors) + "."

    def doc(self) -> str:
        lines = [
            self.summary(),
            "",
            "## What it does",
            f"Nothing any more. {self.code} reported several unrelated patterns under one code; each pattern now "
            "has its own code. Selecting or ignoring "
            f"`{self.code}` (or `{self.name}`) in the configuration, on the command line or in a `# noqa` comment "
            "selects or ignores all of them:",
            "",
        ]
        lines += [f"- [{r.code}](#{r.code.lower()}) {r.name}: {r.summary()}" for r in self.successors]
        return "\n".join(lines)

    def url(self) -> str:
        return DOCS_URL.format(code=self.code.lower())


# ---------------------------------------------------------------------------
# Loading rules/ by path
# ---------------------------------------------------------------------------

SYNTHETIC_PACKAGE = "sgllint.rules"


@functools.lru_cache(maxsize=1)
def builtin_rules_dir() -> Path:
    """``sgllint/rules`` inside an installed wheel, ``rules/`` beside the
    package in a source checkout or editable install."""
    here = Path(__file__).resolve().parents[1]  # the sgllint package
    packaged = here / "rules"
    if packaged.is_dir():
        return packaged
    return here.parent / "rules"


def _ensure_package(directory: Path, package: str = SYNTHETIC_PACKAGE) -> types.ModuleType:
    pkg = sys.modules.get(package)
    if pkg is None:
        pkg = types.ModuleType(package)
        pkg.__path__ = []  # type: ignore[attr-defined]
        pkg.__package__ = package
        sys.modules[package] = pkg
        if package == SYNTHETIC_PACKAGE:
            import sgllint

            sgllint.rules = pkg  # type: ignore[attr-defined]
    if str(directory) not in pkg.__path__:  # type: ignore[attr-defined]
        pkg.__path__.append(str(directory))  # type: ignore[attr-defined]
    return pkg


def load_rules_dir(directory: Path, package: str = SYNTHETIC_PACKAGE) -> list[type[Rule]]:
    """Import every ``sgl*.py`` in ``directory`` as ``<package>.<stem>``
    (helpers beside them import as ``<package>._helper``) and return the
    rule classes defined there, ordered by code. The one loader of rules:
    the built-in ``rules/`` (package ``sgllint.rules``) and each of a
    user's rule folders (a package of its own) go through it."""
    _ensure_package(directory, package)
    found: list[type[Rule]] = []
    for path in sorted(directory.glob("sgl*.py")):
        mod_name = f"{package}.{path.stem}"
        module = _import_rule_module(directory, package, path.stem)
        for obj in vars(module).values():
            if isinstance(obj, type) and issubclass(obj, Rule) and obj.__module__ == mod_name and "code" in obj.__dict__:
                found.append(obj)
    return sorted(found, key=lambda r: r.code)


def _import_rule_module(directory: Path, package: str, stem: str) -> types.ModuleType:
    """``<package>.<stem>`` from ``directory/<stem>.py``, imported once."""
    mod_name = f"{package}.{stem}"
    module = sys.modules.get(mod_name)
    if module is None:
        _ensure_package(directory, package)
        spec = importlib.util.spec_from_file_location(mod_name, directory / f"{stem}.py")
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        sys.modules[mod_name] = module
        try:
            spec.loader.exec_module(module)
        except BaseException:
            del sys.modules[mod_name]
            raise
    return module


def user_rules_package(directory: Path) -> str:
    """The package a user's rule folder is imported as: one per folder, so
    its modules never shadow the built-in rules or another folder's."""
    import hashlib

    return "sgllint_user_rules_" + hashlib.sha256(str(directory.resolve()).encode()).hexdigest()[:12]


class RuleDirError(Exception):
    """A user's rule folder could not be loaded."""


def load_rule_dirs(directories: Iterable[Path]) -> list[type[Rule]]:
    """The rules of the user's own rule folders (``--rule-dir``, or
    ``rule-dirs`` of a configuration the user named with ``--config``: this
    runs their code, so it is never taken from a configuration found in the
    linted tree, see `sgllint.engine.config.discover`)."""
    found: list[type[Rule]] = []
    for directory in directories:
        if not Path(directory).is_dir():
            raise RuleDirError(f"rule folder {directory} is not a directory")
        try:
            found += load_rules_dir(Path(directory), user_rules_package(Path(directory)))
        except Exception as e:  # a user's rule that does not import: say which and why
            raise RuleDirError(f"rule folder {directory}: {type(e).__name__}: {e}") from e
    return found


_BUILTIN: Optional[list[type[Rule]]] = None


def builtin_rules() -> list[type[Rule]]:
    """Every built-in rule class, all of their modules imported (docs, the
    rule pages, tests); linting imports only the rules a file can trigger
    (`builtin_index`, `RuleEntry.load`)."""
    global _BUILTIN
    if _BUILTIN is None:
        _BUILTIN = load_rules_dir(builtin_rules_dir())
    return _BUILTIN


# ---------------------------------------------------------------------------
# The rule index: what the engine needs to know of a built-in rule before
# importing it (rules/_index.py, generated from the rule files)
# ---------------------------------------------------------------------------

#: the generated index beside the rule files; ``python -m sgllint.hosts.docs`` rewrites it
INDEX_MODULE = "_index"


@dataclass(frozen=True)
class RuleEntry:
    """A built-in rule as the engine chooses it: its identity, when it is on,
    which launches it checks and which hooks it implements, read from the
    generated index without importing the rule's module."""

    code: str
    name: str
    module: str  # the file's stem in rules/
    cls: str  # the class's name in that module
    default_enabled: bool
    replaces: tuple[str, ...]  # (code, name) of a removed umbrella code, or ()
    targets: tuple[str, ...]  # the launch targets `check` reads, sorted
    checks_launch: bool  # overrides `Rule.check`
    checks_file: bool  # overrides `Rule.check_file`
    checks_group: bool  # overrides `Rule.check_group`
    sglang_checks: tuple[str, ...]  # SGLang check sites the rule reports (SGL400 leaves them to it)
    sglang_rewrites: tuple[str, ...]  # ServerArgs fields whose rewrites it reports (SGL401 leaves them)
    needs_args: tuple[str, ...]  # `Rule.needs_args`, sorted
    needs: tuple[LaunchFact, ...]  # `Rule.needs`, sorted

    @classmethod
    def of(cls, rule: type[Rule]) -> "RuleEntry":
        """The entry of an imported rule class (what the index generator writes)."""
        return cls(
            code=rule.code,
            name=rule.name,
            module=rule.__module__.rsplit(".", 1)[-1],
            cls=rule.__qualname__,
            default_enabled=bool(rule.default_enabled),
            replaces=tuple(rule.replaces),
            targets=tuple(sorted(getattr(rule, "targets", DEFAULT_TARGETS))),
            checks_launch=rule.check is not Rule.check,
            checks_file=rule.check_file is not Rule.check_file,
            checks_group=rule.check_group is not Rule.check_group,
            sglang_checks=tuple(getattr(rule, "sglang_checks", ()) or ()),
            sglang_rewrites=tuple(getattr(rule, "sglang_rewrites", ()) or ()),
            needs_args=tuple(sorted(rule.needs_args)),
            needs=tuple(sorted(rule.needs)),
        )

    @classmethod
    def of_row(cls, row: tuple) -> "RuleEntry":
        """An entry of the generated index (its facts written as their values)."""
        *fields, needs = row
        return cls(*fields, needs=tuple(LaunchFact(v) for v in needs))

    def triggered_by(self, launch: Launch) -> bool:
        """Whether ``launch`` may make this rule's `check` find something."""
        return (launch.context.target in self.targets
                and (not self.needs or any(f.holds(launch) for f in self.needs))
                and (not self.needs_args or any(launch.last(field) is not None for field in self.needs_args)))

    def load(self) -> type[Rule]:
        """Import the rule's module (once) and return its class."""
        return getattr(_import_rule_module(builtin_rules_dir(), SYNTHETIC_PACKAGE, self.module), self.cls)


#: what a rule checks unless it says otherwise (``targets``): launches of
#: SGLang's own server parser (`sgllint.resolve.context.LaunchContext.target`)
DEFAULT_TARGETS = frozenset({"sglang"})

_INDEX: Optional[dict[str, RuleEntry]] = None


def builtin_index() -> dict[str, RuleEntry]:
    """The built-in rules' entries by code, ordered by code, from the
    generated ``rules/_index.py`` (`tests/test_rule_index.py` keeps it equal
    to the rule files). A rule file the index does not list (added, not yet
    regenerated) makes the index be computed by importing every rule, so a
    stale index never drops a rule."""
    global _INDEX
    if _INDEX is None:
        directory = builtin_rules_dir()
        try:
            entries = [RuleEntry.of_row(row) for row in _import_rule_module(directory, SYNTHETIC_PACKAGE, INDEX_MODULE).RULES]
        except (ImportError, AttributeError, TypeError, ValueError):
            entries = []
        stems = {name[:-3] for name in os.listdir(directory) if name.startswith("sgl") and name.endswith(".py")}
        if not entries or {e.module for e in entries} != stems:
            entries = [RuleEntry.of(rule) for rule in builtin_rules()]
        _INDEX = {e.code: e for e in sorted(entries, key=lambda e: e.code)}
    return _INDEX


def index_source(rules: Iterable[type[Rule]]) -> str:
    """The text of ``rules/_index.py`` for these rule classes."""
    fields = [f.name for f in dataclasses.fields(RuleEntry)]
    lines = [
        '"""The built-in rules\' index: what the engine needs to choose a rule without',
        "importing its module (`sgllint.model.rule.RuleEntry`). Generated from the rule",
        'files by ``python -m sgllint.hosts.docs``; do not edit."""',
        "",
        f"# {', '.join(fields)}",
        "RULES = (",
    ]
    for rule in sorted(rules, key=lambda r: r.code):
        entry = RuleEntry.of(rule)
        row = tuple(getattr(entry, f) for f in fields[:-1]) + (tuple(f.value for f in entry.needs),)
        lines.append(f"    {row!r},")
    lines.append(")")
    return "\n".join(lines) + "\n"


def removed_codes(rules: Optional[Iterable[type[Rule]]] = None) -> dict[str, RemovedCode]:
    """The removed umbrella codes, each with its successors, by code."""
    found: dict[tuple[str, str], list[type[Rule]]] = {}
    for rule in builtin_rules() if rules is None else rules:
        if rule.replaces:
            found.setdefault(tuple(rule.replaces), []).append(rule)
    return {code: RemovedCode(code, name, tuple(sorted(succ, key=lambda r: r.code))) for (code, name), succ in sorted(found.items())}


_REDIRECTS: Optional[dict[str, frozenset[str]]] = None


def redirects() -> dict[str, frozenset[str]]:
    """Removed code (upper case) or name (lower case) -> its successors' codes
    (from the index: no rule is imported)."""
    global _REDIRECTS
    if _REDIRECTS is None:
        found: dict[tuple[str, ...], set[str]] = {}
        for entry in builtin_index().values():
            if entry.replaces:
                found.setdefault(entry.replaces, set()).add(entry.code)
        table: dict[str, frozenset[str]] = {}
        for (code, name), successors in sorted(found.items()):
            table[code] = table[name] = frozenset(successors)
        _REDIRECTS = table
    return _REDIRECTS


def code_names() -> dict[str, str]:
    """Every documented code's name, by code: rules, removed and engine codes
    (what `all_codes` lists, from the index: no rule is imported)."""
    names = {e.code: e.name for e in builtin_index().values()}
    for entry in builtin_index().values():
        if entry.replaces:
            names[entry.replaces[0]] = entry.replaces[1]
    names.update((c.code, c.name) for c in ENGINE_CODES.values())
    return dict(sorted(names.items()))


def predecessors(code: str) -> frozenset[str]:
    """The removed codes and names that now mean ``code`` (for ``# noqa``)."""
    return frozenset(old for old, codes in redirects().items() if code in codes)


def all_codes() -> dict[str, object]:
    """Every documented code: rules, removed codes and engine codes, by code."""
    codes: dict[str, object] = {r.code: r for r in builtin_rules()}
    codes.update(removed_codes())
    codes.update(ENGINE_CODES)
    return dict(sorted(codes.items()))


def find_rule(code_or_name: str):
    key = code_or_name.strip()
    for code, rule in all_codes().items():
        if key.upper() == code or key.lower() == rule.name:
            return rule
    return None


def iter_examples(rule: type[Rule]) -> Iterator[tuple[str, Example]]:
    """(test id, example) for every example of ``rule``."""
    counters: dict[tuple[bool, str], int] = {}
    for ex in list(rule.VALID) + list(rule.INVALID):
        key = (ex.valid, ex.fmt)
        counters[key] = counters.get(key, 0) + 1
        kind = "valid" if ex.valid else "invalid"
        yield f"{rule.code}-{kind}-{ex.fmt}-{counters[key]}", ex
