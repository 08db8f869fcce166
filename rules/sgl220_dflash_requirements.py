"""DFLASH speculative decoding without a draft model, with pipeline parallelism or with attention DP.

## What it does
For `--speculative-algorithm DFLASH` (0.5.11+), checks in SGLang's order:
attention data parallelism (rejected on CUDA in 0.5.11–0.5.22; from 0.5.23
accepted only with `--enable-dp-lm-head` and without context parallelism,
`--attn-cp-size` 1), `--pp-size` other than 1, and a missing
`--speculative-draft-model-path` (DFLASH never derives the draft from the
target model). Launches on a non-CUDA `--device` are skipped, and so is the
0.5.23 attention-DP check under `--dwdp-size` (DWDP switches
`--enable-dp-lm-head` on itself) or when the launch sets
`SGLANG_ENABLE_DP_SPEC_PREFILL_COORDINATION`.

## Why is this bad?
SGLang stops at start-up with one of `ValueError: Currently DFLASH
speculative decoding does not support dp attention.` (`... dp attention on
non-NPU devices.` in 0.5.20–0.5.22), from 0.5.23 `ValueError: DFLASH with dp
attention requires --enable-dp-lm-head.` / `DFLASH with dp attention does not
support context parallel.`, `ValueError: Currently DFLASH speculative
decoding only supports pp_size == 1.` or `ValueError: DFLASH speculative
decoding requires setting --speculative-draft-model-path.`

## Example
```sh
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --speculative-algorithm DFLASH
```

## Use instead
```sh
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --speculative-algorithm DFLASH --speculative-draft-model-path z-lab/Qwen3-8B-DFlash-b16
```

## References
- `sglang/srt/server_args.py` `ServerArgs._handle_speculative_decoding`
  (0.5.11–0.5.12) and `sglang/srt/arg_groups/speculative_hook.py`
  `_handle_dflash` (0.5.13–0.5.23); verified in the wheels 0.5.11, 0.5.12,
  0.5.13.post1, 0.5.14, 0.5.16–0.5.23. The `dp attention` check reads
  `enable_dp_attention` (≤0.5.21) / `attn_dp_enabled_of` (0.5.22+) and is
  waived on NPU from 0.5.20; 0.5.23 replaces the rejection by
  `--enable-dp-lm-head` / `attn_cp_size` requirements
  (`speculative_hook.py:303–317`); DWDP forces `enable_dp_lm_head=True`
  (`arg_groups/parallel_hook.py` `handle_dwdp`, 0.5.23).
"""

from sgllint import effective as eff
from sgllint import parallel as par
from sgllint.rule import ERROR, Invalid, Rule, Valid

Q = "python -m sglang.launch_server --model-path Qwen/Qwen3-8B --speculative-algorithm DFLASH"
DRAFT = "--speculative-draft-model-path z-lab/Qwen3-8B-DFlash-b16"


class DflashRequirements(Rule):
    code = "SGL220"
    name = "dflash-requirements"
    severity = ERROR

    VALID = [
        Valid.sh(f"{Q} {DRAFT}"),
        Valid.sh(f"{Q} {DRAFT} --tp-size 2"),
        Valid.sh(f"{Q} {DRAFT} --tp-size 2 --dp-size 1 --enable-dp-attention", sglang="0.5.12"),
        Valid.sh(f"{Q} --speculative-draft-model-path $DRAFT"),
        Valid.sh(f"{Q} {DRAFT} --tp-size 2 --attn-dp-size 2 --enable-dp-lm-head"),
        Valid.py(
            """
            import sglang as sgl
            llm = sgl.Engine(model_path="Qwen/Qwen3-8B", speculative_algorithm="DFLASH",
                             speculative_draft_model_path="z-lab/Qwen3-8B-DFlash-b16")
            """
        ),
    ]
    INVALID = [
        Invalid.sh(Q, at="DFLASH", message="requires setting --speculative-draft-model-path"),
        Invalid.sh(f"{Q} {DRAFT} --pp-size 2", at="--pp-size 2", sglang="0.5.12", message="only supports pp_size == 1"),
        Invalid.sh(f"{Q} {DRAFT} --tp-size 2 --dp-size 2 --enable-dp-attention", at="--enable-dp-attention", sglang="0.5.16",
                   message="does not support dp attention."),
        Invalid.sh(f"{Q} {DRAFT} --tp-size 2 --attn-dp-size 2", at="--attn-dp-size 2", sglang="0.5.22",
                   message="dp attention on non-NPU devices"),
        Invalid.sh(f"{Q} {DRAFT} --tp-size 2 --attn-dp-size 2", at="--attn-dp-size 2", sglang="0.5.23",
                   message="DFLASH with dp attention requires --enable-dp-lm-head."),
        Invalid.sh(f"{Q} {DRAFT} --tp-size 4 --attn-dp-size 2 --enable-dp-lm-head --attn-cp-size 2", at="--attn-cp-size 2",
                   sglang="0.5.23", message="DFLASH with dp attention does not support context parallel."),
        Invalid.py(
            """
            import sglang as sgl
            llm = sgl.Engine(model_path="Qwen/Qwen3-8B", speculative_algorithm="DFLASH")
            """,
            at='"DFLASH"',
        ),
        Invalid.py(
            """
            import sglang as sgl
            llm = sgl.Engine(model_path="Qwen/Qwen3-8B", speculative_algorithm="DFLASH",
                             speculative_draft_model_path="z-lab/Qwen3-8B-DFlash-b16", tp_size=2, attn_dp_size=2)
            """,
            at="attn_dp_size=2",
            sglang="0.5.23",
            message="requires --enable-dp-lm-head",
        ),
        Invalid.toml(
            """
            [tool.poe.tasks]
            serve = "python -m sglang.launch_server --model-path Qwen/Qwen3-8B --speculative-algorithm DFLASH --speculative-draft-model-path z-lab/Qwen3-8B-DFlash-b16 --pp-size 2"
            """,
            at="--pp-size 2",
        ),
    ]

    def check(self, launch):
        v = eff.version(launch)
        if not eff.at_least(v, "0.5.11") or launch.opaque:
            return
        spec = par.speculative(launch)
        if spec is None or spec.name != "DFLASH":
            return
        device = eff.given(launch, "device")
        if device is eff.UNKNOWN or (isinstance(device, str) and not device.startswith("cuda")):
            return
        dp = par.data_parallel(launch)
        if dp is None:
            return
        if dp.attention_dp and not eff.at_least(v, "0.5.23"):
            msg = ("Currently DFLASH speculative decoding does not support dp attention on non-NPU devices."
                   if eff.at_least(v, "0.5.20") else "Currently DFLASH speculative decoding does not support dp attention.")
            arg = dp.attn_arg
            yield self.diagnostic(
                arg.span if arg is not None else par.value_span(spec.arg),
                f"DFLASH speculative decoding with attention data parallelism; SGLang {v} stops at start-up: \"{msg}\"",
                help="drop attention DP for DFLASH (or upgrade to 0.5.23+, which supports it with --enable-dp-lm-head)",
                related=[(spec.arg.span, "DFLASH")],
                launch=launch,
            )
            return
        if dp.attention_dp:
            # 0.5.23: speculative_hook._handle_dflash, in this order
            dwdp, _ = par.int_value(launch, "dwdp_size", 1)
            lm_head, _ = par.flag_value(launch, "enable_dp_lm_head")
            if dwdp is None or dwdp > 1 or lm_head is None:
                return  # DWDP forces enable_dp_lm_head on
            if any(e.name == "SGLANG_ENABLE_DP_SPEC_PREFILL_COORDINATION" for e in launch.site.env):
                return  # rejected earlier for DFLASH, or unknown
            arg = dp.attn_arg
            if not lm_head:
                yield self.diagnostic(
                    arg.span if arg is not None else par.value_span(spec.arg),
                    f"DFLASH speculative decoding with attention data parallelism but without "
                    f"{par.flag_of(launch, 'enable_dp_lm_head')}; SGLang {v} stops at start-up: "
                    "\"DFLASH with dp attention requires --enable-dp-lm-head.\"",
                    help="add --enable-dp-lm-head (the DFLASH draft borrows the target's vocabulary-parallel LM head)",
                    related=[(spec.arg.span, "DFLASH")],
                    launch=launch,
                )
                return
            cp, cp_arg = par.int_value(launch, "attn_cp_size", 1)
            if cp is None:
                return
            if cp != 1:
                yield self.diagnostic(
                    cp_arg.span,
                    f"DFLASH speculative decoding with attention data parallelism and "
                    f"{par.written(launch, cp_arg, 'attn_cp_size', cp)}; SGLang {v} stops at start-up: "
                    "\"DFLASH with dp attention does not support context parallel.\"",
                    help="remove --attn-cp-size (or drop attention DP) for DFLASH",
                    related=[(spec.arg.span, "DFLASH")] + ([(arg.span, "attention DP")] if arg is not None else []),
                    launch=launch,
                )
                return
        pp, pp_arg = par.int_value(launch, "pp_size", 1)
        if pp is None:
            return
        if pp != 1:
            yield self.diagnostic(
                pp_arg.span,
                f"DFLASH speculative decoding with {par.written(launch, pp_arg, 'pp_size', pp)}; SGLang {v} stops at start-up: "
                "\"Currently DFLASH speculative decoding only supports pp_size == 1.\"",
                help="remove --pp-size (use --tp-size for more GPUs) or use another speculative algorithm",
                related=[(spec.arg.span, "DFLASH")],
                launch=launch,
            )
            return
        draft, draft_arg = par.str_value(launch, "speculative_draft_model_path")
        if draft_arg is None or (par.known(draft) and draft is None):
            yield self.diagnostic(
                par.value_span(spec.arg),
                f"DFLASH speculative decoding without {par.flag_of(launch, 'speculative_draft_model_path')}; SGLang {v} stops "
                "at start-up: \"DFLASH speculative decoding requires setting --speculative-draft-model-path.\"",
                help="add --speculative-draft-model-path with a DFlash draft model for this target (e.g. z-lab/<model>-DFlash-b16)",
                launch=launch,
            )
