"""Whether the model a launch serves fits the launch: its attention heads
split by the tensor-parallel size, its context length, its weights in the
GPUs' memory (rules SGL509-SGL511).

The model's facts come from, most specific first: the ``config.json`` of a
local model directory inside the project (or in a Hugging Face cache the
user allowed), else sgllint's registry ``catalog/model_facts.json`` (derived
from pinned first-party sources by ``catalog/_gen_model_facts.py``). A model
known neither way, an ``instance://``/``dummy`` model, or a launch that
rewrites the config (``--json-model-override-args``) or pins another
architecture (``# sgllint: arch=``, ``[tool.sgllint.models]``) gets no
verdict: these checks never guess.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from sgllint.model.facts import Arg, Launch
from sgllint.model.kinds import Provenance
from sgllint.resolve import modelinfo
from sgllint.resolve.modelinfo import ModelFacts
from sgllint.model.unknown import UNKNOWN
from sgllint.semantics.parallel import int_value

_HEAD_SPLIT = Path(__file__).parents[1] / "catalog" / "data" / "head_split.json"

#: SGLang's switch for a --context-length above the model's
#: (``sglang/srt/configs/model_config.py`` ``_derive_context_length``)
CONTEXT_OVERRIDE_ENV = "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN"
_TRUE = ("1", "true", "yes", "y", "on")


def model_facts(launch: Launch) -> Optional[ModelFacts]:
    return model_facts_and_why(launch)[0]


def model_facts_and_why(launch: Launch) -> tuple[Optional[ModelFacts], str]:
    """The model's facts, or None with why there are none."""
    ctx = launch.context
    if ctx is None or ctx.model is None or not isinstance(ctx.model.value, str):
        return None, "the model is not known statically"
    if ctx.skip_model_checks:
        return None, f"{ctx.model.value!r} is not a checkpoint (SGLang loads no config.json for it)"
    if ctx.architecture is not None and ctx.architecture.source in (Provenance.PRAGMA, Provenance.CONFIG):
        return None, f"the architecture is pinned ({ctx.architecture.describe()}), not read from the model"
    if launch.last("json_model_override_args") is not None:
        return None, "--json-model-override-args rewrites the model's config"
    model = ctx.model.value
    base = Path(launch.source.path).parent
    local = modelinfo.local_config(model, base, ctx.scope)
    cache = None if local else modelinfo.hf_cache_config(model, ctx.scope)
    for path in (local, cache):
        if path is not None:
            config = modelinfo.read_config_json(path)
            if not config:
                return None, f"{path} could not be read as a config.json"
            return modelinfo.facts_of_config(config, f"{path}"), ""
    facts = modelinfo.registry_facts(model)
    if facts is None:
        return None, (f"{model!r} has no config.json in the project (or an allowed Hugging Face cache) "
                      "and is not in sgllint's model registry")
    return facts, ""


#: the facts the model-dependent checks read, and which checks need them
FACT_USES = (
    ("num_attention_heads", "attention heads", "the head split by --tp-size"),
    ("num_key_value_heads", "KV heads", "the head split by --tp-size"),
    ("context_length", "context length", "the --context-length check"),
    ("parameters", "parameter count", "the weights-in-memory check and the probes' load-time estimate"),
    ("dtype", "checkpoint dtype", "the weights-in-memory check and the probes' load-time estimate"),
)


def describe_model_facts(launch: Launch) -> str:
    """One line for ``sgllint explain``: where the model's facts come from
    and which are missing (the checks that need them stay silent)."""
    facts, why = model_facts_and_why(launch)
    if facts is None:
        return f"none: {why}; the model-dependent checks stay silent"
    known = [f"{label} {_shown(getattr(facts, name), name)}" for name, label, _ in FACT_USES
             if getattr(facts, name) is not None]
    missing = [(label, uses) for name, label, uses in FACT_USES if getattr(facts, name) is None]
    if facts.dtype is not None and facts.weight_bytes is None and facts.parameters is not None:
        missing.append((f"bytes per parameter of dtype {facts.dtype!r}", "the weights-in-memory check"))
    line = f"{', '.join(known) or 'nothing usable'} from {facts.source}"
    if missing:
        line += "; missing: " + "; ".join(f"{label} (needed by {uses}: no verdict)" for label, uses in missing)
    return line


def _shown(value, name: str) -> str:
    return f"{value / 1e9:.2f}B" if name == "parameters" else str(value)


@functools.lru_cache(maxsize=1)
def _head_split() -> dict:
    return json.loads(_HEAD_SPLIT.read_text(encoding="utf-8"))["releases"]


def head_assertions(release: str, architecture: Optional[str]) -> Optional[dict]:
    """Where ``release``'s model file for ``architecture`` asserts the head split."""
    if not architecture:
        return None
    entry = _head_split().get(release)
    return entry["architectures"].get(architecture) if entry else None


def _splits_attention_otherwise(field: Optional[str]) -> bool:
    """Flags that make SGLang split attention by a group smaller than TP
    (DP attention, attention context parallelism: ``derive_attn_tp_size``
    in ``sglang/srt/layers/dp_attention.py``)."""
    if not field:
        return False
    return "dp_attention" in field or field.startswith("attn_") or "attn_tp" in field or "_cp" in field \
        or field.startswith("cp_") or "context_parallel" in field


@dataclass(frozen=True)
class HeadSplit:
    tp_arg: Arg
    tp: int
    heads: int
    what: str  # "attention heads" | "KV heads"
    reason: str  # the failing arithmetic
    where: str  # SGLang file:line
    facts: ModelFacts


def head_split(launch: Launch) -> Optional[HeadSplit]:
    """A ``--tp-size`` the model's attention heads (or KV heads) cannot be
    split by, as the release's model file asserts at load time."""
    tp, tp_arg = int_value(launch, "tp_size")
    if tp_arg is None or tp is UNKNOWN or tp < 2:
        return None
    if any(_splits_attention_otherwise(arg.field) for arg in launch.args):
        return None  # attention splits by an attention-TP group then (tp / dp / cp): out of scope
    facts = model_facts(launch)
    if facts is None or facts.num_attention_heads is None:
        return None
    site = head_assertions(launch.context.catalog.version, facts.architecture)
    if site is None:
        return None
    heads, kv = facts.num_attention_heads, facts.num_key_value_heads
    if heads % tp:
        return HeadSplit(tp_arg, tp, heads, "attention heads", f"{heads} heads / TP {tp}",
                         f"{site['file']}:{site['heads_line']}", facts)
    if site.get("kv_line") and kv:
        if kv >= tp and kv % tp:
            return HeadSplit(tp_arg, tp, kv, "KV heads", f"{kv} KV heads / TP {tp}",
                             f"{site['file']}:{site['kv_line']}", facts)
        if kv < tp and tp % kv:
            return HeadSplit(tp_arg, tp, kv, "KV heads", f"TP {tp} is not a multiple of {kv} KV heads",
                             f"{site['file']}:{site['kv_else_line']}", facts)
    return None


@dataclass(frozen=True)
class ContextOver:
    arg: Arg
    asked: int
    limit: int
    facts: ModelFacts


def _env_true(launch: Launch, name: str) -> Optional[bool]:
    """True/False for a variable set on the launch, None when not set or not known."""
    for var in launch.site.env:
        if var.name == name:
            return str(var.value).strip().lower() in _TRUE if isinstance(var.value, str) else None
    return False


def context_over(launch: Launch) -> Optional[ContextOver]:
    """``--context-length`` above the model's derived maximum without
    SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN on the launch."""
    value, arg = int_value(launch, "context_length", default=0)
    if arg is None or value is UNKNOWN or value <= 0:
        return None
    facts = model_facts(launch)
    if facts is None or facts.context_length is None or value <= facts.context_length:
        return None
    allowed = _env_true(launch, CONTEXT_OVERRIDE_ENV)
    if allowed is not False:
        return None
    if launch.opaque:
        return None  # the environment may come from where sgllint cannot see
    return ContextOver(arg, value, facts.context_length, facts)


@dataclass(frozen=True)
class WeightsOver:
    anchor: Arg
    weights: float  # bytes per GPU
    budget: float  # bytes per GPU at the fraction
    fraction: Optional[float]  # None: not given (compared with all the memory)
    gpu: str
    gpu_bytes: float
    split: str  # "TP 4 × PP 2"
    facts: ModelFacts


def weights_over(launch: Launch) -> Optional[WeightsOver]:
    """Weights per GPU (parameters × bytes per dtype / (TP × PP)) above the
    GPU memory times ``--mem-fraction-static`` (all of it when not given)."""
    ctx = launch.context
    gpu = ctx.gpu_target if ctx is not None else None
    memory = getattr(gpu, "memory_gb", None)
    if not memory:
        return None
    tp, tp_arg = int_value(launch, "tp_size")
    pp, pp_arg = int_value(launch, "pp_size")
    if tp is UNKNOWN or pp is UNKNOWN or tp < 1 or pp < 1:
        return None
    facts = model_facts(launch)
    if facts is None or facts.weight_bytes is None:
        return None
    frac_arg = launch.last("mem_fraction_static")
    fraction = None
    if frac_arg is not None:
        if isinstance(frac_arg.value, bool) or not isinstance(frac_arg.value, (int, float)) or not 0 < frac_arg.value <= 1:
            return None
        fraction = float(frac_arg.value)
    gpu_bytes = memory * 1024 ** 3  # datasheet GB of HBM, read as GiB: never understates
    budget = gpu_bytes * (fraction if fraction is not None else 1.0)
    per_gpu = facts.weight_bytes / (tp * pp)
    if per_gpu <= budget:
        return None
    anchor = frac_arg or tp_arg or pp_arg or launch.last("model_path")
    if anchor is None:
        return None
    split = f"TP {tp}" + (f" × PP {pp}" if pp > 1 else "")
    return WeightsOver(anchor, per_gpu, budget, fraction, gpu.name, gpu_bytes, split, facts)


def gib(n: float) -> str:
    return f"{n / 1024 ** 3:.1f} GiB"
