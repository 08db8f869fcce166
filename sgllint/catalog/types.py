"""SGLang's argparse ``type=`` converters, re-implemented without importing
SGLang. Each takes the raw command-line string and returns the value or
raises `ValueError` with argparse's wording.

Mirrors ``sglang/srt/utils/common.py`` (``human_readable_int``,
``nullable_str``, ``json_list_type``) as of 0.5.23; the older releases use
the same definitions or a subset of them.
"""

from __future__ import annotations

import json
import re
from typing import Any, Callable

_SI = {"k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12}
_IEC = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40}
_HUMAN_RE = re.compile(r"(\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|k|M|G|T)")


def _int(raw: str) -> int:
    try:
        return int(raw)
    except ValueError:
        raise ValueError(f"invalid int value: {raw!r}") from None


def _float(raw: str) -> float:
    try:
        return float(raw)
    except ValueError:
        raise ValueError(f"invalid float value: {raw!r}") from None


def _human_readable_int(raw: str) -> int:
    value = raw.strip()
    m = _HUMAN_RE.fullmatch(value)
    if m:
        number, suffix = m.groups()
        if suffix in _IEC:
            if "." in number:
                raise ValueError(f"decimals are not allowed with IEC suffixes like {suffix!r}")
            return int(number) * _IEC[suffix]
        from decimal import Decimal, InvalidOperation  # exact SI multiples; few values have a suffix

        try:
            return int(Decimal(number) * _SI[suffix])
        except InvalidOperation:  # pragma: no cover - the regex admits only digits
            raise ValueError(f"invalid integer value: {raw!r}") from None
    try:
        return int(value)
    except ValueError:
        raise ValueError(
            f"invalid integer value: {raw!r} (use a plain integer, SI suffixes like 1k, 1M, or IEC suffixes like 1Ki)"
        ) from None


def _json(raw: str) -> Any:
    try:
        return json.loads(raw)
    except (json.JSONDecodeError, RecursionError) as e:
        raise ValueError(f"invalid JSON: {e}") from None


def _json_list(raw: str) -> Any:
    try:
        return json.loads(raw)
    except (json.JSONDecodeError, RecursionError):
        raise ValueError(f"invalid JSON list: {raw!r}") from None


def _nullable_str(raw: str) -> Any:
    if not raw or raw == "None":
        return None
    return raw


def _json_object(raw: str) -> Any:
    value = _json(raw)
    if not isinstance(value, dict):
        raise ValueError(f"must be a JSON object, got {type(value).__name__}")
    return value


CONVERTERS: dict[str, Callable[[str], Any]] = {
    "str": str,
    "int": _int,
    "float": _float,
    "human_readable_int": _human_readable_int,
    "json": _json,
    "json_list": _json_list,
    "nullable_str": _nullable_str,
    "parse_cuda_graph_config_arg": _json_object,
}


def convert(type_name: str, raw: str) -> Any:
    """Convert like argparse would; unknown parser names pass the string
    through unchanged (the linter cannot judge them)."""
    fn = CONVERTERS.get(type_name)
    if fn is None:
        return raw
    return fn(raw)


def python_value_matches(type_name: str, value: Any) -> bool:
    """Whether a Python literal given as a keyword argument has the type the
    field declares (``tp_size="2"`` does not)."""
    if value is None:
        return True
    if type_name in {"int", "human_readable_int"}:
        return isinstance(value, int) and not isinstance(value, bool)
    if type_name == "float":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if type_name == "bool":
        return isinstance(value, bool)
    if type_name in {"str", "nullable_str"}:
        return isinstance(value, str)
    return True
