"""DFLASH speculative decoding with attention data parallelism, which SGLang before 0.5.23 rejects.

## What it does
For `--speculative-algorithm DFLASH` on 0.5.11–0.5.22, finds attention data
parallelism (`--enable-dp-attention` with a `--dp-size` above 1, or
`--attn-dp-size` above 1). Launches on a non-CUDA `--device` are skipped.
(0.5.20–0.5.22 waive the check on NPU.) 0.5.23 accepts attention DP with
`--enable-dp-lm-head` (SGL248).

SGLang checks DFLASH's inputs in a fixed order and stops at the first failure;
this rule reports its check only when the earlier ones pass (or are not
judged). It is one of the checks the removed umbrella code SGL220
(`dflash-requirements`) reported.

## Why is this bad?
SGLang stops at start-up: `ValueError: Currently DFLASH speculative decoding
does not support dp attention.` (`... dp attention on non-NPU devices.` in
0.5.20–0.5.22).

## Example
```sh
# sgllint: sglang=0.5.22
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --speculative-algorithm DFLASH --speculative-draft-model-path z-lab/Qwen3-8B-DFlash-b16 --tp-size 2 --attn-dp-size 2
```

## Use instead
```sh
# sgllint: sglang=0.5.22
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --speculative-algorithm DFLASH --speculative-draft-model-path z-lab/Qwen3-8B-DFlash-b16 --tp-size 2
```

## References
- `sglang/srt/server_args.py` `ServerArgs._handle_speculative_decoding`
  (0.5.11–0.5.12) and `sglang/srt/arg_groups/speculative_hook.py`
  `_handle_dflash` (0.5.13–0.5.23); verified in the wheels 0.5.11, 0.5.12,
  0.5.13.post1, 0.5.14, 0.5.16–0.5.23.
  The check reads `enable_dp_attention` (≤0.5.21) / `attn_dp_enabled_of` (0.5.22+)
  and is waived on NPU from 0.5.20.
"""

from sgllint.model.rule import ERROR, Invalid, Rule, Valid
from sgllint.rules._speculative_inputs import Check, report

Q = "python -m sglang.launch_server --model-path Qwen/Qwen3-8B --speculative-algorithm DFLASH"
DRAFT = "--speculative-draft-model-path z-lab/Qwen3-8B-DFlash-b16"


class DflashAttentionDpUnsupported(Rule):
    code = "SGL247"
    name = "dflash-attention-dp-unsupported"
    severity = ERROR
    replaces = ("SGL220", "dflash-requirements")

    VALID = [
        Valid.sh(f"{Q} {DRAFT} --tp-size 2"),
        Valid.sh(f"{Q} {DRAFT} --tp-size 2 --dp-size 1 --enable-dp-attention", sglang="0.5.12"),
        Valid.sh(f"{Q} {DRAFT} --tp-size 2 --attn-dp-size 2 --enable-dp-lm-head"),
    ]
    INVALID = [
        Invalid.sh(f"{Q} {DRAFT} --tp-size 2 --dp-size 2 --enable-dp-attention", at="--enable-dp-attention", sglang="0.5.16",
                   message="does not support dp attention."),
        Invalid.sh(f"{Q} {DRAFT} --tp-size 2 --attn-dp-size 2", at="--attn-dp-size 2", sglang="0.5.22",
                   message="dp attention on non-NPU devices"),
    ]

    def check(self, launch):
        return report(self, launch, Check.DFLASH_ATTENTION_DP)
