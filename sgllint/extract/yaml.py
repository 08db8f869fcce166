"""YAML extractor: launches in Kubernetes manifests, docker compose files,
CI workflows, SkyPilot tasks, Helm templates and SGLang config files.

Each document is composed into nodes with positions (never constructed).
Launches are found by shape, not by schema:

* a mapping with ``command``/``args`` (a container: Deployment, Job,
  LeaderWorkerSet templates, custom resources) or ``entrypoint``/``command``
  (a compose service) has its parts joined into one argv; ``sh -c SCRIPT``
  re-parses SCRIPT as shell;
* any other sequence of strings holding a launcher is an argv;
* any string holding a launch (``run: |`` steps, SkyPilot ``run:``, a
  compose ``command: >``) is a shell script.

Strings keep exact positions: every character of a quoted, escaped, folded
or block scalar maps back to where it was written (`_yaml_scalars`).
Deploy-time substitutions (Kubernetes ``$(VAR)``, compose ``${VAR:-x}``,
Helm/Actions ``{{ }}``) are applied or made `Unresolved` (`_yaml_words`).
The environment and context hints (image, GPU count and product) of the
mappings around a launch are attached to it (`_yaml_context`).

A top-level mapping that is an SGLang ``--config`` file becomes one site
``sglang --config file`` (see `sglang_config`). Sections for other engines
(``vllm:``, ``tensorrt_llm:``) are skipped. Invalid YAML is one parse
problem, except for templates, which are read leniently (`_yaml_lenient`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from sgllint.extract import _yaml_load as load
from sgllint.extract._yaml_context import mapping_env, mapping_hints
from sgllint.extract._yaml_lenient import extract_lines
from sgllint.extract._yaml_nodes import BudgetExceeded, NodeReader, distinct_nodes
from sgllint.extract._yaml_scalars import MappedText, scalar_start
from sgllint.extract._yaml_words import (
    LAUNCH_TEXT,
    Mode,
    Word,
    opaque_reasons,
    prepare_script,
    split_words,
    unplaceholder,
    word_from_scalar,
)
from sgllint.extract.launchers import find_launch
from sgllint.extract.sglang_config import (
    CONFIG_ORIGIN,
    entries_from_node,
    is_config_mapping,
    raw_config_tokens,
)
from sgllint.model import EnvVar, FileFacts, LaunchSite, ParseProblem, Source, Span, Token, Unresolved

__all__ = ["extract", "CONFIG_ENTRY"]

CONFIG_ENTRY = "sglang --config file"

#: sections describing another engine's launch
_FOREIGN_SECTIONS = {"vllm", "tensorrt_llm", "tensorrt-llm", "trtllm", "trt_llm", "trt-llm", "lmdeploy", "tgi"}
_SHELLS = {"sh", "bash", "zsh", "dash", "ksh", "ash"}
_CONTEXT_KEYS = {"env", "envs", "environment", "image", "image_id", "container", "resources", "nodeSelector", "affinity", "deploy"}
_MODEL_PATH_KEYS = ("model-path", "model_path")
_MERGE_TAG = "tag:yaml.org,2002:merge"
_TEMPLATE_END = re.compile(r"\{\{-?\s*end\b")
_ENV_ASSIGNMENT = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=(.*)\Z", re.S)


def extract(source: Source) -> FileFacts:
    facts = FileFacts(source, "yaml")
    parsed = _parse(source)
    if parsed is None:  # a template that no YAML parser can read
        extract_lines(source, facts)
        return _finish(facts)
    for root in parsed.documents:
        _Document(source, parsed, root, facts).extract()
    if parsed.error is not None:
        at = parsed.error.offset
        facts.problems.append(ParseProblem(Span(source, at, min(at + 1, len(source.text))), parsed.error.message))
        facts.comments += load.comments_by_line(parsed.text, parsed.shift)
    else:
        facts.comments += load.comments_outside(parsed.text, parsed.shift, _scalar_ranges(parsed))
    return _finish(facts)


def _parse(source: Source) -> Optional[load.Parsed]:
    """The strict parse; for a template that is not YAML, the parse with its
    expressions blanked, or None when even that fails."""
    parsed = load.parse(source.text)
    if parsed.error is None or not load.has_template(source.text):
        return parsed
    blanked = load.parse(source.text, blank=True)
    return blanked if blanked.error is None else None


def _scalar_ranges(parsed: load.Parsed) -> list[tuple[int, int]]:
    ranges = set()
    for root in parsed.documents:
        seen: set[int] = set()
        stack = [root]
        while stack:
            node = stack.pop()
            if id(node) in seen:
                continue
            seen.add(id(node))
            if isinstance(node, ScalarNode):
                start = scalar_start(parsed.text, node.start_mark.index, node.end_mark.index)
                ranges.add((start, node.end_mark.index))
            elif isinstance(node, MappingNode):
                for key, value in node.value:
                    stack += [key, value]
            elif isinstance(node, SequenceNode):
                stack += node.value
    return sorted(ranges)


def _finish(facts: FileFacts) -> FileFacts:
    facts.sites.sort(key=lambda s: (s.span.start, s.span.end))
    facts.comments = sorted(set(facts.comments))
    return facts


# ---------------------------------------------------------------------------
# One document
# ---------------------------------------------------------------------------


@dataclass
class _Scope:
    """What the mappings around a node set: env (name -> EnvVar) and hints."""

    env: dict
    hints: list


class _Document:
    def __init__(self, source: Source, parsed: load.Parsed, root: Node, facts: FileFacts):
        self.source = source
        self.root = root
        self.facts = facts
        self.template_lines = parsed.template_lines
        self.reader = NodeReader(source, parsed)
        # an alias bomb composes to a few nodes but expands exponentially
        self.reader.allow(10 * distinct_nodes(root) + 10_000)
        self.compose = _is_compose(self.reader, root)
        self.mode = Mode(kubernetes=not self.compose, compose=self.compose)
        self.consumed: set[int] = set()
        # mappings merged into others (<<: *base) are read through them only
        self.merge_sources = _merge_sources(root)
        # sequences and strings that may hold a launch, in document order;
        # read after the walk, so that containers claim their parts first
        self.pending: list[tuple[Node, _Scope]] = []
        self.scopes: dict[tuple[int, int], _Scope] = {}

    def extract(self) -> None:
        if self._config_file():
            return
        try:
            self._walk()
        except BudgetExceeded:
            self._alias_bomb()
        # what the walk queued is read even when the walk was cut short
        self.reader.allow(10 * len(self.pending) + 10_000)
        try:
            for node, scope in self.pending:
                if id(node) not in self.consumed:
                    self._loose(node, scope)
        except BudgetExceeded:
            self._alias_bomb()

    def _alias_bomb(self) -> None:
        message = "YAML aliases expand to more nodes than sgllint follows (an alias bomb?); the rest of this document was not read"
        if not any(p.message == message and p.span.source is self.source for p in self.facts.problems):
            self.facts.problems.append(ParseProblem(self.reader.span(self.root), message))

    # -- walking ---------------------------------------------------------------

    def _walk(self) -> None:
        """Depth first, in document order. A node reached again through an
        alias with the same surroundings is not read again, so aliases of
        aliases cost no more than the nodes they share."""
        seen: set[tuple[int, int]] = set()
        stack: list[tuple[Node, _Scope]] = [(self.root, _Scope({}, []))]
        while stack:
            node, scope = stack.pop()
            if id(node) in self.consumed or (id(node), id(scope)) in seen:
                continue
            seen.add((id(node), id(scope)))
            self.reader.spend()
            if isinstance(node, MappingNode):
                if id(node) in self.merge_sources:
                    continue
                scope = self._scope(node, scope)
                if _is_container(self.reader, node):
                    self._container(node, scope)
                children = [v for k, v in self.reader.children(node) if not self._skipped(k, node)]
                stack.extend((child, scope) for child in reversed(children))
            elif isinstance(node, SequenceNode):
                self.pending.append((node, scope))
                stack.extend((item, scope) for item in reversed(node.value))
            elif isinstance(node, ScalarNode) and LAUNCH_TEXT.search(node.value):
                self.pending.append((node, scope))

    def _skipped(self, key: Optional[str], parent: MappingNode) -> bool:
        if key is None:
            return False
        if key.lower() in _FOREIGN_SECTIONS:
            return True
        # compose ignores top-level x-* keys: they only hold anchors to merge
        return self.compose and parent is self.root and key.startswith("x-")

    def _scope(self, node: MappingNode, parent: _Scope) -> _Scope:
        if not (_CONTEXT_KEYS & self.reader.pairs(node).keys()):
            return parent
        key = (id(node), id(parent))
        scope = self.scopes.get(key)
        if scope is None:
            env = mapping_env(self.reader, node, parent.env, self.mode)
            scope = self.scopes[key] = _Scope(env, parent.hints + mapping_hints(self.reader, node))
        return scope

    def _consume(self, node: Node) -> None:
        self.consumed.add(id(node))
        if isinstance(node, SequenceNode):
            self.consumed.update(id(item) for item in node.value)

    # -- containers ------------------------------------------------------------

    def _container(self, node: MappingNode, scope: _Scope) -> None:
        """``command`` + ``args`` (Kubernetes) or ``entrypoint`` +
        ``command`` (compose) as one argv."""
        keys = ("entrypoint", "command") if "entrypoint" in self.reader.pairs(node) else ("command", "args")
        parts = [p for p in (self.reader.get(node, k) for k in keys) if _is_argv_part(self.reader, p)]
        if len(parts) == 1 and isinstance(parts[0], ScalarNode) and LAUNCH_TEXT.search(parts[0].value):
            # a whole command line as one string (compose ``command: >``)
            self._script(self.reader.scalar(parts[0]), scope)
            self._consume(parts[0])
            return
        words: list[Word] = []
        for part in parts:
            if isinstance(part, SequenceNode):
                words += [self._item_word(item, scope) for item in part.value]
            elif _ends_with_shell_c(words):
                words.append(self._item_word(part, scope))  # the script of sh -c
            else:  # compose splits a string like a shell would, without one
                words += split_words(self.reader.scalar(part), scope.env, self.mode, self.source)
        if self._launch_in_words(words, scope):
            for p in parts:
                self._consume(p)

    def _item_word(self, item: Node, scope: _Scope) -> Word:
        span = self.reader.span(item)
        if not isinstance(item, ScalarNode):
            return Word(Token(Unresolved(span.text, "not a string"), span))
        return word_from_scalar(self.reader.scalar(item), span, scope.env, self.mode)

    # -- anything else -----------------------------------------------------------

    def _loose(self, node: Node, scope: _Scope) -> None:
        """A sequence or string outside any container."""
        if isinstance(node, SequenceNode):
            if not _may_hold_argv(self.reader, node):
                return
            words = [self._item_word(item, scope) for item in node.value]
            if self._launch_in_words(words, scope):
                self._consume(node)
        elif isinstance(node, ScalarNode):
            self._script(self.reader.scalar(node), scope)
            self._consume(node)

    def _launch_in_words(self, words: list[Word], scope: _Scope) -> bool:
        """Find the launch (or ``sh -c`` script) in an argv; True when the
        words were used."""
        values = [w.token.value for w in words]
        shell_at = _shell_c_script(values)
        match = find_launch(values)
        used = False
        if shell_at is not None and words[shell_at].text is not None:
            self._script(words[shell_at].text, scope)
            used = True
            if match is None or match.start <= shell_at:
                return True
        if match is not None:
            self._argv_site(words, match, scope)
            return True
        for word in words:  # items that are whole command lines
            if word.text is not None and LAUNCH_TEXT.search(word.text.text):
                self._script(word.text, scope)
                used = True
        return used

    def _argv_site(self, words: list[Word], match, scope: _Scope) -> None:
        launcher = words[match.start : match.args_start]
        args = words[match.args_start :]
        entry_span = _cover([w.token.span for w in launcher])
        span = entry_span.cover(args[-1].token.span) if args else entry_span
        site = LaunchSite(
            source=self.source,
            span=span,
            entry=match.entry,
            entry_span=entry_span,
            form="argv",
            tokens=[w.token for w in args],
        )
        site.env = list(scope.env.values()) + _wrapper_env(words[: match.start])
        site.hints = list(scope.hints)
        site.opaque = opaque_reasons(args) + self._template_control(span)
        self.facts.sites.append(site)

    # -- shell scripts -----------------------------------------------------------

    def _script(self, text: MappedText, scope: _Scope) -> None:
        """Lint a string as a shell script, mapped back into this file."""
        from sgllint.extract.shell import extract_embedded

        if not len(text):
            return
        script = prepare_script(text, scope.env, self.mode, self.source)
        if not len(script.text):
            return
        before = len(self.facts.sites)
        smap = script.text.to_map(self.source, script.text.ends[-1])
        extract_embedded(script.text.text, smap, self.facts, script.env)
        for site in self.facts.sites[before:]:
            self._adopt(site, scope)

    def _adopt(self, site: LaunchSite, scope: _Scope) -> None:
        """Give a site found by the shell extractor what the YAML around the
        script says."""
        site.hints = list(scope.hints) + site.hints
        if self.compose:  # compose runs no shell: the service env is not seen by it
            site.env = list(scope.env.values()) + site.env
        site.tokens = [unplaceholder(t) for t in site.tokens]
        site.opaque += [r for r in self._template_control(site.span) if r not in site.opaque]

    def _template_control(self, span: Span) -> list[str]:
        """Template statements among the arguments (``{{- if }}``,
        ``{{- range }}``) decide which of them exist."""
        reasons = []
        for start, end in self.template_lines:
            text = self.source.text[start:end].strip()
            if span.start <= start < span.end and not _TEMPLATE_END.match(text):
                reasons.append(f"the template statement {text} decides which arguments are present")
        return list(dict.fromkeys(reasons))

    # -- SGLang config files -----------------------------------------------------

    def _config_file(self) -> bool:
        """A document that is an SGLang ``--config`` file: one site with the
        raw words of its entries. The exact per-release conversion happens
        when a launch references the file (`sglang_config.merge_config`)."""
        root = self.root
        if not isinstance(root, MappingNode):
            return False
        if not is_config_mapping(list(self.reader.pairs(root))):
            return False
        entries, problems = entries_from_node(self.reader, root)
        self.facts.problems += problems
        if not entries:
            return bool(problems)
        model = next((e for e in entries if e.key in _MODEL_PATH_KEYS), entries[0])
        site = LaunchSite(
            source=self.source,
            span=self.reader.span(root),
            entry=CONFIG_ENTRY,
            entry_span=model.key_span,
            form="argv",
            tokens=raw_config_tokens(entries),
            origin=CONFIG_ORIGIN,
        )
        self.facts.sites.append(site)
        return True


# ---------------------------------------------------------------------------
# Shapes
# ---------------------------------------------------------------------------


def _merge_sources(root: Node) -> set[int]:
    """Ids of the mappings that some ``<<:`` merge key refers to."""
    sources: set[int] = set()
    seen: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, MappingNode):
            for key, value in node.value:
                if isinstance(key, ScalarNode) and key.tag == _MERGE_TAG:
                    merged = value.value if isinstance(value, SequenceNode) else [value]
                    sources.update(id(m) for m in merged if isinstance(m, MappingNode))
                stack += [key, value]
        elif isinstance(node, SequenceNode):
            stack += node.value
    return sources


def _is_compose(reader: NodeReader, root: Node) -> bool:
    return isinstance(reader.get(root, "services"), MappingNode)


def _is_container(reader: NodeReader, node: MappingNode) -> bool:
    pairs = reader.pairs(node)
    return any(key in pairs and _is_argv_part(reader, pairs[key][1]) for key in ("command", "args", "entrypoint"))


def _is_argv_part(reader: NodeReader, node: Optional[Node]) -> bool:
    """A ``command``/``args``/``entrypoint`` value: a list or a string."""
    return isinstance(node, SequenceNode) or reader.string(node) is not None


def _may_hold_argv(reader: NodeReader, node: SequenceNode) -> bool:
    """A cheap test before building words: a string item names SGLang or a
    shell."""
    for item in node.value:
        text = reader.string(item)
        if text and ("sglang" in text or text.rsplit("/", 1)[-1] in _SHELLS):
            return True
    return False


def _shell_c_script(values: list) -> Optional[int]:
    """Index of SCRIPT in ``... sh [-opts] -c SCRIPT ...``."""
    for i, value in enumerate(values):
        if not isinstance(value, str) or value.rsplit("/", 1)[-1] not in _SHELLS:
            continue
        j = i + 1
        has_c = False
        while j < len(values) and isinstance(values[j], str) and values[j][:1] == "-" and len(values[j]) > 1:
            has_c = has_c or (not values[j].startswith("--") and "c" in values[j][1:])
            j += 1
        if has_c and j < len(values):
            return j
    return None


def _ends_with_shell_c(words: list[Word]) -> bool:
    values = [w.token.value for w in words]
    return _shell_c_script(values + ["SCRIPT"]) == len(values)


def _wrapper_env(words: list[Word]) -> list[EnvVar]:
    """``env A=1 B=2 python -m ...`` in an argv list."""
    env = []
    in_env = False
    for word in words:
        value = word.token.value
        if not isinstance(value, str):
            in_env = False
            continue
        if value.rsplit("/", 1)[-1] == "env":
            in_env = True
        elif in_env and _ENV_ASSIGNMENT.match(value):
            name, assigned = _ENV_ASSIGNMENT.match(value).groups()
            span = word.token.span
            env.append(EnvVar(name, assigned, span, word.token.sub_span(len(name) + 1, len(value))))
        elif not value.startswith("-"):
            in_env = False
    return env


def _cover(spans: list[Span]) -> Span:
    span = spans[0]
    for other in spans[1:]:
        span = span.cover(other)
    return span
