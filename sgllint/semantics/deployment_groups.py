"""Launches judged together: the launches of one file (the documents of one
YAML file, the commands of one script) as SGLang's disaggregated and
multi-node deployments tie them — prefill/decode pairs, a router and the
servers it routes to, the ranks of one multi-node launch. Verdicts for
rules SGL506-SGL508.

Every comparison uses what is known statically: a value given as a variable
or template makes the pair (or the rank) drop out, never guess.

Sources:

* PD transfer: the prefill and the decode server must agree on the model,
  the KV page size, the KV-cache dtype and the transfer backend — the decode
  receives the prefill's KV pages as raw buffers
  (``sglang/srt/disaggregation/{prefill,decode}.py``; ``--disaggregation-transfer-backend``
  default ``mooncake`` in every release that has it, from the catalog);
* the router's ``--prefill URL [BOOTSTRAP_PORT]``, ``--decode URL`` and
  ``--worker-urls URL...`` (``sglang_router/launch_router.py``);
* ``--nnodes``/``--node-rank``/``--dist-init-addr`` (``server_args.py``:
  ranks are ``0 .. nnodes-1``, every rank dials ``dist_init_addr``:
  ``dist_init_method = f"tcp://{self.server_args.dist_init_addr}"`` in
  ``model_executor/model_runner.py``, 0.4.0 line 205, rank 0 hosting the TCP store).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

from sgllint.model.facts import Arg, Launch, Span
from sgllint.model.kinds import HintKind
from sgllint.model.unknown import UNKNOWN
from sgllint.semantics.deployment import server_port

#: fields the prefill and decode servers of one pair must agree on
PD_FIELDS = ("model_path", "page_size", "kv_cache_dtype", "disaggregation_transfer_backend")
#: fields whose default SGLang resolves at start-up (a backend forces a page
#: size, ``auto`` follows the checkpoint): compared only when both sides write them
RESOLVED_LATER = frozenset({"page_size", "kv_cache_dtype"})
_LOCAL_HOSTS = {"127.0.0.1", "localhost", "0.0.0.0", "[::1]", "::1"}
_URL_RE = re.compile(r"(?:https?://)?(\[[^\]]+\]|[^:/\s]+)(?::(\d{1,5}))?(?:/.*)?\Z")


def group_of(launches: list[Launch]) -> list[Launch]:
    """The launches judged as one deployment: none in Markdown, whose code
    blocks show alternatives (a 2-node and a 4-node recipe), not one group."""
    if not launches or launches[0].site.source.path.lower().endswith((".md", ".markdown", ".mdx", ".rst")):
        return []
    # one call's launches on the paths through its branches are alternatives
    # (a process started one way or the other): one of them stands for the call
    out, calls = [], set()
    for launch in launches:
        if any(h.kind is HintKind.BRANCH_PATH for h in launch.site.hints):
            if launch.site.span in calls:
                continue
            calls.add(launch.site.span)
        out.append(launch)
    return out


def _known(value) -> bool:
    return value is None or isinstance(value, (str, int, float, bool))


def _outside_choices(option, value) -> bool:
    return (option is not None and option.choices is not None and not option.choices_open
            and isinstance(value, str) and value not in {str(c) for c in option.choices})


def effective(launch: Launch, field: str):
    """(value, arg): the given value, else the release's default; `UNKNOWN`
    and the arg when given but not known statically."""
    arg = launch.last(field)
    option = launch.context.catalog.option_for_field(field)
    if arg is not None:
        if not _known(arg.value) or _outside_choices(option, arg.value):
            return UNKNOWN, arg  # an invalid choice is SGL103's finding, not a mismatch to compare
        return arg.value, arg
    info = launch.context.catalog.fields.get(field)
    default = option.default if option is not None else (info.default if info is not None else UNKNOWN)
    return default, None



def _mode(launch: Launch) -> Optional[str]:
    value, _ = effective(launch, "disaggregation_mode")
    return value if isinstance(value, str) else None


@dataclass(frozen=True)
class PdMismatch:
    decode: Launch
    field: str
    decode_value: object
    decode_arg: Optional[Arg]
    prefill: Launch
    prefill_value: object
    prefill_arg: Optional[Arg]


def pd_mismatches(launches: list[Launch]) -> list[PdMismatch]:
    """Decode servers no prefill server of the file can hand its KV cache
    to: for each field in `PD_FIELDS` (model first), a decode whose value no
    prefill (serving the same model) shares."""
    servers = [lc for lc in launches if lc.context.target == "sglang"]
    prefills = [lc for lc in servers if _mode(lc) == "prefill"]
    decodes = [lc for lc in servers if _mode(lc) == "decode"]
    out = []
    for decode in decodes:
        candidates = prefills
        for field in PD_FIELDS:
            value, arg = effective(decode, field)
            others = [(p, *effective(p, field)) for p in candidates]
            if value is UNKNOWN or not others or any(v is UNKNOWN for _, v, _ in others):
                break
            if field in RESOLVED_LATER and (arg is None or any(a is None for _, _, a in others)):
                continue  # a default SGLang resolves per model and backend: compared only when both are written
            same = [p for p, v, _ in others if v == value]
            if not same:
                p, v, a = others[0]
                out.append(PdMismatch(decode, field, value, arg, p, v, a))
                break
            candidates = same
    return out


# ---------------------------------------------------------------------------
# Router
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class RouterTarget:
    role: str  # "--prefill", "--decode", "--worker-urls"
    url: str
    host: str
    port: Optional[int]
    span: Span


def router_targets(router: Launch) -> list[RouterTarget]:
    """The servers a router launch names, from its own words."""
    out = []
    tokens = router.site.tokens
    role = None
    for token in tokens:
        value = token.value
        if not isinstance(value, str):
            role = None if getattr(value, "raw", "").startswith("-") else role
            continue
        if value.startswith("-"):
            flag, eq, rest = value.partition("=")
            role = flag if flag in ("--prefill", "--decode", "--worker-urls") else None
            if role and eq:
                target = _target(role, rest, token.span)
                if target:
                    out.append(target)
                role = role if role == "--worker-urls" else None
            continue
        if role is None:
            continue
        target = _target(role, value, token.span)
        if target is not None:
            out.append(target)
        elif role in ("--prefill",) and value.isdigit():
            continue  # the prefill's bootstrap port
    return out


def _target(role: str, text: str, span: Span) -> Optional[RouterTarget]:
    if "://" not in text and ":" not in text:
        return None
    m = _URL_RE.match(text)
    if not m:
        return None
    port = int(m.group(2)) if m.group(2) else None
    return RouterTarget(role, text, m.group(1).lower(), port, span)


@dataclass(frozen=True)
class DanglingTarget:
    router: Launch
    target: RouterTarget
    served: list  # [(port, launch)] of the file's servers


def dangling_router_targets(launches: list[Launch]) -> list[DanglingTarget]:
    """A router's local URLs (``127.0.0.1``, ``localhost``) on a port no
    server of the file listens on, when every server's port is known and a
    prefill/decode URL's role matches. Remote hosts (a Service name, another
    machine) are not judged."""
    servers = [lc for lc in launches if lc.context.target == "sglang"]
    routers = [lc for lc in launches if lc.context.target == "router"]
    if not servers or not routers:
        return []
    served = []
    for s in servers:
        port = server_port(s)
        if port is None:
            return []
        served.append((port.port, s))
    out = []
    for router in routers:
        for target in router_targets(router):
            if target.host not in _LOCAL_HOSTS or target.port is None:
                continue
            matching = [s for port, s in served if port == target.port]
            if not matching:
                out.append(DanglingTarget(router, target, served))
                continue
            wanted = {"--prefill": "prefill", "--decode": "decode"}.get(target.role)
            if wanted and all(_mode(s) not in (wanted, None) and _mode(s) != "null" for s in matching):
                out.append(DanglingTarget(router, target, [(target.port, s) for s in matching]))
    return out


# ---------------------------------------------------------------------------
# Multi-node ranks
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class RankProblem:
    launch: Launch
    arg: Arg
    message: str
    other: Optional[Launch]
    other_arg: Optional[Arg]


def rank_problems(launches: list[Launch]) -> list[RankProblem]:
    """Ranks of one multi-node launch written in one file (same model and
    ``--dist-init-addr``, ``--nnodes`` > 1, known ``--node-rank``): a rank
    launched twice, a rank outside ``0 .. nnodes-1``, ranks disagreeing on
    ``--nnodes``."""
    groups: dict = {}
    for lc in launches:
        if lc.context.target != "sglang":
            continue
        addr = lc.value("dist_init_addr")
        model, nnodes, rank = lc.value("model_path"), lc.last("nnodes"), lc.last("node_rank")
        if not isinstance(model, str) or nnodes is None or rank is None:
            continue
        if not isinstance(nnodes.value, int) or isinstance(nnodes.value, bool) or nnodes.value < 2:
            continue
        if not isinstance(rank.value, int) or isinstance(rank.value, bool):
            continue
        groups.setdefault((model, addr if isinstance(addr, str) else None), []).append(lc)
    out = []
    for members in groups.values():
        first = members[0]
        seen: dict = {}
        for lc in members:
            nnodes, rank = lc.last("nnodes"), lc.last("node_rank")
            if rank.value >= nnodes.value or rank.value < 0:
                out.append(RankProblem(lc, rank, f"--node-rank {rank.value} is outside 0..{nnodes.value - 1} (--nnodes {nnodes.value})", None, None))
            if nnodes.value != first.last("nnodes").value:
                out.append(RankProblem(lc, nnodes, f"--nnodes {nnodes.value} but rank {first.last('node_rank').value} "
                                       f"of the same launch says --nnodes {first.last('nnodes').value}", first, first.last("nnodes")))
            if rank.value in seen:
                other = seen[rank.value]
                out.append(RankProblem(lc, rank, f"--node-rank {rank.value} is launched twice", other, other.last("node_rank")))
            else:
                seen[rank.value] = lc
    return out + addr_disagreements(launches)


_WILDCARD_HOSTS = _LOCAL_HOSTS | {"[::]", "::"}


def _host_port(text: str) -> Optional[tuple[str, Optional[int]]]:
    m = _URL_RE.match(text.strip())
    if not m or "$" in text or "{" in text:
        return None
    return m.group(1).lower(), int(m.group(2)) if m.group(2) else None


def addr_disagreements(launches: list[Launch]) -> list[RankProblem]:
    """Ranks of one multi-node launch (same model and ``--nnodes``, every
    ``--node-rank`` distinct) that dial different ``--dist-init-addr``s:
    each rank is told where rank 0's store listens, so a rank whose port
    differs (or whose host names another machine, when neither is a local
    or wildcard address rank 0 may bind) waits for a store nobody opens.
    Two launches of the same rank are two deployments, not one: not judged."""
    groups: dict = {}
    for lc in launches:
        if lc.context.target != "sglang":
            continue
        model, nnodes, rank, addr = lc.value("model_path"), lc.last("nnodes"), lc.last("node_rank"), lc.last("dist_init_addr")
        if not isinstance(model, str) or nnodes is None or rank is None or addr is None:
            continue
        if not all(isinstance(a.value, int) and not isinstance(a.value, bool) for a in (nnodes, rank)) or nnodes.value < 2:
            continue
        if not isinstance(addr.value, str) or _host_port(addr.value) is None:
            continue
        groups.setdefault((model, nnodes.value), []).append(lc)
    out = []
    for members in groups.values():
        ranks = [lc.last("node_rank").value for lc in members]
        if len(members) < 2 or len(set(ranks)) != len(ranks):
            continue
        leader = min(members, key=lambda lc: lc.last("node_rank").value)
        lhost, lport = _host_port(leader.last("dist_init_addr").value)
        for lc in members:
            if lc is leader:
                continue
            arg = lc.last("dist_init_addr")
            host, port = _host_port(arg.value)
            if port != lport:
                what = f"port {port}" if port is not None else "no port"
            elif host != lhost and host not in _WILDCARD_HOSTS and lhost not in _WILDCARD_HOSTS:
                what = f"host {host}"
            else:
                continue
            rank0 = leader.last("node_rank").value
            out.append(RankProblem(lc, arg, f"--dist-init-addr {arg.value} ({what}) but rank {rank0} of the same launch "
                                   f"says --dist-init-addr {leader.last('dist_init_addr').value}: this rank waits for a "
                                   f"store nobody opens", leader, leader.last("dist_init_addr")))
    return out
