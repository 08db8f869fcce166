"""UNO speculative decoding with a `--speculative-draft-model-path`, which UNO does not accept.

## What it does
For `--speculative-algorithm UNO` (0.5.20+), finds
`--speculative-draft-model-path`: UNO reuses the target model. Launches on a
non-CUDA `--device` are skipped.

SGLang checks the algorithm's inputs in a fixed order and stops at the first
failure; this rule reports its check only when the earlier ones pass. It is
one of the checks the removed umbrella code SGL222
(`speculative-draft-requirements`) reported.

## Why is this bad?
SGLang stops while resolving the speculative arguments: `ValueError: UNO
reuses the target model and does not accept --speculative-draft-model-path.`

## Example
```sh
python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct --speculative-algorithm UNO --uno-lora-path /adapters/uno --speculative-num-draft-tokens 4 --speculative-draft-model-path yuhuili/EAGLE-LLaMA3.1-Instruct-8B
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


class UnoWithDraftModel(Rule):
    code = "SGL255"
    name = "uno-with-draft-model"
    severity = ERROR
    replaces = ("SGL222", "speculative-draft-requirements")

    VALID = [
        Valid.sh(f"{L} --speculative-algorithm UNO {UNO_OK}"),
        Valid.sh(f"{L} --speculative-algorithm EAGLE3 --speculative-draft-model-path jamesliu1/sglang-EAGLE3-Llama-3.1-Instruct-8B"),
    ]
    INVALID = [
        Invalid.sh(f"{L} --speculative-algorithm UNO {UNO_OK} --speculative-draft-model-path yuhuili/EAGLE-LLaMA3.1-Instruct-8B",
                   at="--speculative-draft-model-path yuhuili/EAGLE-LLaMA3.1-Instruct-8B",
                   message="UNO reuses the target model and does not accept --speculative-draft-model-path."),
    ]

    def check(self, launch):
        return report(self, launch, Check.UNO_DRAFT_MODEL)
