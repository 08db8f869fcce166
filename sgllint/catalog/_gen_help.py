"""What every catalog generator writes the same way: the id of a help
text in the shared help table, the table's file form, and the option keys
left out of a catalog when they hold argparse's default. A module of its
own so the wrapper and diffusion generators need not import generate.py,
which dispatches to them."""

from __future__ import annotations

import hashlib
import json

#: (key, argparse default): an option omits the key when it holds this value
OMITTED_DEFAULTS = (
    ("action", "store"),
    ("type", "str"),
    ("nargs", None),
    ("choices", None),
    ("choices_open", False),
    ("const", None),
    ("default", None),
    ("required", False),
)


def help_id(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def dump_help_table(table: dict) -> str:
    return json.dumps(dict(sorted(table.items())), ensure_ascii=False, indent=0, separators=(",", ":")) + "\n"
