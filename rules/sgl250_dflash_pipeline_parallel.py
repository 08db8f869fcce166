"""DFLASH speculative decoding with pipeline parallelism.

## What it does
For `--speculative-algorithm DFLASH` (0.5.11+), finds `--pp-size` other than
1. Launches on a non-CUDA `--device` are skipped.

SGLang checks DFLASH's inputs in a fixed order and stops at the first failure;
this rule reports its check only when the earlier ones pass (or are not
judged). It is one of the checks the removed umbrella code SGL220
(`dflash-requirements`) reported.

## Why is this bad?
SGLang stops at start-up: `ValueError: Currently DFLASH speculative decoding
only supports pp_size == 1.`

## Example
```sh
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --speculative-algorithm DFLASH --speculative-draft-model-path z-lab/Qwen3-8B-DFlash-b16 --pp-size 2
```

## Use instead
```sh
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --speculative-algorithm DFLASH --speculative-draft-model-path z-lab/Qwen3-8B-DFlash-b16 --tp-size 2
```

## References
- `sglang/srt/server_args.py` `ServerArgs._handle_speculative_decoding`
  (0.5.11–0.5.12) and `sglang/srt/arg_groups/speculative_hook.py`
  `_handle_dflash` (0.5.13–0.5.23); verified in the wheels 0.5.11, 0.5.12,
  0.5.13.post1, 0.5.14, 0.5.16–0.5.23.
"""

from sgllint.model.rule import ERROR, Invalid, Rule, Valid
from sgllint.rules._speculative_inputs import Check, report

Q = "python -m sglang.launch_server --model-path Qwen/Qwen3-8B --speculative-algorithm DFLASH"
DRAFT = "--speculative-draft-model-path z-lab/Qwen3-8B-DFlash-b16"


class DflashPipelineParallel(Rule):
    code = "SGL250"
    name = "dflash-pipeline-parallel"
    severity = ERROR
    replaces = ("SGL220", "dflash-requirements")

    VALID = [
        Valid.sh(f"{Q} {DRAFT} --tp-size 2"),
    ]
    INVALID = [
        Invalid.sh(f"{Q} {DRAFT} --pp-size 2", at="--pp-size 2", sglang="0.5.12", message="only supports pp_size == 1"),
        Invalid.toml(
            """
            [tool.poe.tasks]
            serve = "python -m sglang.launch_server --model-path Qwen/Qwen3-8B --speculative-algorithm DFLASH --speculative-draft-model-path z-lab/Qwen3-8B-DFlash-b16 --pp-size 2"
            """,
            at="--pp-size 2",
        ),
    ]

    def check(self, launch):
        return report(self, launch, Check.DFLASH_PIPELINE_PARALLEL)
