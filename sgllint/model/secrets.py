"""Credential shapes, and how sgllint shows text that holds one.

A literal credential found in a linted file is reported (SGL502) but never
printed in full: messages show it through `mask`, and every code frame any
output format prints passes through `secret_offsets` (the characters after
the prefix become ``*``, so carets stay aligned). Placeholders
(``hf_xxxxxxxx``, ``<your token>``) are not credentials (`looks_real`).
"""

from __future__ import annotations

import re
from typing import Iterable, Iterator

#: a Hugging Face user access token: ``hf_`` + 34 letters and digits (the
#: shape huggingface.co issues; 30-40 accepted)
HF_TOKEN_RE = re.compile(r"(?<![A-Za-z0-9_])hf_[A-Za-z0-9]{30,40}(?![A-Za-z0-9_])")
#: other widely leaked credential shapes
KNOWN_TOKEN_RES = (
    HF_TOKEN_RE,
    re.compile(r"(?<![A-Za-z0-9_-])sk-(?:proj-|ant-(?:api\d\d-)?)?[A-Za-z0-9_-]{32,}(?![A-Za-z0-9_-])"),  # OpenAI, Anthropic
    re.compile(r"(?<![A-Za-z0-9_])gh[pousr]_[A-Za-z0-9]{36}(?![A-Za-z0-9_])"),  # GitHub
    re.compile(r"(?<![A-Za-z0-9])AKIA[0-9A-Z]{16}(?![A-Za-z0-9])"),  # AWS access key id
)
#: the literal each of `KNOWN_TOKEN_RES` begins with
_TOKEN_LITERALS = ("hf_", "sk-", "gh", "AKIA")
_PLACEHOLDER_RE = re.compile(
    r"x{4,}|\*{3,}|\.\.\.|[<>{}$]|your|example|dummy|placeholder|changeme|redacted|replace|insert|token|secret|here|abcdef|123456|0{6,}",
    re.I,
)
#: characters of a secret shown before the mask
SHOWN_CHARS = 6


def looks_real(value: str, min_length: int = 20) -> bool:
    """A literal that is plausibly a live credential: long enough, varied
    characters, not a placeholder."""
    body = value[3:] if value.startswith(("hf_", "sk-", "gh")) else value
    if len(value) < min_length or _PLACEHOLDER_RE.search(body):
        return False
    classes = sum(bool(re.search(p, body)) for p in (r"[a-z]", r"[A-Z]", r"[0-9]"))
    return len(set(body)) >= 10 and classes >= 2


#: an assignment to a name that holds a credential: ``HF_TOKEN=...``,
#: ``OPENAI_API_KEY: ...``, ``api_key="..."``
SECRET_NAME = r"[A-Za-z0-9_]*(?:TOKEN|API_?KEY|SECRET|PASSWORD|PASSWD|ACCESS_KEY)(?![A-Za-z0-9])"
_ASSIGNMENT_RE = re.compile(
    r"(?<![A-Za-z0-9_])(" + SECRET_NAME + r")[\"']?[ \t]*(?:=|:[ \t])[ \t]*([\"']?)([^\s\"'`,;}\]#]+)\2", re.I
)
#: SGLang's own ``--api-key``/``--admin-api-key`` with a literal
_FLAG_RE = re.compile(r"(?<![\w-])--(?:admin-)?api-key(?:=|[ \t]+)([\"']?)([^\s\"'`;]+)\1")
#: where `SECRET_NAME` may match: its names without the prefix, found far
#: faster (a plain alternation tried at each offset; the first letters as a set)
_NAME_HINT_RE = re.compile(r"[tasp](?:OKEN|PI_?KEY|ECRET|ASSWORD|ASSWD|CCESS_KEY)", re.I)
#: a Kubernetes env item ``- name: HF_TOKEN`` + ``value: ...`` on the next line
_K8S_ITEM_RE = re.compile(
    r"name:[ \t]*[\"']?(" + SECRET_NAME + r")[\"']?[ \t]*\r?\n[ \t]*value:[ \t]*([\"']?)([^\s\"'#]+)\2", re.I
)
#: how far before and after a region `secret_offsets` looks for a credential
#: reaching into it
_MARGIN = 200


def _credential_name(name: str) -> bool:
    """An env-var style name (``HF_TOKEN``, ``TOKEN``) or a compound one
    (``api_key``, ``hf_token``); a bare ``secret``/``token`` variable of a
    program is too often a test value or a parameter name."""
    return name.isupper() or "_" in name


def find_secrets(text: str, start: int = 0, end: int = -1) -> list[tuple[int, int]]:
    """(start, end) offsets of literal credentials in ``text[start:end]``: a
    known token shape, or a literal assigned to a credential's name (an env
    var, ``--api-key``, a Kubernetes env item) that looks real."""
    end = len(text) if end < 0 else end
    found = set()
    # each shape begins with its literal: tried only where the literal is
    # (a match never overlaps another: inside one, the look-behind fails)
    for pattern, literal in zip(KNOWN_TOKEN_RES, _TOKEN_LITERALS):
        for i in _occurrences(text, literal, start, end):
            m = pattern.match(text, i, end)
            if m is not None and looks_real(m.group()):
                found.add((m.start(), m.end()))
    # an assignment or a flag lies within one line that holds its name: only
    # those lines are scanned (the patterns are slow to try at every offset)
    names = (m.start() for m in _NAME_HINT_RE.finditer(text, start, end))
    for pattern, group, where in (
        (_ASSIGNMENT_RE, 3, _lines_holding(text, start, end, names)),
        (_K8S_ITEM_RE, 3, ((start, end),)),
        (_FLAG_RE, 2, _lines_holding(text, start, end, _occurrences(text, "api-key", start, end))),
    ):
        for a, b in where:
            for m in pattern.finditer(text, a, b):
                if pattern is not _FLAG_RE and not _credential_name(m.group(1)):
                    continue
                if looks_real(m.group(group), 16):
                    found.add((m.start(group), m.end(group)))
    # a known shape inside an assigned value is the same secret: drop every
    # span another one covers (one sweep: a file of many credentials made
    # comparing each pair quadratic)
    kept = []
    reach = -1
    for f in sorted(found, key=lambda f: (f[0], -f[1])):
        if f[1] > reach:
            kept.append(f)
            reach = f[1]
    return sorted(kept)


def _occurrences(text: str, literal: str, start: int, end: int) -> Iterator[int]:
    """Each offset in ``text[start:end]`` where ``literal`` begins (overlaps included)."""
    i = text.find(literal, start, end)
    while i >= 0:
        yield i
        i = text.find(literal, i + 1, end)


def _lines_holding(text: str, start: int, end: int, offsets: Iterable[int]) -> Iterator[tuple[int, int]]:
    """The lines of ``text[start:end]`` (``\\n`` excluded) holding one of
    ``offsets`` (ascending), each once."""
    done = -1
    for i in offsets:
        if i <= done:
            continue
        a = max(start, text.rfind("\n", start, i) + 1)
        b = text.find("\n", i, end)
        done = b = end if b < 0 else b
        yield a, b


def secret_offsets(text: str, start: int, end: int) -> set[int]:
    """The offsets in ``text[start:end]`` a code frame must not show: each
    credential reaching into it but its first `SHOWN_CHARS` characters."""
    hidden: set[int] = set()
    for a, b in find_secrets(text, max(0, start - _MARGIN), min(len(text), end + _MARGIN)):
        hidden.update(i for i in range(a + SHOWN_CHARS, b) if start <= i < end)
    return hidden


def mask(secret: str) -> str:
    """``hf_AbC…(37 chars)``: the prefix and the length, never the rest."""
    return f"{secret[:SHOWN_CHARS]}…({len(secret)} chars)"
