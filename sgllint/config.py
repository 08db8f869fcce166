"""Configuration: ``[tool.sgllint]`` in ``pyproject.toml`` or ``.sgllint.toml``
(the nearest file walking upward wins), overridden by the command line.

Unknown keys and bad values are errors that name the key and the nearest
valid one, like yamllint's strict option validation.
"""

from __future__ import annotations

import difflib
import fnmatch
import os
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Optional

from sgllint.diagnostic import Severity

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib


class ConfigError(Exception):
    pass


KEYS = {
    "select",
    "ignore",
    "extend-select",
    "extend-ignore",
    "per-file-ignores",
    "severity",
    "fail-on",
    "exclude",
    "extend-exclude",
    "sglang-version",
    "gpu",
    "models",
}

DEFAULT_EXCLUDE = (
    ".git",
    ".hg",
    ".svn",
    ".venv",
    "venv",
    ".tox",
    ".nox",
    "node_modules",
    "__pycache__",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
    ".sgllint_cache",
    "site-packages",
    "build",
    "dist",
)


@dataclass(frozen=True)
class Config:
    select: tuple[str, ...] = ("ALL",)
    ignore: tuple[str, ...] = ()
    extend_select: tuple[str, ...] = ()
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    severity: tuple[tuple[str, Severity], ...] = ()
    fail_on: Severity = Severity.WARNING
    exclude: tuple[str, ...] = DEFAULT_EXCLUDE
    extend_exclude: tuple[str, ...] = ()
    sglang_version: Optional[str] = None
    gpu: Optional[str] = None  # the GPU every launch targets unless pinned closer
    models: tuple[tuple[str, str], ...] = ()  # (model id glob, architecture)
    path: Optional[Path] = None  # the file it came from
    root: Optional[Path] = None  # the directory per-file-ignores are relative to

    def with_overrides(self, **changes: Any) -> "Config":
        return replace(self, **{k: v for k, v in changes.items() if v is not None})

    # -- rule selection ---------------------------------------------------

    def is_enabled(self, code: str, name: str, path: Optional[str] = None) -> bool:
        selected = _matches_any(code, name, self.select + self.extend_select)
        if not selected:
            return False
        # the most specific selector wins, as in ruff
        sel = _best(code, name, self.select + self.extend_select)
        ign = _best(code, name, self.ignore)
        if ign is not None and (sel is None or ign >= sel):
            return False
        if path is not None and self.per_file_ignores:
            rel = self._relative(path)
            for pattern, codes in self.per_file_ignores:
                if _glob_match(rel, pattern) and _matches_any(code, name, codes):
                    return False
        return True

    def severity_for(self, code: str, name: str, default: Severity) -> Severity:
        for key, sev in self.severity:
            if key == code or key == name:
                return sev
        return default

    def _relative(self, path: str) -> str:
        p = Path(path)
        if self.root is not None:
            try:
                return p.resolve().relative_to(self.root.resolve()).as_posix()
            except (ValueError, OSError):
                pass
        return p.as_posix()

    def is_excluded(self, path: Path) -> bool:
        parts = path.parts
        for pattern in self.exclude + self.extend_exclude:
            if any(fnmatch.fnmatchcase(part, pattern) for part in parts):
                return True
            if "/" in pattern and _glob_match(self._relative(str(path)), pattern):
                return True
        return False


def _glob_match(rel: str, pattern: str) -> bool:
    if fnmatch.fnmatchcase(rel, pattern):
        return True
    # "scripts/*" also matches "scripts/a/b.sh"; a bare "*.sh" matches in any directory
    if "/" not in pattern and fnmatch.fnmatchcase(rel.rsplit("/", 1)[-1], pattern):
        return True
    return pattern.endswith("/**") and rel.startswith(pattern[:-3] + "/")


def _specificity(code: str, name: str, selector: str) -> Optional[int]:
    s = selector.strip()
    if s.upper() == "ALL":
        return 0
    if s.lower() == name:
        return 10
    if code.startswith(s.upper()):
        return len(s)
    return None


def _best(code: str, name: str, selectors) -> Optional[int]:
    best = None
    for s in selectors:
        spec = _specificity(code, name, s)
        if spec is not None and (best is None or spec > best):
            best = spec
    return best


def _matches_any(code: str, name: str, selectors) -> bool:
    return _best(code, name, selectors) is not None


# ---------------------------------------------------------------------------
# Loading
# ---------------------------------------------------------------------------


def find_config_file(start: Path) -> Optional[Path]:
    """The nearest ``.sgllint.toml`` or ``pyproject.toml`` with a
    ``[tool.sgllint]`` table, walking upward from ``start``."""
    d = start.resolve()
    if d.is_file():
        d = d.parent
    for directory in (d, *d.parents):
        own = directory / ".sgllint.toml"
        if own.is_file():
            return own
        pyproject = directory / "pyproject.toml"
        if pyproject.is_file():
            try:
                data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
            except (tomllib.TOMLDecodeError, OSError, UnicodeDecodeError):
                continue
            if isinstance(data.get("tool"), dict) and "sgllint" in data["tool"]:
                return pyproject
    return None


def load_config_file(path: Path) -> Config:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: invalid TOML: {e}") from None
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"{path}: cannot read: {e}") from None
    table = data
    if path.name == "pyproject.toml":
        table = data.get("tool", {}).get("sgllint", {})
    elif "tool" in data and isinstance(data["tool"], dict) and "sgllint" in data["tool"]:
        table = data["tool"]["sgllint"]
    return parse_table(table, path)


def _suggest(key: str, valid) -> str:
    close = difflib.get_close_matches(key, sorted(valid), n=1, cutoff=0.5)
    return f"; did you mean '{close[0]}'?" if close else f"; valid keys: {', '.join(sorted(valid))}"


def _str_list(value: Any, key: str, where: str) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where}: '{key}' must be a list of strings")
    return tuple(value)


def validate_selectors(selectors, key: str, where: str) -> None:
    from sgllint.rule import all_codes

    codes = all_codes()
    names = {r.name for r in codes.values()}
    for s in selectors:
        if s.upper() == "ALL" or s.lower() in names:
            continue
        up = s.upper()
        if up.startswith("SGL") and any(c.startswith(up) for c in codes):
            continue
        valid = list(codes) + sorted(names)
        raise ConfigError(f"{where}: '{key}' has unknown rule selector '{s}'{_suggest(s, valid).replace('keys', 'selectors')}")


def parse_table(table: dict, path: Optional[Path]) -> Config:
    where = str(path) if path else "configuration"
    unknown = [k for k in table if k not in KEYS]
    if unknown:
        k = unknown[0]
        raise ConfigError(f"{where}: unknown key '{k}' in [tool.sgllint]{_suggest(k, KEYS)}")
    kwargs: dict[str, Any] = {}
    for key in ("select", "ignore", "extend-select", "exclude", "extend-exclude"):
        if key in table:
            values = _str_list(table[key], key, where)
            if key in ("select", "ignore", "extend-select"):
                validate_selectors(values, key, where)
            kwargs[key.replace("-", "_")] = values
    if "extend-ignore" in table:
        values = _str_list(table["extend-ignore"], "extend-ignore", where)
        validate_selectors(values, "extend-ignore", where)
        kwargs["ignore"] = kwargs.get("ignore", ()) + values
    if "per-file-ignores" in table:
        pfi = table["per-file-ignores"]
        if not isinstance(pfi, dict):
            raise ConfigError(f"{where}: 'per-file-ignores' must be a table of glob = [codes]")
        items = []
        for glob, codes in pfi.items():
            codes_t = _str_list(codes, f"per-file-ignores.{glob}", where)
            validate_selectors(codes_t, f"per-file-ignores.{glob}", where)
            items.append((glob, codes_t))
        kwargs["per_file_ignores"] = tuple(items)
    if "severity" in table:
        sev = table["severity"]
        if not isinstance(sev, dict):
            raise ConfigError(f"{where}: 'severity' must be a table of code = \"error\"|\"warning\"|\"info\"")
        pairs = []
        for code, level in sev.items():
            validate_selectors([code], "severity", where)
            pairs.append((code, _severity(level, f"severity.{code}", where)))
        kwargs["severity"] = tuple(pairs)
    if "fail-on" in table:
        kwargs["fail_on"] = _severity(table["fail-on"], "fail-on", where)
    if "sglang-version" in table:
        v = table["sglang-version"]
        if not isinstance(v, str):
            raise ConfigError(f"{where}: 'sglang-version' must be a string such as \"0.5.23\"")
        kwargs["sglang_version"] = check_version(v, where + ": 'sglang-version'")
    if "gpu" in table:
        from sgllint import hardware

        gpu = table["gpu"]
        if not isinstance(gpu, str) or (hardware.find(gpu) is None and not gpu.strip().lower().lstrip("sm_").isdigit()):
            raise ConfigError(f"{where}: 'gpu' must name a known GPU (e.g. \"H100\", \"B200\") or an SM like \"sm90\"; known: {', '.join(hardware.names())}")
        kwargs["gpu"] = gpu
    if "models" in table:
        models = table["models"]
        if not isinstance(models, dict) or not all(isinstance(v, str) for v in models.values()):
            raise ConfigError(f"{where}: 'models' must be a table of \"model id glob\" = \"Architecture\"")
        kwargs["models"] = tuple(models.items())
    return Config(path=path, root=path.parent if path else None, **kwargs)


def _severity(value: Any, key: str, where: str) -> Severity:
    try:
        return Severity.parse(str(value))
    except ValueError:
        raise ConfigError(
            f"{where}: '{key}' must be one of error, warning, info (got {value!r})"
            f"{_suggest(str(value), ['error', 'warning', 'info']).replace('keys', 'values')}"
        ) from None


def check_version(value: str, where: str) -> str:
    from sgllint.catalog import UnknownVersion, resolve_version, versions

    try:
        resolve_version(value)
    except UnknownVersion:
        raise ConfigError(
            f"{where}: no catalog for SGLang {value!r}; supported releases: {versions()[0]} to {versions()[-1]}"
        ) from None
    return value


def discover(start: Path) -> Config:
    found = find_config_file(start)
    return load_config_file(found) if found else Config(root=Path(os.getcwd()))
