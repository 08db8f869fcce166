"""Pipeline parallelism with speculative decoding (or mixed chunked prefill) SGLang rejects.

## What it does
With `--pp-size` > 1, checks the speculative algorithm per release: up to
0.5.20 any `--speculative-algorithm` is rejected (and up to 0.5.10 also
`--enable-mixed-chunk`); from 0.5.20 (NPU) / 0.5.21 (all platforms) only
single-layer `EAGLE` (or its alias `NEXTN`) on a `--disaggregation-mode
prefill` node passes, unless `SGLANG_ENABLE_PP_SPEC=1` is set.

## Why is this bad?
`check_server_args` asserts it at start-up, e.g. `AssertionError: Pipeline
parallelism is not compatible with overlap schedule, speculative decoding`
(0.5.11–0.5.20; `..., mixed chunked prefill.` up to 0.5.10), or from 0.5.21
`Pipeline parallelism currently only supports EAGLE (non-multi-layer)
speculative decoding` / `PP + speculative decoding (MTP) is only supported on
prefill nodes (disaggregation-mode=prefill)`.

## Example
```sh
python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct --pp-size 2 --speculative-algorithm NGRAM
```

## Use instead
```sh
python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct --pp-size 2
```

## References
- `sglang/srt/server_args.py` `ServerArgs.check_server_args` (0.4.6–0.5.18),
  `sglang/srt/arg_groups/validation_hook.py` `check_server_args` (0.5.19–0.5.20)
  and `check_pipeline_parallel_compat` (0.5.21+). DFLASH is left to its own
  earlier check (`speculative_hook._handle_dflash`: pp_size must be 1).
"""

from sgllint.model.rule import ERROR, Invalid, Rule, Valid
from sgllint.semantics import parallel as par

L = "python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct --pp-size 2"
MSG_OLD = "Pipeline parallelism is not compatible with overlap schedule, speculative decoding, mixed chunked prefill."
MSG_MID = "Pipeline parallelism is not compatible with overlap schedule, speculative decoding"
MSG_ALG = "Pipeline parallelism currently only supports EAGLE (non-multi-layer) speculative decoding"
MSG_PD = "PP + speculative decoding (MTP) is only supported on prefill nodes (disaggregation-mode=prefill)"


class PipelineParallelSpeculative(Rule):
    code = "SGL212"
    name = "pipeline-parallel-speculative"
    severity = ERROR

    VALID = [
        Valid.sh(f"{L}"),
        Valid.sh(f"{L} --speculative-algorithm EAGLE --speculative-draft-model-path jamesliu1/sglang-EAGLE-Llama-3.1-Instruct-8B --disaggregation-mode prefill"),
        Valid.sh(f"{L} --enable-mixed-chunk", sglang="0.5.12"),
        Valid.sh(f"{L} --speculative-algorithm $ALG"),
        Valid.py(
            """
            import sglang as sgl
            llm = sgl.Engine(model_path="meta-llama/Llama-3.1-8B-Instruct", pp_size=2)
            """
        ),
    ]
    INVALID = [
        Invalid.sh(f"{L} --speculative-algorithm NGRAM", at="NGRAM", message=MSG_ALG),
        Invalid.sh(
            f"{L} --speculative-algorithm EAGLE --speculative-draft-model-path jamesliu1/sglang-EAGLE-Llama-3.1-Instruct-8B",
            at="EAGLE",
            message=MSG_PD,
        ),
        Invalid.sh(
            f"{L} --speculative-algorithm EAGLE --speculative-draft-model-path jamesliu1/sglang-EAGLE-Llama-3.1-Instruct-8B --disaggregation-mode prefill",
            at="EAGLE",
            sglang="0.5.18",
            message=MSG_MID,
        ),
        Invalid.sh(f"{L} --enable-mixed-chunk", at="--enable-mixed-chunk", sglang="0.5.10", message=MSG_OLD),
        Invalid.py(
            """
            import sglang as sgl
            llm = sgl.Engine(model_path="meta-llama/Llama-3.1-8B-Instruct", pp_size=2, speculative_algorithm="NGRAM")
            """,
            at='"NGRAM"',
        ),
    ]

    def check(self, launch):
        if not par.at_least(launch, "0.4.6"):
            return
        pp, pp_arg = par.int_value(launch, "pp_size")
        if not par.known(pp) or pp <= 1 or pp_arg is None:
            return
        spec_arg = launch.last("speculative_algorithm")
        if spec_arg is not None and not spec_arg.known:
            return
        spec = par.speculative(launch)
        mixed, mixed_arg = par.flag_value(launch, "enable_mixed_chunk")
        version = launch.context.catalog.version
        if spec is not None and spec.name == "DFLASH":
            return
        target = message = None
        if not par.at_least(launch, "0.5.11"):
            if spec is not None:
                target, message = spec.arg, MSG_OLD
            elif mixed:
                target, message = mixed_arg, MSG_OLD
        elif spec is None:
            return
        elif not par.at_least(launch, "0.5.20"):
            target, message = spec.arg, MSG_MID
        else:
            multi, _ = par.flag_value(launch, "enable_multi_layer_eagle")
            mode, mode_arg = par.str_value(launch, "disaggregation_mode")
            if not par.known(multi, mode):
                return
            if spec.name == "DSPARK":
                return  # its own rule (prefill-only, 0.5.23)
            if spec.name not in ("EAGLE", "NEXTN") or multi:
                target, message = spec.arg, (MSG_ALG if par.at_least(launch, "0.5.21") else MSG_MID)
            elif mode != "prefill":
                if any(e.name == "SGLANG_ENABLE_PP_SPEC" for e in launch.site.env):
                    return
                target, message = spec.arg, (MSG_PD if par.at_least(launch, "0.5.21") else MSG_MID)
            else:
                if not par.at_least(launch, "0.5.21"):
                    return  # 0.5.20: passes on NPU only; the platform is not known
                return
        if target is None:
            return
        yield self.diagnostic(
            par.value_span(target),
            f"SGLang {version} rejects this at start-up with --pp-size {pp}: '{message}'",
            help=(
                "drop speculative decoding (or --enable-mixed-chunk) or pipeline parallelism"
                if message in (MSG_OLD, MSG_MID)
                else "use single-layer EAGLE on a --disaggregation-mode prefill node, or drop pipeline parallelism"
            ),
            related=[(pp_arg.span, "pipeline parallelism set here")],
            launch=launch,
        )
