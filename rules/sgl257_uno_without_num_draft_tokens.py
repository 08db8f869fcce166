"""UNO speculative decoding without a positive `--speculative-num-draft-tokens`.

## What it does
For `--speculative-algorithm UNO` (0.5.20+), finds
`--speculative-num-draft-tokens` missing or below 1. Launches on a non-CUDA
`--device` are skipped.

SGLang checks the algorithm's inputs in a fixed order and stops at the first
failure; this rule reports its check only when the earlier ones pass. It is
one of the checks the removed umbrella code SGL222
(`speculative-draft-requirements`) reported.

## Why is this bad?
SGLang stops while resolving the speculative arguments: `ValueError: UNO
requires --speculative-num-draft-tokens to be a positive integer denoting the
linear width or tree verify width Q.`

## Example
```sh
python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct --speculative-algorithm UNO --uno-lora-path /adapters/uno
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


class UnoWithoutNumDraftTokens(Rule):
    code = "SGL257"
    name = "uno-without-num-draft-tokens"
    severity = ERROR
    replaces = ("SGL222", "speculative-draft-requirements")

    VALID = [
        Valid.sh(f"{L} --speculative-algorithm UNO {UNO_OK}"),
    ]
    INVALID = [
        Invalid.sh(f"{L} --speculative-algorithm UNO --uno-lora-path /adapters/uno", at="UNO",
                   message="UNO requires --speculative-num-draft-tokens"),
    ]

    def check(self, launch):
        return report(self, launch, Check.UNO_DRAFT_TOKENS)
