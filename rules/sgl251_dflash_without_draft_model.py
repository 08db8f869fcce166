"""DFLASH speculative decoding without `--speculative-draft-model-path`.

## What it does
For `--speculative-algorithm DFLASH` (0.5.11+), finds a launch without
`--speculative-draft-model-path`: DFLASH never derives the draft from the
target model. Launches on a non-CUDA `--device` are skipped.

SGLang checks DFLASH's inputs in a fixed order and stops at the first failure;
this rule reports its check only when the earlier ones pass (or are not
judged). It is one of the checks the removed umbrella code SGL220
(`dflash-requirements`) reported.

## Why is this bad?
SGLang stops at start-up: `ValueError: DFLASH speculative decoding requires
setting --speculative-draft-model-path.`

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
  0.5.13.post1, 0.5.14, 0.5.16–0.5.23.
"""

from sgllint.model.rule import ERROR, Invalid, Rule, Valid
from sgllint.rules._speculative_inputs import Check, report

Q = "python -m sglang.launch_server --model-path Qwen/Qwen3-8B --speculative-algorithm DFLASH"
DRAFT = "--speculative-draft-model-path z-lab/Qwen3-8B-DFlash-b16"


class DflashWithoutDraftModel(Rule):
    code = "SGL251"
    name = "dflash-without-draft-model"
    severity = ERROR
    replaces = ("SGL220", "dflash-requirements")

    VALID = [
        Valid.sh(f"{Q} {DRAFT}"),
        Valid.sh(f"{Q} --speculative-draft-model-path $DRAFT"),
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
        Invalid.py(
            """
            import sglang as sgl
            llm = sgl.Engine(model_path="Qwen/Qwen3-8B", speculative_algorithm="DFLASH")
            """,
            at='"DFLASH"',
        ),
    ]

    def check(self, launch):
        return report(self, launch, Check.DFLASH_DRAFT_MODEL)
