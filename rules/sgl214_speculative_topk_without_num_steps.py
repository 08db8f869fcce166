"""`--speculative-eagle-topk` or `--speculative-num-draft-tokens` without `--speculative-num-steps`.

## What it does
For the EAGLE family (`EAGLE`, `EAGLE3`, `NEXTN`, and `STANDALONE` from
0.5.2), flags a launch that sets `--speculative-eagle-topk` or
`--speculative-num-draft-tokens` but leaves `--speculative-num-steps` unset
(from 0.5.14, unless `--speculative-adaptive` is on and stays on: SGLang
switches adaptive speculation off again — `speculative_adaptive disabled:
...` — for algorithms other than EAGLE/EAGLE3, `--speculative-eagle-topk`
other than 1, attention DP, multi-layer EAGLE, two-batch overlap or PD
multiplexing, and then trips the same assertion).

The reverse partial set fails too, in every release 0.5.4–0.5.23:
`--speculative-num-steps` without `--speculative-eagle-topk` (adaptive
speculation, when it stays on, fills the top-k itself).

## Why is this bad?
SGLang only picks the three values itself when none of them is given; a
partial set trips a bare `assert speculative_eagle_topk is None and
speculative_num_draft_tokens is None` at start-up — an `AssertionError`
with no message (reported in the wild as gpustack/gpustack#3392). Given the
steps but not the top-k, SGLang skips its auto-choice and then compares
`speculative_eagle_topk > 1` with `None`: `TypeError: '>' not supported between
instances of 'NoneType' and 'int'`.

## Example
```sh
python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct --speculative-algorithm EAGLE --speculative-draft-model-path jamesliu1/sglang-EAGLE-Llama-3.1-Instruct-8B --speculative-eagle-topk 4
```

## Use instead
```sh
python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct --speculative-algorithm EAGLE --speculative-draft-model-path jamesliu1/sglang-EAGLE-Llama-3.1-Instruct-8B --speculative-num-steps 3 --speculative-eagle-topk 4 --speculative-num-draft-tokens 8
```

## References
- `sglang/srt/server_args.py` `ServerArgs.__post_init__` /
  `_handle_speculative_decoding` (0.4.4–0.5.12),
  `sglang/srt/arg_groups/speculative_hook.py` (0.5.13+; `speculative_adaptive`
  exemption from 0.5.14; `_handle_eagle_family` in 0.5.23).
- `sglang/srt/speculative/adaptive_spec_params.py`
  `adaptive_unsupported_reason`, applied by `speculative_hook._maybe_disable_adaptive`
  before the EAGLE-family assertion (0.5.14–0.5.23; 0.5.23 :56–100). Found by
  the rule-pack oracle: 0.5.23 rejects `--speculative-eagle-topk 4
  --speculative-adaptive` with the bare assertion
  (`speculative_hook.py:1162`).
- The steps-without-top-k crash: `speculative_eagle_topk > 1` evaluated with
  `None` after the auto-choice is skipped — 0.5.4.post3 `server_args.py:1578`,
  0.5.10.post1 `server_args.py:3069/3084`, 0.5.19
  `arg_groups/speculative_hook.py:740/810`, 0.5.23 `:1177/1274`; found by the
  rule-pack oracle (the INVALID launches of SGL219/SGL240 with
  `--speculative-eagle-topk` removed).
"""

from sgllint.model.rule import ERROR, Invalid, Rule, Valid
from sgllint.semantics import parallel as par

L = ("python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct --speculative-algorithm EAGLE "
     "--speculative-draft-model-path jamesliu1/sglang-EAGLE-Llama-3.1-Instruct-8B")
FAMILY = ("EAGLE", "EAGLE3", "NEXTN", "STANDALONE")


def _adaptive_disabled(launch, spec) -> str:
    """Why SGLang turns ``--speculative-adaptive`` off again ('' when it stays
    on or is unknown): ``adaptive_unsupported_reason``."""
    if spec.name not in ("EAGLE", "EAGLE3", "NEXTN"):  # NEXTN is EAGLE by then
        return f"speculative_algorithm={spec.name} (only EAGLE/EAGLE3 are supported)"
    topk, _ = par.int_value(launch, "speculative_eagle_topk", 1)
    if par.known(topk) and topk != 1:
        return f"speculative_eagle_topk={topk} (only topk=1 is supported)"
    dp = par.data_parallel(launch)
    if dp is not None and dp.attention_dp:
        return "attention DP is not supported"
    for field in ("enable_multi_layer_eagle", "enable_two_batch_overlap", "enable_pdmux"):
        on, _ = par.flag_value(launch, field)
        if on:
            return f"{field}=True is not supported"
    return ""


class SpeculativeTopkWithoutNumSteps(Rule):
    code = "SGL214"
    name = "speculative-topk-without-num-steps"
    severity = ERROR

    VALID = [
        Valid.sh(L),
        Valid.sh(f"{L} --speculative-num-steps 3 --speculative-eagle-topk 4 --speculative-num-draft-tokens 8"),
        Valid.sh(f"{L} --speculative-eagle-topk 1 --speculative-adaptive"),
        Valid.sh(f"{L} --speculative-num-draft-tokens 4 --speculative-adaptive"),
        Valid.sh(f"{L} --speculative-num-steps 3 --speculative-adaptive"),
        Valid.sh(f'{L} --speculative-eagle-topk 4 "$@"'),
        Valid.py(
            """
            import sglang as sgl
            llm = sgl.Engine(model_path="meta-llama/Llama-3.1-8B-Instruct", speculative_algorithm="EAGLE",
                             speculative_draft_model_path="jamesliu1/sglang-EAGLE-Llama-3.1-Instruct-8B",
                             speculative_num_steps=3, speculative_eagle_topk=1, speculative_num_draft_tokens=4)
            """
        ),
    ]
    INVALID = [
        Invalid.sh(f"{L} --speculative-eagle-topk 4", at="4", message="speculative_eagle_topk is None"),
        Invalid.sh(f"{L} --speculative-num-draft-tokens 16", at="16", sglang="0.5.4"),
        Invalid.sh(f"{L} --speculative-eagle-topk 2 --speculative-adaptive", at=("2", 1), sglang="0.5.12", message="--speculative-num-steps"),
        Invalid.sh(f"{L} --speculative-eagle-topk 4 --speculative-adaptive", at="4", message="adaptive speculation is switched off"),
        Invalid.sh(f"{L} --speculative-num-steps 3 --speculative-num-draft-tokens 4", at=("3", 3), message="TypeError"),
        Invalid.py(
            """
            import sglang as sgl
            llm = sgl.Engine(model_path="meta-llama/Llama-3.1-8B-Instruct", speculative_algorithm="EAGLE",
                             speculative_draft_model_path="jamesliu1/sglang-EAGLE-Llama-3.1-Instruct-8B",
                             speculative_eagle_topk=8)
            """,
            at=("8", 3),
        ),
    ]

    def _steps_without_topk(self, launch, spec, steps_arg):
        if not par.at_least(launch, "0.5.4") or steps_arg.value is None:
            return
        topk_arg = launch.last("speculative_eagle_topk")
        if topk_arg is not None and topk_arg.value is not None:
            return
        if par.at_least(launch, "0.5.14"):
            adaptive, _ = par.flag_value(launch, "speculative_adaptive")
            if not par.known(adaptive) or (adaptive and not _adaptive_disabled(launch, spec)):
                return
        draft, _ = par.str_value(launch, "speculative_draft_model_path")
        model, _ = par.str_value(launch, "model_path")
        names = " ".join(v.lower() for v in (draft, model) if isinstance(v, str))
        if "gemma" in names or "iquest" in names or (launch.context.arch or "").startswith("IQuestQ1"):
            return
        yield self.diagnostic(
            par.value_span(steps_arg),
            f"SGLang {launch.context.catalog.version} crashes at start-up with \"TypeError: '>' not supported between "
            f"instances of 'NoneType' and 'int'\": {steps_arg.spelling} is set but "
            f"{par.flag_of(launch, 'speculative_eagle_topk')} is not, so SGLang skips choosing it and then compares it",
            help="set --speculative-eagle-topk as well (1 for a chain), or none of the three to let SGLang choose them",
            related=[(spec.arg.span, f"{spec.name} speculative decoding")],
            launch=launch,
        )

    def check(self, launch):
        if not par.at_least(launch, "0.4.4") or launch.opaque:
            return
        spec = par.speculative(launch)
        if spec is None or spec.name not in FAMILY:
            return
        if spec.name == "STANDALONE" and not par.at_least(launch, "0.5.2"):
            return
        steps_arg = launch.last("speculative_num_steps")
        if steps_arg is not None:
            yield from self._steps_without_topk(launch, spec, steps_arg)
            return
        adaptive_off = ""
        if par.at_least(launch, "0.5.14"):
            adaptive, _ = par.flag_value(launch, "speculative_adaptive")
            if not par.known(adaptive):
                return
            if adaptive:
                adaptive_off = _adaptive_disabled(launch, spec)
                if not adaptive_off:
                    return
        draft, _ = par.str_value(launch, "speculative_draft_model_path")
        model, _ = par.str_value(launch, "model_path")
        names = " ".join(v.lower() for v in (draft, model) if isinstance(v, str))
        if "gemma" in names or "iquest" in names or (launch.context.arch or "").startswith("IQuestQ1"):
            return  # Gemma4 drafts become FROZEN_KV_MTP; IQuest Q1 fills the steps itself
        given = [a for a in (launch.last("speculative_eagle_topk"), launch.last("speculative_num_draft_tokens")) if a is not None]
        given = [a for a in given if a.value is not None]
        if not given:
            return
        arg = given[0]
        yield self.diagnostic(
            par.value_span(arg),
            f"SGLang {launch.context.catalog.version} stops with a bare AssertionError "
            "(`assert speculative_eagle_topk is None and speculative_num_draft_tokens is None`): "
            f"{arg.spelling} is set but {par.flag_of(launch, 'speculative_num_steps')} is not"
            + (f" (adaptive speculation is switched off first: {adaptive_off})" if adaptive_off else ""),
            help="set --speculative-num-steps as well (or none of the three, to let SGLang choose them)",
            related=[(spec.arg.span, f"{spec.name} speculative decoding")] + [(a.span, "also set") for a in given[1:]],
            launch=launch,
        )
