"""SGLang's start-up checks of the DFLASH, DSPARK and UNO speculative
algorithms, evaluated in SGLang's order (shared by SGL247-SGL258).

SGLang stops at the first failing check, so each function returns at most one
`Finding`, tagged with the `Check` that failed; each rule reports the one check
it owns. (These checks were reported under the umbrella codes SGL220 and SGL222
until they were split into one code per bad pattern.)
"""

from __future__ import annotations

import enum
from typing import NamedTuple, Optional

from sgllint.model.facts import Span
from sgllint.semantics import effective as eff
from sgllint.semantics import parallel as par


class Check(enum.Enum):
    DFLASH_ATTENTION_DP = "dflash attention dp"
    DFLASH_DP_LM_HEAD = "dflash dp lm head"
    DFLASH_CONTEXT_PARALLEL = "dflash context parallel"
    DFLASH_PIPELINE_PARALLEL = "dflash pipeline parallel"
    DFLASH_DRAFT_MODEL = "dflash draft model"
    DSPARK_DP_LM_HEAD = "dspark dp lm head"
    DSPARK_PIPELINE_PARALLEL = "dspark pipeline parallel"
    DSPARK_DRAFT_MODEL = "dspark draft model"
    UNO_DRAFT_MODEL = "uno draft model"
    UNO_LORA_PATH = "uno lora path"
    UNO_DRAFT_TOKENS = "uno draft tokens"
    UNO_SINGLE_GPU = "uno single gpu"


class Finding(NamedTuple):
    check: Check
    span: Span
    message: str
    help: str
    related: list


#: architectures whose checkpoints may bundle the DSpark head (model_config.py
#: remaps a bundled DeepseekV4ForCausalLM draft to DeepseekV4ForCausalLMDSpark)
BUNDLING = {"DeepseekV4ForCausalLM"}

DSPARK_DRAFT = "DSpark dense speculative decoding requires setting --speculative-draft-model-path."


def report(rule, launch, check: Check):
    """The diagnostics ``rule`` reports for ``check`` on ``launch``."""
    finding = first_failure(launch)
    if finding is not None and finding.check is check:
        yield rule.diagnostic(finding.span, finding.message, help=finding.help, related=finding.related, launch=launch)


def first_failure(launch) -> Optional[Finding]:
    if launch.opaque:
        return None
    spec = par.speculative(launch)
    if spec is None:
        return None
    v = eff.version(launch)
    if spec.name == "DFLASH" and eff.at_least(v, "0.5.11"):
        return _dflash(launch, spec, v)
    if spec.name == "DSPARK" and eff.at_least(v, "0.5.16"):
        return _dspark(launch, spec, v)
    if spec.name == "UNO" and eff.at_least(v, "0.5.20"):
        return _uno(launch, spec, v)
    return None


def _cuda(launch) -> bool:
    device = eff.given(launch, "device")
    return not (device is eff.UNKNOWN or (isinstance(device, str) and not device.startswith("cuda")))


def _stops(check, launch, span, spec, message, help, related=()) -> Finding:
    return Finding(
        check, span, f"{spec.name} speculative decoding; SGLang {eff.version(launch)} stops at start-up: \"{message}\"",
        help, list(related),
    )


def _dflash(launch, spec, v) -> Optional[Finding]:
    if not _cuda(launch):
        return None
    dp = par.data_parallel(launch)
    if dp is None:
        return None
    related = [(spec.arg.span, "DFLASH")]
    if dp.attention_dp and not eff.at_least(v, "0.5.23"):
        msg = ("Currently DFLASH speculative decoding does not support dp attention on non-NPU devices."
               if eff.at_least(v, "0.5.20") else "Currently DFLASH speculative decoding does not support dp attention.")
        arg = dp.attn_arg
        return Finding(
            Check.DFLASH_ATTENTION_DP,
            arg.span if arg is not None else par.value_span(spec.arg),
            f"DFLASH speculative decoding with attention data parallelism; SGLang {v} stops at start-up: \"{msg}\"",
            "drop attention DP for DFLASH (or upgrade to 0.5.23+, which supports it with --enable-dp-lm-head)",
            related,
        )
    if dp.attention_dp:
        passed, finding = _dflash_attention_dp(launch, spec, v, dp, related)
        if not passed:
            return finding
    pp, pp_arg = par.int_value(launch, "pp_size", 1)
    if not par.known(pp):
        return None
    if pp != 1:
        return Finding(
            Check.DFLASH_PIPELINE_PARALLEL,
            pp_arg.span,
            f"DFLASH speculative decoding with {par.written(launch, pp_arg, 'pp_size', pp)}; SGLang {v} stops at start-up: "
            "\"Currently DFLASH speculative decoding only supports pp_size == 1.\"",
            "remove --pp-size (use --tp-size for more GPUs) or use another speculative algorithm",
            related,
        )
    draft, draft_arg = par.str_value(launch, "speculative_draft_model_path")
    if draft_arg is None or (par.known(draft) and draft is None):
        return Finding(
            Check.DFLASH_DRAFT_MODEL,
            par.value_span(spec.arg),
            f"DFLASH speculative decoding without {par.flag_of(launch, 'speculative_draft_model_path')}; SGLang {v} stops "
            "at start-up: \"DFLASH speculative decoding requires setting --speculative-draft-model-path.\"",
            "add --speculative-draft-model-path with a DFlash draft model for this target (e.g. z-lab/<model>-DFlash-b16)",
            [],
        )
    return None


def _dflash_attention_dp(launch, spec, v, dp, related) -> tuple[bool, Optional[Finding]]:
    """0.5.23's attention-DP checks (speculative_hook._handle_dflash, in this
    order): (passed, the failure). Not passed and no failure: not judged, and
    neither are the later checks."""
    dwdp, _ = par.int_value(launch, "dwdp_size", 1)
    lm_head, _ = par.flag_value(launch, "enable_dp_lm_head")
    if not par.known(dwdp) or dwdp > 1 or not par.known(lm_head):
        return False, None  # DWDP forces enable_dp_lm_head on
    if any(e.name == "SGLANG_ENABLE_DP_SPEC_PREFILL_COORDINATION" for e in launch.site.env):
        return False, None  # rejected earlier for DFLASH, or unknown
    arg = dp.attn_arg
    if not lm_head:
        return False, Finding(
            Check.DFLASH_DP_LM_HEAD,
            arg.span if arg is not None else par.value_span(spec.arg),
            f"DFLASH speculative decoding with attention data parallelism but without "
            f"{par.flag_of(launch, 'enable_dp_lm_head')}; SGLang {v} stops at start-up: "
            "\"DFLASH with dp attention requires --enable-dp-lm-head.\"",
            "add --enable-dp-lm-head (the DFLASH draft borrows the target's vocabulary-parallel LM head)",
            related,
        )
    cp, cp_arg = par.int_value(launch, "attn_cp_size", 1)
    if not par.known(cp):
        return False, None
    if cp == 1:
        return True, None
    return False, Finding(
        Check.DFLASH_CONTEXT_PARALLEL,
        cp_arg.span,
        f"DFLASH speculative decoding with attention data parallelism and "
        f"{par.written(launch, cp_arg, 'attn_cp_size', cp)}; SGLang {v} stops at start-up: "
        "\"DFLASH with dp attention does not support context parallel.\"",
        "remove --attn-cp-size (or drop attention DP) for DFLASH",
        related + ([(arg.span, "attention DP")] if arg is not None else []),
    )


def _dspark(launch, spec, v) -> Optional[Finding]:
    if not _cuda(launch):
        return None
    dp = par.data_parallel(launch)
    if dp is None:
        return None
    related = [(spec.arg.span, "DSPARK")]
    if dp.attention_dp:
        dwdp, _ = par.int_value(launch, "dwdp_size", 1)
        lm_head, _ = par.flag_value(launch, "enable_dp_lm_head")
        if not par.known(dwdp) or dwdp > 1 or not par.known(lm_head):
            return None  # DWDP (0.5.23) switches enable_dp_lm_head on itself
        if not lm_head:
            arg = dp.attn_arg
            return _stops(
                Check.DSPARK_DP_LM_HEAD, launch, arg.span if arg is not None else par.value_span(spec.arg), spec,
                "DSpark with dp attention requires --enable-dp-lm-head.",
                "add --enable-dp-lm-head (the DSpark draft borrows the target's vocabulary-parallel LM head)",
                related,
            )
    pp, pp_arg = par.int_value(launch, "pp_size", 1)
    if not par.known(pp):
        return None
    if pp != 1:
        if not eff.at_least(v, "0.5.20"):
            return None  # SGL212: pipeline parallelism with speculative decoding
        if not eff.at_least(v, "0.5.21"):
            return _stops(Check.DSPARK_PIPELINE_PARALLEL, launch, pp_arg.span, spec,
                          "Currently DSpark speculative decoding only supports pp_size == 1.",
                          "remove --pp-size (use --tp-size for more GPUs)", related)
        mode, _ = par.str_value(launch, "disaggregation_mode")
        if not par.known(mode):
            return None
        if mode != "prefill":
            return _stops(
                Check.DSPARK_PIPELINE_PARALLEL, launch, pp_arg.span, spec,
                "DSpark pipeline parallelism requires PD prefill; decode and non-disaggregated serving require pp_size == 1.",
                "remove --pp-size, or run DSpark with pipeline parallelism only on a --disaggregation-mode prefill node",
                related,
            )
    return _dspark_draft(launch, spec, v)


def _dspark_draft(launch, spec, v) -> Optional[Finding]:
    draft, draft_arg = par.str_value(launch, "speculative_draft_model_path")
    if draft_arg is not None and not (par.known(draft) and draft is None):
        return None
    ctx = launch.context
    if ctx.skip_model_checks or ctx.arch is None:
        return None
    traits = ctx.traits or frozenset()
    if "dspark-draft" in traits or ("dspark-subfolder" in traits and eff.at_least(v, "0.5.23")):
        return None
    if not ctx.architecture.source.read_from_model_files and ctx.arch in BUNDLING:
        return None  # the checkpoint may bundle its DSpark head; its config.json is not at hand
    return Finding(
        Check.DSPARK_DRAFT_MODEL,
        par.value_span(spec.arg),
        f"DSpark speculative decoding without {par.flag_of(launch, 'speculative_draft_model_path')} and the target "
        f"checkpoint ({ctx.arch}) does not bundle a DSpark draft; SGLang {v} stops at start-up: \"{DSPARK_DRAFT}\"",
        "add --speculative-draft-model-path with a DSpark draft model trained for this target",
        list(eff.model_related(launch)),
    )


def _uno(launch, spec, v) -> Optional[Finding]:
    if not _cuda(launch):
        return None
    related = [(spec.arg.span, "UNO")]
    draft, draft_arg = par.str_value(launch, "speculative_draft_model_path")
    if draft_arg is not None and not par.known(draft):
        return None
    if draft is not None:
        return _stops(
            Check.UNO_DRAFT_MODEL, launch, draft_arg.span, spec,
            "UNO reuses the target model and does not accept --speculative-draft-model-path.",
            "remove --speculative-draft-model-path: UNO drafts with the target model and its --uno-lora-path adapter",
            related,
        )
    lora, lora_arg = par.str_value(launch, "uno_lora_path")
    if lora_arg is not None and not par.known(lora):
        return None
    if lora is None:
        return _stops(Check.UNO_LORA_PATH, launch, par.value_span(spec.arg), spec, "UNO requires --uno-lora-path.",
                      "add --uno-lora-path with the UNO draft LoRA adapter for this model")
    tokens, tokens_arg = par.int_value(launch, "speculative_num_draft_tokens", 0)
    if not par.known(tokens):
        return None
    if tokens < 1:
        return _stops(
            Check.UNO_DRAFT_TOKENS, launch, tokens_arg.span if tokens_arg is not None else par.value_span(spec.arg), spec,
            "UNO requires --speculative-num-draft-tokens to be a positive integer denoting the linear width or "
            "tree verify width Q.",
            "add --speculative-num-draft-tokens (the verify width, e.g. 4)",
            related if tokens_arg is not None else (),
        )
    topk, _ = par.int_value(launch, "speculative_eagle_topk", 1)
    if not par.known(topk) or topk != 1:
        return None  # tree mode: further checks not judged
    for field in ("tp_size", "pp_size"):
        value, arg = par.int_value(launch, field, 1)
        if not par.known(value):
            return None
        if value != 1:
            return _stops(Check.UNO_SINGLE_GPU, launch, arg.span, spec, "UNO requires TP=PP=1.",
                          f"remove {par.flag_of(launch, field)}: UNO runs on a single GPU", related)
    return None
