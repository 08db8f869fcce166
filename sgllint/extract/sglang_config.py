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

Config words are `Token`s with ``origin="config-file"`` whose spans point into
the YAML file. The unsupported-option facts are `ContextHint`s
``("config-unsupported-option", key, key span)`` on the merged site
(`unsupported_options` lists them; `unsupported_option_message` gives
SGLang's error text).
"""

from __future__ import annotations

import dataclasses
import functools
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

import yaml
from yaml.constructor import SafeConstructor
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from sgllint.extract._yaml_load import Parsed, yaml_error_message
from sgllint.extract._yaml_nodes import BudgetExceeded, NodeReader, distinct_nodes
from sgllint.extract.launchers import SERVE, SERVER_MODULES
from sgllint.model import ContextHint, LaunchSite, ParseProblem, Source, SourceMap, Span, Token, Unresolved

CONFIG_ORIGIN = "config-file"
#: a value expanding past this many nodes (aliases of aliases) is not built
_MAX_EXPANDED_NODES = 100_000

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


@dataclass
class ConfigEntry:
    """One top-level key of a config file, as ``yaml.safe_load`` builds it."""

    key: Any  # normally str
    value: Any  # bool, int, float, str, None, list, dict, date ...
    key_span: Span
    value_span: Span
    item_spans: list[Span] = field(default_factory=list)  # list values: one per item
    # where each character of a string value (or item) was written
    value_map: Optional[SourceMap] = None
    item_maps: list[Optional[SourceMap]] = field(default_factory=list)


# ---------------------------------------------------------------------------
# Reading
# ---------------------------------------------------------------------------


def read_config(path: Path, source_text: Optional[str] = None) -> tuple[Source, list[ConfigEntry], list[ParseProblem]]:
    """Read ``path`` as SGLang does; problems carry SGLang's wording."""
    path = Path(path)
    source = Source(str(path), source_text or "")
    nowhere = Span(source, 0, 0)
    if path.suffix.lower() not in (".yaml", ".yml"):
        return source, [], [ParseProblem(nowhere, f"Config file must be YAML format, got: {path.suffix}")]
    if source_text is None:
        if not path.exists():
            return source, [], [ParseProblem(nowhere, f"Config file not found: {path}")]
        try:
            data = path.read_bytes()
        except OSError as exc:
            return source, [], [ParseProblem(nowhere, f"Failed to read config file {path}: {exc}")]
        if data.startswith(b"\xef\xbb\xbf"):
            data = data[3:]
        source = Source(str(path), data.decode("utf-8", errors="replace"))
    return (source, *entries_from_text(source))


def entries_from_text(source: Source) -> tuple[list[ConfigEntry], list[ParseProblem]]:
    """Compose the file as one document with the pure-Python loader, as
    ``yaml.safe_load`` does, and build its entries."""
    parsed = Parsed(source.text, 0)
    try:
        root = yaml.compose(source.text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        at = min(mark.index, len(source.text)) if mark else 0
        return [], [ParseProblem(Span(source, at, at), f"Failed to read config file {source.path}: {yaml_error_message(exc)}")]
    except (yaml.YAMLError, RecursionError) as exc:
        return [], [ParseProblem(Span(source, 0, 0), f"Failed to read config file {source.path}: {exc}")]
    if root is None:
        return [], []  # an empty file is an empty config
    return entries_from_node(NodeReader(source, parsed), root)


def entries_from_node(reader: NodeReader, root: Node) -> tuple[list[ConfigEntry], list[ParseProblem]]:
    source = reader.source
    root_span = reader.span(root)
    try:
        if _expanded_size(root, {}) > _MAX_EXPANDED_NODES:
            raise BudgetExceeded()
        data = SafeConstructor().construct_document(root)
    except BudgetExceeded:
        return [], [ParseProblem(root_span, "YAML aliases expand to more values than sgllint builds (an alias bomb?)")]
    except (yaml.YAMLError, RecursionError, TypeError, ValueError) as exc:
        return [], [ParseProblem(root_span, f"Failed to read config file {source.path}: {exc}")]
    if data is None:
        return [], []
    if not isinstance(data, dict) or not isinstance(root, MappingNode):
        return [], [ParseProblem(root_span, "Config file must contain a dictionary at root level")]
    written = _written_pairs(reader, root)
    entries = []
    for key, value in data.items():
        key_node, value_node = written[_hashable(key)]
        entries.append(_entry(reader, key, value, key_node, value_node))
    return entries, []


def _written_pairs(reader: NodeReader, root: MappingNode) -> dict:
    """Constructed key -> the (key node, value node) that set it last, with
    merge keys applied as the constructor applies them."""
    reader.allow(10 * distinct_nodes(root) + 10_000)
    pairs = {}
    for key_node, value_node in reader._flatten(root, 0):
        key = SafeConstructor().construct_object(key_node, deep=True)
        pairs[_hashable(key)] = (key_node, value_node)
    return pairs


def _hashable(key: Any) -> Any:
    return (type(key).__name__, key)


def _entry(reader: NodeReader, key: Any, value: Any, key_node: Node, value_node: Node) -> ConfigEntry:
    entry = ConfigEntry(key, value, reader.span(key_node), reader.span(value_node))
    entry.value_map = _string_map(reader, value_node, value)
    if isinstance(value_node, SequenceNode) and isinstance(value, list):
        entry.item_spans = [reader.span(item) for item in value_node.value]
        entry.item_maps = [_string_map(reader, n, v) for n, v in zip(value_node.value, value)]
    return entry


def _string_map(reader: NodeReader, node: Node, value: Any) -> Optional[SourceMap]:
    """Positions of a string value's characters (quoted, escaped, folded)."""
    if not isinstance(node, ScalarNode) or not isinstance(value, str):
        return None
    mapped = reader.scalar(node)
    if mapped.text != value:
        return None
    span = reader.span(node)
    if value == span.text:
        return None
    return mapped.to_map(reader.source, span.end)


def _expanded_size(node: Node, memo: dict) -> int:
    """Nodes the value holds once every alias is expanded (memoised, so a
    billion-laughs document is measured without being expanded)."""
    key = id(node)
    if key in memo:
        return memo[key]
    memo[key] = _MAX_EXPANDED_NODES + 1  # a cycle counts as too large
    if isinstance(node, MappingNode):
        size = 1 + sum(_expanded_size(k, memo) + _expanded_size(v, memo) for k, v in node.value)
    elif isinstance(node, SequenceNode):
        size = 1 + sum(_expanded_size(item, memo) for item in node.value)
    else:
        size = 1
    memo[key] = size
    return size


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
    """``ContextHint("config-unsupported-option", key, key span)`` for every
    key the release's merger refuses (SGLang then stops at the first)."""
    rules = _MergerRules.for_catalog(catalog)
    return [
        ContextHint("config-unsupported-option", e.key, e.key_span)
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
        flag = _flag_token(e)
        value = e.value
        if isinstance(value, bool):
            if rules.legacy_bools or _normalised(e.key) in rules.store_true_keys:
                tokens += [flag] if value else []
            else:
                tokens += [flag, _config_token(str(value).lower(), e.value_span)]
        elif isinstance(value, list):
            tokens += [flag] + _item_tokens(e) if value else []
        elif isinstance(value, dict):
            tokens += [flag, _dict_token(e, rules.json_dicts)]
        else:
            tokens += [flag, _config_token(str(value), e.value_span, e.value_map if isinstance(value, str) else None)]
    return tokens


def raw_config_tokens(entries: list[ConfigEntry]) -> list[Token]:
    """Catalog-free words for a config file linted on its own: ``true`` a
    bare flag, ``false`` nothing, lists as several words, dicts as JSON. The
    exact per-release conversion happens when a launch references the file
    (`merge_config`)."""
    tokens: list[Token] = []
    for e in entries:
        value = e.value
        flag = _flag_token(e)
        if isinstance(value, bool):
            tokens += [flag] if value else []
        elif isinstance(value, list):
            tokens += [flag] + _item_tokens(e) if value else []
        elif isinstance(value, dict):
            tokens += [flag, _dict_token(e, json_dicts=True)]
        else:
            tokens += [flag, _config_token(str(value), e.value_span, e.value_map if isinstance(value, str) else None)]
    return tokens


def _flag_token(e: ConfigEntry) -> Token:
    return _config_token(f"--{e.key}", e.key_span)


def _config_token(value, span: Span, value_map: Optional[SourceMap] = None) -> Token:
    return Token(value, span, value_map, origin=CONFIG_ORIGIN)


def _item_tokens(e: ConfigEntry) -> list[Token]:
    spans = e.item_spans or [e.value_span] * len(e.value)
    maps = e.item_maps or [None] * len(e.value)
    return [
        _config_token(str(item), span, value_map if isinstance(item, str) else None)
        for item, span, value_map in zip(e.value, spans, maps)
    ]


def _dict_token(e: ConfigEntry, json_dicts: bool) -> Token:
    if not json_dicts:
        return _config_token(str(e.value), e.value_span)
    try:
        return _config_token(json.dumps(e.value), e.value_span)
    except (TypeError, ValueError) as exc:  # SGLang fails the same way
        return _config_token(Unresolved(e.value_span.text, f"json.dumps fails: {exc}"), e.value_span)


# ---------------------------------------------------------------------------
# Recognising a config file linted on its own
# ---------------------------------------------------------------------------

#: spellings common to every release with ``--config`` (0.5.3+), used when no
#: catalog is at hand; enough to tell an SGLang config from other YAML
COMMON_SERVER_ARGS = frozenset(
    """model-path model tokenizer-path tokenizer-mode skip-tokenizer-init load-format trust-remote-code
    dtype kv-cache-dtype quantization context-length device served-model-name chat-template
    completion-template is-embedding revision mem-fraction-static max-running-requests max-total-tokens
    chunked-prefill-size max-prefill-tokens schedule-policy schedule-conservativeness cpu-offload-gb
    page-size tensor-parallel-size tp-size pipeline-parallel-size pp-size stream-interval random-seed
    watchdog-timeout download-dir base-gpu-id log-level log-requests show-time-cost enable-metrics
    api-key host port data-parallel-size dp-size load-balance-method dist-init-addr nnodes node-rank
    json-model-override-args lora-paths max-loras-per-batch attention-backend sampling-backend
    grammar-backend speculative-algorithm speculative-draft-model-path speculative-num-steps
    speculative-eagle-topk speculative-num-draft-tokens ep-size expert-parallel-size enable-dp-attention
    disable-radix-cache disable-cuda-graph disable-cuda-graph-padding enable-torch-compile
    torch-compile-max-bs cuda-graph-max-bs cuda-graph-bs disable-overlap-schedule enable-mixed-chunk
    triton-attention-reduce-in-fp32 num-continuous-decode-steps reasoning-parser tool-call-parser
    disaggregation-mode disaggregation-transfer-backend enable-deterministic-inference moe-runner-backend
    moe-a2a-backend enable-eplb mm-attention-backend skip-server-warmup warmups numa-node
    enable-hierarchical-cache hicache-ratio""".split()
)


def is_config_mapping(keys: list, known: Optional[frozenset] = None) -> bool:
    """A top-level mapping that is an SGLang config: a model path key plus
    other keys of which most are server-arg spellings (dash or underscore)."""
    names = [str(k).replace("_", "-") for k in keys if isinstance(k, str)]
    if len(names) < 2 or "model-path" not in names:
        return False
    known = known if known is not None else known_spellings()
    others = [n for n in names if n != "model-path"]
    hits = sum(1 for n in others if n in known)
    return hits >= 1 and 2 * hits >= len(others)


@functools.lru_cache(maxsize=1)
def known_spellings() -> frozenset:
    """Long option names of the newest shipped catalog, else the common ones."""
    try:
        from sgllint import catalog

        latest = catalog.load(catalog.latest())
        names = {s[2:] for s in latest.by_string if s.startswith("--")}
        return frozenset(names) | COMMON_SERVER_ARGS
    except Exception:  # no catalog generated yet: the built-in list does
        return COMMON_SERVER_ARGS


# ---------------------------------------------------------------------------
# Merging into a launch
# ---------------------------------------------------------------------------


def merge_config(site: LaunchSite, catalog, base_dir: Path) -> LaunchSite:
    """The launch as SGLang parses it when its argv holds ``--config PATH``:
    config words first, then the CLI words without ``--config PATH``. The
    site is returned unchanged when the release or launcher has no merger.

    Hints recorded (and the site made opaque where its args cannot be seen):
    ``config-file`` (merged), ``config-missing``, ``config-error`` (SGLang
    refuses the file or argv), ``config-equals-ignored`` (``--config=x``),
    ``config-abbrev-ignored`` (``--conf x``), ``config-ignored`` (a launcher
    without the merger), ``config-unsupported-option``.
    """
    from sgllint.catalog import version_key

    if site.form != "argv" or "--config" not in catalog.by_string:
        return site
    hints = _ignored_spellings(site, catalog)
    at = [i for i, t in enumerate(site.tokens) if t.value == "--config"]
    if not at:
        return _with(site, hints=hints) if hints else site
    flag = site.tokens[at[0]]
    if site.entry not in _MERGING_ENTRIES:
        return _with(site, hints=hints + [ContextHint("config-ignored", site.entry, flag.span)])
    if len(at) > 1:
        return _refused(site, hints, "Multiple config files specified! Only one allowed.", site.tokens[at[1]].span)
    if at[0] == len(site.tokens) - 1:
        return _refused(site, hints, "No config file specified after --config flag!", flag.span)
    path_token = site.tokens[at[0] + 1]
    if not isinstance(path_token.value, str):
        hint = ContextHint("config-missing", path_token.value, path_token.span)
        return _with(site, hints=hints + [hint], opaque=[f"--config {path_token.value} cannot be read statically"])
    path = Path(path_token.value)
    if not path.is_absolute():
        path = Path(base_dir) / path
    source, entries, problems = read_config(path)
    if problems:
        return _config_problem(site, hints, path_token, problems[0])
    if version_key(catalog.version) >= (0, 5, 8):
        for e in entries:
            if not isinstance(e.key, str):  # key.replace(...) fails in the merger
                message = f"AttributeError: '{type(e.key).__name__}' object has no attribute 'replace'"
                return _refused(site, hints, message, e.key_span)
    cli = site.tokens[: at[0]] + site.tokens[at[0] + 2 :]
    tokens = _place_config_first(site, catalog, config_tokens(entries, catalog), cli)
    hints = hints + [ContextHint("config-file", str(path), path_token.span)] + unsupported_options(entries, catalog)
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
    from sgllint.extract.argv import classify

    hints = []
    for i, tok in enumerate(site.tokens):
        value = tok.value
        if not isinstance(value, str) or value == "--config" or not value.startswith("--"):
            continue
        parsed = classify(value, catalog)
        if parsed is None or parsed[1] != "--config" or parsed[0] not in ("exact", "prefix"):
            continue
        explicit = parsed[2]
        if explicit is not None and value.startswith("--config="):
            hints.append(ContextHint("config-equals-ignored", explicit, tok.span))
        else:
            path = explicit if explicit is not None else _next_value(site.tokens, i)
            hints.append(ContextHint("config-abbrev-ignored", path, tok.span))
    return hints


def _next_value(tokens: list[Token], i: int):
    return tokens[i + 1].value if i + 1 < len(tokens) else None


def _refused(site: LaunchSite, hints: list, message: str, span: Span) -> LaunchSite:
    hint = ContextHint("config-error", message, span)
    return _with(site, hints=hints + [hint], opaque=[f"SGLang refuses the --config argument: {message}"])


def _config_problem(site: LaunchSite, hints: list, path_token: Token, problem: ParseProblem) -> LaunchSite:
    message = problem.message
    if message.startswith("Config file not found"):
        hint = ContextHint("config-missing", path_token.value, path_token.span)
        reason = f"the config file {path_token.value} is not in this tree; its arguments are unknown"
    else:
        span = problem.span if problem.span.source.text else path_token.span
        hint = ContextHint("config-error", message, span)
        reason = f"SGLang cannot read the config file: {message}"
    return _with(site, hints=hints + [hint], opaque=[reason])


def _with(site: LaunchSite, tokens: Optional[list] = None, hints: Optional[list] = None, opaque: Optional[list] = None) -> LaunchSite:
    return dataclasses.replace(
        site,
        tokens=list(site.tokens) if tokens is None else tokens,
        hints=list(site.hints) + (hints or []),
        opaque=list(site.opaque) + (opaque or []),
    )
