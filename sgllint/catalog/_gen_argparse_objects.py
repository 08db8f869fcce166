"""The objects a replayed ``argparse`` construction builds (part of the
recorder in :mod:`._gen_argparse`): parsers and argument groups under
construction, the parse stages in execution order, and the stand-ins for
names from outside the package and for instances of its classes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ._gen_eval import ClassObj


class ExternalRef:
    """A name imported from outside the package being read."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return f"<ext {self.name}>"


class Instance:
    """An instance of a class of the package (attributes set in methods are not tracked)."""

    def __init__(self, cls: ClassObj) -> None:
        self.cls = cls


@dataclass
class Stage:
    """One ``parse_args``/``parse_known_args`` call, in execution order."""

    parser: "ParserObj"
    method: str  # "parse_args" | "parse_known_args"
    line: int
    file: str
    #: the frame of the function that ran the parse (see `_Recorder.frames`)
    frame: Any = None


@dataclass
class ParserObj:
    """An ``argparse.ArgumentParser`` under construction."""

    ident: int
    file: str
    line: int
    add_help: bool = True
    allow_abbrev: bool = True
    prefix_chars: str = "-"
    #: options and includes in registration order
    items: list = field(default_factory=list)
    #: (dest, added choices) from ``action.choices = list(action.choices) + [...]``
    choice_extensions: list = field(default_factory=list)
    subcommands: list = field(default_factory=list)

    def option_strings(self) -> dict:
        out: dict = {}
        for item in self.items:
            if isinstance(item, dict) and "strings" in item:
                for s in item["strings"]:
                    out[s] = item
        return out


@dataclass
class GroupObj:
    parser: ParserObj
    exclusive: bool = False
    required: bool = False
    ident: int = 0
