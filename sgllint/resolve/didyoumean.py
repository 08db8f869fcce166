"""Did-you-mean for what users type at sgllint itself: rule codes (code-aware:
``SGL1O1`` is ``SGL101`` with a letter O for a zero), rule names and command
line options. Rules' own suggestions (flags, choices) live in
`sgllint.resolve.suggest`."""

from __future__ import annotations

import re
from typing import Iterable, Optional

from sgllint.resolve.suggest import closest

#: letters typed for the digit they look like, in the digits of a code
_LOOKALIKE = str.maketrans({"O": "0", "Q": "0", "D": "0", "I": "1", "L": "1", "Z": "2", "S": "5", "B": "8", "G": "6"})
_CODE_SHAPE = re.compile(r"^\s*(S\s*G\s*L|SG1|5GL|SQL)?[\s_-]*([0-9A-Z]{1,5})\s*$")


def normalize_code(text: str) -> Optional[str]:
    """``text`` as an ``SGLnnn``-shaped string with look-alike letters in its
    digit part read as digits; None when it does not look like a code."""
    m = _CODE_SHAPE.match(text.upper())
    if m is None or (m.group(1) is None and not any(c.isdigit() for c in m.group(2))):
        return None
    return "SGL" + m.group(2).translate(_LOOKALIKE)


def distance(a: str, b: str) -> int:
    """Damerau-Levenshtein distance (adjacent transpositions count one)."""
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb))
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                cur[j] = min(cur[j], prev2[j - 2] + 1)
        prev2, prev = prev, cur
    return prev[-1]


def closest_code(text: str, codes: Iterable[str]) -> Optional[str]:
    """The code ``text`` most likely meant: look-alike letters read as
    digits, then the fewest edits to the digits (at most one per three
    digits), ties to the same rule family (first digit), then the lowest."""
    norm = normalize_code(text)
    if norm is None:
        return None
    digits = norm[3:]
    best: Optional[tuple] = None
    for code in codes:
        d = distance(digits, code[3:])
        if d > max(1, len(code[3:]) // 3):
            continue
        key = (d, code[3:4] != digits[:1], code)
        if best is None or key < best:
            best = key
    return best[2] if best else None


def closest_selector(text: str, codes: Iterable[str], names: Iterable[str]) -> Optional[str]:
    """A rule code for a code-shaped selector, else the closest rule name."""
    codes = list(codes)
    found = closest_code(text, codes)
    if found is not None:
        return found
    if normalize_code(text) is not None:
        return None
    return closest(text.lower(), list(names), cutoff=0.7)


def closest_option(text: str, options: Iterable[str]) -> Optional[str]:
    """``--output-fromat`` -> ``--output-format``; ``--output-fromat=json``
    is matched by its name."""
    name = text.split("=", 1)[0]
    long = [o for o in options if o.startswith("--")] if name.startswith("--") else list(options)
    return closest(name, long, cutoff=0.75)
