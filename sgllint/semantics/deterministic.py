"""SGLang's deterministic-inference start-up check, replayed per release.

Shared by SGL201-SGL204. The release-specific *lists* (allowed backends, the
absorbed-MLA/"DeepSeek" architecture lists, the radix-supported list, the
fa4 SM check, SGLang's own message texts) come from the generated catalog
(`Catalog.deterministic`, `Catalog.mla_architectures`, `Catalog.lists`).
What cannot be extracted as a list -- which hook runs first, which default
backend SGLang picks when none is given, which backend a model override
pre-sets -- is written down below as version-ranged constants, each naming
the SGLang code it mirrors and the releases it was checked against.

Unknown GPU: the verdict is computed on every target in `PLAUSIBLE_TARGETS`.
A rule reports an *error* only when SGLang rejects the launch on every one
of them; when it rejects it on some and accepts it on others, the rule
reports a *warning* that names the failing targets and asks to pin the
target (``--gpu``, ``# sgllint: gpu=...``, a nodeSelector). The outcome on a
GPU outside that list (Thor, SM7x, AMD) is only judged when it is pinned.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Optional

from sgllint.catalog import version_key
from sgllint.model.facts import Launch, Span, is_known
from sgllint.model.kinds import LaunchForm
from sgllint.resolve import hardware

# ---------------------------------------------------------------------------
# Version-ranged behaviour (inclusive ranges; None = open end)
# ---------------------------------------------------------------------------

#: ``_handle_attention_backend_compatibility`` picks SGLang's *generic*
#: default backend before ``_handle_deterministic_inference`` runs, so the
#: deterministic fallback never fires and the generic default is validated as
#: if the user had given it. ``ServerArgs.__post_init__`` calls the two hooks in
#: that order in 0.5.3-0.5.11 (the generic pick exists from 0.5.4); 0.5.12
#: moved the deterministic hook first (PR sgl-project/sglang#21450). Checked by
#: reading ``__post_init__`` of every wheel 0.5.3.post3-0.5.18; research §2.4
#: "Correction".
GENERIC_DEFAULT_FIRST = ("0.5.4", "0.5.11")

#: ``--prefill-attention-backend X --decode-attention-backend X`` sets
#: ``attention_backend = X`` at the top of
#: ``_handle_attention_backend_compatibility``, i.e. before the deterministic
#: check in the releases above, which then validates X. From 0.5.12 the copy
#: happens after the check (``overrides._attention_backend_default``), so X is
#: never validated.
PREFILL_DECODE_COPY_BEFORE_CHECK = ("0.5.4", "0.5.11")

#: the generic default picks ``trtllm_mha`` for MHA models on SM10x
#: (``_handle_attention_backend_compatibility`` / ``_get_default_attn_backend``
#: in ``server_args.py``); before 0.5.7 the SM10x MHA default was flashinfer.
GENERIC_TRTLLM_MHA_SINCE = "0.5.7"

#: ``is_fa3_default_architecture`` gates the Hopper MHA ``fa3`` default in
#: 0.5.4-0.5.10 (else flashinfer); 0.5.11 dropped the gate.
GENERIC_FA3_ARCH_GATE = ("0.5.4", "0.5.10")

#: deterministic fallback (``_deterministic_attention_backend``): SM major 10
#: or 12 (``is_sm100_supported() or is_sm120_supported()``,
#: ``get_platform().is_sm100 or .is_sm120`` from 0.5.19) -> triton for the
#: fallback architecture list, else flashinfer; every other GPU -> fa3.
FALLBACK_BLACKWELL_MAJORS = (10, 12)

#: ``fa4`` with an absorbed-MLA model needs ``is_sm100_or_sm110`` (SM major 10
#: or 11) -- only where the catalog has ``fa4_sm_check`` (0.5.17+).
FA4_MLA_SM_MAJORS = (10, 11)

#: DSA (DeepSeek sparse attention, ``index_topk`` in the config) architectures
#: whose configs always carry ``index_topk``; others get the trait from the
#: registry or a local config.json.
DSA_ARCHITECTURES = frozenset({"DeepseekV32ForCausalLM", "GlmMoeDsaForCausalLM"})


@dataclass(frozen=True)
class ModelOverride:
    """A backend ``_handle_model_specific_adjustments`` (<=0.5.18) or
    ``arg_groups/model_overrides/*.py`` (0.5.19+) pre-sets when the user gave
    no --attention/prefill/decode backend; the deterministic check then
    rejects it as "explicitly specified"."""

    architectures: frozenset
    backend: str
    since: str
    until: Optional[str] = None
    sm_majors: Optional[tuple] = None  # None: every NVIDIA GPU
    dsa: Optional[bool] = None  # True: only DSA configs; False: only non-DSA
    where: str = ""


_DS_OVERRIDE = "server_args.py _handle_model_specific_adjustments (<=0.5.18), arg_groups/model_overrides/deepseek_v2.py (0.5.19+)"
MODEL_OVERRIDES: tuple[ModelOverride, ...] = (
    # DeepSeek V3/R1/V3.1, Kimi-K2 (DeepseekV3ForCausalLM) on SM100: trtllm_mla
    ModelOverride(frozenset({"DeepseekV3ForCausalLM"}), "trtllm_mla", "0.5.3", sm_majors=(10,), dsa=False, where=_DS_OVERRIDE),
    # Mistral-Large-3 / Pixtral joined the DeepSeek list of
    # _handle_model_specific_adjustments in 0.5.6 (0.5.6.post2 wheel), Kimi-K2.5
    # and GLM-5 (GlmMoeDsaForCausalLM) in 0.5.9 (checked in the 0.5.4.post3,
    # 0.5.5.post3, 0.5.6.post2, 0.5.7, 0.5.8.post1, 0.5.9, 0.5.10.post1 wheels;
    # the oracle rejects Kimi-K2.5 on B200/B300 with 'trtllm_mla' in 0.5.10).
    ModelOverride(frozenset({"MistralLarge3ForCausalLM", "PixtralForConditionalGeneration"}), "trtllm_mla", "0.5.6",
                  sm_majors=(10,), dsa=False, where=_DS_OVERRIDE),
    ModelOverride(frozenset({"KimiK25ForConditionalGeneration"}), "trtllm_mla", "0.5.9", sm_majors=(10,), dsa=False, where=_DS_OVERRIDE),
    ModelOverride(frozenset({"LongcatFlashForCausalLM", "Dots3NoteForCausalLM", "HYV4ForCausalLM"}), "trtllm_mla", "0.5.20",
                  sm_majors=(10,), dsa=False, where="arg_groups/model_overrides/deepseek_v2.py (checked in 0.5.20, 0.5.23)"),
    # DeepSeek-V3.2 / GLM-5 (DSA): nsa, renamed dsa in 0.5.13, on every GPU.
    # DeepseekV32ForCausalLM is named in the list only from 0.5.12; before, the
    # release's own config loader (utils/hf_transformers_utils.py
    # _load_deepseek_v32_model) loads a deepseek_v32 config as
    # DeepseekV3ForCausalLM, so the V3 entry applies (the oracle records it as
    # sglang_arch on 0.5.4, 0.5.5 and 0.5.10).
    ModelOverride(frozenset({"DeepseekV3ForCausalLM", "DeepseekV32ForCausalLM"}),
                  "nsa", "0.5.3", "0.5.12", dsa=True, where=_DS_OVERRIDE + " (is_deepseek_nsa)"),
    ModelOverride(frozenset({"MistralLarge3ForCausalLM", "PixtralForConditionalGeneration"}),
                  "nsa", "0.5.6", "0.5.12", dsa=True, where=_DS_OVERRIDE + " (is_deepseek_nsa)"),
    ModelOverride(frozenset({"GlmMoeDsaForCausalLM"}),
                  "nsa", "0.5.9", "0.5.12", dsa=True, where=_DS_OVERRIDE + " (is_deepseek_nsa)"),
    ModelOverride(frozenset({"DeepseekV3ForCausalLM", "DeepseekV32ForCausalLM", "MistralLarge3ForCausalLM",
                             "PixtralForConditionalGeneration", "GlmMoeDsaForCausalLM", "Glm5NextForConditionalGeneration"}),
                  "dsa", "0.5.13", dsa=True, where=_DS_OVERRIDE + " (is_deepseek_dsa)"),
    # DeepSeek-V4: dsv4 (issue sgl-project/sglang#36174)
    ModelOverride(frozenset({"DeepseekV4ForCausalLM"}), "dsv4", "0.5.12",
                  where="arg_groups/deepseek_v4_hook.py (0.5.12-0.5.15), overrides.py / model_overrides/deepseek_v4.py (0.5.16+)"),
    # GPT-OSS, Llama-4, Gemma-4 on SM100: trtllm_mha
    ModelOverride(frozenset({"GptOssForCausalLM"}), "trtllm_mha", "0.5.3", sm_majors=(10,),
                  where="server_args.py _handle_model_specific_adjustments, model_overrides/gpt_oss.py"),
    # ... fa3 on SM90 and triton on every other CUDA GPU (0.5.1-0.5.23; the
    # first match wins, so these stay after the SM100 entry)
    ModelOverride(frozenset({"GptOssForCausalLM"}), "fa3", "0.5.3", sm_majors=(9,),
                  where="server_args.py _handle_model_specific_adjustments, model_overrides/gpt_oss.py"),
    ModelOverride(frozenset({"GptOssForCausalLM"}), "triton", "0.5.3",
                  where="server_args.py _handle_model_specific_adjustments, model_overrides/gpt_oss.py"),
    ModelOverride(frozenset({"Llama4ForConditionalGeneration", "Llama4ForCausalLM"}), "trtllm_mha", "0.5.4", sm_majors=(10,),
                  where="server_args.py _handle_model_specific_adjustments, model_overrides/llama4.py"),
    ModelOverride(frozenset({"Gemma4ForConditionalGeneration", "Gemma4ForCausalLM"}), "trtllm_mha", "0.5.13", sm_majors=(10,),
                  where="server_args.py _handle_model_specific_adjustments (0.5.13+), model_overrides/gemma4.py"),
)

#: what the rules assume the launch may run on when no target is pinned
PLAUSIBLE_TARGET_NAMES = ("A100", "H100", "B200", "B300", "RTXPRO6000")


def _target(name: str) -> hardware.Gpu:
    return hardware.find(name) or hardware.from_sm({"A100": 80, "H100": 90, "B200": 100, "B300": 103}.get(name, 120))


def plausible_targets() -> list[hardware.Gpu]:
    return [_target(n) for n in PLAUSIBLE_TARGET_NAMES]


def in_range(version: str, rng: tuple) -> bool:
    lo, hi = rng
    v = version_key(version)
    return (lo is None or v >= version_key(lo)) and (hi is None or v <= version_key(hi))


def at_least(release, since: str) -> bool:
    """Whether ``release`` is ``since`` or newer. ``release``: a version, or a
    `Launch` (the release it is judged against). The one release comparison
    of the semantics layer (`effective.at_least` and `parallel.at_least` are
    this function)."""
    if not isinstance(release, str):
        release = release.context.catalog.version
    return version_key(release) >= version_key(since)


def py_list(values) -> str:
    """A list as SGLang prints it (Python ``str(list)``)."""
    return "[" + ", ".join(repr(v) for v in values) + "]"


def render(template: str, backend: Optional[str], lists: dict) -> str:
    out = template.replace("{backend}", str(backend))
    for name, values in lists.items():
        out = out.replace("{" + name + "}", py_list(values))
    return out


# ---------------------------------------------------------------------------
# Replaying the check on one target
# ---------------------------------------------------------------------------


class Rejection(str, enum.Enum):
    """Which of SGLang's deterministic-inference checks rejects a launch (the
    key of its message in the catalog's ``deterministic.messages``). A verdict
    names the check; each rule (SGL201-SGL203) reports the one it declares."""

    ALLOW_LIST = "allow_list"  # the backend is not in the release's allow-list
    MLA_BACKEND = "mla_backend"  # an absorbed-MLA model with a backend the MLA list lacks
    MLA_FA4 = "mla_fa4"  # an absorbed-MLA model on fa4 off SM100/SM110


@dataclass
class Verdict:
    gpu: Optional[hardware.Gpu]
    backend: Optional[str]  # the backend the check sees (None: unknown)
    how: str  # explicit | prefill-decode | override | generic-default | fallback | none
    note: str = ""  # why SGLang ends up with that backend
    check: Optional[Rejection] = None  # the check that rejects it, when one does
    message: str = ""  # SGLang's own message
    radix_disabled: Optional[bool] = None
    unknown: bool = False

    @property
    def rejected(self) -> bool:
        return self.check is not None

    def target(self) -> str:
        return self.gpu.describe() if self.gpu is not None else "any GPU"


def _override(version: str, arch: Optional[str], dsa: bool, gpu: hardware.Gpu) -> Optional[ModelOverride]:
    if arch is None or gpu.vendor != "nvidia":
        return None
    for o in MODEL_OVERRIDES:
        if arch not in o.architectures or not at_least(version, o.since):
            continue
        if o.until is not None and version_key(version) > version_key(o.until):
            continue
        if o.dsa is not None and o.dsa != dsa:
            continue
        if o.sm_majors is not None and gpu.sm_major not in o.sm_majors:
            continue
        return o
    return None


def _generic_default(version: str, mla: bool, gpu: hardware.Gpu) -> tuple[Optional[str], str]:
    """SGLang's generic default (``_handle_attention_backend_compatibility``
    / ``_get_default_attn_backend``, 0.5.4-0.5.11), without speculative
    decoding. (None, why) when it cannot be told statically."""
    if gpu.vendor == "amd":
        return ("aiter", "the ROCm default") if not mla else (None, "aiter or triton by KV-head count on ROCm")
    major = gpu.sm_major
    if not mla:
        if major == 9:
            if in_range(version, GENERIC_FA3_ARCH_GATE):
                return None, "fa3 or flashinfer on Hopper, by is_fa3_default_architecture"
            return "fa3", "the Hopper MHA default"
        if major == 10:
            if at_least(version, GENERIC_TRTLLM_MHA_SINCE):
                return "trtllm_mha", "the SM100 MHA default"
            return "flashinfer", "the SM100 MHA default"
        return "flashinfer", "the MHA default"
    if major == 9:
        return "fa3", "the Hopper MLA default"
    if major == 10:
        return "flashinfer", "the SM100 MLA default"
    return "triton", "the MLA default"


@dataclass
class Model:
    arch: Optional[str]  # architectures[0]; None with known=True: SGLang skips the probe
    known: bool
    dsa: bool = False
    mla: bool = False


def judge(catalog, model: Model, gpu: hardware.Gpu, backend: Optional[str],
          prefill: Optional[str] = None, decode: Optional[str] = None) -> Verdict:
    """SGLang's verdict for one target. ``backend`` is --attention-backend
    as given (None: not given)."""
    facts = catalog.deterministic
    version = catalog.version
    lists = catalog.lists
    allow = lists.get(facts["allow_list"] or "", [])
    arch = model.arch
    how, note = "explicit", ""
    if backend is None and prefill is not None and prefill == decode and in_range(version, PREFILL_DECODE_COPY_BEFORE_CHECK):
        backend, how = prefill, "prefill-decode"
        note = f"--prefill-attention-backend and --decode-attention-backend are both '{prefill}', so SGLang copies it to --attention-backend before the check"
    if backend is None and prefill is None and decode is None:
        o = _override(version, arch, model.dsa, gpu)
        if o is not None:
            backend, how = o.backend, "override"
            note = f"SGLang's model override for {arch} pre-sets '{o.backend}' on {gpu.describe()}"
    if backend is None:
        if not model.known:
            return Verdict(gpu, None, "none", "the architecture is unknown", unknown=True)
        if in_range(version, GENERIC_DEFAULT_FIRST):
            backend, why = _generic_default(version, model.mla, gpu)
            if backend is None:
                return Verdict(gpu, None, "generic-default", why, unknown=True)
            how = "generic-default"
            note = (f"no backend given: SGLang {version} picks its generic default first ({why}: '{backend}') "
                    "and then validates it as if you had specified it")
        elif facts.get("fallback"):
            ds = arch in (facts.get("fallback_architectures") or [])
            if gpu.vendor == "nvidia" and gpu.sm_major in FALLBACK_BLACKWELL_MAJORS:
                backend = "triton" if ds else "flashinfer"
            else:
                backend = "fa3"
            how = "fallback"
            note = f"no backend given: SGLang's deterministic fallback picks '{backend}' on {gpu.describe()}"
        else:
            msg = render(facts["messages"].get("allow_list", ""), None, lists)
            return Verdict(gpu, None, "none", "no backend given and this release has no fallback", Rejection.ALLOW_LIST, msg)
    v = Verdict(gpu, backend, how, note)
    if backend not in allow:
        v.check, v.message = Rejection.ALLOW_LIST, render(facts["messages"].get(Rejection.ALLOW_LIST.value, ""), backend, lists)
        return v
    if arch is not None and arch in (facts.get("check_architectures") or []):
        mla_backends = facts.get("mla_backends")
        if mla_backends is not None and backend not in mla_backends:
            v.check, v.message = Rejection.MLA_BACKEND, render(facts["messages"].get(Rejection.MLA_BACKEND.value, ""), backend, lists)
            return v
        if facts.get("fa4_sm_check") and backend == "fa4" and not (gpu.vendor == "nvidia" and gpu.sm_major in FA4_MLA_SM_MAJORS):
            v.check, v.message = Rejection.MLA_FA4, render(facts["messages"].get(Rejection.MLA_FA4.value, ""), backend, lists)
            return v
    radix = facts.get("radix_backends")
    v.radix_disabled = None if radix is None else backend not in radix
    return v


# ---------------------------------------------------------------------------
# A launch, analysed once per rule
# ---------------------------------------------------------------------------

ENV_FLAG = "SGLANG_ENABLE_DETERMINISTIC_INFERENCE"
_TRUE = {"1", "true", "yes", "y", "on"}


@dataclass
class Analysis:
    launch: Launch
    enabled_by: object  # the Arg that enables determinism
    enabled_how: str  # "--enable-deterministic-inference" | "--rl-on-policy-target"
    model: Model
    backend_arg: object  # Arg or None
    backend: Optional[str]
    pinned: bool
    verdicts: list = field(default_factory=list)  # one per target

    @property
    def catalog(self):
        return self.launch.context.catalog

    @property
    def facts(self) -> dict:
        return self.catalog.deterministic

    def related(self) -> list[tuple[Span, str]]:
        out = []
        a = self.enabled_by
        out.append((a.span, f"deterministic inference is enabled here ({self.enabled_how})"))
        model_arg = self.launch.last("model_path")
        if model_arg is not None and model_arg.value_span is not None:
            arch = self.model.arch or "unknown architecture"
            out.append((model_arg.value_span, f"the model ({arch})"))
        gpu = self.launch.context.gpu
        if gpu is not None and gpu.span is not None:
            out.append((gpu.span, f"the GPU target ({gpu.value.describe()})"))
        return out

    def primary_span(self) -> Span:
        if self.backend_arg is not None:
            return self.backend_arg.value_span or self.backend_arg.span
        return self.launch.site.entry_span

    def fix_backend(self, gpu: Optional[hardware.Gpu]) -> str:
        """A backend SGLang accepts on ``gpu`` for this model and release."""
        facts = self.facts
        allow = self.catalog.lists.get(facts["allow_list"] or "", [])
        ds = self.model.arch in (facts.get("check_architectures") or [])
        choices = ["triton"]
        if gpu is not None and gpu.vendor == "nvidia" and gpu.sm_major == 9:
            choices.insert(0, "fa3")
        for c in choices:
            if c in allow and (not ds or facts.get("mla_backends") is None or c in facts["mla_backends"]):
                return c
        return "triton"

    def fix_hint(self, gpu: Optional[hardware.Gpu]) -> str:
        catalog = self.catalog
        facts = self.facts
        ds = self.model.arch in (facts.get("check_architectures") or [])
        allow = catalog.lists.get(facts["allow_list"] or "", [])
        blackwell = "triton" + (" or fa4" if "fa4" in allow and (not ds or facts.get("fa4_sm_check")) else "")
        if ds and facts.get("mla_backends") is not None and "fa4" not in facts["mla_backends"]:
            blackwell = "triton"
        if gpu is None:
            return f"Use --attention-backend fa3 on Hopper, {blackwell} on Blackwell (triton works everywhere)"
        if gpu.vendor == "nvidia" and gpu.sm_major == 9:
            return "Use --attention-backend fa3 (or triton) on Hopper"
        if gpu.vendor == "nvidia" and gpu.sm_major in (10, 11, 12):
            return f"Use --attention-backend {blackwell} on Blackwell"
        return "Use --attention-backend triton"

    def fix(self, gpu: Optional[hardware.Gpu], message: str):
        from sgllint.model.diagnostic import Edit, Fix

        backend = self.fix_backend(gpu)
        site = self.launch.site
        if self.backend_arg is not None and self.backend_arg.value_span is not None:
            span = self.backend_arg.value_span
            raw = span.text
            content = backend
            if site.form is LaunchForm.KWARGS and raw[:1] in ("'", '"'):
                content = raw[0] + backend + raw[0]
            return Fix(message or f"use --attention-backend {backend}", (Edit(span, content),), "unsafe")
        last = self.launch.args[-1].span if self.launch.args else site.entry_span
        end = Span(last.source, last.end, last.end)
        if site.form is LaunchForm.KWARGS:
            content = f', attention_backend="{backend}"'
        else:
            content = f" --attention-backend {backend}"
        return Fix(message or f"add --attention-backend {backend}", (Edit(end, content),), "unsafe")


def _known_str(arg) -> Optional[str]:
    if arg is None:
        return None
    return arg.value if isinstance(arg.value, str) else None


def _model(launch: Launch) -> Model:
    ctx = launch.context
    if ctx.skip_model_checks:
        return Model(None, True)
    arch = ctx.arch
    if arch is None:
        return Model(None, False)
    traits = ctx.traits or frozenset()
    mla_list = ctx.catalog.mla_architectures or []
    return Model(arch, True, dsa="dsa" in traits or arch in DSA_ARCHITECTURES, mla=arch in mla_list or "mla" in traits)


def enabling_arg(launch: Launch):
    """(arg, how) when deterministic inference is on, (None, "") when off,
    (False, "") when it cannot be told."""
    facts = launch.context.catalog.deterministic
    if facts is None:
        return None, ""
    arg = launch.last("enable_deterministic_inference")
    if arg is not None:
        if not arg.known:
            return False, ""
        if arg.value is True:
            return arg, "--enable-deterministic-inference"
    rl = launch.last("rl_on_policy_target")
    if rl is not None and facts.get("rl_on_policy_target_implies"):
        if not rl.known:
            return False, ""
        if rl.value is not None:
            return rl, f"--rl-on-policy-target {rl.value} implies it"
    return None, ""


def analyse(launch: Launch) -> Optional[Analysis]:
    """None when deterministic inference is off, unknowable, or the
    attention backends cannot be read."""
    if launch.context.catalog.deterministic is None:
        return None
    enabled, how = enabling_arg(launch)
    if not enabled:
        return None
    backend_arg = launch.last("attention_backend")
    if backend_arg is not None and not isinstance(backend_arg.value, str):
        if backend_arg.value is not None:
            return None  # unresolved
        backend_arg = None
    for f in ("prefill_attention_backend", "decode_attention_backend"):
        a = launch.last(f)
        if a is not None and not is_known(a.value):
            return None
    backend = _known_str(backend_arg)
    prefill = _known_str(launch.last("prefill_attention_backend"))
    decode = _known_str(launch.last("decode_attention_backend"))
    model = _model(launch)
    gpu = launch.context.gpu_target
    targets = [gpu] if gpu is not None else plausible_targets()
    a = Analysis(launch, enabled, how, model, backend_arg, backend, gpu is not None)
    a.verdicts = [judge(launch.context.catalog, model, t, backend, prefill, decode) for t in targets]
    return a


def env_only(launch: Launch):
    """The ``SGLANG_ENABLE_DETERMINISTIC_INFERENCE=1`` of the launch's env
    when deterministic inference is not enabled by a flag."""
    if launch.context.catalog.deterministic is None:
        return None
    enabled, _ = enabling_arg(launch)
    if enabled is not None:
        return None
    for env in launch.site.env:
        if env.name == ENV_FLAG and isinstance(env.value, str) and env.value.strip().lower() in _TRUE:
            return env
    return None


def summarise(verdicts: list, check: Rejection) -> tuple[list, list]:
    """(verdicts rejected by ``check``, verdicts accepted)."""
    mine = [v for v in verdicts if v.check is check]
    ok = [v for v in verdicts if not v.rejected and not v.unknown]
    return mine, ok


def targets_text(verdicts: list) -> str:
    return ", ".join(v.gpu.describe() for v in verdicts if v.gpu is not None)


# ---------------------------------------------------------------------------
# Reporting, shared by SGL201-SGL203
# ---------------------------------------------------------------------------


def rejections(rule, a: Analysis):
    """The diagnostic of ``rule`` (one that declares the ``rejection`` it
    reports) for an analysed launch: an error when SGLang rejects the launch
    on the pinned target or on every plausible target, a warning when it
    rejects it only on some."""
    mine, ok = summarise(a.verdicts, rule.rejection)
    if not mine:
        return
    from sgllint.model.rule import ERROR, WARNING

    version = a.catalog.version
    every = all(v.rejected for v in a.verdicts)
    first = mine[0]
    backend = first.backend
    gpu = a.launch.context.gpu_target
    if backend is None:
        what = "without an --attention-backend"
    else:
        what = f"with attention backend '{backend}'"
    if first.how == "override":
        span_arg = None
    elif first.how == "prefill-decode":
        span_arg = a.launch.last("prefill_attention_backend")
    else:
        span_arg = a.backend_arg
    span = (span_arg.value_span or span_arg.span) if span_arg is not None else a.launch.site.entry_span
    quoted = f'SGLang says: "{first.message}"'
    if a.pinned:
        where = f" on {gpu.describe()}"
        message = f"SGLang {version} rejects deterministic inference {what}{where} at start-up. {quoted}"
        severity = ERROR
    elif every and len({(v.backend, v.message) for v in a.verdicts}) == 1:
        message = f"SGLang {version} rejects deterministic inference {what} at start-up, on every GPU. {quoted}"
        severity = ERROR
    elif every:
        parts = "; ".join(f"{v.gpu.describe()}: '{v.backend}'" for v in a.verdicts)
        message = (f"SGLang {version} rejects this deterministic launch at start-up on every plausible GPU ({parts}). "
                   f"{quoted}")
        severity = ERROR
    else:
        message = (f"SGLang {version} rejects deterministic inference {what} on {targets_text(mine)} "
                   f"(accepts it on {targets_text(ok) or 'no other plausible target'}); "
                   "pin the target: --gpu, `# sgllint: gpu=...`, or a nodeSelector. " + quoted)
        severity = WARNING
    notes = []
    if first.note:
        notes.append(first.note + ".")
    if rule.rejection is Rejection.MLA_BACKEND:
        notes.append(f"{a.model.arch} is in the release's absorbed-MLA list for deterministic inference, which allows only "
                     f"{py_list(a.facts.get('mla_backends') or [])}.")
    hint = a.fix_hint(gpu)
    help_text = " ".join(notes + [hint + "."])
    fix = a.fix(gpu, "")
    yield rule.diagnostic(span, message, help=help_text, related=a.related(), fix=fix, severity=severity, launch=a.launch)
