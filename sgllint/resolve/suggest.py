"""Did-you-mean helpers shared by rules: the closest flag, field or choice."""

from __future__ import annotations

import difflib
import functools
from collections import Counter, OrderedDict
from typing import Callable, Iterable, Iterator, Optional


#: distinct words one file gets suggestions for: each costs a pass over the
#: candidates, and a hostile file of 8,000 different unknown flags would
#: otherwise spend minutes on them (past this, no "did you mean")
MAX_SUGGESTIONS_PER_FILE = 200
_spent: "OrderedDict[int, tuple[object, set]]" = OrderedDict()


def closest(word: str, candidates: Iterable[str], cutoff: float = 0.6, source: object = None) -> Optional[str]:
    """``difflib.get_close_matches(word, candidates, 1, cutoff)`` (ties to the
    larger string), or None; with ``source`` (the file's `Source`), None
    once that file has had `MAX_SUGGESTIONS_PER_FILE` distinct words."""
    if source is not None and not _within_budget(source, word):
        return None
    return _closest(word, tuple(dict.fromkeys(candidates)), cutoff)


def _within_budget(source: object, word: str) -> bool:
    entry = _spent.get(id(source))
    if entry is None or entry[0] is not source:
        entry = _spent[id(source)] = (source, set())
        while len(_spent) > 64:  # files linted long ago
            _spent.popitem(last=False)
    words = entry[1]
    if word in words:
        return True
    if len(words) >= MAX_SUGGESTIONS_PER_FILE:
        return False
    words.add(word)
    return True


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
    for candidate in _reachable(word, pool, lambda: cutoff if best is None else max(cutoff, best[0])):
        matcher.set_seq1(candidate)
        ratio = matcher.ratio()
        if ratio >= cutoff and (best is None or (ratio, candidate) > best):
            best = (ratio, candidate)
    return best[1] if best else None


def clearly_closest(word: str, guess: str, candidates: Iterable[str], margin: float = 0.05) -> bool:
    """Whether no candidate but ``guess`` has a similarity to ``word`` within
    ``margin`` of the guess's (a typo fix must not pick between two
    near-equal names)."""
    return _clearly_closest(word, guess, tuple(dict.fromkeys(candidates)), margin)


@functools.lru_cache(maxsize=4096)  # a monorepo repeats the same unknown flags
def _clearly_closest(word: str, guess: str, pool: tuple, margin: float) -> bool:
    matcher = difflib.SequenceMatcher(None, word, guess)
    threshold = matcher.ratio() - margin
    for candidate in _reachable(word, pool, lambda: threshold):
        if candidate == guess:
            continue
        matcher.set_seq2(candidate)
        if matcher.ratio() >= threshold:
            return False
    return True


def _reachable(word: str, pool: tuple, floor: Callable[[], float]) -> Iterator[str]:
    """The candidates whose similarity to ``word`` may reach ``floor()``:
    difflib's ratio is 2*M/T with M matched characters, and M is at most the
    shorter length, at most each length minus its characters the other
    lacks (a bit mask of character classes: a cheap lower bound of those),
    and at most the multiset intersection (difflib's quick_ratio). Each
    bound is computed as difflib computes its ratio, so a skipped candidate
    could never reach the floor."""
    index = _pool_index(pool)
    la = len(word)
    counts = Counter(word)
    mask = _mask(word)
    for candidate, lb, cmask, ccounts in index:
        total = la + lb
        limit = floor()
        if _ratio(min(la, lb), total) < limit:
            continue
        if _ratio(min(la - (mask & ~cmask).bit_count(), lb - (cmask & ~mask).bit_count()), total) < limit:
            continue
        if _ratio(sum(min(n, ccounts.get(ch, 0)) for ch, n in counts.items()), total) < limit:
            continue
        yield candidate


def _ratio(matches: int, length: int) -> float:
    return 2.0 * matches / length if length else 1.0  # difflib's _calculate_ratio


def _mask(text: str) -> int:
    mask = 0
    for ch in set(text):
        mask |= 1 << (ord(ch) & 63)
    return mask


@functools.lru_cache(maxsize=64)  # one per catalog (its flags, its fields) and per choice list
def _pool_index(pool: tuple) -> list[tuple[str, int, int, Counter]]:
    return [(c, len(c), _mask(c), Counter(c)) for c in pool]


def split_glued(word: str, options: Iterable[str]) -> Optional[tuple[str, str]]:
    """``--disable-custom-all-reduce--enable-mscclpp`` -> the two real flags
    that lost the space between them (a missing space in concatenated
    strings), or None."""
    if word.find("--", 2) < 0:
        return None  # no second flag in it (most unknown flags): the options are not even looked at
    known, longest = _known(tuple(options))
    start = 2
    while True:
        i = word.find("--", start, longest + 2)  # the head is a known flag: never longer than the longest
        if i < 0:
            return None
        head = word[:i]
        end = word.find("=", i, i + longest + 1)
        tail_flag = word[i:end] if end >= 0 else word[i : i + longest + 1]
        if head in known and tail_flag in known:
            return head, word[i:]
        start = i + 1


@functools.lru_cache(maxsize=64)  # one per catalog: asked for each unknown flag
def _known(options: tuple) -> tuple[frozenset, int]:
    return frozenset(options), max(map(len, options), default=0)


def format_choices(choices: Iterable, limit: int = 12) -> str:
    items = [str(c) for c in choices]
    if len(items) <= limit:
        return ", ".join(items)
    return ", ".join(items[:limit]) + f", ... ({len(items)} in all)"
