"""SGLang's own ``--config FILE.yaml``, emulated release by release.

``prepare_server_args`` (0.5.3+) runs ``ConfigArgumentMerger`` when the exact
word ``--config`` is in argv: the YAML file is read with ``yaml.safe_load``,
every key becomes the literal word ``--{key}`` (never normalised, so
``tp_size:`` gives ``--tp_size``, which argparse rejects), values become
words by their Python type, and the config words are placed *before* all CLI
words, so a flag given on the command line wins. Sources:
``sglang/srt/server_args_config_parser.py`` (0.5.3-0.5.18) and
``sglang/srt/utils/server_args_config_parser.py`` (0.5.19+):

* 0.5.3-0.5.7: a YAML ``true`` always gives a bare ``--key`` and ``false``
  nothing (the store_true detection never matched); dicts become
  ``str(dict)``; nothing is rejected.
* 0.5.8+: ``true``/``false`` of a store_true flag give ``--key``/nothing, of
  any other flag ``--key true|false``; a key naming an option whose action is
  neither store_true nor store raises ``Unsupported config option``.
* 0.5.14+: dicts become ``json.dumps(value)``.
* 0.5.23: a key may be any long spelling of an option for those checks, and
  any single-value action (``nargs is None``) is supported.

Config words are `Token`s with ``origin=Origin.CONFIG_FILE`` whose spans point into
the YAML file. The unsupported-option facts are `ContextHint`s
``("config-unsupported-option", key, key span)`` on the merged site
(`unsupported_options` lists them; `unsupported_option_message` gives
SGLang's error text).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from sgllint.model.config_file import ConfigEntry, ConfigParser, config_token, dict_token, flag_token, item_tokens, value_token
from sgllint.model.launchers import SERVE, SERVER_MODULES
from sgllint.model.facts import ContextHint, LaunchSite, ParseProblem, Source, Span, Token
from sgllint.model.kinds import HintKind, LaunchForm, Resolution
from sgllint.resolve.project import Scope, scope_for
from sgllint.resolve.safe_read import NotRead, NotReadReason, format_size, read_regular_file

#: the largest config file read (SGLang reads any; sgllint bounds its work)
MAX_CONFIG_BYTES = 2 * 1024 * 1024
#: how a problem that is sgllint's refusal, not SGLang's error, begins
NOT_READ = "not read"

#: launchers whose argv goes through ``prepare_server_args`` (and so the
#: merger); the router's launcher accepts ``--config`` but ignores it
_MERGING_ENTRIES = {SERVER_MODULES["sglang.launch_server"], SERVE}

#: argparse class names of the catalog's action kinds (for SGLang's message)
_ACTION_CLASSES = {
    "store": "_StoreAction",
    "store_true": "_StoreTrueAction",
    "store_false": "_StoreFalseAction",
    "store_const": "_StoreConstAction",
    "append": "_AppendAction",
    "append_const": "_AppendConstAction",
    "extend": "_ExtendAction",
    "count": "_CountAction",
    "help": "_HelpAction",
    "version": "_VersionAction",
    "boolean_optional": "BooleanOptionalAction",
    "deprecated": "DeprecatedAction",
    "deprecated_store_true": "DeprecatedStoreTrueAction",
    "deprecated_store_const": "DeprecatedStoreConstAction",
    "deprecated_alias": "DeprecatedAliasStoreAction",
    "lora_paths": "LoRAPathAction",
}


# ---------------------------------------------------------------------------
# Reading
# ---------------------------------------------------------------------------


def read_config(
    path: Path,
    parse: ConfigParser,
    source_text: Optional[str] = None,
    opened: Optional[str] = None,
    limit: int = MAX_CONFIG_BYTES,
) -> tuple[Source, list[ConfigEntry], list[ParseProblem]]:
    """Read ``path`` as SGLang does, its text parsed by ``parse`` (the YAML
    format's `sgllint.formats.yaml.sglang_config.entries_from_text`, handed
    down by the engine); problems carry SGLang's wording. The
    file is read from ``opened`` (its resolved path, see
    `sgllint.resolve.project.Scope.locate`) when given, and reported as ``path``;
    its `Source` is not echoed in output (`Source.echo`). A file that is not
    regular (a FIFO, a device) or larger than ``limit`` bytes (the
    ``max-file-size`` of the run, `MAX_CONFIG_BYTES` by default) is a
    problem starting with `NOT_READ`, not an SGLang error."""
    path = Path(path)
    source = Source(str(path), source_text or "", echo=False)
    nowhere = Span(source, 0, 0)
    if path.suffix.lower() not in (".yaml", ".yml"):
        return source, [], [ParseProblem(nowhere, f"Config file must be YAML format, got: {path.suffix}")]
    if source_text is None:
        try:
            data, _ = read_regular_file(opened or str(path), limit)
        except NotRead as exc:
            if exc.reason is NotReadReason.MISSING:
                return source, [], [ParseProblem(nowhere, f"Config file not found: {path}")]
            if exc.reason is NotReadReason.NOT_REGULAR:
                return source, [], [ParseProblem(nowhere, f"{NOT_READ}: {path} is not a regular file")]
            if exc.reason is NotReadReason.TOO_LARGE:
                return source, [], [ParseProblem(nowhere, f"{NOT_READ}: {path} is larger than {format_size(limit)} (max-file-size)")]
            return source, [], [ParseProblem(nowhere, f"Failed to read config file {path}: {exc.detail or exc}")]
        if data.startswith(b"\xef\xbb\xbf"):
            data = data[3:]
        source = Source(str(path), data.decode("utf-8", errors="replace"), echo=False)
    return (source, *parse(source))


# ---------------------------------------------------------------------------
# Release rules
# ---------------------------------------------------------------------------


@dataclass
class _MergerRules:
    """What one release's ``ConfigArgumentMerger`` does with keys."""

    legacy_bools: bool  # 0.5.3-0.5.7: every true is a bare flag
    json_dicts: bool  # 0.5.14+
    store_true_keys: set = field(default_factory=set)
    unsupported: dict = field(default_factory=dict)  # normalised key -> action class name

    @classmethod
    def for_catalog(cls, catalog) -> "_MergerRules":
        from sgllint.catalog import version_key

        version = version_key(catalog.version)
        rules = cls(legacy_bools=version < (0, 5, 8), json_dicts=version >= (0, 5, 14))
        if rules.legacy_bools:
            return rules
        options = [o for o in catalog.options if not _exempt(o)]
        if version >= (0, 5, 23):
            rules._any_spelling(catalog.options, options)
        else:
            rules._by_dest(catalog.options, options)
        return rules

    def _by_dest(self, all_options, options) -> None:
        """0.5.8-0.5.22: keys are compared with argparse dests only, and a dest
        shared with any unsupported action is unsupported."""
        self.store_true_keys = {o.dest for o in all_options if o.action == "store_true"}
        for o in options:
            if o.action not in ("store_true", "store"):
                self.unsupported[o.dest] = _ACTION_CLASSES.get(o.action, o.action)

    def _any_spelling(self, all_options, options) -> None:
        """0.5.23: ``_config_keys`` (dest and every long spelling) and any
        single-value action is supported."""
        supported = [o for o in all_options if o.action in ("store_true", "store") or o.nargs is None]
        supported_keys = {k for o in supported for k in _config_keys(o)}
        self.store_true_keys = {k for o in all_options if o.action == "store_true" for k in _config_keys(o)}
        for o in options:
            if o in supported:
                continue
            for k in _config_keys(o):
                if k not in supported_keys:
                    self.unsupported[k] = _ACTION_CLASSES.get(o.action, o.action)


def _exempt(option) -> bool:
    return any(s in ("--config", "--help", "-h") for s in option.strings)


def _config_keys(option) -> set:
    return {option.dest} | {s[2:].replace("-", "_") for s in option.strings if s.startswith("--")}


def _normalised(key: Any) -> str:
    return str(key).replace("-", "_")


def unsupported_option_message(key: Any, catalog) -> Optional[str]:
    """SGLang's error for a config key it refuses, or None."""
    rules = _MergerRules.for_catalog(catalog)
    action = rules.unsupported.get(_normalised(key))
    if action is None:
        return None
    return f"Unsupported config option '{_normalised(key)}' with action '{action}'"


def unsupported_options(entries: list[ConfigEntry], catalog) -> list[ContextHint]:
    """``ContextHint(HintKind.CONFIG_UNSUPPORTED_OPTION, key, key span)`` for every
    key the release's merger refuses (SGLang then stops at the first)."""
    rules = _MergerRules.for_catalog(catalog)
    return [
        ContextHint(HintKind.CONFIG_UNSUPPORTED_OPTION, e.key, e.key_span)
        for e in entries
        if _normalised(e.key) in rules.unsupported
    ]


# ---------------------------------------------------------------------------
# Tokens
# ---------------------------------------------------------------------------


def config_tokens(entries: list[ConfigEntry], catalog) -> list[Token]:
    """The words the release's merger builds from ``entries``, in order."""
    rules = _MergerRules.for_catalog(catalog)
    tokens: list[Token] = []
    for e in entries:
        flag = flag_token(e)
        value = e.value
        if isinstance(value, bool):
            if rules.legacy_bools or _normalised(e.key) in rules.store_true_keys:
                tokens += [flag] if value else []
            else:
                tokens += [flag, config_token(str(value).lower(), e.value_span)]
        elif isinstance(value, list):
            tokens += [flag] + item_tokens(e) if value else []
        elif isinstance(value, dict):
            tokens += [flag, dict_token(e, rules.json_dicts)]
        else:
            tokens += [flag, value_token(e)]
    return tokens


# ---------------------------------------------------------------------------
# Merging into a launch
# ---------------------------------------------------------------------------


def merge_config(
    site: LaunchSite,
    catalog,
    base_dir: Path,
    scope: Optional[Scope] = None,
    limit: int = MAX_CONFIG_BYTES,
    *,
    parse: ConfigParser,
) -> LaunchSite:
    """The launch as SGLang parses it when its argv holds ``--config PATH``
    (the file's text parsed by ``parse``, see `read_config`):
    config words first, then the CLI words without ``--config PATH``. The
    site is returned unchanged when the release or launcher has no merger.

    Hints recorded (and the site made opaque where its args cannot be seen):
    ``config-file`` (merged), ``config-missing``, ``config-error`` (SGLang
    refuses the file or argv), ``config-equals-ignored`` (``--config=x``),
    ``config-abbrev-ignored`` (``--conf x``), ``config-ignored`` (a launcher
    without the merger), ``config-unsupported-option``, ``reference-outside-project``
    (the path resolves outside ``scope``, by default the project of
    ``base_dir``: it is not read). A file larger than ``limit`` bytes is
    not read either (``config-missing``).
    """
    # long on purpose: SGLang's --config merge in its order (read, flatten, reorder the argv), sharing the words and
    # their spans
    from sgllint.catalog import version_key

    if site.form is not LaunchForm.ARGV or "--config" not in catalog.by_string:
        return site
    hints = _ignored_spellings(site, catalog)
    at = [i for i, t in enumerate(site.tokens) if t.value == "--config"]
    if not at:
        return _with(site, hints=hints) if hints else site
    flag = site.tokens[at[0]]
    if site.entry not in _MERGING_ENTRIES:
        return _with(site, hints=hints + [ContextHint(HintKind.CONFIG_IGNORED, site.entry, flag.span)])
    if len(at) > 1:
        return _refused(site, hints, "Multiple config files specified! Only one allowed.", site.tokens[at[1]].span)
    if at[0] == len(site.tokens) - 1:
        return _refused(site, hints, "No config file specified after --config flag!", flag.span)
    path_token = site.tokens[at[0] + 1]
    if not isinstance(path_token.value, str):
        hint = ContextHint(HintKind.CONFIG_MISSING, path_token.value, path_token.span)
        return _with(site, hints=hints + [hint], opaque=[f"--config {path_token.value} cannot be read statically"])
    path = Path(path_token.value)
    if not path.is_absolute():
        path = Path(base_dir) / path
    scope = scope or scope_for(base_dir)
    opened = scope.locate(path_token.value, base_dir)
    if opened is None:
        hint = ContextHint(HintKind.OUTSIDE_PROJECT, path_token.value, path_token.span)
        reason = f"the config file {path_token.value} is outside the project and not read; its arguments are unknown"
        return _with(site, hints=hints + [hint], opaque=[reason])
    source, entries, problems = read_config(path, parse, opened=opened, limit=limit)
    if problems:
        return _config_problem(site, hints, path_token, problems[0])
    if version_key(catalog.version) >= (0, 5, 8):
        for e in entries:
            if not isinstance(e.key, str):  # key.replace(...) fails in the merger
                message = f"AttributeError: '{type(e.key).__name__}' object has no attribute 'replace'"
                return _refused(site, hints, message, e.key_span)
    cli = site.tokens[: at[0]] + site.tokens[at[0] + 2 :]
    tokens = _place_config_first(site, catalog, config_tokens(entries, catalog), cli)
    hints = hints + [ContextHint(HintKind.CONFIG_FILE, str(path), path_token.span)] + unsupported_options(entries, catalog)
    return _with(site, tokens=tokens, hints=hints)


def _place_config_first(site: LaunchSite, catalog, config: list[Token], cli: list[Token]) -> list[Token]:
    """``config_args + before_config + after_config``. ``sglang serve MODEL``
    (0.5.16+) turns the positional model into ``--model-path MODEL`` before
    the merge; argv resolution expects the positional word first, so it
    stays there (the one difference: a model path in the config then wins
    over the positional one)."""
    from sgllint.catalog import version_key

    if (
        site.entry == SERVE
        and version_key(catalog.version) >= (0, 5, 16)
        and cli
        and isinstance(cli[0].value, str)
        and not cli[0].value.startswith("-")
    ):
        return cli[:1] + config + cli[1:]
    return config + cli


def _ignored_spellings(site: LaunchSite, catalog) -> list[ContextHint]:
    """``--config=x`` and abbreviations such as ``--conf x``: argparse stores
    them, but the merger only looks for the exact word, so the file is never
    read."""
    from sgllint.resolve.argv import classify

    hints = []
    for i, tok in enumerate(site.tokens):
        value = tok.value
        if not isinstance(value, str) or value == "--config" or not value.startswith("--"):
            continue
        parsed = classify(value, catalog)
        if parsed is None or parsed[1] != "--config" or parsed[0] not in (Resolution.EXACT, Resolution.PREFIX):
            continue
        explicit = parsed[2]
        if explicit is not None and value.startswith("--config="):
            hints.append(ContextHint(HintKind.CONFIG_EQUALS_IGNORED, explicit, tok.span))
        else:
            path = explicit if explicit is not None else _next_value(site.tokens, i)
            hints.append(ContextHint(HintKind.CONFIG_ABBREV_IGNORED, path, tok.span))
    return hints


def _next_value(tokens: list[Token], i: int):
    return tokens[i + 1].value if i + 1 < len(tokens) else None


def _refused(site: LaunchSite, hints: list, message: str, span: Span) -> LaunchSite:
    hint = ContextHint(HintKind.CONFIG_ERROR, message, span)
    return _with(site, hints=hints + [hint], opaque=[f"SGLang refuses the --config argument: {message}"])


def _config_problem(site: LaunchSite, hints: list, path_token: Token, problem: ParseProblem) -> LaunchSite:
    message = problem.message
    if message.startswith("Config file not found"):
        hint = ContextHint(HintKind.CONFIG_MISSING, path_token.value, path_token.span)
        reason = f"the config file {path_token.value} is not in this tree; its arguments are unknown"
    elif message.startswith(NOT_READ):
        hint = ContextHint(HintKind.CONFIG_MISSING, path_token.value, path_token.span)
        reason = f"the config file is {message}; its arguments are unknown"
    else:
        span = problem.span if problem.span.source.text else path_token.span
        hint = ContextHint(HintKind.CONFIG_ERROR, message, span)
        reason = f"SGLang cannot read the config file: {message}"
    return _with(site, hints=hints + [hint], opaque=[reason])


def _with(site: LaunchSite, tokens: Optional[list] = None, hints: Optional[list] = None, opaque: Optional[list] = None) -> LaunchSite:
    return dataclasses.replace(
        site,
        tokens=list(site.tokens) if tokens is None else tokens,
        hints=list(site.hints) + (hints or []),
        opaque=list(site.opaque) + (opaque or []),
    )
