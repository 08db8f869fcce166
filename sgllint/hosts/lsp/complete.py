"""What the language server completes, as plain data (`Item`), from the
document's text, the cursor offset, its format, its resolved launches and
the catalog of the release it targets.

* Any format, inside a launch: flag names after ``--``; a flag's choices
  after ``--flag ``, ``--flag=`` or the next argv string (``"--flag", "``)
  and, in YAML block lists, the next item (``- --flag`` / ``- ``).
* Python: keyword arguments of ``Engine(...)``, ``ServerArgs(...)`` and
  ``launch_server(...)`` (ServerArgs fields, inserted as ``name=``) and a
  keyword's choices after ``name="``; also while the call is still being
  typed and does not resolve to a launch yet.
* YAML: an SGLang ``--config`` file's keys (flag names without dashes) and
  their values' choices.

Every scan looks at the cursor's line or a bounded window before it, so a
long document costs nothing extra."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

#: how far before the cursor an unfinished call's name is looked for
WINDOW = 4000

_WORD_CHAR = re.compile(r"[\w\-.=]")
_PY_CALLS = ("Engine", "ServerArgs", "launch_server")
_YAML_ITEM_FLAG = re.compile(r"""^\s*-\s+["']?(--[\w-]+)["']?\s*$""")
_YAML_KEY_LINE = re.compile(r"^([\w-]*)$")
_YAML_VALUE = re.compile(r"""^([\w-]+):\s+["']?([\w./-]*)$""")
_PY_KWARG_VALUE = re.compile(r"""\s*(\w+)\s*=\s*["']([\w./-]*)""")
#: a call's name right before its "(": searched in the last NAME_CHARS only,
#: so a long identifier costs no more than a short one
_CALL_NAME = re.compile(r"([\w.]{1,200})\s*$")
NAME_CHARS = 240


@dataclass(frozen=True)
class Item:
    label: str
    kind: str  # "flag", "field", "key", "choice"
    detail: str = ""
    insert: Optional[str] = None


def _word_start(text: str, offset: int) -> int:
    start = offset
    while start > 0 and _WORD_CHAR.match(text, start - 1):
        start -= 1
    return start


def _line_before(text: str, offset: int) -> str:
    return text[text.rfind("\n", max(0, offset - WINDOW), offset) + 1 : offset]


def flag_items(catalog, prefix: str, strip_dashes: bool = False, suffix: str = "") -> list[Item]:
    out = []
    for s in catalog.long_strings():
        opt = catalog.by_string[s]
        if opt.deprecated is not None or not s.startswith(prefix if not strip_dashes else "--" + prefix):
            continue
        label = s[2:] if strip_dashes else s
        out.append(Item(label, "key" if strip_dashes else "flag", (opt.help or "")[:120], label + suffix if suffix else None))
    return out


def choice_items(option, prefix: str) -> list[Item]:
    if option is None or not option.choices:
        return []
    return [Item(str(c), "choice") for c in option.choices if str(c).startswith(prefix)]


def field_items(catalog, prefix: str) -> list[Item]:
    out = []
    for name, info in catalog.fields.items():
        if name.startswith(prefix) and not name.startswith("_"):
            opt = catalog.option_for_field(name)
            if opt is not None and opt.deprecated is not None:
                continue
            help_text = (opt.help if opt is not None else "") or f"{info.type}, default {info.default!r}"
            out.append(Item(name, "field", help_text[:120], f"{name}="))
    return out


def flag_before(text: str, end: int) -> Optional[str]:
    r"""The ``--flag`` right before the spaces, quotes or commas that end
    ``text[:end]`` (``--flag <cursor>``, ``"--flag", "<cursor>``): what
    ``re.search(r"(--[\w-]+)[\s\"',]+$", text[:end])`` finds, in one
    backward pass instead of a search that is quadratic on a long line."""
    i = end
    while i > 0 and (text[i - 1].isspace() or text[i - 1] in "\"',"):
        i -= 1
    if i == end:
        return None
    word_end = i
    while i > 0 and (text[i - 1].isalnum() or text[i - 1] in "_-"):
        i -= 1
    dashes = text.find("--", i, word_end)
    if dashes < 0 or dashes + 2 >= word_end:
        return None
    return text[dashes:word_end]


def _yaml_previous_item_flag(text: str, line_start: int) -> Optional[str]:
    """``- --flag`` on the line before a block-list item being typed."""
    if line_start <= 0:
        return None
    prev_start = text.rfind("\n", max(0, line_start - 1 - WINDOW), line_start - 1) + 1
    m = _YAML_ITEM_FLAG.match(text[prev_start : line_start - 1])
    return m.group(1) if m else None


def in_launch(text: str, offset: int, fmt: str, catalog) -> list[Item]:
    """Completion inside a resolved launch."""
    start = _word_start(text, offset)
    word = text[start:offset]
    if word.startswith("--") and "=" not in word:
        return flag_items(catalog, word)
    if fmt == "python":
        found = python_call(text, offset, catalog)
        if found is not None:
            return found
    prefix = word.split("=", 1)[1] if "=" in word else word
    flag = word.split("=", 1)[0] if "=" in word else flag_before(text, start)
    if flag is None and fmt == "yaml" and re.fullmatch(r"\s*-\s+[\"']?", _line_before(text, start)):
        flag = _yaml_previous_item_flag(text, start - len(_line_before(text, start)))
    return choice_items(catalog.by_string.get(flag or ""), prefix)


def python_call(text: str, offset: int, catalog) -> Optional[list[Item]]:
    """Inside ``Engine(`` / ``ServerArgs(`` / ``launch_server(``: keyword
    names, or a keyword's choices after ``name="``; None elsewhere."""
    window_start = max(0, offset - WINDOW)
    head = text[window_start:offset]
    depth, i = 0, len(head)
    while i > 0:  # the innermost unclosed "(" before the cursor
        i -= 1
        ch = head[i]
        if ch == ")":
            depth += 1
        elif ch == "(":
            if depth == 0:
                break
            depth -= 1
    else:
        return None
    name = _CALL_NAME.search(head, max(0, i - NAME_CHARS), i)
    if name is None or name.group(1).rsplit(".", 1)[-1] not in _PY_CALLS:
        return None
    inside = head[i + 1 :]
    # the argument being typed: after the last comma (or the parenthesis)
    current = inside[inside.rfind(",") + 1 :]
    value = _PY_KWARG_VALUE.fullmatch(current)
    if value is not None:
        return choice_items(catalog.option_for_field(value.group(1)), value.group(2))
    m = re.search(r"(?:^|[(,\s])(\w*)$", inside)
    if m is None or re.search(r"=\s*\w*$", inside):
        return None
    return field_items(catalog, m.group(1))


def yaml_config(text: str, offset: int, catalog) -> list[Item]:
    """An SGLang ``--config`` file: top-level keys, then their choices."""
    line = _line_before(text, offset)
    key = _YAML_KEY_LINE.match(line)
    if key is not None:
        return flag_items(catalog, key.group(1), strip_dashes=True, suffix=": ")
    value = _YAML_VALUE.match(line)
    if value is not None:
        return choice_items(catalog.by_string.get("--" + value.group(1).replace("_", "-")), value.group(2))
    return []


def looks_like_sglang_config(text: str) -> bool:
    """A YAML document whose top-level keys make it an SGLang config."""
    from sgllint.formats.yaml.sglang_config import is_config_mapping

    keys = re.findall(r"^([A-Za-z][\w-]*):", text[:200_000], re.M)
    return is_config_mapping(keys)
