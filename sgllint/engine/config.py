"""Configuration: ``[tool.sgllint]`` in ``pyproject.toml``, or
``.sgllint.toml`` / ``sgllint.toml`` (the nearest file walking upward wins;
``extend = "../pyproject.toml"`` builds on another file), overridden by
the command line (``--config KEY=VALUE`` and the options).

Unknown keys and bad values are errors that name the key and the nearest
valid one, like yamllint's strict option validation.
"""

from __future__ import annotations

import fnmatch
import os
import re
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Iterable, Optional

from sgllint.model.diagnostic import Severity
from sgllint.model.rule import redirects
from sgllint.resolve.safe_read import DEFAULT_MAX_FILE_SIZE

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib


class ConfigError(Exception):
    pass


KEYS = {
    "extend",
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
    "max-diagnostics",
    "allow-outside",
    "max-file-size",
    "rule-dirs",
    "ignore-sglang-checks",
}

#: findings per file the text formats show before one "N more" line (0: all)
DEFAULT_MAX_DIAGNOSTICS = 200

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
    max_diagnostics: int = DEFAULT_MAX_DIAGNOSTICS
    max_file_size: int = DEFAULT_MAX_FILE_SIZE  # bytes; a larger file is not read (SGL002)
    ignore_sglang_checks: tuple[str, ...] = ()  # derived SGLang check ids (SGL400) never reported
    path: Optional[Path] = None  # the file it came from
    root: Optional[Path] = None  # the directory per-file-ignores are relative to
    # files and directories outside the project a launch's references may be
    # read from (`sgllint.resolve.project`), absolute
    allow_outside: tuple[Path, ...] = ()
    # `allow-outside` of a configuration discovered in the linted tree: not honoured (`discover`)
    refused_allow_outside: tuple[Path, ...] = ()
    # folders of the user's own rules (`--rule-dir`, `rule-dirs`): loading them runs their code, so a
    # configuration discovered in the linted tree never sets them (`discover`); refused ones are kept to say so
    rule_dirs: tuple[Path, ...] = ()
    refused_rule_dirs: tuple[Path, ...] = ()
    project_root: Optional[Path] = None  # --project-root; None: found per path

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

    def selects_explicitly(self, code: str, name: str) -> bool:
        """Whether a selector more specific than ``ALL`` names the rule (what
        a rule off by default, `Rule.default_enabled`, needs)."""
        return (_best(code, name, self.select + self.extend_select) or 0) > 0

    def ignores_sglang_check(self, diag) -> bool:
        """A derived SGLang check (``SGL400``'s id) listed in ``ignore-sglang-checks``."""
        check = (diag.context or {}).get("sglang_check") if self.ignore_sglang_checks else None
        return bool(check) and check.lower() in {c.lower() for c in self.ignore_sglang_checks}

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


def _specificity(code: str, name: str, selector: str) -> Optional[float]:
    s = selector.strip()
    if s.upper() == "ALL":
        return 0
    if s.lower() == name:
        return 10
    moved = redirects().get(s.upper()) or redirects().get(s.lower())
    if moved is not None:
        # a removed umbrella code (or its name) selects its successors: more
        # specific than any prefix of theirs, less than their own code or name
        return 5.5 if code in moved else None
    if code.startswith(s.upper()):
        return len(s)
    return None


def _best(code: str, name: str, selectors) -> Optional[float]:
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


#: sgllint's own configuration files, in the order one directory's are
#: preferred (ruff's: ``.ruff.toml``, ``ruff.toml``, ``pyproject.toml``)
OWN_FILES = (".sgllint.toml", "sgllint.toml")


def find_config_file(start: Path) -> Optional[Path]:
    """The nearest ``.sgllint.toml``, ``sgllint.toml`` or ``pyproject.toml``
    with a ``[tool.sgllint]`` table, walking upward from ``start``."""
    d = start.resolve()
    if d.is_file():
        d = d.parent
    for directory in (d, *d.parents):
        for name in OWN_FILES:
            own = directory / name
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


def read_table(path: Path) -> dict:
    """The sgllint table of a configuration file, as written."""
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
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.sgllint] must be a table")
    return table


#: how many ``extend`` links a configuration may follow
MAX_EXTEND = 16


def resolved_table(
    path: Path, overrides: Optional[dict] = None, confine: Optional[Path] = None
) -> tuple[dict, dict[str, str]]:
    """The table of ``path`` with what it ``extend``s below it (ruff: the
    extending file's keys win) and ``overrides`` (``--config KEY=VALUE``)
    on top; and where each key came from. With ``confine`` (a configuration
    found in the linted tree), ``extend`` may not lead out of that directory:
    the tree must not make sgllint read, and echo in an error, a file of the
    machine it runs on."""
    chain: list[Path] = []
    current = path
    while True:
        real = current.resolve()
        if real in chain:
            raise ConfigError(f"{path}: 'extend' loops back to {current}")
        if len(chain) >= MAX_EXTEND:
            raise ConfigError(f"{path}: more than {MAX_EXTEND} 'extend' links")
        chain.append(real)
        table = read_table(current)
        target = table.get("extend")
        if target is None:
            break
        if not isinstance(target, str):
            raise ConfigError(f"{current}: 'extend' must be the path of another configuration file")
        current = (current.parent / os.path.expanduser(target)).resolve()
        if confine is not None and not _is_within(current, confine):
            raise ConfigError(
                f"{path}: 'extend' leads outside the project ({confine}); a configuration found in the"
                " linted tree may only extend files inside it (pass --config FILE to use another)"
            )
        if not current.is_file():
            raise ConfigError(f"{path}: 'extend' names {current}, which does not exist")
    merged: dict = {}
    sources: dict[str, str] = {}
    for file in reversed(chain):
        for key, value in read_table(file).items():
            if key != "extend":
                merged[key] = value
                sources[key] = str(file)
    for key, value in (overrides or {}).items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            value = {**merged[key], **value}
        merged[key] = value
        sources[key] = "command line (--config)"
    return merged, sources


def load_config_file(path: Path, overrides: Optional[dict] = None, confine: Optional[Path] = None) -> Config:
    """The configuration of the file the user named (``--config FILE``): its
    ``rule-dirs`` are honoured, so its selectors may name their rules."""
    return checked_selectors(_parse_file(path, overrides, confine))


def _parse_file(path: Path, overrides: Optional[dict], confine: Optional[Path]) -> Config:
    table, _ = resolved_table(path, overrides, confine)
    return parse_table(table, path)


def user_rules(cfg: Config) -> list:
    """The rule classes of ``cfg``'s rule folders (`ConfigError` when one
    does not load)."""
    if not cfg.rule_dirs:
        return []
    from sgllint.model.rule import RuleDirError, load_rule_dirs

    try:
        return load_rule_dirs(cfg.rule_dirs)
    except RuleDirError as e:
        raise ConfigError(str(e)) from e


def checked_selectors(cfg: Config) -> Config:
    """``cfg`` once the selectors of a table with ``rule-dirs`` (left to this
    by `parse_table`) are known to name a rule: built in, or of its rule
    folders when they are honoured (a discovered configuration's are not:
    `discover`). Loading the folders runs their code."""
    if not (cfg.rule_dirs or cfg.refused_rule_dirs):
        return cfg
    rules = user_rules(cfg)
    where = str(cfg.path) if cfg.path else "configuration"
    for key in ("select", "extend_select", "ignore"):
        validate_selectors(getattr(cfg, key), key.replace("_", "-"), where, rules)
    for glob, codes in cfg.per_file_ignores:
        validate_selectors(codes, f"per-file-ignores.{glob}", where, rules)
    validate_selectors([code for code, _ in cfg.severity], "severity", where, rules)
    return cfg


def _is_within(path: Path, directory: Path) -> bool:
    try:
        path.relative_to(directory)
        return True
    except ValueError:
        return False


def _repository_of(config_file: Path) -> Path:
    """The directory a discovered configuration is confined to: the
    repository holding it (the nearest ``.git`` above), else its own
    directory."""
    start = config_file.resolve().parent
    for d in (start, *start.parents):
        if (d / ".git").exists():
            return d
    return start


def parse_override(text: str) -> dict:
    """``--config KEY=VALUE``: one TOML key/value pair (ruff's inline
    ``--config``), such as ``sglang-version = "0.5.4"`` or
    ``ignore = ["SGL109"]``."""
    try:
        table = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"--config {text!r} is neither a file nor a TOML 'key = value' pair ({e})") from None
    unknown = [k for k in table if k not in KEYS or k == "extend"]
    if unknown:
        raise ConfigError(f"--config: unknown key '{unknown[0]}'{_suggest(unknown[0], KEYS - {'extend'})}")
    return table


def _suggest(key: str, valid) -> str:
    import difflib

    close = difflib.get_close_matches(key, sorted(valid), n=1, cutoff=0.5)
    return f"; did you mean '{close[0]}'?" if close else f"; valid keys: {', '.join(sorted(valid))}"


def _str_list(value: Any, key: str, where: str) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where}: '{key}' must be a list of strings")
    return tuple(value)


def validate_selectors(selectors, key: str, where: str, rules: Iterable = ()) -> None:
    """Each selector names a code, a code prefix or a rule name: of the
    built-in rules, removed and engine codes, or of ``rules`` (the user's
    own, `user_rules`); else a `ConfigError` with the closest one."""
    from sgllint.model.rule import code_names

    by_code = {**code_names(), **{r.code: r.name for r in rules}}
    codes = list(by_code)
    names = set(by_code.values())
    for s in selectors:
        if s.upper() == "ALL" or s.lower() in names:
            continue
        up = s.upper()
        if up.startswith("SGL") and any(c.startswith(up) for c in codes):
            continue
        from sgllint.resolve.didyoumean import closest_selector

        guess = closest_selector(s, codes, names)
        hint = f"; did you mean '{guess}'?" if guess else "; `sgllint rule --all` lists the codes and names"
        raise ConfigError(f"{where}: '{key}' has unknown rule selector '{s}'{hint}")


def _unchecked(selectors, key: str, where: str) -> None:
    """Selectors of a table with ``rule-dirs``: they may name its rules, so
    `checked_selectors` judges them once the rules are loaded."""


def parse_table(table: dict, path: Optional[Path]) -> Config:
    # long on purpose: one [tool.sgllint] table: each key's check in the documentation's order, a flat list of small
    # checks
    where = str(path) if path else "configuration"
    validate = _unchecked if table.get("rule-dirs") else validate_selectors
    unknown = [k for k in table if k not in KEYS]
    if unknown:
        k = unknown[0]
        raise ConfigError(f"{where}: unknown key '{k}' in [tool.sgllint]{_suggest(k, KEYS)}")
    kwargs: dict[str, Any] = {}
    for key in ("select", "ignore", "extend-select", "exclude", "extend-exclude"):
        if key in table:
            values = _str_list(table[key], key, where)
            if key in ("select", "ignore", "extend-select"):
                validate(values, key, where)
            kwargs[key.replace("-", "_")] = values
    if "ignore-sglang-checks" in table:
        kwargs["ignore_sglang_checks"] = _str_list(table["ignore-sglang-checks"], "ignore-sglang-checks", where)
    if "extend-ignore" in table:
        values = _str_list(table["extend-ignore"], "extend-ignore", where)
        validate(values, "extend-ignore", where)
        kwargs["ignore"] = kwargs.get("ignore", ()) + values
    if "per-file-ignores" in table:
        pfi = table["per-file-ignores"]
        if not isinstance(pfi, dict):
            raise ConfigError(f"{where}: 'per-file-ignores' must be a table of glob = [codes]")
        items = []
        for glob, codes in pfi.items():
            codes_t = _str_list(codes, f"per-file-ignores.{glob}", where)
            validate(codes_t, f"per-file-ignores.{glob}", where)
            items.append((glob, codes_t))
        kwargs["per_file_ignores"] = tuple(items)
    if "severity" in table:
        sev = table["severity"]
        if not isinstance(sev, dict):
            raise ConfigError(f"{where}: 'severity' must be a table of code = \"error\"|\"warning\"|\"info\"")
        pairs = []
        for code, level in sev.items():
            validate([code], "severity", where)
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
        from sgllint.resolve import hardware

        gpu = table["gpu"]
        if not isinstance(gpu, str) or (hardware.find(gpu) is None and not gpu.strip().lower().lstrip("sm_").isdigit()):
            raise ConfigError(f"{where}: 'gpu' must name a known GPU (e.g. \"H100\", \"B200\") or an SM like \"sm90\"; known: {', '.join(hardware.names())}")
        kwargs["gpu"] = gpu
    if "models" in table:
        models = table["models"]
        if not isinstance(models, dict) or not all(isinstance(v, str) for v in models.values()):
            raise ConfigError(f"{where}: 'models' must be a table of \"model id glob\" = \"Architecture\"")
        kwargs["models"] = tuple(models.items())
    if "max-diagnostics" in table:
        limit = table["max-diagnostics"]
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
            raise ConfigError(f"{where}: 'max-diagnostics' must be a whole number >= 0 (0: show every finding), got {limit!r}")
        kwargs["max_diagnostics"] = limit
    if "allow-outside" in table:
        base = path.parent if path else Path.cwd()
        kwargs["allow_outside"] = tuple(
            Path(os.path.normpath(base / os.path.expanduser(p))) for p in _str_list(table["allow-outside"], "allow-outside", where)
        )
    if "max-file-size" in table:
        kwargs["max_file_size"] = parse_size(table["max-file-size"], f"{where}: 'max-file-size'")
    if "rule-dirs" in table:
        base = path.parent if path else Path.cwd()
        kwargs["rule_dirs"] = tuple(
            Path(os.path.normpath(base / os.path.expanduser(p))) for p in _str_list(table["rule-dirs"], "rule-dirs", where)
        )
    return Config(path=path, root=path.parent if path else None, **kwargs)


def _severity(value: Any, key: str, where: str) -> Severity:
    try:
        return Severity.parse(str(value))
    except ValueError:
        raise ConfigError(
            f"{where}: '{key}' must be one of error, warning, info (got {value!r})"
            f"{_suggest(str(value), ['error', 'warning', 'info']).replace('keys', 'values')}"
        ) from None


_SIZE = re.compile(r"\s*(\d+)\s*(?:([kmg])(?:i?b)?|b|bytes?)?\s*", re.I)
_UNIT = {None: 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}


def parse_size(value: Any, where: str) -> int:
    """A size in bytes: an integer, or a string such as "2 MiB", "512k",
    "4MB" (K, M and G count in powers of 1024)."""
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return value
    m = _SIZE.fullmatch(value) if isinstance(value, str) else None
    if m is None or int(m.group(1)) <= 0:
        raise ConfigError(f"{where} must be a size such as 2097152, \"2 MiB\" or \"512 KiB\" (got {value!r})")
    return int(m.group(1)) * _UNIT[m.group(2).lower() if m.group(2) else None]


def check_version(value: str, where: str) -> str:
    from sgllint.catalog import UnknownVersion, resolve_version, versions

    try:
        resolve_version(value)
    except UnknownVersion:
        raise ConfigError(
            f"{where}: no catalog for SGLang {value!r}; supported releases: {versions()[0]} to {versions()[-1]}"
        ) from None
    return value


def discover(start: Path, overrides: Optional[dict] = None) -> Config:
    """The configuration found from ``start`` upward (``overrides`` on top).
    A discovered file belongs to the linted tree, which may be a stranger's
    pull request: its ``extend`` stays inside the repository, and its
    ``allow-outside`` is not honoured (it would let the tree widen what
    sgllint reads); the refused paths are kept in ``refused_allow_outside``
    for the host to say so. Its ``rule-dirs`` is refused the same way, kept
    in ``refused_rule_dirs``: loading a rule folder runs its Python code, and
    linting must never run code from the tree. ``--allow-outside``,
    ``--rule-dir`` and ``--config FILE`` are the user's, and honoured."""
    found = find_config_file(start)
    if found:
        cfg = _parse_file(found, overrides, confine=_repository_of(found))
        if cfg.allow_outside and "allow-outside" not in (overrides or {}):
            cfg = replace(cfg, allow_outside=(), refused_allow_outside=cfg.allow_outside)
        if cfg.rule_dirs and "rule-dirs" not in (overrides or {}):
            cfg = replace(cfg, rule_dirs=(), refused_rule_dirs=cfg.rule_dirs)
        return checked_selectors(cfg)
    if overrides:
        return checked_selectors(replace(parse_table(overrides, None), root=Path(os.getcwd())))
    return Config(root=Path(os.getcwd()))


def error_position(text: str, message: str) -> tuple[int, int, int]:
    """(0-based line, start column, end column) in a configuration file's
    ``text`` that a `ConfigError` ``message`` is about: the TOML parser's
    ``line N, column M``, else the first key or value it quotes, else the
    file's start. Editors (the LSP server) put the diagnostic there."""
    lines = text.splitlines()
    m = re.search(r"at line (\d+), column (\d+)", message)
    if m:
        line = max(0, int(m.group(1)) - 1)
        col = max(0, int(m.group(2)) - 1)
        return line, col, col + 1
    for quoted in re.findall(r"'([^']+)'", message):
        name = quoted.rsplit(".", 1)[-1]
        key = re.compile(rf"^\s*\"?{re.escape(name)}\"?\s*=")
        for i, line in enumerate(lines):
            if key.match(line):
                col = line.index(name)
                return i, col, col + len(name)
        for i, line in enumerate(lines):
            if name in line:
                col = line.index(name)
                return i, col, col + len(name)
    return 0, 0, 0
