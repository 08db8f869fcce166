"""Generate launches for the wrapper oracle from the generated parser data.

``python -m tests.oracle.wrapper_cases sglang-router 0.3.2 ENTRY [...] > cases.json``

Deterministic (seeded by package, version and entry).  Per entry: valid
launches (random sets of the wrapper's own options with values their type
and choices accept, ``--opt=value`` forms, unique abbreviations), invalid ones
(an unknown flag, SGLang server flags given to a router-only entry, a value
outside the choices, a non-number for a number, a missing value, an explicit
value for a switch, an ambiguous prefix) and mixtures.  Options whose choices
or converter are only known at run time are given valid values only.
"""

from __future__ import annotations

import json
import random
import sys
from typing import Optional

from sgllint.catalog import wrappers

#: server flags (SGLang's) that a router-only entry must refuse
SERVER_FLAGS = (["--tp-size", "2"], ["--mem-fraction-static", "0.8"], ["--trust-remote-code"], ["--enable-dp-attention"])
_PLAIN_TYPES = ("str", "int", "float")


def _value(o: wrappers.WrapperOption, rng: random.Random) -> Optional[list[str]]:
    if o.choices and not o.choices_open:
        return [str(rng.choice(o.choices))]
    if o.choices_open or o.type not in _PLAIN_TYPES:
        return None  # run-time choices or a custom converter: no safe value
    sample = {"int": str(rng.randint(1, 9)), "float": "0.5", "str": rng.choice(["x", "http://h:1", "a.b.c"])}[o.type]
    n = o.nargs
    if n in ("+", "*"):
        return [sample] * rng.randint(1, 2)
    if isinstance(n, int):
        return [sample] * n
    return [sample]


def _usable(p: wrappers.Parser) -> list[wrappers.WrapperOption]:
    return [o for o in p.options if o.action not in ("help", "version") and not o.required]


def _valid_words(opts, rng: random.Random, k: int) -> list[str]:
    words: list[str] = []
    for o in rng.sample(opts, min(k, len(opts))):
        if not o.takes_value:
            words.append(rng.choice(o.strings))
            continue
        v = _value(o, rng)
        if v is None:
            continue
        s = o.strings[0]
        if len(v) == 1 and rng.random() < 0.3:
            words.append(f"{s}={v[0]}")
        else:
            words.extend([s, *v])
    return words


def _ambiguous_prefix(opts) -> Optional[str]:
    longs = sorted({s for o in opts for s in o.strings if s.startswith("--")})
    for s in longs:
        for cut in range(len(s) - 1, 3, -1):
            prefix = s[:cut]
            if prefix not in longs and sum(1 for t in longs if t.startswith(prefix)) > 1:
                return prefix
    return None


def _unique_prefix(opts) -> Optional[tuple[str, wrappers.WrapperOption]]:
    longs = {s: o for o in opts for s in o.strings if s.startswith("--")}
    for s, o in sorted(longs.items()):
        prefix = s[:-2]
        if len(prefix) > 4 and prefix not in longs and sum(1 for t in longs if t.startswith(prefix)) == 1:
            return prefix, o
    return None


def _invalid(opts, rng: random.Random, router_only: bool) -> list[str]:
    kinds = ["unknown", "missing", "explicit", "ambiguous", "choice", "number"]
    if router_only:
        kinds.append("server")
    kind = rng.choice(kinds)
    if kind == "unknown":
        return ["--no-such-wrapper-flag", "1"]
    if kind == "server":
        return list(rng.choice(SERVER_FLAGS))
    if kind == "missing":
        valued = [o for o in opts if o.takes_value and o.nargs in (None, "+", 1)]
        return [rng.choice(valued).strings[0]] if valued else ["--no-such-wrapper-flag"]
    if kind == "explicit":
        switches = [o for o in opts if not o.takes_value]
        return [rng.choice(switches).strings[0] + "=1"] if switches else ["--no-such-wrapper-flag"]
    if kind == "ambiguous":
        p = _ambiguous_prefix(opts)
        return [p, "1"] if p else ["--no-such-wrapper-flag"]
    if kind == "choice":
        closed = [o for o in opts if o.choices and not o.choices_open and o.takes_value]
        return [rng.choice(closed).strings[0], "not-a-choice"] if closed else ["--no-such-wrapper-flag"]
    numeric = [o for o in opts if o.type in ("int", "float") and o.takes_value and not o.choices]
    return [rng.choice(numeric).strings[0], "abc"] if numeric else ["--no-such-wrapper-flag"]


def cases_for(w: wrappers.Wrapper, entry: str, n: int = 220) -> list[dict]:
    rng = random.Random(f"{w.package}-{w.version}-{entry}")
    raw = w.entries[entry].raw
    prefix: list[str] = []
    stages = raw.get("stages") or []
    if "subcommands" in raw:
        prefix = ["launch"]
        stages = raw["subcommands"]["launch"]["stages"]
    parsers = [w.parsers[s["parser"]] for s in stages if "parser" in s]
    opts = [o for p in parsers for o in _usable(p)]
    router_only = not any(p.sglang_at is not None for p in parsers)
    out: list[dict] = []
    unique = _unique_prefix(opts)
    for i in range(n):
        mode = i % 4
        if mode == 0:
            argv = _valid_words(opts, rng, rng.randint(1, 4))
        elif mode == 1:
            argv = _invalid(opts, rng, router_only)
        elif mode == 2:
            argv = _valid_words(opts, rng, 2) + _invalid(opts, rng, router_only) + _valid_words(opts, rng, 1)
        else:
            argv = _valid_words(opts, rng, rng.randint(2, 6))
            if unique and rng.random() < 0.5:
                p, o = unique
                v = _value(o, rng) if o.takes_value else []
                if v is not None:
                    argv += [p, *v]
        out.append({"entry": entry, "argv": prefix + argv})
    if "subcommands" in raw:
        out.append({"entry": entry, "argv": ["bogus-subcommand"]})
        out.append({"entry": entry, "argv": []})
    if not router_only:
        out = [_with_server_flags(c, random.Random(f"{w.package}-{w.version}-{entry}-{i}"), i) for i, c in enumerate(out)]
    return out


#: SGLang server flags beside a wrapper's own (valid, then refused by SGLang's parser)
SERVER_VALID = (["--tp-size", "2"], ["--mem-fraction-static", "0.8"], ["--trust-remote-code"], ["--port", "30000"])
SERVER_INVALID = (["--tp-size", "two"], ["--attention-backend", "no-such-backend"], ["--mem-fraction-static"])


def _with_server_flags(case: dict, rng: random.Random, i: int) -> dict:
    """An entry that includes SGLang's parser: the model path it requires
    (left out of every 20th case), plus SGLang flags, valid or not."""
    words = list(case["argv"])
    if i % 5 == 0:
        words = words + list(rng.choice(SERVER_INVALID))
    elif i % 2 == 0:
        words = list(rng.choice(SERVER_VALID)) + words
    if i % 20 != 19:
        words = ["--model-path", "org/model"] + words
    return {**case, "argv": words}


#: launches per entry point: Dynamo's own validate() refuses up to a fifth of them (1.0.2: 48 of
#: 220) between its parse stages (`wrapper-check`, kept out of the comparison): more keep >= 200 judged
CASES_PER_ENTRY = {"ai-dynamo": 300}


def main(argv: list[str]) -> int:
    package, version, *entries = argv
    w = wrappers.load(package, version)
    n = CASES_PER_ENTRY.get(package, 220)
    cases = [c for e in entries for c in cases_for(w, e, n)]
    json.dump(cases, sys.stdout, indent=0)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
