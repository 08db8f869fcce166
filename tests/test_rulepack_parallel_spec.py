"""Table-driven checks of the parallel-topology and speculative-decoding rules
(SGL205-SGL218) across releases whose SGLang check differs."""

from __future__ import annotations

import pytest

from sgllint.model.rule import Example, find_rule
from sgllint.testing import lint_example

S = "python -m sglang.launch_server --model-path Qwen/Qwen2.5-72B-Instruct"
DS = "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp-size 8"
LL = "python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct"
ADDR = "--node-rank 0 --dist-init-addr 10.0.0.1:5000"
EAGLE = "--speculative-algorithm EAGLE --speculative-draft-model-path jamesliu1/sglang-EAGLE-Llama-3.1-Instruct-8B"

# (code, release, launch, expected message fragment or None for silence)
CASES = [
    # V01
    ("SGL205", "0.5.23", f"{S} --tp-size 6 --nnodes 4 {ADDR}", "tp_size must be divisible by number of nodes"),
    ("SGL205", "0.4.10", f"{S} --tp-size 3 --nnodes 2 {ADDR}", "not a multiple of --nnodes 2"),
    ("SGL205", "0.5.23", f"{S} --tp-size 2 --pp-size 2 --nnodes 4 {ADDR}", None),
    ("SGL205", "0.5.23", f"{S} --tp-size 3 --nnodes 2 --elastic-ep-join-mode scale {ADDR}", None),
    # V02: message and condition change at 0.5.22
    ("SGL206", "0.5.23", f"{S} --tp-size 8 --dp-size 4 --nnodes 2 {ADDR}", "multi-node data-parallel replicas are not supported"),
    ("SGL206", "0.5.22", f"{S} --tp-size 8 --dp-size 4 --nnodes 2 {ADDR}", "use attention DP (--attn-dp-size) across nodes"),
    ("SGL206", "0.5.21", f"{S} --tp-size 8 --dp-size 4 --nnodes 2 {ADDR}", "multi-node data parallel is not supported unless dp attention!"),
    ("SGL206", "0.5.21", f"{S} --tp-size 8 --dp-size 4 --enable-dp-attention --nnodes 2 {ADDR}", None),
    ("SGL206", "0.5.23", f"{S} --tp-size 8 --dp-size 4 --enable-dp-attention --nnodes 2 {ADDR}", None),
    ("SGL206", "0.4.0", f"{S} --tp-size 8 --dp-size 4 --nnodes 2 {ADDR}", None),
    # V03
    ("SGL207", "0.5.23", f"{DS} --attn-dp-size 3", "tp_size % attn_dp_size == 0"),
    ("SGL207", "0.5.23", f"{DS} --dp-size 3 --enable-dp-attention", "tp_size % attn_dp_size == 0"),
    ("SGL207", "0.5.21", f"{DS} --dp-size 3 --enable-dp-attention", "tp_size % dp_size == 0"),
    ("SGL207", "0.5.21", f"{DS} --dp-size 3", None),
    ("SGL207", "0.5.21", f"{DS} --dp-size 1 --enable-dp-attention", None),
    # V04 (0.5.22+ only)
    ("SGL208", "0.5.23", f"{DS} --dp-size 2 --attn-dp-size 4", "--dp-size 2 with --attn-dp-size 4"),
    ("SGL208", "0.5.22", f"{DS} --dp-size 2 --attn-dp-size 4 --enable-dp-attention", "are not supported"),
    ("SGL208", "0.5.23", f"{DS} --dp-size 2 --enable-dp-attention", None),
    ("SGL208", "0.5.21", f"{DS} --dp-size 2 --enable-dp-attention", None),
    # V05
    ("SGL209", "0.5.23", f"{DS} --dp-size 2 --enable-dp-lm-head", "--enable-dp-lm-head requires attention DP (--attn-dp-size)."),
    ("SGL209", "0.5.21", f"{DS} --dp-size 2 --enable-dp-lm-head", "Please enable dp attention when setting enable_dp_lm_head."),
    ("SGL209", "0.5.21", f"{DS} --enable-dp-lm-head", None),
    ("SGL209", "0.5.21", f"{DS} --dp-size 2 --enable-dp-attention --enable-dp-lm-head", None),
    ("SGL209", "0.4.8", f"{DS} --dp-size 2 --enable-dp-lm-head", None),
    # V06: tp_size allowed from 0.5.13
    ("SGL210", "0.5.12", f"{DS} --moe-dense-tp-size 8", "only support 1 and None currently"),
    ("SGL210", "0.5.13", f"{DS} --moe-dense-tp-size 8", None),
    ("SGL210", "0.5.13", f"{DS} --moe-dense-tp-size 2", "only supports None, 1, or tp_size currently"),
    ("SGL210", "0.5.23", f"{DS} --moe-dense-tp-size 1", None),
    # V09
    ("SGL211", "0.5.23", f"{DS} --nnodes 2 --node-rank 0", "without --dist-init-addr"),
    ("SGL211", "0.4.10", f"{DS} --nnodes 2 --node-rank 0", "hangs"),
    ("SGL211", "0.5.23", f"{DS} --nnodes 2 --node-rank 0 --dist-init-addr 10.0.0.1:5000", None),
    # V10: three eras
    ("SGL212", "0.5.10", f"{LL} --pp-size 2 --enable-mixed-chunk", "mixed chunked prefill."),
    ("SGL212", "0.5.12", f"{LL} --pp-size 2 --enable-mixed-chunk", None),
    ("SGL212", "0.5.18", f"{LL} --pp-size 2 --speculative-algorithm NGRAM", "overlap schedule, speculative decoding"),
    ("SGL212", "0.5.23", f"{LL} --pp-size 2 --speculative-algorithm NGRAM", "only supports EAGLE (non-multi-layer)"),
    ("SGL212", "0.5.23", f"{LL} --pp-size 2 {EAGLE}", "only supported on prefill nodes"),
    ("SGL212", "0.5.23", f"{LL} --pp-size 2 {EAGLE} --disaggregation-mode prefill", None),
    ("SGL212", "0.5.23", f"SGLANG_ENABLE_PP_SPEC=1 {LL} --pp-size 2 {EAGLE}", None),
    ("SGL212", "0.5.18", f"{LL} --pp-size 2 {EAGLE} --disaggregation-mode prefill", "speculative decoding"),
    # V12: three eras
    ("SGL213", "0.5.10", f"{DS} --enable-two-batch-overlap --enable-dp-attention --dp-size 8", "moe_a2a_backend cannot be 'none'."),
    ("SGL213", "0.5.15", f"{DS} --enable-two-batch-overlap --enable-dp-attention --dp-size 8", None),
    ("SGL213", "0.5.18", f"{DS} --enable-two-batch-overlap", "--enable-dp-attention is required"),
    ("SGL213", "0.5.23", f"{DS} --enable-two-batch-overlap", "attention DP (--attn-dp-size) is required"),
    ("SGL213", "0.5.23", f"{DS} --enable-two-batch-overlap --moe-a2a-backend deepep", None),
    ("SGL213", "0.5.6", f"{DS} --enable-two-batch-overlap", None),
    # V13: adaptive exemption from 0.5.14
    ("SGL214", "0.5.23", f"{LL} {EAGLE} --speculative-eagle-topk 4", "speculative_eagle_topk is None"),
    ("SGL214", "0.5.12", f"{LL} {EAGLE} --speculative-eagle-topk 4 --speculative-adaptive", "--speculative-num-steps"),
    ("SGL214", "0.5.14", f"{LL} {EAGLE} --speculative-eagle-topk 1 --speculative-adaptive", None),
    ("SGL214", "0.5.4", f"{LL} {EAGLE} --speculative-num-draft-tokens 8", "--speculative-num-draft-tokens"),
    ("SGL214", "0.5.23", f"{LL} --speculative-algorithm NGRAM --speculative-num-draft-tokens 8", None),
    # V16
    ("SGL215", "0.5.23", f"{DS} --attn-dp-size 8 --speculative-algorithm NGRAM", "Currently ngram speculative decoding does not support dp attention."),
    ("SGL215", "0.5.10", f"{DS} --enable-dp-attention --dp-size 8 --speculative-algorithm STANDALONE", "Currently standalone speculative decoding"),
    ("SGL215", "0.5.10", f"{DS} --enable-dp-attention --dp-size 1 --speculative-algorithm NGRAM", None),
    ("SGL215", "0.5.23", f"{DS} --attn-dp-size 8 --speculative-algorithm EAGLE", None),
    # V17
    ("SGL216", "0.5.23", f"{LL} --attention-backend flex_attention --speculative-algorithm NGRAM", "not supported with Flex Attention backend"),
    ("SGL216", "0.5.4", f"{LL} --attention-backend flex_attention --speculative-algorithm NGRAM", "not supported with Flex Attention backend"),
    ("SGL216", "0.5.23", f"{LL} --attention-backend flex_attention", None),
    # V18: free string from 0.5.12; DSPARK 0.5.16+, UNO 0.5.20+
    ("SGL217", "0.5.23", f"{LL} --speculative-algorithm MEDUSA", "Unknown speculative algorithm name: MEDUSA"),
    ("SGL217", "0.5.15", f"{LL} --speculative-algorithm DSPARK", "Unknown speculative algorithm name: DSPARK"),
    ("SGL217", "0.5.16", f"{LL} --speculative-algorithm dspark", None),
    ("SGL217", "0.5.19", f"{LL} --speculative-algorithm UNO", "UNO"),
    ("SGL217", "0.5.20", f"{LL} --speculative-algorithm UNO", None),
    ("SGL217", "0.5.11", f"{LL} --speculative-algorithm MEDUSA", None),  # SGL103's job
    ("SGL217", "0.5.23", f"{LL} --speculative-algorithm nextn", None),
    # V20: allow list widened in 0.5.19
    ("SGL218", "0.5.18", f"{LL} --enable-lora {EAGLE}", "Currently LoRA is only compatible with NGRAM speculative decoding."),
    ("SGL218", "0.5.19", f"{LL} --enable-lora {EAGLE}", None),
    ("SGL218", "0.5.23", f"{LL} --enable-lora --speculative-algorithm STANDALONE --speculative-draft-model-path x", "not STANDALONE."),
    ("SGL218", "0.5.23", f"{LL} --lora-paths a=/x --speculative-algorithm STANDALONE --speculative-draft-model-path x", "not STANDALONE."),
    ("SGL218", "0.5.4", f"{LL} --enable-lora {EAGLE}", None),
]


@pytest.mark.parametrize("code,release,launch,fragment", CASES, ids=[f"{c[0]}-{c[1]}-{i}" for i, c in enumerate(CASES)])
def test_rule_verdict_per_release(code, release, launch, fragment):
    rule = find_rule(code)
    diags = [d for d in lint_example(Example(code=launch, fmt="sh", sglang=release), rules=[rule]) if d.code in (code, "SGL999")]
    if fragment is None:
        assert diags == [], [d.message for d in diags]
    else:
        assert [d.code for d in diags] == [code], [(d.code, d.message) for d in diags]
        assert fragment in diags[0].message, diags[0].message
