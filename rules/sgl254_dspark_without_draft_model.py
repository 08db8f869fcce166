"""DSPARK speculative decoding without `--speculative-draft-model-path` for a target that bundles no DSpark head.

## What it does
For `--speculative-algorithm DSPARK` (0.5.16+), finds a launch without
`--speculative-draft-model-path` whose target checkpoint does not bundle its
DSpark head (`dspark_*` keys in its `config.json`) or, from 0.5.23, ship a
`dspark/` subfolder. sgllint knows that only from a local or cached
`config.json`; a DeepSeek-V4 target known only by name (the family that
bundles the head) and a model of unknown architecture are skipped. Launches on
a non-CUDA `--device` are skipped. (DSPARK also runs on NPU from 0.5.18 and
XPU from 0.5.23, with other conditions.)

SGLang checks the algorithm's inputs in a fixed order and stops at the first
failure; this rule reports its check only when the earlier ones pass. It is
one of the checks the removed umbrella code SGL222
(`speculative-draft-requirements`) reported.

## Why is this bad?
SGLang stops while resolving the speculative arguments, before loading the
model: `ValueError: DSpark dense speculative decoding requires setting
--speculative-draft-model-path.`

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
  0.5.19 :338–411, 0.5.20 :519–590, 0.5.21 :583–656, 0.5.23 :663–753; device:
  CUDA only 0.5.16–0.5.17, CUDA or NPU 0.5.18–0.5.22, CUDA, NPU or XPU 0.5.23.
  `DSpark dense speculative decoding requires setting` at 0.5.19 :407, 0.5.23 :752;
  the `dspark/` subfolder fallback `_target_checkpoint_dspark_subfolder` is new in
  0.5.23. Bundling: `speculative/dspark_components/dspark_config.py`
  `checkpoint_bundles_dspark_draft` (0.5.16–0.5.23).
"""

from sgllint.model.rule import ERROR, Invalid, Rule, Valid
from sgllint.rules._speculative_inputs import Check, report

Q = "python -m sglang.launch_server --model-path Qwen/Qwen3-8B"
DRAFT = "--speculative-draft-model-path z-lab/Qwen3-8B-DSpark"
L = "python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct"
DSPARK_DRAFT = "DSpark dense speculative decoding requires setting --speculative-draft-model-path."


class DsparkWithoutDraftModel(Rule):
    code = "SGL254"
    name = "dspark-without-draft-model"
    severity = ERROR
    replaces = ("SGL222", "speculative-draft-requirements")

    VALID = [
        Valid.sh(f"{Q} --speculative-algorithm DSPARK {DRAFT}"),
        Valid.sh("python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V4-Flash --tp-size 8 --speculative-algorithm DSPARK"),
        Valid.sh("python -m sglang.launch_server --model-path my-org/private-model --speculative-algorithm DSPARK"),
        Valid.sh(f"{Q} --speculative-algorithm DSPARK --speculative-draft-model-path $DRAFT"),
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
        return report(self, launch, Check.DSPARK_DRAFT_MODEL)
