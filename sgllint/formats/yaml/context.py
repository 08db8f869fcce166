"""What a YAML mapping says about the launches below it: environment
variables (Kubernetes ``env:``, compose ``environment:``, GitHub Actions
``env:``, SkyPilot ``envs:``) and context hints (container image, GPU count
and product). Each applies to the mapping's whole subtree, so a pod's
``nodeSelector`` reaches its containers and a container's ``image`` only
that container.
"""

from __future__ import annotations

import re
from typing import Optional

from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from sgllint.formats.yaml.deployment import deployment_hints
from sgllint.formats.yaml.nodes import NodeReader
from sgllint.formats.yaml.words import Mode, is_template, word_from_scalar
from sgllint.model.facts import ContextHint, EnvVar, Span, Unresolved
from sgllint.model.kinds import HintKind
from sgllint.model.numbers import small_int

GPU_RESOURCE_KEYS = ("nvidia.com/gpu", "amd.com/gpu")
GPU_PRODUCT_LABELS = ("nvidia.com/gpu.product", "cloud.google.com/gke-accelerator")
_ENV_KEYS = ("env", "envs", "environment")
_COMPOSE_ENV_ITEM = re.compile(r"([A-Za-z_][A-Za-z0-9_.]*)(?:=(.*))?\Z", re.S)
_ACCELERATOR = re.compile(r"\s*([A-Za-z0-9_.\-]+)\s*(?::\s*(\d+))?\s*\Z")


# ---------------------------------------------------------------------------
# Environment
# ---------------------------------------------------------------------------


def mapping_env(reader: NodeReader, node: MappingNode, inherited: dict, mode: Mode) -> dict:
    """``inherited`` plus the variables this mapping sets (name -> EnvVar)."""
    env = dict(inherited)
    for key in _ENV_KEYS:
        value = reader.get(node, key)
        if isinstance(value, SequenceNode):
            for item in value.value:
                reader.spend()
                var = _list_env_item(reader, item, env, mode)
                if var is not None:
                    env[var.name] = var
        elif isinstance(value, MappingNode):
            for name, (key_node, value_node) in reader.pairs(value).items():
                env[name] = _mapping_env_item(reader, name, key_node, value_node, mode)
    return env


def _list_env_item(reader: NodeReader, item: Node, env: dict, mode: Mode) -> Optional[EnvVar]:
    """``- name: X`` + ``value:``/``valueFrom:`` (Kubernetes), or ``- X=1``
    (compose)."""
    if isinstance(item, MappingNode):
        name = reader.string(reader.get(item, "name"))
        if not name:
            return None
        span = reader.span(item)
        value_node = reader.get(item, "value")
        if isinstance(value_node, ScalarNode):
            # Kubernetes expands $(VAR) of variables defined before this one
            word = word_from_scalar(reader.scalar(value_node), reader.span(value_node), env, Mode(kubernetes=True))
            return EnvVar(name, word.token.value, span, reader.span(value_node))
        source = reader.get(item, "valueFrom")
        if source is not None:
            kinds = [k for k, _ in reader.children(source)] if isinstance(source, MappingNode) else []
            where = kinds[0] if kinds else "valueFrom"
            return EnvVar(name, Unresolved(f"$({name})", f"set from {where} at run time"), span, reader.span(source))
        return EnvVar(name, "", span, None)
    text = reader.string(item)
    if text is None:
        return None
    m = _COMPOSE_ENV_ITEM.match(text)
    if not m:
        return None
    span = reader.span(item)
    if m.group(2) is None:
        return EnvVar(m.group(1), Unresolved(m.group(1), "passed through from the host environment"), span, None)
    mt = reader.scalar(item)
    value_mt = type(mt)()
    value_mt.extend(mt, len(m.group(1)) + 1)
    value_span = Span(span.source, value_mt.starts[0], value_mt.ends[-1]) if len(value_mt) else Span(span.source, span.end, span.end)
    word = word_from_scalar(value_mt, value_span, env, mode)
    return EnvVar(m.group(1), word.token.value, span, value_span)


def _mapping_env_item(reader: NodeReader, name: str, key_node: Node, value_node: Node, mode: Mode) -> EnvVar:
    span = reader.span(key_node).cover(reader.span(value_node))
    if reader.string(value_node) is None:
        value = Unresolved(name, "passed through from the host environment")
        return EnvVar(name, value, span, None)
    value_span = reader.span(value_node)
    word = word_from_scalar(reader.scalar(value_node), value_span, {}, Mode(compose=mode.compose))
    return EnvVar(name, word.token.value, span, value_span)


# ---------------------------------------------------------------------------
# Hints
# ---------------------------------------------------------------------------


def mapping_hints(reader: NodeReader, node: MappingNode) -> list[ContextHint]:
    """Hints this mapping gives the launches below it."""
    hints: list[ContextHint] = []
    hints += _image_hints(reader, node)
    hints += _gpu_count_hints(reader, reader.get(node, "resources"))
    hints += _accelerator_hints(reader, reader.get(node, "resources", "accelerators"))
    hints += _node_selector_hints(reader, reader.get(node, "nodeSelector"))
    hints += _affinity_hints(reader, reader.get(node, "affinity"))
    hints += _compose_device_hints(reader, reader.get(node, "deploy", "resources", "reservations", "devices"))
    hints += deployment_hints(reader, node)  # shm, volumes, probes, ports (`sgllint.semantics.deployment`)
    return hints


def _image_hints(reader: NodeReader, node: MappingNode) -> list[ContextHint]:
    found = []
    image = reader.get(node, "image")
    if isinstance(image, MappingNode):  # Helm values: image: {repository, tag}
        repo, tag = reader.string(reader.get(image, "repository")), reader.string(reader.get(image, "tag"))
        if repo and not is_template(repo):
            found.append(ContextHint(HintKind.SGLANG_IMAGE, f"{repo}:{tag}" if tag else repo, reader.span(image)))
        elif repo is None:  # an unquoted `image: {{ .Values.x }}` reads as a flow mapping
            found += _values_image(reader, image, reader.get(node, "version"))
    else:
        image_hints = _image_scalar(reader, image) or _values_image(reader, image, reader.get(node, "version"))
        version = reader.string(reader.get(node, "version"))
        for hint in image_hints:  # llmaz BackendRuntime: image: repo, version: tag
            if version and not is_template(version) and ":" not in hint.value.rsplit("/", 1)[-1]:
                hint.value = f"{hint.value}:{version.strip()}"
        found += image_hints
    # Truss: base_image: {image: IMAGE} (or the image itself)
    base = reader.get(node, "base_image")
    found += _image_scalar(reader, reader.get(base, "image") if isinstance(base, MappingNode) else base)
    # SkyPilot: image_id: docker:IMAGE, at the top or under resources
    image_id = reader.get(node, "image_id") or reader.get(node, "resources", "image_id")
    for hint in _image_scalar(reader, image_id):
        if isinstance(hint.value, str) and hint.value.startswith("docker:"):
            hint.value = hint.value[len("docker:") :]
        found.append(hint)
    container = reader.get(node, "container")  # GitHub Actions job container
    if isinstance(container, MappingNode):
        found += _image_scalar(reader, reader.get(container, "image"))
    else:
        found += _image_scalar(reader, container)
    return found


def _values_image(reader: NodeReader, image: Optional[Node], version: Optional[Node]) -> list[ContextHint]:
    """A Helm template's ``image: "{{ .Values.x.repository }}:{{ .Values.x.tag }}"``
    (or llmaz's ``image`` + ``version``) as written: the chart's values file
    gives it a release (`sgllint.resolve.context`)."""
    if image is None:
        return []
    written = _as_written(reader, image)
    if ".Values." not in written:
        return []
    tag = _as_written(reader, version) if version is not None else ""
    if ".Values." in tag and ":" not in written.rsplit("}}", 1)[-1]:
        written = f"{written}:{tag}"
    return [ContextHint(HintKind.SGLANG_IMAGE_VALUES, written, reader.span(image))]


def _as_written(reader: NodeReader, node: Node) -> str:
    """A scalar's source text, unquoted; for a value the template reader
    blanked (``image: {{ .Values.x }}``), the rest of its line."""
    span = reader.span(node)
    written = span.text
    if not written.strip():
        end = span.source.text.find("\n", span.start)
        written = span.source.text[span.start : end if end >= 0 else len(span.source.text)]
    return written.strip().strip("\"'")


def container_image_hints(reader: NodeReader, image: Node) -> list[ContextHint]:
    """The hint of a container's ``image:`` scalar, read elsewhere (another
    container of the same name)."""
    return _image_scalar(reader, image)


def _image_scalar(reader: NodeReader, node: Optional[Node]) -> list[ContextHint]:
    text = reader.string(node)
    if not text or is_template(text):
        return []
    return [ContextHint(HintKind.SGLANG_IMAGE, text.strip(), reader.span(node))]


def _gpu_count_hints(reader: NodeReader, resources: Optional[Node]) -> list[ContextHint]:
    for section in ("limits", "requests"):
        block = reader.get(resources, section)
        hints = []
        for key in GPU_RESOURCE_KEYS:
            count = _count(reader, reader.get(block, key))
            if count is not None:
                hints.append(ContextHint(HintKind.GPU_COUNT, count[0], count[1]))
        if hints:
            return hints
    return []


def _count(reader: NodeReader, node: Optional[Node]) -> Optional[tuple[int, Span]]:
    count = small_int(reader.string(node) or "")
    return None if count is None else (count, reader.span(node))


def _accelerator_hints(reader: NodeReader, node: Optional[Node]) -> list[ContextHint]:
    """SkyPilot ``accelerators: H100:8`` or ``{H100: 8}``; a list of
    alternatives names no one GPU and gives no hint."""
    if isinstance(node, MappingNode):
        pairs = list(reader.pairs(node).items())
        if len(pairs) != 1:
            return []
        name, (key_node, value_node) = pairs[0]
        hints = [ContextHint(HintKind.GPU_PRODUCT, name, reader.span(key_node))]
        count = _count(reader, value_node)
        if count is not None:
            hints.append(ContextHint(HintKind.GPU_COUNT, count[0], count[1]))
        return hints
    text = reader.string(node)
    if not text:
        return []
    m = _ACCELERATOR.match(text)
    if not m:
        return []
    span = reader.span(node)
    hints = [ContextHint(HintKind.GPU_PRODUCT, m.group(1), span)]
    count = small_int(m.group(2) or "")
    if count is not None:
        hints.append(ContextHint(HintKind.GPU_COUNT, count, span))
    return hints


def _node_selector_hints(reader: NodeReader, node: Optional[Node]) -> list[ContextHint]:
    hints = []
    for label in GPU_PRODUCT_LABELS:
        value = reader.get(node, label)
        text = reader.string(value)
        if text and not is_template(text):
            hints.append(ContextHint(HintKind.GPU_PRODUCT, text, reader.span(value)))
    return hints


def _affinity_hints(reader: NodeReader, node: Optional[Node]) -> list[ContextHint]:
    """``nodeAffinity`` match expressions on a GPU product label (required
    terms and preferred ones): one hint per listed value."""
    hints = []
    affinity = reader.get(node, "nodeAffinity")
    terms: list[Node] = []
    required = reader.get(affinity, "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms")
    if isinstance(required, SequenceNode):
        terms += required.value
    preferred = reader.get(affinity, "preferredDuringSchedulingIgnoredDuringExecution")
    if isinstance(preferred, SequenceNode):
        terms += [reader.get(p, "preference") for p in preferred.value]
    for term in terms:
        expressions = reader.get(term, "matchExpressions")
        if not isinstance(expressions, SequenceNode):
            continue
        for expr in expressions.value:
            reader.spend()
            if reader.string(reader.get(expr, "key")) not in GPU_PRODUCT_LABELS:
                continue
            if reader.string(reader.get(expr, "operator")) not in ("In", None):
                continue
            values = reader.get(expr, "values")
            for value in values.value if isinstance(values, SequenceNode) else []:
                text = reader.string(value)
                if text and not is_template(text):
                    hints.append(ContextHint(HintKind.GPU_PRODUCT, text, reader.span(value)))
    return hints


def _compose_device_hints(reader: NodeReader, devices: Optional[Node]) -> list[ContextHint]:
    """compose ``deploy.resources.reservations.devices: [{count: 2, capabilities: [gpu]}]``
    or ``[{device_ids: ["0", "1"], ...}]`` (the container sees them as ids 0..n-1)."""
    if not isinstance(devices, SequenceNode):
        return []
    hints = []
    for device in devices.value:
        count = _count(reader, reader.get(device, "count"))
        if count is not None:
            hints.append(ContextHint(HintKind.GPU_COUNT, count[0], count[1]))
            continue
        ids = reader.get(device, "device_ids")
        if isinstance(ids, SequenceNode) and ids.value:
            texts = [reader.string(i) for i in ids.value]
            if all(t and not is_template(t) and "$" not in t for t in texts):
                hints.append(ContextHint(HintKind.GPU_COUNT, len(set(texts)), reader.span(ids)))
    return hints
