"""The rule base class, its examples, and the loader of ``rules/``.

A rule is a small class in one file of ``rules/``: its code, name, severity,
docs (the module docstring, in fixed sections) and VALID/INVALID examples,
which are both its documentation and its tests. ``check(launch)`` reads a
resolved `Launch`; ``check_file(facts)`` reads what an extractor learned about
a whole file. Rules never see source syntax.

``rules/`` is not an installed top-level package (PyPI's django-rules owns
that import name): the wheel carries it as ``sgllint/rules/`` and a source
checkout keeps it beside ``sgllint/``; either way it is imported by path
under the synthetic package ``sgllint.rules``.
"""

from __future__ import annotations

import importlib.util
import re
import sys
import textwrap
import types
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, Iterable, Iterator, Optional, Union

from sgllint.diagnostic import DOCS_URL, Diagnostic, Fix, Related, Severity
from sgllint.model import FileFacts, Launch, Span

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

    @property
    def source(self) -> str:
        return textwrap.dedent(self.code).lstrip("\n")

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
        return DOCS_URL.format(code=cls.code.lower())

    # -- checking --------------------------------------------------------

    def check(self, launch: Launch) -> Iterable[Diagnostic]:
        return ()

    def check_file(self, facts: FileFacts) -> Iterable[Diagnostic]:
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
    "the rule or extractor that failed. Every other rule and file is still checked.\n\n"
    "## Why is this bad?\nThe launch was not fully checked, so a real problem may be hidden. Please report it "
    "with the file that triggers it.",
)
ENGINE_CODES = {INTERNAL_ERROR.code: INTERNAL_ERROR}


# ---------------------------------------------------------------------------
# Loading rules/ by path
# ---------------------------------------------------------------------------

SYNTHETIC_PACKAGE = "sgllint.rules"


def builtin_rules_dir() -> Path:
    """``sgllint/rules`` inside an installed wheel, ``rules/`` beside the
    package in a source checkout or editable install."""
    here = Path(__file__).resolve().parent
    packaged = here / "rules"
    if packaged.is_dir():
        return packaged
    return here.parent / "rules"


def _ensure_package(directory: Path) -> types.ModuleType:
    pkg = sys.modules.get(SYNTHETIC_PACKAGE)
    if pkg is None:
        pkg = types.ModuleType(SYNTHETIC_PACKAGE)
        pkg.__path__ = []  # type: ignore[attr-defined]
        pkg.__package__ = SYNTHETIC_PACKAGE
        sys.modules[SYNTHETIC_PACKAGE] = pkg
        import sgllint

        sgllint.rules = pkg  # type: ignore[attr-defined]
    if str(directory) not in pkg.__path__:  # type: ignore[attr-defined]
        pkg.__path__.append(str(directory))  # type: ignore[attr-defined]
    return pkg


def load_rules_dir(directory: Path) -> list[type[Rule]]:
    """Import every ``sgl*.py`` in ``directory`` as ``sgllint.rules.<stem>``
    and return the rule classes defined there, ordered by code."""
    _ensure_package(directory)
    found: list[type[Rule]] = []
    for path in sorted(directory.glob("sgl*.py")):
        mod_name = f"{SYNTHETIC_PACKAGE}.{path.stem}"
        module = sys.modules.get(mod_name)
        if module is None:
            spec = importlib.util.spec_from_file_location(mod_name, path)
            assert spec and spec.loader
            module = importlib.util.module_from_spec(spec)
            sys.modules[mod_name] = module
            try:
                spec.loader.exec_module(module)
            except BaseException:
                del sys.modules[mod_name]
                raise
        for obj in vars(module).values():
            if isinstance(obj, type) and issubclass(obj, Rule) and obj.__module__ == mod_name and "code" in obj.__dict__:
                found.append(obj)
    return sorted(found, key=lambda r: r.code)


_BUILTIN: Optional[list[type[Rule]]] = None


def builtin_rules() -> list[type[Rule]]:
    global _BUILTIN
    if _BUILTIN is None:
        _BUILTIN = load_rules_dir(builtin_rules_dir())
    return _BUILTIN


def all_codes() -> dict[str, object]:
    """Every documented code: rules and engine codes, by code."""
    codes: dict[str, object] = {r.code: r for r in builtin_rules()}
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
