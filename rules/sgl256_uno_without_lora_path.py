"""UNO speculative decoding without `--uno-lora-path`.

## What it does
For `--speculative-algorithm UNO` (0.5.20+), finds a launch without
`--uno-lora-path`, the draft LoRA adapter UNO drafts with. Launches on a
non-CUDA `--device` are skipped.

SGLang checks the algorithm's inputs in a fixed order and stops at the first
failure; this rule reports its check only when the earlier ones pass. It is
one of the checks the removed umbrella code SGL222
(`speculative-draft-requirements`) reported.

## Why is this bad?
SGLang stops while resolving the speculative arguments: `ValueError: UNO
requires --uno-lora-path.`

## Example
```sh
python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct --speculative-algorithm UNO
```

## Use instead
```sh
python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct --speculative-algorithm UNO --uno-lora-path /adapters/uno --speculative-num-draft-tokens 4
```

## References
- `sglang/srt/arg_groups/speculative_hook.py` `_handle_uno`: 0.5.20 :346–476,
  identical checks through 0.5.23 :449–579. Verified in the wheels 0.5.20–0.5.23.
  (`UNO requires --uno-lora-path.` at 0.5.20 :357, 0.5.23 :460).
"""

from sgllint.model.rule import ERROR, Invalid, Rule, Valid
from sgllint.rules._speculative_inputs import Check, report

L = "python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct"
UNO_OK = "--uno-lora-path /adapters/uno --speculative-num-draft-tokens 4"


class UnoWithoutLoraPath(Rule):
    code = "SGL256"
    name = "uno-without-lora-path"
    severity = ERROR
    replaces = ("SGL222", "speculative-draft-requirements")

    VALID = [
        Valid.sh(f"{L} --speculative-algorithm UNO {UNO_OK}"),
        Valid.py(
            """
            import sglang as sgl
            llm = sgl.Engine(model_path="meta-llama/Llama-3.1-8B-Instruct", speculative_algorithm="UNO",
                             uno_lora_path="/adapters/uno", speculative_num_draft_tokens=4)
            """
        ),
    ]
    INVALID = [
        Invalid.sh(f"{L} --speculative-algorithm UNO", at="UNO", message="UNO requires --uno-lora-path."),
        Invalid.py(
            """
            import sglang as sgl
            llm = sgl.Engine(model_path="meta-llama/Llama-3.1-8B-Instruct", speculative_algorithm="UNO")
            """,
            at='"UNO"',
            message="UNO requires --uno-lora-path.",
        ),
    ]

    def check(self, launch):
        return report(self, launch, Check.UNO_LORA_PATH)
