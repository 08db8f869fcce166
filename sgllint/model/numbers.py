"""Numbers read from linted text, bounded.

Python's ``int()`` refuses a string of more than 4,300 digits with a
ValueError (and ``str.isdigit`` admits characters such as ``²`` that ``int``
refuses). A GPU count, an SM or a version part of more digits than any real
one is not a number SGLang could use: it is treated as no number at all.
"""

from __future__ import annotations

import re
from typing import Optional

#: more digits than any count, SM or release part sgllint reads (a dated
#: ``.dev20250101`` part has 8)
MAX_DIGITS = 9
_SMALL_DECIMAL = re.compile(r"[0-9]{1,%d}" % MAX_DIGITS)


def small_int(text: str) -> Optional[int]:
    """``text`` (surrounding blanks ignored) as an int when it is an ASCII
    decimal of at most `MAX_DIGITS` digits, else None."""
    stripped = text.strip()
    return int(stripped) if _SMALL_DECIMAL.fullmatch(stripped) else None


def has_huge_number(text: str) -> bool:
    """Whether ``text`` holds a run of more than `MAX_DIGITS` ASCII digits."""
    return re.search(r"[0-9]{%d}" % (MAX_DIGITS + 1), text) is not None
