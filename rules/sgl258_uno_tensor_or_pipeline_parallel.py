"""UNO speculative decoding with tensor or pipeline parallelism.

## What it does
For `--speculative-algorithm UNO` (0.5.20+) in linear mode
(`--speculative-eagle-topk` 1), finds `--tp-size` or `--pp-size` other than 1.
UNO's tree-mode and attention-backend checks are not judged. Launches on a
non-CUDA `--device` are skipped.

SGLang checks the algorithm's inputs in a fixed order and stops at the first
failure; this rule reports its check only when the earlier ones pass. It is
one of the checks the removed umbrella code SGL222
(`speculative-draft-requirements`) reported.

## Why is this bad?
SGLang stops while resolving the speculative arguments: `ValueError: UNO
requires TP=PP=1.`

## Example
```sh
python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct --speculative-algorithm UNO --uno-lora-path /adapters/uno --speculative-num-draft-tokens 4 --tp-size 2
```

## Use instead
```sh
python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct --speculative-algorithm UNO --uno-lora-path /adapters/uno --speculative-num-draft-tokens 4
```

## References
- `sglang/srt/arg_groups/speculative_hook.py` `_handle_uno`: 0.5.20 :346–476,
  identical checks through 0.5.23 :449–579. Verified in the wheels 0.5.20–0.5.23.
"""

from sgllint.model.rule import ERROR, Invalid, Rule, Valid
from sgllint.rules._speculative_inputs import Check, report

L = "python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct"
UNO_OK = "--uno-lora-path /adapters/uno --speculative-num-draft-tokens 4"


class UnoTensorOrPipelineParallel(Rule):
    code = "SGL258"
    name = "uno-tensor-or-pipeline-parallel"
    severity = ERROR
    replaces = ("SGL222", "speculative-draft-requirements")

    VALID = [
        Valid.sh(f"{L} --speculative-algorithm UNO {UNO_OK}"),
    ]
    INVALID = [
        Invalid.sh(f"{L} --speculative-algorithm UNO {UNO_OK} --tp-size 2", at="--tp-size 2", message="UNO requires TP=PP=1."),
    ]

    def check(self, launch):
        return report(self, launch, Check.UNO_SINGLE_GPU)
