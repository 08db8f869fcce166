"""Effective values of a launch as SGLang resolves them, for the rule pack
SGL230-SGL259 / SGL302-SGL329.

Builds on `sgllint.semantics.deterministic` (version ranges, plausible GPU targets,
MLA-ness of the model) without repeating it. Everything here is *explicit
first*: a value the user wrote, else the release's catalog default. A value
that cannot be known statically (a variable, a template) is `UNKNOWN`, and
rules stay silent on it.

The page-size snapping mirrors, per release (checked in the wheels
0.5.1-0.5.23): ``ServerArgs._handle_attention_backend_compatibility``
(``server_args.py``, <=0.5.18) and ``arg_groups/overrides.py``
``_mla_backend_page_constraints`` (0.5.19+):

* ``flashmla`` (attention or decode backend) -> 64, whatever was given;
* ``cutlass_mla`` (attention or decode) -> 128, up to 0.5.19 (the choice is
  gone from 0.5.20);
* ``trtllm_mla`` (attention or decode) -> 64 unless 32 or 64;
* ``cutedsl_mla`` (any role, 0.5.13+) -> 64 unless 32 or 64;
* ``trtllm_mha`` (any role) -> 64 unless 16/32/64 (+128 from 0.5.17);
* ``hpc_ops`` (any role, 0.5.17+) -> 64.

Applied in that order (flashmla first, as SGLang does), so a later snap sees
the page size an earlier one chose.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

from sgllint.model.facts import Launch, Span
from sgllint.model.unknown import UNKNOWN
from sgllint.semantics import deterministic as det

in_range = det.in_range
at_least = det.at_least


def version(launch: Launch) -> str:
    return launch.context.catalog.version


def has_field(launch: Launch, field: str) -> bool:
    cat = launch.context.catalog
    return field in cat.fields or cat.option_for_field(field) is not None


def default(launch: Launch, field: str) -> Any:
    cat = launch.context.catalog
    info = cat.fields.get(field)
    if info is not None:
        return info.default
    opt = cat.option_for_field(field)
    return opt.default if opt is not None else None


def value(launch: Launch, field: str) -> Any:
    """The given value (last occurrence wins), else the catalog default;
    `UNKNOWN` when the given value cannot be resolved."""
    arg = launch.last(field)
    if arg is None:
        return default(launch, field)
    return arg.value if arg.known else UNKNOWN


def given(launch: Launch, field: str) -> Any:
    """The given value, None when not given, `UNKNOWN` when unresolved."""
    arg = launch.last(field)
    if arg is None:
        return None
    return arg.value if arg.known else UNKNOWN


def flag_true(launch: Launch, field: str) -> Any:
    """True/False for a switch (given or default), `UNKNOWN` if unresolved."""
    v = value(launch, field)
    if v is UNKNOWN:
        return UNKNOWN
    return v is True


def int_value(launch: Launch, field: str) -> Any:
    v = value(launch, field)
    if v is UNKNOWN or v is None:
        return v
    if isinstance(v, bool):
        return UNKNOWN
    if isinstance(v, int):
        return v
    try:
        return int(str(v))
    except ValueError:
        return UNKNOWN


def span_of(launch: Launch, field: str) -> Optional[Span]:
    """The value of ``field`` (or its flag, for switches), for a primary or
    related span; None when the field is not given."""
    arg = launch.last(field)
    if arg is None:
        return None
    return arg.value_span if (arg.value_span is not None and arg.value is not True) else arg.flag_span


def flag_span(launch: Launch, field: str) -> Optional[Span]:
    """The flag (or keyword) of a switch: ``--disable-radix-cache`` /
    ``disable_radix_cache``."""
    arg = launch.last(field)
    return None if arg is None else arg.flag_span


def flag(launch: Launch, field: str) -> str:
    return launch.context.catalog.flag_for_field(field)


def gpu(launch: Launch):
    """The pinned GPU target, or None."""
    return launch.context.gpu_target


def gpu_related(launch: Launch) -> list[tuple[Span, str]]:
    g = launch.context.gpu
    if g is not None and g.span is not None:
        return [(g.span, f"the GPU target ({g.value.describe()})")]
    return []


def model_related(launch: Launch) -> list[tuple[Span, str]]:
    arg = launch.last("model_path")
    if arg is not None and arg.value_span is not None:
        return [(arg.value_span, f"the model ({launch.context.arch or 'unknown architecture'})")]
    return []


def is_mla(launch: Launch) -> Optional[bool]:
    """Whether the model uses SGLang's MLA backend path; None when unknown."""
    m = det._model(launch)
    if not m.known or m.arch is None:
        return None
    return m.mla


def is_dsa(launch: Launch) -> Optional[bool]:
    m = det._model(launch)
    if not m.known or m.arch is None:
        return None
    return m.dsa


# ---------------------------------------------------------------------------
# Attention backends
# ---------------------------------------------------------------------------

ROLE_FIELDS = {
    "attention": "attention_backend",
    "prefill": "prefill_attention_backend",
    "decode": "decode_attention_backend",
    "draft": "speculative_draft_attention_backend",
}


@dataclass
class Backends:
    """The backends the user gave (None: not given). ``known`` is False when
    one of them is unresolved."""

    attention: Optional[str]
    prefill_given: Optional[str]
    decode_given: Optional[str]
    draft: Optional[str]
    known: bool = True

    @property
    def prefill(self) -> Optional[str]:
        return self.prefill_given if self.prefill_given is not None else self.attention

    @property
    def decode(self) -> Optional[str]:
        return self.decode_given if self.decode_given is not None else self.attention

    def any(self, name: str, roles=("attention", "prefill", "decode")) -> bool:
        vals = {"attention": self.attention, "prefill": self.prefill_given, "decode": self.decode_given, "draft": self.draft}
        return any(vals[r] == name for r in roles)


def backends(launch: Launch) -> Backends:
    vals = {}
    known = True
    for role, field in ROLE_FIELDS.items():
        v = given(launch, field)
        if v is UNKNOWN or (v is not None and not isinstance(v, str)):
            known = False
            v = None
        vals[role] = v
    return Backends(vals["attention"], vals["prefill"], vals["decode"], vals["draft"], known)


def backend_arg(launch: Launch, name: str, roles=("attention", "decode", "prefill", "draft")):
    """The last-given arg among ``roles`` whose value is ``name``."""
    for role in roles:
        arg = launch.last(ROLE_FIELDS[role])
        if arg is not None and arg.value == name:
            return arg
    return None


# ---------------------------------------------------------------------------
# Page size
# ---------------------------------------------------------------------------


@dataclass
class Snap:
    backend: str
    before: int
    after: int
    message: str  # SGLang's warning, with the values
    arg: Any  # the backend Arg


def page_snaps(launch: Launch, page: int, b: Backends) -> list[Snap]:
    """SGLang's backend-forced page sizes, in order, starting from ``page``."""
    v = version(launch)
    snaps: list[Snap] = []

    def snap(name, new, msg, roles):
        nonlocal page
        if new != page:
            snaps.append(Snap(name, page, new, msg, backend_arg(launch, name, roles)))
        page = new

    if b.any("flashmla", ("attention", "decode")):
        snap("flashmla", 64, "FlashMLA only supports a page_size of 64, change page_size to 64.", ("attention", "decode"))
    if b.any("cutlass_mla", ("attention", "decode")) and not at_least(v, "0.5.20"):
        snap("cutlass_mla", 128, "Cutlass MLA only supports a page_size of 128, change page_size to 128.", ("attention", "decode"))
    if b.any("trtllm_mla", ("attention", "decode")) and page not in (32, 64):
        snap("trtllm_mla", 64,
             f"TensorRT-LLM MLA only supports page_size of 32 or 64, changing page_size from {page} to 64.", ("attention", "decode"))
    if at_least(v, "0.5.13") and b.any("cutedsl_mla") and page not in (32, 64):
        snap("cutedsl_mla", 64, f"CuteDSL MLA only supports page_size of 32 or 64, changing page_size from {page} to 64.",
             ("attention", "decode", "prefill"))
    mha_roles = ("attention", "decode", "prefill", "draft") if at_least(v, "0.5.23") else ("attention", "decode", "prefill")
    if b.any("trtllm_mha", mha_roles):
        allowed = (16, 32, 64, 128) if at_least(v, "0.5.17") else (16, 32, 64)
        if page not in allowed:
            listed = "16, 32, 64 or 128" if 128 in allowed else "16, 32 or 64"
            snap("trtllm_mha", 64, f"TensorRT-LLM MHA only supports page_size of {listed}, changing page_size from {page} to 64.",
                 mha_roles)
    if at_least(v, "0.5.17") and b.any("hpc_ops") and page != 64:
        snap("hpc_ops", 64, f"HPC-Ops attention only supports a page_size of 64, changing page_size from {page} to 64.",
             ("attention", "decode", "prefill"))
    return snaps


#: backends after which no model override or GPU-dependent rewrite changes
#: the page size in the releases checked (fa4, DSA models and hybrid models
#: do; see `page_candidates`)
FA4_PAGE_SINCE = "0.5.4"


def page_candidates(launch: Launch) -> Optional[tuple[set, list[Snap], Optional[int]]]:
    """(possible effective page sizes, snaps applied, the given page size)
    -- None when the page size or a backend cannot be read. More than one
    candidate when the outcome depends on an unknown fact (architecture,
    GPU): DeepSeek DSA models get 64 (0.5.3-0.5.21, ``Setting page size to
    64 for DeepSeek DSA.``), fa4 on SM100 with a non-MLA model 128."""
    b = backends(launch)
    if not b.known:
        return None
    p = given(launch, "page_size")
    if p is UNKNOWN or (p is not None and (isinstance(p, bool) or not isinstance(p, int))):
        return None
    user = p
    page = p if p is not None else 1
    snaps = page_snaps(launch, page, b)
    base = snaps[-1].after if snaps else page
    if "hybrid" in (launch.context.traits or frozenset()):
        return None  # hybrid (mamba / linear-attention) models pick their own page sizes
    cands = {base}
    dsa = is_dsa(launch)
    if dsa is None or dsa:
        cands.add(64)
        if dsa:
            cands = {64}
    if b.any("fa4") and at_least(version(launch), FA4_PAGE_SINCE):
        g = gpu(launch)
        mla = is_mla(launch)
        if (g is None or (g.vendor == "nvidia" and g.sm_major == 10)) and mla is not True:
            cands.add(128)
    return cands, snaps, user


# ---------------------------------------------------------------------------
# GPU support of attention backends (SGL302-SGL305)
# ---------------------------------------------------------------------------


def describe_majors(majors) -> str:
    return "/".join(f"SM{m}x" for m in majors)


def gpu_fails(g, majors) -> bool:
    """True when SGLang's ``is_*_supported()`` probe for ``majors`` is False on
    ``g`` (AMD GPUs are not CUDA: every such probe is False)."""
    if g.vendor != "nvidia":
        return True
    return g.sm_major not in majors
