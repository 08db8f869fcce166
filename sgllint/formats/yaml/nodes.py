"""Reading composed YAML nodes: source spans, decoded scalars with positions,
mappings with merge keys applied, and a budget against alias bombs.

A composed graph shares the node of an anchor with every alias of it, so a
span taken from an aliased value points at the anchored definition.
"""

from __future__ import annotations

from typing import Iterator, Optional

from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from sgllint.formats.yaml.load import Parsed
from sgllint.formats.yaml.scalars import MappedText, coarse_map, decode_scalar, scalar_start, trimmed_end
from sgllint.model.facts import Source, Span

_MERGE_TAG = "tag:yaml.org,2002:merge"
_STR_TAG = "tag:yaml.org,2002:str"
#: merge keys nest (a merged mapping may merge others); deeper is a loop
_MAX_MERGE_DEPTH = 32


class BudgetExceeded(Exception):
    """More nodes were visited than the document can hold without aliases
    expanding exponentially (a "billion laughs" document)."""


class NodeReader:
    """Positions and values of the nodes of one parse."""

    def __init__(self, source: Source, parsed: Parsed):
        self.source = source
        self.text = parsed.text
        self.shift = parsed.shift
        self._scalars: dict[int, MappedText] = {}
        self._pairs: dict[int, dict[str, tuple[Node, Node]]] = {}
        self.budget = 0

    # -- budget ----------------------------------------------------------------

    def allow(self, nodes: int) -> None:
        self.budget = nodes

    def spend(self, n: int = 1) -> None:
        self.budget -= n
        if self.budget < 0:
            raise BudgetExceeded()

    # -- positions -------------------------------------------------------------

    def _clamp(self, offset: int) -> int:
        return max(0, min(offset + self.shift, len(self.source.text)))

    def span(self, node: Node) -> Span:
        """The node as written: a scalar without its anchor or tag, a block
        scalar or collection without the trailing blank lines."""
        start, end = node.start_mark.index, node.end_mark.index
        start = scalar_start(self.text, start, end)
        if not isinstance(node, ScalarNode) or node.style in ("|", ">"):
            end = trimmed_end(self.text, start, end)
        return Span(self.source, self._clamp(start), self._clamp(max(start, end)))

    def scalar(self, node: ScalarNode) -> MappedText:
        """The scalar's value, each character with its source range."""
        cached = self._scalars.get(id(node))
        if cached is not None:
            return cached
        start, end = node.start_mark.index, node.end_mark.index
        start = scalar_start(self.text, start, end)
        mapped = decode_scalar(self.text, start, end, node.style, node.value)
        if mapped is not None:
            mapped = mapped.shifted(self.shift)
            n = len(self.source.text)
            if any(not (0 <= s <= e <= n) for s, e in zip(mapped.starts, mapped.ends)):
                mapped = None
        if mapped is None:
            span = self.span(node)
            mapped = coarse_map(node.value, span.start, span.end)
        self._scalars[id(node)] = mapped
        return mapped

    # -- structure -------------------------------------------------------------

    def pairs(self, node: MappingNode) -> dict[str, tuple[Node, Node]]:
        """Key text -> (key node, value node) with merge keys (``<<: *base``)
        applied as PyYAML does: explicit keys win over merged ones, and of
        several merged mappings the first listed wins."""
        cached = self._pairs.get(id(node))
        if cached is None:
            cached = {}
            for key, value in self._flatten(node, 0):
                cached[key.value] = (key, value)
            self._pairs[id(node)] = cached
        return cached

    def _flatten(self, node: MappingNode, depth: int) -> list[tuple[ScalarNode, Node]]:
        merged: list[tuple[ScalarNode, Node]] = []
        own: list[tuple[ScalarNode, Node]] = []
        for key, value in node.value:
            self.spend()
            if isinstance(key, ScalarNode) and key.tag == _MERGE_TAG:
                if depth < _MAX_MERGE_DEPTH:
                    merged = self._merged(value, depth) + merged
                continue
            if isinstance(key, ScalarNode):
                own.append((key, value))
        return merged + own

    def _merged(self, value: Node, depth: int) -> list[tuple[ScalarNode, Node]]:
        if isinstance(value, MappingNode):
            return self._flatten(value, depth + 1)
        if isinstance(value, SequenceNode):
            out: list[tuple[ScalarNode, Node]] = []
            for item in reversed(value.value):  # the first listed wins
                if isinstance(item, MappingNode):
                    out += self._flatten(item, depth + 1)
            return out
        return []

    def get(self, node: Optional[Node], *path: str) -> Optional[Node]:
        """The node at ``path`` of mapping keys below ``node``."""
        for key in path:
            if not isinstance(node, MappingNode):
                return None
            pair = self.pairs(node).get(key)
            node = pair[1] if pair else None
        return node

    def string(self, node: Optional[Node]) -> Optional[str]:
        """A scalar's text, or None for collections and nulls."""
        if isinstance(node, ScalarNode) and not (node.tag.endswith(":null") and not node.style):
            return node.value
        return None

    def children(self, node: Node) -> Iterator[tuple[Optional[str], Node]]:
        """(key or None, child) of a collection, merge keys applied."""
        if isinstance(node, MappingNode):
            for key, (_, value) in self.pairs(node).items():
                yield key, value
        elif isinstance(node, SequenceNode):
            for item in node.value:
                yield None, item


def iter_distinct_nodes(root: Node) -> Iterator[Node]:
    """Every node of a document once (an alias's target is not walked again),
    keys included, in no particular order."""
    seen: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        yield node
        if isinstance(node, MappingNode):
            for key, value in node.value:
                stack.append(key)
                stack.append(value)
        elif isinstance(node, SequenceNode):
            stack.extend(node.value)


def distinct_nodes(root: Node) -> int:
    """How many distinct nodes a document holds (aliases counted once)."""
    return sum(1 for _ in iter_distinct_nodes(root))
