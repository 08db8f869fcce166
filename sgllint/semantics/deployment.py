"""The deployment around a launch, read once per launch: the container it
runs in (a Kubernetes pod, a compose service, a ``docker run``), its shared
memory, mounts, probes and ports, and the verdicts rules SGL501-SGL505 report.

The facts come from the ``deploy-*`` context hints the YAML and shell
extractors attach to a launch (`sgllint.formats.yaml.deployment`,
`sgllint.formats.shell.deployment`). A launch with no such hint runs where
sgllint cannot see its container (a bare shell, a Slurm job, a SkyPilot VM):
every verdict here is then None. Anything not known statically (a template,
a variable) makes the verdict None too: these checks never guess.

Defaults, with their sources:

* SGLang's HTTP port: the release's ``--port`` default from the catalog
  (30000 in every release: ``sglang/srt/server_args.py`` ``port: int = 30000``,
  0.4.0 line 60 to 0.5.23);
* Kubernetes probe fields when omitted: ``initialDelaySeconds`` 0,
  ``periodSeconds`` 10, ``failureThreshold`` 3
  (https://kubernetes.io/docs/tasks/configure-pod-container/configure-liveness-readiness-startup-probes/#configure-probes);
* a container's ``/dev/shm`` when nothing sizes it: 64 MiB (Docker's
  ``--shm-size`` default, https://docs.docker.com/reference/cli/docker/container/run/,
  and the kubelet's/containerd's default for a pod);
* the Hugging Face cache: ``HF_HUB_CACHE``, else ``$HF_HOME/hub``, else
  ``~/.cache/huggingface/hub`` (huggingface_hub ``constants.py``), with ``~``
  ``/root`` in the SGLang images (they run as root), or ``$HOME``.
"""

from __future__ import annotations

import functools
import posixpath
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from sgllint.model.facts import Arg, Launch, Span
from sgllint.model.kinds import HintKind

#: below this, a /dev/shm that was sized is reported (NCCL's SHM transport and
#: its proxy segments need well over the 64 MiB default for 8 ranks; SGLang's
#: docs size it at 32g for docker and 10Gi+ for Kubernetes)
SHM_FLOOR_BYTES = 1024 ** 3
DEFAULT_SHM_BYTES = 64 * 1024 ** 2
K8S_PROBE_DEFAULTS = {"initialDelaySeconds": 0, "periodSeconds": 10, "failureThreshold": 3}
#: a probe that kills the container earlier than this after start-up kills
#: any SGLang server before it serves: the scheduler loads the weights,
#: profiles memory and captures CUDA graphs first (tens of seconds for a 1B
#: model already; minutes for a 70B one)
PROBE_FLOOR_SECONDS = 120
#: the fastest a node reads its checkpoint on a cold start: a PCIe 4.0 NVMe
#: drive's sequential read (~7 GB/s at best; network volumes and the Hub are
#: much slower); the load of a known model takes at least its bytes per node
#: at this rate, on top of `PROBE_FLOOR_SECONDS`
LOAD_BYTES_PER_SECOND = 5 * 1024 ** 3
RUNTIMES = ("kubernetes", "compose", "docker")
RUNTIME_NAMES = {"kubernetes": "Kubernetes pod", "compose": "compose service", "docker": "docker run container"}


@dataclass
class Hint:
    value: dict
    span: Span


@dataclass
class Deployment:
    """The container around one launch."""

    runtime: Optional[str] = None
    runtime_span: Optional[Span] = None
    shm: list = field(default_factory=list)  # [Hint]
    volumes: dict = field(default_factory=dict)  # name -> Hint
    mounts: list = field(default_factory=list)  # [Hint]
    probes: list = field(default_factory=list)  # [Hint]
    ports: list = field(default_factory=list)  # [Hint]
    pod_ports: list = field(default_factory=list)  # [{"port", "name"}] of every container of the pod
    labels: Optional[dict] = None  # the pod's labels (the innermost metadata.labels)
    services: list = field(default_factory=list)  # [Hint] the file's Services

    @property
    def where(self) -> str:
        return RUNTIME_NAMES.get(self.runtime or "", "container")


def deployment(launch: Launch) -> Deployment:
    """The launch's `Deployment` (computed once per launch and kept on it:
    the rules ask one after the other for every launch of a file, so a
    bounded cache of recent launches missed every time past its bound)."""
    d = launch.__dict__.get("_deployment")
    if d is not None:
        return d
    d = Deployment()
    for hint in launch.site.hints:
        kind = hint.kind
        if not kind.describes_deployment or hint.span is None:
            continue
        if kind is HintKind.DEPLOY_RUNTIME and isinstance(hint.value, str):
            d.runtime, d.runtime_span = hint.value, hint.span  # the innermost wins (a pod inside a list)
        elif isinstance(hint.value, dict):
            h = Hint(hint.value, hint.span)
            if kind is HintKind.DEPLOY_SHM:
                d.shm.append(h)
            elif kind is HintKind.DEPLOY_VOLUME:
                d.volumes[hint.value.get("name")] = h
            elif kind is HintKind.DEPLOY_MOUNT:
                d.mounts.append(h)
            elif kind is HintKind.DEPLOY_PROBE:
                d.probes.append(h)
            elif kind is HintKind.DEPLOY_PORT:
                d.ports.append(h)
            elif kind is HintKind.DEPLOY_POD_PORTS:
                d.pod_ports = list(hint.value.get("ports") or [])
            elif kind is HintKind.DEPLOY_LABELS:
                d.labels = dict(hint.value.get("labels") or {})
            elif kind is HintKind.DEPLOY_SERVICE:
                d.services.append(h)
    launch.__dict__["_deployment"] = d
    return d


def sub_span(hint: Hint, key: str) -> Span:
    """The span a hint recorded for one of its parts (``port_span``), else the hint's."""
    at = hint.value.get(key)
    if isinstance(at, (tuple, list)) and len(at) == 2:
        return Span(hint.span.source, at[0], at[1])
    return hint.span


# ---------------------------------------------------------------------------
# Parallel layout
# ---------------------------------------------------------------------------


def _int(launch: Launch, name: str, default: int = 1):
    arg = launch.last(name)
    if arg is None:
        return default, None
    if isinstance(arg.value, bool) or not isinstance(arg.value, int):
        return None, arg
    return arg.value, arg


@dataclass(frozen=True)
class LocalWorld:
    """How many GPU processes of one launch share a node, and the flag that makes them more than one."""

    ranks: int
    cause: Arg
    description: str


def local_world(launch: Launch) -> Optional[LocalWorld]:
    """The launch's ranks per node when known and > 1: TP × PP × DP replicas
    (attention DP adds none) / nnodes, as SGL301 counts them."""
    tp, tp_arg = _int(launch, "tp_size")
    pp, pp_arg = _int(launch, "pp_size")
    dp, dp_arg = _int(launch, "dp_size")
    nnodes, _ = _int(launch, "nnodes")
    if None in (tp, pp, dp, nnodes) or min(tp, pp, dp, nnodes) < 1:
        return None
    dp_attention = launch.value("enable_dp_attention") is True or (launch.value("attn_dp_size") or 1) > 1
    replicas = 1 if dp_attention else dp
    per_node = -(-(tp * pp * replicas) // nnodes)
    if per_node <= 1:
        return None
    causes = [(tp, tp_arg), (pp, pp_arg), (replicas, dp_arg)]
    cause = next((arg for n, arg in causes if n > 1 and arg is not None), None)
    if cause is None:
        return None
    parts = [f"--tp-size {tp}"] + ([f"--pp-size {pp}"] if pp > 1 else []) + ([f"--dp-size {dp}"] if replicas > 1 else [])
    text = " × ".join(parts) + (f" over {nnodes} nodes" if nnodes > 1 else "")
    return LocalWorld(per_node, cause, text)


# ---------------------------------------------------------------------------
# Shared memory
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ShmVerdict:
    world: LocalWorld
    deployment: Deployment
    size: Optional[int]  # bytes given, None when nothing sizes /dev/shm
    sized_at: Optional[Span]


def _k8s_shm(d: Deployment) -> Optional[Hint]:
    """The ``/dev/shm`` mount of a pod's container, with its volume's size."""
    for m in d.mounts:
        if m.value.get("path") == "/dev/shm":
            return m
    return None


def shm_verdict(launch: Launch) -> Optional[ShmVerdict]:
    """A launch with several ranks per node whose container keeps the
    default 64 MiB ``/dev/shm`` (or sizes it below `SHM_FLOOR_BYTES`)."""
    d = deployment(launch)
    if d.runtime not in RUNTIMES:
        return None
    world = local_world(launch)
    if world is None:
        return None
    unbounded = [h for h in d.shm if h.value.get("bytes") is None]
    if unbounded:
        return None  # ipc: host, hostIPC, a mount at /dev/shm, or a size not known
    if d.runtime == "kubernetes":
        mount = _k8s_shm(d)
        if mount is not None:
            volume = d.volumes.get(mount.value.get("volume"))
            size = volume.value.get("bytes") if volume is not None else None
            if size is None or size >= SHM_FLOOR_BYTES:
                return None  # unsized emptyDir (Memory): bounded by the pod's memory limit
            return ShmVerdict(world, d, size, volume.span)
        return ShmVerdict(world, d, None, None)
    sized = [h for h in d.shm if isinstance(h.value.get("bytes"), int)]
    if sized:
        best = max(sized, key=lambda h: h.value["bytes"])
        if best.value["bytes"] >= SHM_FLOOR_BYTES:
            return None
        return ShmVerdict(world, d, best.value["bytes"], best.span)
    return ShmVerdict(world, d, None, None)


def human_bytes(n: int) -> str:
    for unit, power in (("GiB", 3), ("MiB", 2), ("KiB", 1)):
        if n >= 1024 ** power:
            value = n / 1024 ** power
            return f"{value:.0f} {unit}" if value == int(value) else f"{value:.1f} {unit}"
    return f"{n} bytes"


# ---------------------------------------------------------------------------
# HTTP port and probes
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ServerPort:
    port: int
    arg: Optional[Arg]  # None: the release's default


def server_port(launch: Launch) -> Optional[ServerPort]:
    """The HTTP port the launch serves: ``--port``, else the release's default."""
    arg = launch.last("port")
    if arg is not None:
        if isinstance(arg.value, bool) or not isinstance(arg.value, int):
            return None
        return ServerPort(arg.value, arg)
    option = launch.context.catalog.option_for_field("port")
    default = option.default if option is not None else None
    if isinstance(default, int) and not isinstance(default, bool):
        return ServerPort(default, None)
    return None


def serves_http(launch: Launch) -> bool:
    """Whether this launch starts the HTTP server: a multi-node launch
    does on ``--node-rank 0`` only (the other ranks run schedulers and
    serve nothing); a rank that is not known statically is not judged."""
    nnodes = launch.last("nnodes")
    if nnodes is None or nnodes.value == 1:
        return True
    return launch.value("node_rank", 0) == 0


@dataclass(frozen=True)
class PortMismatch:
    hint: Hint
    span: Span
    found: int
    served: ServerPort
    what: str  # "livenessProbe", "containerPort"


def _serves_others(launch: Launch) -> bool:
    """Whether the container's command may start other servers too: the
    launch sits in a shell script (``sh -c``, a compose ``command: >``) that
    also backgrounds it, or its port is not known."""
    end = launch.site.span.end
    after = launch.site.source.text[end : end + 3].lstrip(" \t")
    return after.startswith("&") and not after.startswith("&&")


def port_mismatches(launch: Launch) -> list[PortMismatch]:
    """Probes on a numeric port the server does not listen on, and
    container ports none of which is the server's (a named probe port is
    looked up among the container's named ports)."""
    d = deployment(launch)
    if d.runtime not in RUNTIMES:
        return []
    served = server_port(launch)
    if served is None or _serves_others(launch) or not serves_http(launch):
        return []
    out = []
    declared_elsewhere = bool(d.ports) and d.runtime == "kubernetes" and not any(p.value.get("port") == served.port for p in d.ports)
    named = {p.value.get("name"): p.value.get("port") for p in d.ports if p.value.get("name")}
    for probe in d.probes:
        port = probe.value.get("port")
        if isinstance(port, str):
            if declared_elsewhere:
                continue  # the named port is the containerPort reported below: one finding
            port = named.get(port)
        if isinstance(port, int) and port != served.port:
            out.append(PortMismatch(probe, sub_span(probe, "port_span"), port, served, probe.value.get("probe", "probe")))
    if declared_elsewhere:
        first = d.ports[0]
        out.append(PortMismatch(first, first.span, first.value["port"], served, "containerPort"))
    return out


@dataclass(frozen=True)
class ServiceMiss:
    service: Hint
    span: Span  # the first port's targetPort (or port)
    targets: list  # what the Service's ports send to, as written
    served: ServerPort
    unresolved: Optional[str]  # a named targetPort no container declares


def service_misses(launch: Launch) -> list[ServiceMiss]:
    """Services of the same file that select the launch's pod but none of
    whose ports reaches the port the server listens on: a ``targetPort``
    (or, omitted, the ``port``) that no container of the pod declares and
    is not ``--port``, or a named ``targetPort`` no container names. A
    target another container of the pod declares is its business (a
    sidecar, a proxy), and one this container declares is SGL503's
    (``containerPort`` vs ``--port``). Headless Services (``clusterIP:
    None``: DNS for multi-node ranks) are not judged."""
    d = deployment(launch)
    if d.runtime != "kubernetes" or not d.services or d.labels is None or launch.context.target != "sglang":
        return []
    served = server_port(launch)
    if served is None or _serves_others(launch) or not serves_http(launch) or launch.opaque:
        return []
    by_name = {p.get("name"): p.get("port") for p in d.pod_ports if p.get("name")}
    declared = {p.get("port") for p in d.pod_ports} | {p.value.get("port") for p in d.ports}
    out = []
    for service in d.services:
        v = service.value
        if v.get("headless") or any(d.labels.get(k) != want for k, want in v["selector"].items()):
            continue
        targets, unresolved, reaches = [], None, False
        for port in v["ports"]:
            target = port["targetPort"] if port["targetPort"] is not None else port["port"]
            targets.append(target)
            if isinstance(target, str):
                if target not in by_name:
                    unresolved = unresolved or target
                    continue
                target = by_name[target]
            if target == served.port or target in declared:
                reaches = True
        if reaches:
            continue
        first = v["ports"][0]["span"]
        out.append(ServiceMiss(service, Span(service.span.source, first[0], first[1]), targets, served, unresolved))
    return out


@dataclass(frozen=True)
class LoadEstimate:
    seconds: int  # the whole floor: PROBE_FLOOR_SECONDS + the read
    read_seconds: int
    bytes_per_node: float
    facts: object  # sgllint.resolve.modelinfo.ModelFacts
    nnodes: int


def load_estimate(launch: Launch) -> Optional[LoadEstimate]:
    """The least time a node of the launch needs before it serves, from
    the model's size: its checkpoint bytes (parameters × bytes of its
    dtype) split over ``--nnodes``, read at `LOAD_BYTES_PER_SECOND`, plus
    `PROBE_FLOOR_SECONDS`; None when the model's facts are not known."""
    from sgllint.semantics.model_fit import model_facts

    facts = model_facts(launch)
    if facts is None or facts.weight_bytes is None:
        return None
    nnodes, _ = _int(launch, "nnodes")
    if not isinstance(nnodes, int) or nnodes < 1:
        return None
    per_node = facts.weight_bytes / nnodes
    read = int(-(-per_node // LOAD_BYTES_PER_SECOND))
    return LoadEstimate(PROBE_FLOOR_SECONDS + read, read, per_node, facts, nnodes)


@dataclass(frozen=True)
class ProbeWindow:
    probe: Hint
    seconds: int
    formula: str
    floor: int
    load: Optional[LoadEstimate] = None  # the floor from the model's size, when known


def probe_window(hint: Hint) -> Optional[tuple[int, str]]:
    """``initialDelaySeconds + failureThreshold × periodSeconds`` with
    Kubernetes' defaults; None when a field is not a known number."""
    values = {}
    for name, default in K8S_PROBE_DEFAULTS.items():
        v = hint.value.get(name, default)
        if not isinstance(v, int):
            return None
        values[name] = v
    seconds = values["initialDelaySeconds"] + values["failureThreshold"] * values["periodSeconds"]
    formula = f"{values['initialDelaySeconds']} + {values['failureThreshold']} × {values['periodSeconds']} = {seconds}s"
    return seconds, formula


def short_probe(launch: Launch) -> Optional[ProbeWindow]:
    """The probe that restarts a still-loading server: the ``startupProbe``
    when there is one (liveness waits for it), else the ``livenessProbe``,
    when its failure window is under `PROBE_FLOOR_SECONDS`."""
    d = deployment(launch)
    if d.runtime != "kubernetes":
        return None
    by_kind = {p.value.get("probe"): p for p in d.probes}
    killer = by_kind.get("startupProbe") or by_kind.get("livenessProbe")
    if killer is None or killer.value.get("exec"):
        return None
    window = probe_window(killer)
    if window is None or window[0] >= PROBE_FLOOR_SECONDS and launch.opaque:
        return None
    load = load_estimate(launch) if window[0] >= PROBE_FLOOR_SECONDS else None
    floor = load.seconds if load is not None else PROBE_FLOOR_SECONDS
    if window[0] >= floor:
        return None
    return ProbeWindow(killer, window[0], window[1], floor, load)


# ---------------------------------------------------------------------------
# Probe paths
# ---------------------------------------------------------------------------

_ROUTES = Path(__file__).parents[1] / "catalog" / "data" / "http_routes.json"
#: what a probe should ask, best first (when the release serves them)
PROBE_PATHS = ("/health", "/health_generate", "/v1/models")


@functools.lru_cache(maxsize=1)
def _http_routes() -> dict:
    import json  # only for a launch with an HTTP probe

    return json.loads(_ROUTES.read_text(encoding="utf-8"))["releases"]


def _route_regex(path: str) -> "re.Pattern":
    """FastAPI's path template as a regex: ``{x}`` one segment, ``{x:path}`` the rest."""
    out, pos = [], 0
    for m in re.finditer(r"\{[^}:]+(:path)?\}", path):
        out.append(re.escape(path[pos:m.start()]))
        out.append(".+" if m.group(1) else "[^/]+")
        pos = m.end()
    out.append(re.escape(path[pos:]))
    return re.compile("".join(out) + r"\Z")


@dataclass(frozen=True)
class UnservedPath:
    probe: Hint
    span: Span
    path: str
    release: str
    instead: Optional[str]  # the closest path the release serves (of `PROBE_PATHS` first)


def unserved_probe_paths(launch: Launch) -> list[UnservedPath]:
    """``httpGet`` probes on the server's port whose path the release's HTTP
    server does not route (`catalog/data/http_routes.json`: every GET route
    of ``sglang/srt/entrypoints``, and the ``/metrics`` mount): FastAPI
    answers 404 and the probe fails whatever the server's state."""
    d = deployment(launch)
    ctx = launch.context
    if d.runtime != "kubernetes" or ctx.target != "sglang" or ctx.wrapped is not None or ctx.diffusion is not None:
        return []
    if any(arg.field and "grpc" in arg.field for arg in launch.args):
        return []  # a gRPC server answers no HTTP path
    served = server_port(launch)
    if served is None or _serves_others(launch) or not serves_http(launch):
        return []
    release = _http_routes().get(ctx.catalog.version)
    if release is None or release["dynamic"]:
        return []
    env = _env(launch)
    if launch.opaque or any(r.get("env") in env for r in release["routes"] if r.get("env")):
        return []  # a route moved by an environment variable: where to is not known here
    paths = [r["path"] for r in release["routes"] if r["path"]]
    prefixes = [m["path"] for m in release["mounts"]]
    named = {p.value.get("name"): p.value.get("port") for p in d.ports if p.value.get("name")}
    out = []
    for probe in d.probes:
        path = probe.value.get("path")
        port = probe.value.get("port")
        port = named.get(port) if isinstance(port, str) else port
        if not isinstance(path, str) or port != served.port or "$" in path or "{" in path:
            continue
        asked = path.split("?", 1)[0].split("#", 1)[0] or "/"
        if not asked.startswith("/"):
            asked = "/" + asked
        if asked.rstrip("/") != asked and asked.rstrip("/") in paths:
            continue  # FastAPI redirects /health/ to /health, and the kubelet follows it
        if asked in paths or any(_route_regex(p).match(asked) for p in paths if "{" in p):
            continue
        if any(asked == m or asked.startswith(m.rstrip("/") + "/") for m in prefixes):
            continue
        import difflib  # only for a probe path no route matches

        close = difflib.get_close_matches(asked, [p for p in PROBE_PATHS if p in paths], n=1, cutoff=0.5)
        best = close[0] if close else next((p for p in PROBE_PATHS if p in paths), None)
        out.append(UnservedPath(probe, sub_span(probe, "path_span"), path, ctx.catalog.version, best))
    return out


# ---------------------------------------------------------------------------
# Hugging Face cache
# ---------------------------------------------------------------------------

_HUB_ID_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*/[A-Za-z0-9][A-Za-z0-9_.-]*\Z")
_EPHEMERAL_VOLUMES = ("emptyDir",)


@dataclass(frozen=True)
class CacheVerdict:
    model: Arg
    cache_dir: str
    cache_source: str
    deployment: Deployment
    ephemeral_mount: Optional[Hint]  # an emptyDir mounted over the cache


def _env(launch: Launch) -> dict:
    out = {}
    for var in launch.site.env:
        out[var.name] = var.value
    return out


def hf_cache_dir(launch: Launch) -> Optional[tuple[str, str]]:
    """Where huggingface_hub downloads to in the container, and why; None
    when an env var decides it and its value is not known."""
    env = _env(launch)
    for name in ("HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE", "TRANSFORMERS_CACHE"):
        if name in env:
            value = env[name]
            return (posixpath.normpath(value), name) if isinstance(value, str) and value.startswith("/") else None
    if "HF_HOME" in env:
        value = env["HF_HOME"]
        return (posixpath.join(posixpath.normpath(value), "hub"), "HF_HOME") if isinstance(value, str) and value.startswith("/") else None
    home = env.get("HOME", "/root")
    if not (isinstance(home, str) and home.startswith("/")):
        return None
    return posixpath.join(posixpath.normpath(home), ".cache/huggingface/hub"), "the default ~/.cache/huggingface/hub"


def _covers(mount: str, path: str) -> bool:
    return path == mount or path.startswith(mount.rstrip("/") + "/")


def cache_verdict(launch: Launch) -> Optional[CacheVerdict]:
    """A launch that downloads a Hub model into a cache that dies with the container."""
    d = deployment(launch)
    if d.runtime not in RUNTIMES or launch.context.skip_model_checks:
        return None
    model = launch.last("model_path")
    if model is None or not isinstance(model.value, str) or not _HUB_ID_RE.match(model.value):
        return None
    if launch.last("download_dir") is not None or launch.value("load_format") in ("dummy",):
        return None
    env = _env(launch)
    if any(name in env for name in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")) or any(
        name in env for name in ("SGLANG_USE_MODELSCOPE", "MODELSCOPE_CACHE")
    ):
        return None  # offline: the image or a volume holds it; ModelScope: another cache
    where = hf_cache_dir(launch)
    if where is None:
        return None
    cache, source = where
    ephemeral = None
    for mount in d.mounts:
        path = mount.value.get("path")
        if not isinstance(path, str) or not (_covers(path, cache) or _covers(cache, path)):
            continue
        if d.runtime == "kubernetes":
            volume = d.volumes.get(mount.value.get("volume"))
            if volume is not None and volume.value.get("kind") in _EPHEMERAL_VOLUMES:
                ephemeral = mount
                continue
        return None  # a PVC, hostPath, NFS, CSI volume, a bind or named volume (or one sgllint cannot see)
    return CacheVerdict(model, cache, source, d, ephemeral)
