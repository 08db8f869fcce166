"""DSPARK speculative decoding with pipeline parallelism outside a prefill node.

## What it does
For `--speculative-algorithm DSPARK`, finds `--pp-size` other than 1: rejected
in 0.5.20, and from 0.5.21 allowed only with `--disaggregation-mode prefill`.
Earlier releases reject any speculative algorithm with pipeline parallelism
(SGL212). Launches on a non-CUDA `--device` are skipped.

SGLang checks the algorithm's inputs in a fixed order and stops at the first
failure; this rule reports its check only when the earlier ones pass. It is
one of the checks the removed umbrella code SGL222
(`speculative-draft-requirements`) reported.

## Why is this bad?
SGLang stops while resolving the speculative arguments: `Currently DSpark
speculative decoding only supports pp_size == 1.` (0.5.20) / `DSpark pipeline
parallelism requires PD prefill; decode and non-disaggregated serving require
pp_size == 1.` (0.5.21+).

## Example
```sh
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --speculative-algorithm DSPARK --speculative-draft-model-path z-lab/Qwen3-8B-DSpark --pp-size 2
```

## Use instead
```sh
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --speculative-algorithm DSPARK --speculative-draft-model-path z-lab/Qwen3-8B-DSpark --tp-size 2
```

## References
- `sglang/srt/arg_groups/speculative_hook.py` `_handle_dspark`: 0.5.16 :276–320,
  0.5.19 :338–411, 0.5.20 :519–590, 0.5.21 :583–656, 0.5.23 :663–753; device:
  CUDA only 0.5.16–0.5.17, CUDA or NPU 0.5.18–0.5.22, CUDA, NPU or XPU 0.5.23.
"""

from sgllint.model.rule import ERROR, Invalid, Rule, Valid
from sgllint.rules._speculative_inputs import Check, report

Q = "python -m sglang.launch_server --model-path Qwen/Qwen3-8B"
DRAFT = "--speculative-draft-model-path z-lab/Qwen3-8B-DSpark"


class DsparkPipelineParallel(Rule):
    code = "SGL253"
    name = "dspark-pipeline-parallel"
    severity = ERROR
    replaces = ("SGL222", "speculative-draft-requirements")

    VALID = [
        Valid.sh(f"{Q} --speculative-algorithm DSPARK {DRAFT} --tp-size 2"),
    ]
    INVALID = [
        Invalid.sh(f"{Q} --speculative-algorithm DSPARK {DRAFT} --pp-size 2", at="--pp-size 2",
                   message="DSpark pipeline parallelism requires PD prefill"),
        Invalid.sh(f"{Q} --speculative-algorithm DSPARK {DRAFT} --pp-size 2", at="--pp-size 2", sglang="0.5.20",
                   message="only supports pp_size == 1"),
    ]

    def check(self, launch):
        return report(self, launch, Check.DSPARK_PIPELINE_PARALLEL)
