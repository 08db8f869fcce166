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

from sgllint.formats.yaml import load
from sgllint.formats.shell.markers import hydra_site_of_kwargs
from sgllint.formats.python.commands import hydra_value
from sgllint.formats.yaml.context import container_image_hints, mapping_env, mapping_hints
from sgllint.formats.yaml.deployment import DEPLOYMENT_KEYS, service_hints
from sgllint.formats.yaml.lenient import extract_lines
from sgllint.formats.yaml.nodes import BudgetExceeded, NodeReader, distinct_nodes, iter_distinct_nodes
from sgllint.formats.yaml.scalars import MappedText, scalar_start
from sgllint.formats.yaml.words import (
    LAUNCH_TEXT,
    Mode,
    Word,
    opaque_reasons,
    prepare_script,
    split_words,
    unplaceholder,
    word_from_scalar,
)
from sgllint.model.launchers import find_launch, is_shell, shell_c_script
from sgllint.formats.yaml.sglang_config import entries_from_node, is_config_mapping, is_model_less_config, raw_config_tokens
from sgllint.model.config_file import REFERENCED_REASON
from sgllint.model.kinds import LaunchForm, Origin
from sgllint.model.facts import EnvVar, FileFacts, Kwarg, LaunchSite, ParseProblem, Source, Span, Token, Unresolved

__all__ = ["extract", "CONFIG_ENTRY"]

CONFIG_ENTRY = "sglang --config file"

#: sections describing another engine's launch
_FOREIGN_SECTIONS = {"vllm", "tensorrt_llm", "tensorrt-llm", "trtllm", "trt_llm", "trt-llm", "lmdeploy", "tgi"}
_CONTEXT_KEYS = {"env", "envs", "environment", "image", "image_id", "base_image", "container", "resources", "nodeSelector", "affinity", "deploy"} | DEPLOYMENT_KEYS
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
    services = []
    for root in parsed.documents:
        document = _Document(source, parsed, root, facts)
        document.extract()
        services += service_hints(document.reader, root)
    for site in facts.sites if services else ():  # a Service reaches the pods of every document of the file
        site.hints.extend(services)
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
        for node in iter_distinct_nodes(root):
            if isinstance(node, ScalarNode):
                start = scalar_start(parsed.text, node.start_mark.index, node.end_mark.index)
                ranges.add((start, node.end_mark.index))
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
        self._images: Optional[dict[str, Optional[Node]]] = None

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
                self._engine_kwargs(node)
                self._base_server_flags(node, scope)
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
        scope = self._patched_container(node, scope)
        keys = ("entrypoint", "command") if "entrypoint" in self.reader.pairs(node) else ("command", "args")
        parts = [p for p in (self.reader.get(node, k) for k in keys) if _is_argv_part(self.reader, p)]
        if len(parts) == 1 and isinstance(parts[0], ScalarNode) and LAUNCH_TEXT.search(parts[0].value):
            # a whole command line as one string (compose ``command: >``)
            self._script(self.reader.scalar(parts[0]), scope)
            self._consume(parts[0])
            return
        configs = _sibling_args(self.reader, node) if keys[1] not in self.reader.pairs(node) else []
        if len(parts) == 1 and isinstance(parts[0], SequenceNode) and configs:
            # a runtime's command completed by each of its configs' args
            # (llmaz BackendRuntime ``recommendedConfigs[].args``): one launch each
            command = [self._item_word(item, scope) for item in parts[0].value]
            for args in configs:
                if self._launch_in_words(command + [self._item_word(item, scope) for item in args.value], scope):
                    self._consume(args)
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

    def _patched_container(self, node: MappingNode, scope: _Scope) -> _Scope:
        """A container without an image of its own that another container of
        the document names (an RBG role's ``templatePatch`` of its
        ``roleTemplates`` entry, a strategic-merge patch: containers merge by
        name) runs that container's image."""
        if "image" in self.reader.pairs(node):
            return scope
        name = self.reader.string(self.reader.get(node, "name"))
        image = self._images_by_name().get(name) if name else None
        hints = container_image_hints(self.reader, image) if image is not None else []
        return _Scope(scope.env, scope.hints + hints) if hints else scope

    def _images_by_name(self) -> dict:
        """Container name -> its ``image`` node, over the whole document; a
        name given two different images maps to None (no way to tell)."""
        if self._images is None:
            self._images = {}
            for node in iter_distinct_nodes(self.root):
                if isinstance(node, MappingNode):
                    name = self.reader.string(self.reader.get(node, "name"))
                    image = self.reader.get(node, "image")
                    if name and isinstance(image, ScalarNode):
                        known = self._images.get(name, image)
                        self._images[name] = image if known is not None and known.value == image.value else None
        return self._images

    def _item_word(self, item: Node, scope: _Scope) -> Word:
        span = self.reader.span(item)
        if not isinstance(item, ScalarNode):
            return Word(Token(Unresolved(span.text, "not a string"), span))
        return word_from_scalar(self.reader.scalar(item), span, scope.env, self.mode)

    def _engine_kwargs(self, node: MappingNode) -> None:
        """Framework configs whose mapping the framework passes on as
        ServerArgs keyword arguments: verl's ``engine_kwargs: {sglang: {...}}``
        (Hydra), ROLL's ``strategy_name: sglang`` with its ``strategy_config``,
        and AReaL's top-level ``sglang:`` (its ``SGLangConfig`` fields, a
        model path among them)."""
        engine = self.reader.get(node, "engine_kwargs", "sglang")
        entry = "hydra override"
        if not isinstance(engine, MappingNode):
            engine, entry = None, "framework config"
            if self.reader.string(self.reader.get(node, "strategy_name")) == "sglang":
                engine = self.reader.get(node, "strategy_config")
            elif node is self.root:
                engine = self.reader.get(node, "sglang")
                if isinstance(engine, MappingNode) and not is_config_mapping(list(self.reader.pairs(engine))):
                    return
            if not isinstance(engine, MappingNode):
                return
        kwargs = []
        for name, (key, value) in self.reader.pairs(engine).items():
            if isinstance(value, ScalarNode) and "${" in value.value:  # an OmegaConf interpolation
                typed = Unresolved(value.value, "interpolated from another key of the config")
            elif isinstance(value, ScalarNode):
                typed = hydra_value(value.value) if not value.style else value.value
            else:
                typed = Unresolved(self.reader.span(value).text, "a YAML collection")
            kwargs.append(Kwarg(name, typed, self.reader.span(key), self.reader.span(value)))
        if kwargs:
            hydra_site_of_kwargs(kwargs, self.reader.span(engine), self.facts, entry)
        self._consume(engine)

    def _base_server_flags(self, node: MappingNode, scope: "_Scope") -> None:
        """A benchmark config's framework section: ``server_command`` (the
        launcher) plus ``base_server_flags`` (field names, rendered as
        ``--field-name value``) is one launch; each ``search_space`` candidate
        is checked as a value of its flag on its own."""
        command, flags = self.reader.get(node, "server_command"), self.reader.get(node, "base_server_flags")
        if not isinstance(command, ScalarNode) or not isinstance(flags, MappingNode) or id(command) in self.consumed:
            return
        words = split_words(self.reader.scalar(command), scope.env, self.mode, self.source)
        match = find_launch([w.token.value for w in words])
        if match is None:
            return
        words += [w for key, value in self.reader.pairs(flags).values() for w in self._flag_words(key, value)]
        self._argv_site(words, match, scope)
        self._consume(command)
        space = self.reader.get(node, "search_space")
        if isinstance(space, MappingNode):
            for key, values in self.reader.pairs(space).values():
                for value in values.value if isinstance(values, SequenceNode) else [values]:
                    site = LaunchSite(self.source, self.reader.span(value), match.entry, self.reader.span(key), LaunchForm.ARGV,
                                      tokens=self._flag_words(key, value, word_only=True))
                    site.opaque.append("one candidate of a search space: the other flags vary")
                    site.hints = list(scope.hints)
                    self.facts.sites.append(site)
            self._consume(space)

    def _flag_words(self, key: Node, value: Node, word_only: bool = False) -> list:
        """``--field-name`` at the key, then the value's words (true: the bare
        flag, false: nothing, a list: one word per item)."""
        name = self.reader.string(key) or ""
        flag = Token("--" + name.replace("_", "-"), self.reader.span(key))
        items = value.value if isinstance(value, SequenceNode) else [value]
        out = [flag]
        for item in items:
            text = self.reader.string(item) if isinstance(item, ScalarNode) else None
            if text is None:
                out.append(Token(Unresolved(self.reader.span(item).text, "not a scalar"), self.reader.span(item)))
            elif isinstance(item, ScalarNode) and not item.style and text in ("true", "false", "True", "False"):
                if text.lower() == "false":
                    return []
            else:
                out.append(Token(text, self.reader.span(item)))
        return [w if word_only else Word(w) for w in out]

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
        shell_at = shell_c_script(values)
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
            form=LaunchForm.ARGV,
            tokens=[w.token for w in args],
        )
        site.env = list(scope.env.values()) + _wrapper_env(words[: match.start])
        site.hints = list(scope.hints)
        site.opaque = opaque_reasons(args) + self._template_control(span)
        self.facts.sites.append(site)

    # -- shell scripts -----------------------------------------------------------

    def _script(self, text: MappedText, scope: _Scope) -> None:
        """Lint a string as a shell script, mapped back into this file."""
        from sgllint.formats.shell.extractor import extract_embedded

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
        when a launch references the file (`sgllint.resolve.sglang_config.merge_config`)."""
        root = self.root
        if not isinstance(root, MappingNode):
            return False
        keys = list(self.reader.pairs(root))
        opaque = []
        if not is_config_mapping(keys):
            if not is_model_less_config(keys):
                return False
            # a candidate: the engine keeps it when a project launch passes it with --config
            opaque = [REFERENCED_REASON]
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
            form=LaunchForm.ARGV,
            tokens=raw_config_tokens(entries),
            origin=Origin.CONFIG_FILE,
            opaque=opaque,
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


def _sibling_args(reader: NodeReader, node: MappingNode) -> list[SequenceNode]:
    """The ``args`` lists of the mappings listed under a sibling key of a
    ``command`` without ``args`` (``recommendedConfigs: [{args: [...]}]``)."""
    found = []
    for key, value in reader.children(node):
        if key in ("command", "entrypoint") or not isinstance(value, SequenceNode):
            continue
        for item in value.value:
            args = reader.get(item, "args") if isinstance(item, MappingNode) else None
            if isinstance(args, SequenceNode):
                found.append(args)
    return found


def _is_argv_part(reader: NodeReader, node: Optional[Node]) -> bool:
    """A ``command``/``args``/``entrypoint`` value: a list or a string."""
    return isinstance(node, SequenceNode) or reader.string(node) is not None


def _may_hold_argv(reader: NodeReader, node: SequenceNode) -> bool:
    """A cheap test before building words: a string item names SGLang or a
    shell."""
    for item in node.value:
        text = reader.string(item)
        if text and ("sglang" in text or is_shell(text)):
            return True
    return False


def _ends_with_shell_c(words: list[Word]) -> bool:
    values = [w.token.value for w in words]
    return shell_c_script(values + ["SCRIPT"]) == len(values)


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
