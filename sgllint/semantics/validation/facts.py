"""What the evaluator is told about a launch, and what it answers (issue 17;
the contract used by tests/oracle/random_agreement.py)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class GpuFacts:
    """The GPU the launch runs on; any field None = not known."""

    vendor: str | None = None  # "nvidia" | "amd" | "intel" | "ascend" | None
    sm: int | None = None  # NVIDIA compute capability as major*10+minor (90 = SM90)
    name: str | None = None
    count: int | None = None
    memory_gib: float | None = None
    arch: str | None = None  # AMD: the gfx architecture (torch's gcnArchName, e.g. "gfx942")
    cuda: str | None = None  # NVIDIA: the CUDA version torch was built with ("12.9"), None = not known


@dataclass
class LaunchFacts:
    """A launch: the release that runs it, the ServerArgs fields the user gave
    (after argparse), the entry point, the model's config.json, the GPU and the
    environment variables known to be set (an SGLang variable not listed is
    taken as unset). ``model_files``: the entries of the model directory
    (file names; a subdirectory with a trailing "/") when ``--model-path`` is a local directory whose listing is
    known (SGLang probes it for ``hf_quant_config.json`` and the like); None
    when it is not known (a Hub id, a path outside the project)."""

    release: str
    user_args: dict[str, object]
    entry: str = "cli"
    model_config: dict | None = None
    gpu: GpuFacts | None = None
    env: dict[str, str] = field(default_factory=dict)
    model_files: frozenset[str] | None = None


@dataclass(frozen=True)
class SiteHit:
    """A rejection site of the release reached by the launch."""

    file: str  # "sglang/srt/server_args.py"
    line: int
    end_line: int
    id: str  # stable check id (same check, same id across releases)
    message: str  # SGLang's message with the launch's values filled in
    facts: tuple[str, ...] = ()  # fields and facts the failing condition read
    exc: str = ""  # exception class SGLang raises
    why: str = ""  # for a possible rejection: what was not known


@dataclass(frozen=True)
class Rewrite:
    """A user-given field SGLang definitely runs with another value."""

    field: str
    user_value: object
    final_value: object
    file: str
    line: int
    reason: str = ""


@dataclass
class Verdict:
    rejection: SiteHit | None = None  # the first definite rejection, in SGLang's order
    possible: list[SiteHit] = field(default_factory=list)  # rejections whose condition was Unknown
    rewrites: list[Rewrite] = field(default_factory=list)  # definite rewrites of user-given values
    degraded: str | None = None  # why evaluation stopped early (no definite result after that point)
    notes: list[str] = field(default_factory=list)
    unknown_fields: list[str] = field(default_factory=list)  # user-given fields whose final value is not known
