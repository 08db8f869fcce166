"""Did-you-mean helpers shared by rules: the closest flag, field or choice."""

from __future__ import annotations

import difflib
import functools
from typing import Iterable, Optional


def closest(word: str, candidates: Iterable[str], cutoff: float = 0.6) -> Optional[str]:
    return _closest(word, tuple(dict.fromkeys(candidates)), cutoff)


@functools.lru_cache(maxsize=4096)  # a tree repeats the same unknown words
def _closest(word: str, pool: tuple, cutoff: float) -> Optional[str]:
    if not pool:
        return None
    if word in pool:
        return word
    lowered = {c.lower(): c for c in pool}
    if word.lower() in lowered:
        return lowered[word.lower()]
    # difflib.get_close_matches(word, pool, n=1, cutoff): the largest
    # (ratio, candidate), skipping candidates whose cheap upper bounds cannot
    # reach the best ratio found so far
    matcher = difflib.SequenceMatcher()
    matcher.set_seq2(word)
    best: Optional[tuple[float, str]] = None
    for candidate in pool:
        matcher.set_seq1(candidate)
        floor = cutoff if best is None else max(cutoff, best[0])
        if matcher.real_quick_ratio() >= floor and matcher.quick_ratio() >= floor:
            ratio = matcher.ratio()
            if ratio >= cutoff and (best is None or (ratio, candidate) > best):
                best = (ratio, candidate)
    return best[1] if best else None


def split_glued(word: str, options: Iterable[str]) -> Optional[tuple[str, str]]:
    """``--disable-custom-all-reduce--enable-mscclpp`` -> the two real flags
    that lost the space between them (a missing space in concatenated
    strings), or None."""
    known = set(options)
    start = 2
    while True:
        i = word.find("--", start)
        if i < 0:
            return None
        head, tail = word[:i], word[i:]
        tail_flag = tail.split("=", 1)[0]
        if head in known and tail_flag in known:
            return head, tail
        start = i + 1


def format_choices(choices: Iterable, limit: int = 12) -> str:
    items = [str(c) for c in choices]
    if len(items) <= limit:
        return ", ".join(items)
    return ", ".join(items[:limit]) + f", ... ({len(items)} in all)"
