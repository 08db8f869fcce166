"""The input formats, each registered once: its name, its extractor, how
its files are recognised (suffixes, file names, a shell shebang), the LSP
language ids that name it, and how a comment starts (the pre-commit hooks
hand sgllint every text file and need no list), and the byte shapes its
files must contain to hold a launch (`sgllint.formats.shapes`, for the
engine's prefilter). Every host and the engine read this table; adding a format is a
package under `sgllint.formats` plus one `register` call here.

An extractor turns a file into `FileFacts` (launch sites with exact spans,
comments, parse problems); it knows the launch shapes (`launchers`) but
nothing of rules or catalogs. Extractors are imported lazily so a run over
files without launches never pays for libcst or tree-sitter.
"""

from __future__ import annotations

import importlib
import os
import re
from dataclasses import dataclass
from pathlib import PurePath
from typing import Callable, Optional

from sgllint.formats import shapes
from sgllint.formats.shapes import Shapes
from sgllint.model.facts import FileFacts, Source


@dataclass(frozen=True)
class Format:
    name: str
    extractor: str  # "module:function", imported on first use
    suffixes: tuple[str, ...] = ()  # lower case, with the dot
    file_names: Optional[str] = None  # a regex on the whole file name (case-insensitive)
    shebang: bool = False  # a file without a suffix whose first line runs a POSIX shell
    languages: tuple[str, ...] = ()  # LSP ``languageId`` values of its documents
    comment: tuple[str, str] = ("#", "")  # how a suppression comment opens and closes
    # what its files' bytes must contain to hold a launch (the engine's prefilter); None: the word sglang
    shapes: Optional[Shapes] = None


#: name -> format, in registration order
FORMATS: dict[str, Format] = {}
#: format -> "module:function" of its extractor (a view of `FORMATS`)
EXTRACTORS: dict[str, str] = {}
#: suffix -> format (a view of `FORMATS`)
_SUFFIXES: dict[str, str] = {}
_NAMES: list[tuple[re.Pattern, str]] = []
#: suffix -> format, for `format_by_name` (cleared when the table changes)
_FORMAT_OF_SUFFIX: dict[str, str] = {}


def register(fmt: Format) -> Format:
    """Add (or replace) an input format; every host sees it from then on."""
    _FORMAT_OF_SUFFIX.clear()
    FORMATS[fmt.name] = fmt
    EXTRACTORS[fmt.name] = fmt.extractor
    for suffix in fmt.suffixes:
        _SUFFIXES[suffix] = fmt.name
    if fmt.file_names:
        _NAMES.append((re.compile(fmt.file_names, re.I), fmt.name))
    return fmt


def unregister(name: str) -> None:
    _FORMAT_OF_SUFFIX.clear()
    fmt = FORMATS.pop(name)
    EXTRACTORS.pop(name, None)
    for suffix in fmt.suffixes:
        if _SUFFIXES.get(suffix) == name:
            del _SUFFIXES[suffix]
    _NAMES[:] = [(rx, n) for rx, n in _NAMES if n != name]


register(Format(
    "shell", "sgllint.formats.shell.extractor:extract", (".sh", ".bash", ".ksh", ".zsh", ".command"),
    shebang=True, languages=("shellscript", "sh", "bash"), shapes=shapes.SHELL,
))
register(Format("yaml", "sgllint.formats.yaml.extractor:extract", (".yaml", ".yml"), languages=("yaml",), shapes=shapes.YAML))
register(Format("python", "sgllint.formats.python.extractor:extract", (".py",), languages=("python",), shapes=shapes.PYTHON))
register(Format("toml", "sgllint.formats.toml.extractor:extract", (".toml",), languages=("toml",), shapes=shapes.TOML))
register(Format(
    "dockerfile", "sgllint.formats.dockerfile.extractor:extract",
    # Dockerfile, Dockerfile.rocm, gpu.Dockerfile, Containerfile (any case)
    file_names=r"^(?:(?:docker|container)file(?:\..+)?|.+\.(?:docker|container)file)$",
    languages=("dockerfile",), shapes=shapes.DOCKERFILE,
))
register(Format(
    "markdown", "sgllint.formats.markdown.extractor:extract", (".md", ".mdx", ".markdown"),
    languages=("markdown",), comment=("<!--", " -->"), shapes=shapes.MARKDOWN,
))

_SHEBANG_RE = re.compile(r"^#!\s*(?:/usr)?(?:/local)?/bin/(?:env\s+(?:-\S+\s+)*)?(ba|da|k|z)?sh\b")


def detect_format(path: str, head: str = "") -> Optional[str]:
    """The format of ``path`` by its name, else by a shebang in ``head``."""
    p = PurePath(path)
    fmt = _SUFFIXES.get(p.suffix.lower())
    if fmt in EXTRACTORS:
        return fmt
    for rx, name in _NAMES:
        if rx.match(p.name) and name in EXTRACTORS:
            return name
    if not p.suffix and _SHEBANG_RE.match(head):
        return next((f.name for f in FORMATS.values() if f.shebang), None)
    return None


def format_by_name(path: str) -> Optional[str]:
    """`detect_format(path)` (by name only), remembered per suffix when the
    suffix alone decides it: a walk asks for every file, and `PurePath`
    costs more than the rest of a prefilter-rejected file."""
    name = os.path.basename(path)
    i = name.rfind(".")
    suffix = name[i:] if 0 < i < len(name) - 1 else ""  # PurePath.suffix
    if suffix:
        fmt = _FORMAT_OF_SUFFIX.get(suffix)
        if fmt is not None:
            return fmt
        probe = detect_format("x" + suffix)
        if probe is not None and probe in EXTRACTORS and _SUFFIXES.get(suffix.lower()) == probe:
            _FORMAT_OF_SUFFIX[suffix] = probe
            return probe
    return detect_format(path)


def supported_formats() -> list[str]:
    return sorted(EXTRACTORS)


def extractor(fmt: str) -> Callable[[Source], FileFacts]:
    module, func = EXTRACTORS[fmt].split(":")
    return getattr(importlib.import_module(module), func)


def format_of_language(language_id: str) -> Optional[str]:
    """The format of an LSP document by its ``languageId`` (for a buffer whose
    name does not tell)."""
    return next((f.name for f in FORMATS.values() if language_id in f.languages), None)


def comment(fmt: str, text: str) -> str:
    """``text`` as a comment of the format (a suppression pragma)."""
    opening, closing = FORMATS[fmt].comment
    return f"{opening} {text}{closing}"
