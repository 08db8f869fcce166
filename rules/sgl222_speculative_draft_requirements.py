"""DSPARK or UNO speculative decoding without the inputs SGLang requires for it.

## What it does
Checks the launch inputs of two speculative algorithms, in SGLang's order:

* `--speculative-algorithm DSPARK` (0.5.16+): with attention data
  parallelism `--enable-dp-lm-head` is required; `--pp-size` other than 1 is
  rejected from 0.5.20 (earlier SGL212 reports it), from 0.5.21 allowed only
  with `--disaggregation-mode prefill`; and `--speculative-draft-model-path`
  is required unless the target checkpoint bundles its DSpark head
  (`dspark_*` keys in its `config.json`) or, from 0.5.23, ships a `dspark/`
  subfolder. sgllint knows that only from a local or cached `config.json`;
  a DeepSeek-V4 target known only by name (the family that bundles the head)
  and a model of unknown architecture are skipped.
* `--speculative-algorithm UNO` (0.5.20+): it reuses the target model, so a
  `--speculative-draft-model-path` is rejected; `--uno-lora-path` and
  `--speculative-num-draft-tokens` (>= 1) are required; `--tp-size` and
  `--pp-size` must be 1. UNO's tree-mode and attention-backend checks are
  not judged.

Launches on a non-CUDA `--device` are skipped (DSPARK also runs on NPU from
0.5.18 and XPU from 0.5.23, with other conditions).

## Why is this bad?
SGLang stops while resolving the speculative arguments, before loading the
model: `ValueError: DSpark dense speculative decoding requires setting
--speculative-draft-model-path.`, `DSpark with dp attention requires
--enable-dp-lm-head.`, `Currently DSpark speculative decoding only supports
pp_size == 1.` (0.5.20) / `DSpark pipeline parallelism requires PD prefill;
decode and non-disaggregated serving require pp_size == 1.` (0.5.21+),
`UNO reuses the target model and does not accept
--speculative-draft-model-path.`, `UNO requires --uno-lora-path.`, `UNO
requires --speculative-num-draft-tokens to be a positive integer denoting the
linear width or tree verify width Q.` or `UNO requires TP=PP=1.`

## Example
```sh
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --speculative-algorithm DSPARK
```

## Use instead
```sh
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --speculative-algorithm DSPARK --speculative-draft-model-path z-lab/Qwen3-8B-DSpark
```

## References
- `sglang/srt/arg_groups/speculative_hook.py` `_handle_dspark`: 0.5.16 :276–320,
  0.5.19 :338–411 (`DSpark dense speculative decoding requires setting` at
  :407), 0.5.20 :519–590, 0.5.21 :583–656, 0.5.23 :663–753 (:752; the
  `dspark/` subfolder fallback `_target_checkpoint_dspark_subfolder` is new in
  0.5.23); device: CUDA only 0.5.16–0.5.17, CUDA or NPU 0.5.18–0.5.22, CUDA,
  NPU or XPU 0.5.23. Bundling: `speculative/dspark_components/dspark_config.py`
  `checkpoint_bundles_dspark_draft` (0.5.16–0.5.23).
- `sglang/srt/arg_groups/speculative_hook.py` `_handle_uno`: 0.5.20 :346–476
  (`UNO requires --uno-lora-path.` at :357), identical checks through 0.5.23
  :449–579 (:460). Verified in the wheels 0.5.16–0.5.23.
"""

from sgllint import effective as eff
from sgllint import parallel as par
from sgllint.rule import ERROR, Invalid, Rule, Valid

Q = "python -m sglang.launch_server --model-path Qwen/Qwen3-8B"
L = "python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct"
DRAFT = "--speculative-draft-model-path z-lab/Qwen3-8B-DSpark"
UNO_OK = "--uno-lora-path /adapters/uno --speculative-num-draft-tokens 4"

#: architectures whose checkpoints may bundle the DSpark head (model_config.py
#: remaps a bundled DeepseekV4ForCausalLM draft to DeepseekV4ForCausalLMDSpark)
BUNDLING = {"DeepseekV4ForCausalLM"}

DSPARK_DRAFT = "DSpark dense speculative decoding requires setting --speculative-draft-model-path."


class SpeculativeDraftRequirements(Rule):
    code = "SGL222"
    name = "speculative-draft-requirements"
    severity = ERROR

    VALID = [
        Valid.sh(f"{Q} --speculative-algorithm DSPARK {DRAFT}"),
        Valid.sh(f"{Q} --speculative-algorithm DSPARK {DRAFT} --tp-size 2 --attn-dp-size 2 --enable-dp-lm-head"),
        Valid.sh("python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V4-Flash --tp-size 8 --speculative-algorithm DSPARK"),
        Valid.sh("python -m sglang.launch_server --model-path my-org/private-model --speculative-algorithm DSPARK"),
        Valid.sh(f"{Q} --speculative-algorithm DSPARK --speculative-draft-model-path $DRAFT"),
        Valid.sh(f"{L} --speculative-algorithm UNO {UNO_OK}"),
        Valid.sh(f"{L} --speculative-algorithm EAGLE3 --speculative-draft-model-path jamesliu1/sglang-EAGLE3-Llama-3.1-Instruct-8B"),
        Valid.py(
            """
            import sglang as sgl
            llm = sgl.Engine(model_path="meta-llama/Llama-3.1-8B-Instruct", speculative_algorithm="UNO",
                             uno_lora_path="/adapters/uno", speculative_num_draft_tokens=4)
            """
        ),
        Valid.yaml(
            """
            containers:
              - name: sglang
                command: ["python", "-m", "sglang.launch_server"]
                args: ["--model-path", "Qwen/Qwen3-8B", "--speculative-algorithm", "DSPARK",
                       "--speculative-draft-model-path", "z-lab/Qwen3-8B-DSpark"]
            """
        ),
    ]
    INVALID = [
        Invalid.sh(f"{Q} --speculative-algorithm DSPARK", at="DSPARK", message=DSPARK_DRAFT),
        Invalid.sh(f"{L} --speculative-algorithm DSPARK", at="DSPARK", sglang="0.5.19", message=DSPARK_DRAFT),
        Invalid.sh(f"{Q} --speculative-algorithm dspark --tp-size 2 --dp-size 2 --enable-dp-attention {DRAFT}",
                   at="--enable-dp-attention", sglang="0.5.19", message="DSpark with dp attention requires --enable-dp-lm-head."),
        Invalid.sh(f"{Q} --speculative-algorithm DSPARK {DRAFT} --pp-size 2", at="--pp-size 2",
                   message="DSpark pipeline parallelism requires PD prefill"),
        Invalid.sh(f"{L} --speculative-algorithm UNO", at="UNO", message="UNO requires --uno-lora-path."),
        Invalid.sh(f"{L} --speculative-algorithm UNO --uno-lora-path /adapters/uno", at="UNO",
                   message="UNO requires --speculative-num-draft-tokens"),
        Invalid.sh(f"{L} --speculative-algorithm UNO {UNO_OK} --speculative-draft-model-path yuhuili/EAGLE-LLaMA3.1-Instruct-8B",
                   at="--speculative-draft-model-path yuhuili/EAGLE-LLaMA3.1-Instruct-8B",
                   message="UNO reuses the target model and does not accept --speculative-draft-model-path."),
        Invalid.sh(f"{L} --speculative-algorithm UNO {UNO_OK} --tp-size 2", at="--tp-size 2", message="UNO requires TP=PP=1."),
        Invalid.py(
            """
            import sglang as sgl
            llm = sgl.Engine(model_path="meta-llama/Llama-3.1-8B-Instruct", speculative_algorithm="UNO")
            """,
            at='"UNO"',
            message="UNO requires --uno-lora-path.",
        ),
        Invalid.yaml(
            """
            containers:
              - name: sglang
                command: ["python", "-m", "sglang.launch_server"]
                args: ["--model-path", "Qwen/Qwen3-8B", "--speculative-algorithm", "DSPARK"]
            """,
            at='"DSPARK"',
        ),
        Invalid.toml(
            """
            [tool.poe.tasks]
            serve = "python -m sglang.launch_server --model-path Qwen/Qwen3-8B --speculative-algorithm DSPARK"
            """,
            at="DSPARK",
        ),
    ]

    def check(self, launch):
        if launch.opaque:
            return
        spec = par.speculative(launch)
        if spec is None:
            return
        if spec.name == "DSPARK" and eff.at_least(eff.version(launch), "0.5.16"):
            yield from self._dspark(launch, spec)
        elif spec.name == "UNO" and eff.at_least(eff.version(launch), "0.5.20"):
            yield from self._uno(launch, spec)

    def _cuda(self, launch) -> bool:
        device = eff.given(launch, "device")
        return not (device is eff.UNKNOWN or (isinstance(device, str) and not device.startswith("cuda")))

    def _report(self, launch, span, spec, message, help, related=()):
        return self.diagnostic(
            span,
            f"{spec.name} speculative decoding; SGLang {eff.version(launch)} stops at start-up: \"{message}\"",
            help=help,
            related=list(related),
            launch=launch,
        )

    def _dspark(self, launch, spec):
        v = eff.version(launch)
        if not self._cuda(launch):
            return
        dp = par.data_parallel(launch)
        if dp is None:
            return
        related = [(spec.arg.span, "DSPARK")]
        if dp.attention_dp:
            dwdp, _ = par.int_value(launch, "dwdp_size", 1)
            lm_head, _ = par.flag_value(launch, "enable_dp_lm_head")
            if dwdp is None or dwdp > 1 or lm_head is None:
                return  # DWDP (0.5.23) switches enable_dp_lm_head on itself
            if not lm_head:
                arg = dp.attn_arg
                yield self._report(
                    launch, arg.span if arg is not None else par.value_span(spec.arg), spec,
                    "DSpark with dp attention requires --enable-dp-lm-head.",
                    "add --enable-dp-lm-head (the DSpark draft borrows the target's vocabulary-parallel LM head)",
                    related,
                )
                return
        pp, pp_arg = par.int_value(launch, "pp_size", 1)
        if pp is None:
            return
        if pp != 1:
            if not eff.at_least(v, "0.5.20"):
                return  # SGL212: pipeline parallelism with speculative decoding
            if not eff.at_least(v, "0.5.21"):
                yield self._report(launch, pp_arg.span, spec,
                                   "Currently DSpark speculative decoding only supports pp_size == 1.",
                                   "remove --pp-size (use --tp-size for more GPUs)", related)
                return
            mode, _ = par.str_value(launch, "disaggregation_mode")
            if not par.known(mode):
                return
            if mode != "prefill":
                yield self._report(
                    launch, pp_arg.span, spec,
                    "DSpark pipeline parallelism requires PD prefill; decode and non-disaggregated serving require pp_size == 1.",
                    "remove --pp-size, or run DSpark with pipeline parallelism only on a --disaggregation-mode prefill node",
                    related,
                )
                return
        draft, draft_arg = par.str_value(launch, "speculative_draft_model_path")
        if draft_arg is not None and not (par.known(draft) and draft is None):
            return
        ctx = launch.context
        if ctx.skip_model_checks or ctx.arch is None:
            return
        traits = ctx.traits or frozenset()
        if "dspark-draft" in traits or ("dspark-subfolder" in traits and eff.at_least(v, "0.5.23")):
            return
        if ctx.architecture.source not in ("local config.json", "Hugging Face cache") and ctx.arch in BUNDLING:
            return  # the checkpoint may bundle its DSpark head; its config.json is not at hand
        yield self.diagnostic(
            par.value_span(spec.arg),
            f"DSpark speculative decoding without {par.flag_of(launch, 'speculative_draft_model_path')} and the target "
            f"checkpoint ({ctx.arch}) does not bundle a DSpark draft; SGLang {v} stops at start-up: \"{DSPARK_DRAFT}\"",
            help="add --speculative-draft-model-path with a DSpark draft model trained for this target",
            related=eff.model_related(launch),
            launch=launch,
        )

    def _uno(self, launch, spec):
        if not self._cuda(launch):
            return
        related = [(spec.arg.span, "UNO")]
        draft, draft_arg = par.str_value(launch, "speculative_draft_model_path")
        if draft_arg is not None and not par.known(draft):
            return
        if draft is not None:
            yield self._report(
                launch, draft_arg.span, spec,
                "UNO reuses the target model and does not accept --speculative-draft-model-path.",
                "remove --speculative-draft-model-path: UNO drafts with the target model and its --uno-lora-path adapter",
                related,
            )
            return
        lora, lora_arg = par.str_value(launch, "uno_lora_path")
        if lora_arg is not None and not par.known(lora):
            return
        if lora is None:
            yield self._report(launch, par.value_span(spec.arg), spec, "UNO requires --uno-lora-path.",
                               "add --uno-lora-path with the UNO draft LoRA adapter for this model")
            return
        tokens, tokens_arg = par.int_value(launch, "speculative_num_draft_tokens", 0)
        if tokens is None:
            return
        if tokens < 1:
            yield self._report(
                launch, tokens_arg.span if tokens_arg is not None else par.value_span(spec.arg), spec,
                "UNO requires --speculative-num-draft-tokens to be a positive integer denoting the linear width or "
                "tree verify width Q.",
                "add --speculative-num-draft-tokens (the verify width, e.g. 4)",
                related if tokens_arg is not None else (),
            )
            return
        topk, _ = par.int_value(launch, "speculative_eagle_topk", 1)
        if topk is None or topk != 1:
            return  # tree mode: further checks not judged
        for field in ("tp_size", "pp_size"):
            value, arg = par.int_value(launch, field, 1)
            if value is None:
                return
            if value != 1:
                yield self._report(launch, arg.span, spec, "UNO requires TP=PP=1.",
                                   f"remove {par.flag_of(launch, field)}: UNO runs on a single GPU", related)
                return
