"""DFLASH speculative decoding with attention data parallelism but without `--enable-dp-lm-head`.

## What it does
For `--speculative-algorithm DFLASH` on 0.5.23+, finds attention data
parallelism without `--enable-dp-lm-head`. Launches on a non-CUDA `--device`
are skipped. Skipped under `--dwdp-size` above 1 (DWDP switches
`--enable-dp-lm-head` on itself) and when the launch sets
`SGLANG_ENABLE_DP_SPEC_PREFILL_COORDINATION`.

SGLang checks DFLASH's inputs in a fixed order and stops at the first failure;
this rule reports its check only when the earlier ones pass (or are not
judged). It is one of the checks the removed umbrella code SGL220
(`dflash-requirements`) reported.

## Why is this bad?
SGLang stops at start-up: `ValueError: DFLASH with dp attention requires
--enable-dp-lm-head.`

## Example
```sh
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --speculative-algorithm DFLASH --speculative-draft-model-path z-lab/Qwen3-8B-DFlash-b16 --tp-size 2 --attn-dp-size 2
```

## Use instead
```sh
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --speculative-algorithm DFLASH --speculative-draft-model-path z-lab/Qwen3-8B-DFlash-b16 --tp-size 2 --attn-dp-size 2 --enable-dp-lm-head
```

## References
- `sglang/srt/server_args.py` `ServerArgs._handle_speculative_decoding`
  (0.5.11–0.5.12) and `sglang/srt/arg_groups/speculative_hook.py`
  `_handle_dflash` (0.5.13–0.5.23); verified in the wheels 0.5.11, 0.5.12,
  0.5.13.post1, 0.5.14, 0.5.16–0.5.23.
  0.5.23 `speculative_hook.py:303–317`; DWDP forces `enable_dp_lm_head=True`
  (`arg_groups/parallel_hook.py` `handle_dwdp`, 0.5.23).
"""

from sgllint.model.rule import ERROR, Invalid, Rule, Valid
from sgllint.rules._speculative_inputs import Check, report

Q = "python -m sglang.launch_server --model-path Qwen/Qwen3-8B --speculative-algorithm DFLASH"
DRAFT = "--speculative-draft-model-path z-lab/Qwen3-8B-DFlash-b16"


class DflashAttentionDpWithoutDpLmHead(Rule):
    code = "SGL248"
    name = "dflash-attention-dp-without-dp-lm-head"
    severity = ERROR
    replaces = ("SGL220", "dflash-requirements")

    VALID = [
        Valid.sh(f"{Q} {DRAFT} --tp-size 2 --attn-dp-size 2 --enable-dp-lm-head"),
        Valid.sh(f"{Q} {DRAFT} --tp-size 2"),
    ]
    INVALID = [
        Invalid.sh(f"{Q} {DRAFT} --tp-size 2 --attn-dp-size 2", at="--attn-dp-size 2", sglang="0.5.23",
                   message="DFLASH with dp attention requires --enable-dp-lm-head."),
        Invalid.py(
            """
            import sglang as sgl
            llm = sgl.Engine(model_path="Qwen/Qwen3-8B", speculative_algorithm="DFLASH",
                             speculative_draft_model_path="z-lab/Qwen3-8B-DFlash-b16", tp_size=2, attn_dp_size=2)
            """,
            at="attn_dp_size=2",
            sglang="0.5.23",
            message="requires --enable-dp-lm-head",
        ),
    ]

    def check(self, launch):
        return report(self, launch, Check.DFLASH_DP_LM_HEAD)
