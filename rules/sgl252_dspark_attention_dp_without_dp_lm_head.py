"""DSPARK speculative decoding with attention data parallelism but without `--enable-dp-lm-head`.

## What it does
For `--speculative-algorithm DSPARK` (0.5.16+), finds attention data
parallelism without `--enable-dp-lm-head`. Launches on a non-CUDA `--device`
are skipped. Skipped under `--dwdp-size` above 1 (0.5.23: DWDP switches
`--enable-dp-lm-head` on itself).

SGLang checks the algorithm's inputs in a fixed order and stops at the first
failure; this rule reports its check only when the earlier ones pass. It is
one of the checks the removed umbrella code SGL222
(`speculative-draft-requirements`) reported.

## Why is this bad?
SGLang stops while resolving the speculative arguments: `ValueError: DSpark
with dp attention requires --enable-dp-lm-head.`

## Example
```sh
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --speculative-algorithm DSPARK --speculative-draft-model-path z-lab/Qwen3-8B-DSpark --tp-size 2 --attn-dp-size 2
```

## Use instead
```sh
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --speculative-algorithm DSPARK --speculative-draft-model-path z-lab/Qwen3-8B-DSpark --tp-size 2 --attn-dp-size 2 --enable-dp-lm-head
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


class DsparkAttentionDpWithoutDpLmHead(Rule):
    code = "SGL252"
    name = "dspark-attention-dp-without-dp-lm-head"
    severity = ERROR
    replaces = ("SGL222", "speculative-draft-requirements")

    VALID = [
        Valid.sh(f"{Q} --speculative-algorithm DSPARK {DRAFT} --tp-size 2 --attn-dp-size 2 --enable-dp-lm-head"),
    ]
    INVALID = [
        Invalid.sh(f"{Q} --speculative-algorithm dspark --tp-size 2 --dp-size 2 --enable-dp-attention {DRAFT}",
                   at="--enable-dp-attention", sglang="0.5.19", message="DSpark with dp attention requires --enable-dp-lm-head."),
    ]

    def check(self, launch):
        return report(self, launch, Check.DSPARK_DP_LM_HEAD)
