"""Reading an SGLang ``--config FILE.yaml``: its top-level entries as
``yaml.safe_load`` builds them, with the span of every key, value and list
item, and recognising such a file linted on its own.

SGLang's reading (``ConfigArgumentMerger``, see `sgllint.resolve.sglang_config`
for the release-by-release merge) composes the file as one document with the
pure-Python loader; problems carry SGLang's wording. `entries_from_text` is
the `sgllint.model.config_file.ConfigParser` the engine hands to resolution.
"""

from __future__ import annotations

from typing import Any, Optional

import yaml
from yaml.constructor import SafeConstructor
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from sgllint.formats.sglang_spellings import SPELLINGS
from sgllint.formats.yaml.load import Parsed, yaml_error_message
from sgllint.formats.yaml.nodes import BudgetExceeded, NodeReader, distinct_nodes
from sgllint.model.config_file import ConfigEntry, dict_token, flag_token, item_tokens, value_token
from sgllint.model.facts import ParseProblem, Source, SourceMap, Span, Token

#: a value expanding past this many nodes (aliases of aliases) is not built
_MAX_EXPANDED_NODES = 100_000


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
# Catalog-free words
# ---------------------------------------------------------------------------


def raw_config_tokens(entries: list[ConfigEntry]) -> list[Token]:
    """Catalog-free words for a config file linted on its own: ``true`` a
    bare flag, ``false`` nothing, lists as several words, dicts as JSON. The
    exact per-release conversion happens when a launch references the file
    (`sgllint.resolve.sglang_config.merge_config`)."""
    tokens: list[Token] = []
    for e in entries:
        value = e.value
        flag = flag_token(e)
        if isinstance(value, bool):
            tokens += [flag] if value else []
        elif isinstance(value, list):
            tokens += [flag] + item_tokens(e) if value else []
        elif isinstance(value, dict):
            tokens += [flag, dict_token(e, json_dicts=True)]
        else:
            tokens += [flag, value_token(e)]
    return tokens


# ---------------------------------------------------------------------------
# Recognising a config file linted on its own
# ---------------------------------------------------------------------------

#: spellings common to the releases with ``--config`` (0.5.3+), with the newest
#: catalog's enough to tell an SGLang config from other YAML
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


def is_model_less_config(keys: list) -> bool:
    """A mapping whose every key is an SGLang option spelling: a config file
    whose launch gives the model path on its command line."""
    names = [k for k in keys if isinstance(k, str)]
    if not names or len(names) != len(keys):
        return False
    known = known_spellings()
    return all(n.replace("_", "-") in known for n in names)


def known_spellings() -> frozenset:
    """Long option names of the newest shipped catalog (generated data,
    `sgllint.catalog._gen_spellings`) and the common ones."""
    return _KNOWN


_KNOWN = SPELLINGS | COMMON_SERVER_ARGS
