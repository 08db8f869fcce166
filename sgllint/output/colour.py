"""Colour for the text formats, on terminals only, the way ruff and most
CLIs decide it: ``NO_COLOR`` (any non-empty value) turns it off and wins;
``FORCE_COLOR`` (non-empty) turns it on when the output is not a terminal;
otherwise colour when the stream is a TTY. Only sgllint's own words are
painted; text from the tree goes through `visible` first, so it can never
carry an escape sequence of its own."""

from __future__ import annotations

import os
from typing import IO, Mapping, Optional

STYLES = {
    "bold": "1",
    "red": "1;31",
    "yellow": "1;33",
    "cyan": "36",
    "green": "32",
    "blue": "1;34",
    "dim": "2",
}
RESET = "\x1b[0m"


def enabled(stream: Optional[IO] = None, environ: Optional[Mapping[str, str]] = None) -> bool:
    env = os.environ if environ is None else environ
    if env.get("NO_COLOR"):
        return False
    if env.get("FORCE_COLOR"):
        return True
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty()) and env.get("TERM") != "dumb"
    except (OSError, ValueError):
        return False


def paint(text: str, style: str, on: bool) -> str:
    return f"\x1b[{STYLES[style]}m{text}{RESET}" if on and text else text
