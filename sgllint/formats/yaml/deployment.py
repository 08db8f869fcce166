"""What a manifest says about the container a launch runs in: the runtime
(a Kubernetes pod, a compose service), shared memory, volumes and their
mounts, probes and container ports. Each becomes a `ContextHint` of a
``deploy-*`` kind on the launches below the mapping (`context.mapping_hints`);
`sgllint.semantics.deployment` turns them into verdicts.

Hint values are plain dicts (never the YAML nodes): a hint survives the
cache and the remapping of embedded files like any other.

Kinds:

* ``deploy-runtime``: ``"kubernetes"`` (a pod spec: a mapping with
  ``containers``) or ``"compose"`` (a compose file's ``services``);
* ``deploy-shm``: ``{"how": ..., "bytes": int | None}``: ``hostIPC: true``,
  compose ``shm_size``/``ipc: host``, a mount at ``/dev/shm``;
* ``deploy-volume``: ``{"name", "kind", "medium", "bytes"}``: a pod volume;
* ``deploy-mount``: ``{"path", "volume", "kind"}``: a container mount
  (compose: ``kind`` ``"bind"`` or ``"volume"``);
* ``deploy-probe``: ``{"probe", "port", "path", "scheme", "initialDelaySeconds",
  "periodSeconds", "failureThreshold", "exec"}``; the hint's span is the probe key;
* ``deploy-port``: ``{"port": int, "name": str | None}``: a ``containerPort`` or
  a compose published port's container side.
* ``deploy-pod-ports``: ``{"ports": [{"port", "name"}]}``: the ports every
  container of the pod declares (a sidecar's too), on the pod spec;
* ``deploy-labels``: ``{"labels": {key: value}}``: a pod's (or pod
  template's) ``metadata.labels``; the innermost is the pod's;
* ``deploy-service``: ``{"name", "selector", "headless", "ports": [{"port",
  "targetPort", "span"}]}``: a ``kind: Service`` document of the same file,
  on every launch of the file (`service_hints`).
"""

from __future__ import annotations

import re
from typing import Optional

from yaml.nodes import MappingNode, Node, SequenceNode

from sgllint.formats.yaml.nodes import NodeReader
from sgllint.formats.yaml.words import is_template
from sgllint.model.facts import ContextHint
from sgllint.model.kinds import HintKind
from sgllint.model.numbers import small_int

#: keys whose presence makes a mapping worth reading here (the extractor
#: reads a mapping's hints only when it has one of its context keys)
DEPLOYMENT_KEYS = frozenset({
    "containers", "volumes", "volumeMounts", "livenessProbe", "readinessProbe", "startupProbe", "ports",
    "shm_size", "ipc", "hostIPC", "services", "metadata",
})
PROBES = ("livenessProbe", "readinessProbe", "startupProbe")
_PROBE_FIELDS = ("initialDelaySeconds", "periodSeconds", "failureThreshold", "timeoutSeconds")

#: Kubernetes quantities (``10Gi``, ``512M``) and docker/compose sizes (``16g``, ``16gb``)
_SIZE_RE = re.compile(r"\s*(\d+(?:\.\d+)?)\s*([kKmMgGtTpPeE]?)(i?)([bB]?)\s*\Z")
_POWERS = {"": 0, "k": 1, "m": 2, "g": 3, "t": 4, "p": 5, "e": 6}


def size_bytes(text: Optional[str], docker: bool = False) -> Optional[int]:
    """A size in bytes: a Kubernetes quantity (``10Gi`` binary, ``10G``
    decimal) or, with ``docker``, a docker/compose size (``16g``/``16gb``: binary,
    as docker reads them). None when not a plain size."""
    if text is None:
        return None
    m = _SIZE_RE.match(str(text))
    if not m:
        return None
    number, unit, binary, _ = m.groups()
    power = _POWERS[unit.lower()]
    base = 1024 if (binary or docker) else 1000
    return int(float(number) * base ** power)


def deployment_hints(reader: NodeReader, node: MappingNode) -> list[ContextHint]:
    pairs = reader.pairs(node)
    if not (DEPLOYMENT_KEYS & pairs.keys()):
        return []
    hints: list[ContextHint] = []
    labels = reader.get(node, "metadata", "labels")
    if isinstance(labels, MappingNode) and reader.get(node, "spec") is not None:
        known = {k: reader.string(v) for k, (_, v) in reader.pairs(labels).items()}
        hints.append(ContextHint(HintKind.DEPLOY_LABELS, {"labels": {k: v for k, v in known.items() if v is not None and not is_template(v)}},
                                 reader.span(labels)))
    if isinstance(reader.get(node, "containers"), SequenceNode):
        hints.append(ContextHint(HintKind.DEPLOY_RUNTIME, "kubernetes", reader.span(pairs["containers"][0])))
        hints.append(_pod_ports(reader, node))
    else:
        # a container of a custom resource shaped like a pod's (OME's
        # ``runner``, KServe's predictor): Kubernetes-only keys
        k8s_key = next((k for k in ("volumeMounts", *PROBES) if k in pairs), None)
        if k8s_key is not None:
            hints.append(ContextHint(HintKind.DEPLOY_RUNTIME, "kubernetes", reader.span(pairs[k8s_key][0])))
    services = reader.get(node, "services")
    if isinstance(services, MappingNode) and not ({"runs-on", "steps"} & pairs.keys()):
        hints.append(ContextHint(HintKind.DEPLOY_RUNTIME, "compose", reader.span(pairs["services"][0])))
    if reader.string(reader.get(node, "hostIPC")) in ("true", "True"):
        hints.append(ContextHint(HintKind.DEPLOY_SHM, {"how": "hostIPC: true", "bytes": None}, reader.span(reader.get(node, "hostIPC"))))
    if reader.string(reader.get(node, "ipc")) in ("host", "shareable") or (reader.string(reader.get(node, "ipc")) or "").startswith("container:"):
        hints.append(ContextHint(HintKind.DEPLOY_SHM, {"how": "ipc: " + reader.string(reader.get(node, "ipc")), "bytes": None}, reader.span(reader.get(node, "ipc"))))
    shm = reader.get(node, "shm_size")
    if shm is not None:
        hints.append(ContextHint(HintKind.DEPLOY_SHM, {"how": "shm_size", "bytes": size_bytes(reader.string(shm), docker=True)}, reader.span(shm)))
    hints += _volumes(reader, reader.get(node, "volumes"))
    hints += _mounts(reader, reader.get(node, "volumeMounts"))
    for probe in PROBES:
        if probe in pairs:
            hint = _probe(reader, probe, pairs[probe][0], pairs[probe][1])
            if hint is not None:
                hints.append(hint)
    hints += _ports(reader, reader.get(node, "ports"))
    return hints


def _volumes(reader: NodeReader, node: Optional[Node]) -> list[ContextHint]:
    """Pod ``volumes`` (mappings with a name) or compose ``volumes`` (strings
    ``SRC:DST[:ro]`` or long-syntax mappings with ``target``)."""
    if not isinstance(node, SequenceNode):
        return []
    hints = []
    for item in node.value:
        reader.spend()
        if isinstance(item, MappingNode):
            name = reader.string(reader.get(item, "name"))
            target = reader.string(reader.get(item, "target"))
            if name:
                kind = next((k for k, _ in reader.children(item) if k not in (None, "name")), None)
                medium = reader.string(reader.get(item, "emptyDir", "medium"))
                limit = size_bytes(reader.string(reader.get(item, "emptyDir", "sizeLimit")))
                hints.append(ContextHint(HintKind.DEPLOY_VOLUME, {"name": name, "kind": kind, "medium": medium, "bytes": limit}, reader.span(item)))
            elif target:  # compose long syntax
                kind = reader.string(reader.get(item, "type")) or "volume"
                hints.append(_mount_hint(target, None, kind, reader, item))
            continue
        text = reader.string(item)
        if not text or is_template(text):
            continue
        parts = text.split(":")
        if len(parts) >= 2:
            source, target = parts[0], parts[1]
            kind = "bind" if source.startswith(("/", ".", "~", "$")) else "volume"
            hints.append(_mount_hint(target, source, kind, reader, item))
        elif len(parts) == 1 and parts[0].startswith("/"):  # anonymous volume
            hints.append(_mount_hint(parts[0], None, "volume", reader, item))
    return hints


def _mount_hint(path: str, volume: Optional[str], kind: Optional[str], reader: NodeReader, item: Node) -> ContextHint:
    path = path.rstrip("/") or "/"
    if path == "/dev/shm":
        return ContextHint(HintKind.DEPLOY_SHM, {"how": f"a {kind or 'volume'} mounted at /dev/shm", "bytes": None}, reader.span(item))
    return ContextHint(HintKind.DEPLOY_MOUNT, {"path": path, "volume": volume, "kind": kind}, reader.span(item))


def _mounts(reader: NodeReader, node: Optional[Node]) -> list[ContextHint]:
    if not isinstance(node, SequenceNode):
        return []
    hints = []
    for item in node.value:
        reader.spend()
        path = reader.string(reader.get(item, "mountPath"))
        if not path or is_template(path):
            continue
        name = reader.string(reader.get(item, "name"))
        path = path.rstrip("/") or "/"
        kind = "k8s-shm-mount" if path == "/dev/shm" else None
        hints.append(ContextHint(HintKind.DEPLOY_MOUNT, {"path": path, "volume": name, "kind": kind}, reader.span(item)))
    return hints


def _probe(reader: NodeReader, probe: str, key: Node, node: Node) -> Optional[ContextHint]:
    if not isinstance(node, MappingNode):
        return None
    value: dict = {"probe": probe, "port": None, "path": None, "exec": False}
    http = reader.get(node, "httpGet")
    tcp = reader.get(node, "tcpSocket")
    grpc = reader.get(node, "grpc")
    target = http if isinstance(http, MappingNode) else tcp if isinstance(tcp, MappingNode) else grpc
    if isinstance(target, MappingNode):
        port_node = reader.get(target, "port")
        port_text = reader.string(port_node)
        if port_text and not is_template(port_text):
            value["port"] = small_int(port_text) if small_int(port_text) is not None else port_text.strip()
            value["port_span"] = (reader.span(port_node).start, reader.span(port_node).end)
        path = reader.string(reader.get(target, "path")) if target is http else None
        if path and not is_template(path):
            value["path"] = path.strip()
            value["path_span"] = (reader.span(reader.get(target, "path")).start, reader.span(reader.get(target, "path")).end)
    elif reader.get(node, "exec") is not None:
        value["exec"] = True
    for name in _PROBE_FIELDS:
        if name in reader.pairs(node):  # given: a number, or not known (a template)
            number = small_int(reader.string(reader.get(node, name)) or "")
            value[name] = number if number is not None else "unknown"
    return ContextHint(HintKind.DEPLOY_PROBE, value, reader.span(key))


def _ports(reader: NodeReader, node: Optional[Node]) -> list[ContextHint]:
    """``ports: [{containerPort: 30000, name: http}]`` (Kubernetes) or
    ``ports: ["8000:30000"]`` (compose: the container side)."""
    if not isinstance(node, SequenceNode):
        return []
    hints = []
    for item in node.value:
        reader.spend()
        if isinstance(item, MappingNode):
            port_node = reader.get(item, "containerPort") or reader.get(item, "target")
            port = small_int(reader.string(port_node) or "")
            if port is not None:
                name = reader.string(reader.get(item, "name"))
                hints.append(ContextHint(HintKind.DEPLOY_PORT, {"port": port, "name": name}, reader.span(port_node)))
            continue
        text = reader.string(item)
        if not text or is_template(text):
            continue
        container_side = text.rsplit(":", 1)[-1].split("/", 1)[0]
        port = small_int(container_side)
        if port is not None:
            hints.append(ContextHint(HintKind.DEPLOY_PORT, {"port": port, "name": None}, reader.span(item)))
    return hints


def _pod_ports(reader: NodeReader, pod: MappingNode) -> ContextHint:
    """The ports of every container of the pod (sidecars and native-sidecar initContainers too)."""
    ports = []
    for key in ("containers", "initContainers"):
        containers = reader.get(pod, key)
        for container in containers.value if isinstance(containers, SequenceNode) else []:
            for hint in _ports(reader, reader.get(container, "ports")):
                ports.append(dict(hint.value))
    return ContextHint(HintKind.DEPLOY_POD_PORTS, {"ports": ports}, reader.span(reader.get(pod, "containers")))


def service_hints(reader: NodeReader, root: Node) -> list[ContextHint]:
    """A ``kind: Service`` document as a ``deploy-service`` hint: its
    selector and, per port, ``port`` and ``targetPort`` (a number, a name,
    or None when omitted: then the ``port``), with the span to report."""
    if not isinstance(root, MappingNode) or reader.string(reader.get(root, "kind")) != "Service":
        return []
    spec = reader.get(root, "spec")
    selector = reader.get(spec, "selector")
    if not isinstance(selector, MappingNode):
        return []  # no selector: endpoints managed by hand (or a template)
    wanted = {k: reader.string(v) for k, (_, v) in reader.pairs(selector).items()}
    if any(v is None or is_template(v) for v in wanted.values()) or not wanted:
        return []
    ports = []
    port_list = reader.get(spec, "ports")
    for item in port_list.value if isinstance(port_list, SequenceNode) else []:
        reader.spend()
        port_node, target_node = reader.get(item, "port"), reader.get(item, "targetPort")
        port = small_int(reader.string(port_node) or "")
        target_text = reader.string(target_node)
        if port is None or (target_node is not None and (target_text is None or is_template(target_text))):
            return []  # a port sgllint cannot read: the Service is not judged
        target = None if target_node is None else (small_int(target_text) if small_int(target_text) is not None else target_text.strip())
        at = reader.span(target_node if target_node is not None else port_node)
        ports.append({"port": port, "targetPort": target, "name": reader.string(reader.get(item, "name")), "span": (at.start, at.end)})
    if not ports:
        return []
    name = reader.string(reader.get(root, "metadata", "name")) or "the Service"
    headless = (reader.string(reader.get(spec, "clusterIP")) or "").strip() == "None"
    return [ContextHint(HintKind.DEPLOY_SERVICE, {"name": name, "selector": wanted, "headless": headless, "ports": ports},
                        reader.span(root))]
