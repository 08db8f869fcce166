"""Table-driven checks of the backend/combination rule pack (SGL230-SGL240,
SGL302-SGL304) across releases and GPUs where SGLang's behaviour differs.
Each case: (code, release, launch text, expected codes of that rule, message
fragment). Every launch is linted with *all* rules; only the rule's own code
is compared, plus a check that no rule of the pack fires where it should not."""

from __future__ import annotations

import pytest

from sgllint.engine.config import Config
from sgllint.engine.pipeline import Options, lint_source

PACK = {"SGL230", "SGL231", "SGL232", "SGL233", "SGL234", "SGL235", "SGL236", "SGL237", "SGL238", "SGL239", "SGL240",
        "SGL302", "SGL303", "SGL304"}
L = "python -m sglang.launch_server --model-path "
QWEN = L + "Qwen/Qwen3-8B"
DSV3 = L + "deepseek-ai/DeepSeek-V3 --tp-size 8"
SPEC = QWEN + (" --speculative-algorithm EAGLE3 --speculative-draft-model-path org/d --speculative-num-steps 3"
               " --speculative-num-draft-tokens 8")


def gpu(name: str, text: str) -> str:
    return f"# sgllint: gpu={name}\n{text}"


CASES = [
    # SGL230: hierarchical cache vs disabled radix cache (0.5.1+)
    ("SGL230", "0.5.23", QWEN + " --enable-hierarchical-cache --disable-radix-cache", 1, "mutually exclusive"),
    ("SGL230", "0.5.1", QWEN + " --enable-hierarchical-cache --disable-radix-cache", 1, "mutually exclusive"),
    ("SGL230", "0.4.10", QWEN + " --enable-hierarchical-cache --disable-radix-cache", 0, None),
    ("SGL230", "0.5.23", QWEN + " --enable-lmcache --enable-hierarchical-cache", 1, "--enable-lmcache and --enable-hierarchical-cache"),
    ("SGL230", "0.5.23", QWEN + " --enable-lmcache --disable-radix-cache", 1, "requires radix cache"),
    # SGL231: chunked prefill vs effective page size
    ("SGL231", "0.5.23", QWEN + " --page-size 48 --chunked-prefill-size 4000", 1, "page size 48"),
    ("SGL231", "0.4.10", QWEN + " --page-size 48 --chunked-prefill-size 4000", 1, "divisible by page_size"),
    ("SGL231", "0.5.23", gpu("H100", DSV3 + " --attention-backend flashmla --chunked-prefill-size 1000"), 1, "FlashMLA"),
    ("SGL231", "0.5.23", gpu("H100", DSV3 + " --attention-backend flashmla --chunked-prefill-size 1024"), 0, None),
    ("SGL231", "0.5.19", gpu("H100", DSV3 + " --attention-backend cutlass_mla --chunked-prefill-size 1024 --page-size 64"), 0, None),
    ("SGL231", "0.5.19", gpu("H100", DSV3 + " --attention-backend cutlass_mla --chunked-prefill-size 1088 --page-size 64"), 1, "Cutlass MLA"),
    ("SGL231", "0.5.16", gpu("B200", QWEN + " --attention-backend trtllm_mha --page-size 128 --chunked-prefill-size 8256"), 0, None),
    ("SGL231", "0.5.17", gpu("B200", QWEN + " --attention-backend trtllm_mha --page-size 128 --chunked-prefill-size 8256"), 1, "page size 128"),
    # unknown architecture: DSA models would use 64; 96 % 64 != 0 but 96 % 32 == 0 -> silent
    ("SGL231", "0.5.23", L + "/models/private --page-size 32 --chunked-prefill-size 96", 0, None),
    ("SGL231", "0.5.23", L + "/models/private --page-size 32 --chunked-prefill-size 100", 1, "every page size"),
    ("SGL231", "0.5.23", QWEN + " --page-size 48 --chunked-prefill-size 4000 --enable-dp-attention --dp-size 2 --tp-size 2", 0, None),
    # SGL232 / SGL233: LoRA
    ("SGL232", "0.5.23", QWEN + " --enable-lora --max-lora-rank 8", 1, "--lora-target-modules"),
    ("SGL232", "0.4.10", QWEN + " --enable-lora", 1, "--max-lora-rank and --lora-target-modules"),
    ("SGL232", "0.5.23", QWEN + " --enable-lora --lora-paths a=x/y", 0, None),
    ("SGL233", "0.5.23", QWEN + " --lora-paths a=x/y --max-loaded-loras 4", 1, "max_loras_per_batch=8"),
    ("SGL233", "0.5.23", QWEN + " --max-loaded-loras 4", 0, None),
    ("SGL233", "0.5.10", QWEN + " --lora-paths a=x/a b=x/b c=x/c --max-loaded-loras 2 --max-loras-per-batch 1", 1, "lora_paths=3"),
    # SGL234: fake transfer backend on prefill (0.5.10+)
    ("SGL234", "0.5.23", QWEN + " --disaggregation-mode prefill --disaggregation-transfer-backend fake", 1, "'fake'"),
    ("SGL234", "0.5.10", QWEN + " --disaggregation-mode prefill --disaggregation-transfer-backend fake", 1, "'fake'"),
    ("SGL234", "0.5.23", QWEN + " --disaggregation-mode decode --disaggregation-transfer-backend fake", 0, None),
    # SGL235: encoder disaggregation (0.5.7+)
    ("SGL235", "0.5.7", QWEN + " --encoder-only --language-only", 1, "--language-only together"),
    ("SGL235", "0.5.23", QWEN + " --encoder-only --disaggregation-mode decode", 1, "prefill/decode together"),
    # SGL236: priority scheduling (0.5.3+)
    ("SGL236", "0.5.3", QWEN + " --enable-priority-scheduling --schedule-policy lpm", 1, "'lpm' is not supported"),
    ("SGL236", "0.5.23", QWEN + " --enable-priority-scheduling --schedule-policy lof", 0, None),
    # SGL237: colon in the served name (0.5.5+, run:ai URIs exempt from 0.5.10)
    ("SGL237", "0.5.5", QWEN + " --served-model-name a:b", 1, "Invalid value: 'a:b'"),
    ("SGL237", "0.5.4", QWEN + " --served-model-name a:b", 0, None),
    ("SGL237", "0.5.9", QWEN + " --served-model-name s3://b/m", 1, "s3://b/m"),
    ("SGL237", "0.5.10", QWEN + " --served-model-name s3://b/m", 0, None),
    # SGL238: grpc port (0.5.16+)
    ("SGL238", "0.5.16", QWEN + " --grpc-port 30000", 1, "(30000) must differ from --port (30000)"),
    ("SGL238", "0.5.23", QWEN + " --grpc-port 30000 --smg-grpc-mode", 0, None),
    # SGL239: torch.compile vs padding (0.5.12+)
    ("SGL239", "0.5.12", QWEN + " --enable-torch-compile --disable-cuda-graph-padding", 1, "incompatible"),
    ("SGL239", "0.5.11", QWEN + " --enable-torch-compile --disable-cuda-graph-padding", 0, None),
    # SGL240: trtllm_mha + eagle topk > 1
    ("SGL240", "0.5.23", gpu("B200", SPEC + " --attention-backend trtllm_mha --speculative-eagle-topk 4"), 1, "topk = 1"),
    ("SGL240", "0.5.1", gpu("B200", SPEC + " --attention-backend trtllm_mha --speculative-eagle-topk 4"), 1, "topk = 1"),
    # the draft backend is not read: 0.5.23 speculative_hook.py:1176 `attention_backends_of` = (prefill, decode)
    ("SGL240", "0.5.23", gpu("B200", SPEC + " --speculative-draft-attention-backend trtllm_mha --speculative-eagle-topk 4"), 0, None),
    ("SGL240", "0.5.23", gpu("B200", SPEC.replace("EAGLE3", "STANDALONE") + " --attention-backend trtllm_mha --speculative-eagle-topk 4"),
     1, "topk = 1"),
    ("SGL240", "0.5.1", gpu("B200", SPEC.replace("EAGLE3", "STANDALONE") + " --attention-backend trtllm_mha --speculative-eagle-topk 4"),
     0, None),
    ("SGL240", "0.5.22", gpu("B200", SPEC + " --speculative-draft-attention-backend trtllm_mha --speculative-eagle-topk 4"), 0, None),
    # SGL302: trtllm_mla GPU sets per release
    ("SGL302", "0.5.3", gpu("RTXPRO6000", DSV3 + " --attention-backend trtllm_mla"), 1, "(SM100)"),
    ("SGL302", "0.5.4", gpu("RTXPRO6000", DSV3 + " --attention-backend trtllm_mla"), 0, None),
    ("SGL302", "0.5.8", gpu("SM110", DSV3 + " --attention-backend trtllm_mla"), 1, "SM10x/SM12x"),
    ("SGL302", "0.5.9", gpu("SM110", DSV3 + " --attention-backend trtllm_mla"), 0, None),
    ("SGL302", "0.5.23", gpu("H100", DSV3 + " --attention-backend trtllm_mla"), 1, "SM100/SM12x"),
    ("SGL302", "0.5.23", DSV3 + " --attention-backend trtllm_mla", 0, None),
    # SGL303: trtllm_mha per phase
    ("SGL303", "0.5.9", gpu("H100", QWEN + " --decode-attention-backend trtllm_mha"), 1, "Please use a different backend."),
    ("SGL303", "0.5.10", gpu("H100", QWEN + " --decode-attention-backend trtllm_mha"), 0, None),
    ("SGL303", "0.5.18", gpu("H100", QWEN + " --attention-backend trtllm_mha"), 1, "for prefill is only supported on Blackwell"),
    ("SGL303", "0.5.19", gpu("H100", QWEN + " --attention-backend trtllm_mha"), 0, None),
    ("SGL303", "0.5.23", gpu("A100", QWEN + " --prefill-attention-backend fa3 --decode-attention-backend trtllm_mha"), 1, "for decode"),
    # SGL304: fa3
    ("SGL304", "0.5.23", gpu("B200", QWEN + " --attention-backend fa3"), 1, "SM>=80 and SM<=90"),
    ("SGL304", "0.5.23", gpu("A100", L + "deepseek-ai/DeepSeek-V2-Lite --attention-backend fa3"), 1, "MLA"),
    ("SGL304", "0.5.23", gpu("A100", QWEN + " --attention-backend fa3"), 0, None),
    ("SGL304", "0.5.23", gpu("B200", QWEN + " --attention-backend fa3 --kv-cache-dtype fp8_e5m2"), 0, None),
    ("SGL304", "0.5.4", gpu("B200", QWEN + " --attention-backend fa3 --kv-cache-dtype fp8_e5m2"), 1, "SM>=80"),
]


def _lint(version: str, text: str):
    options = Options(config=Config(), sglang_version=version, use_environment=False)
    return lint_source("serve.sh", text + "\n", options).diagnostics


@pytest.mark.parametrize("code,version,text,count,fragment", CASES,
                         ids=[f"{c[0]}-{c[1]}-{i}" for i, c in enumerate(CASES)])
def test_rulepack_case(code, version, text, count, fragment):
    diags = _lint(version, text)
    mine = [d for d in diags if d.code == code]
    assert len(mine) == count, [(d.code, d.message) for d in diags]
    if fragment is not None:
        assert any(fragment in d.message or fragment in d.help for d in mine), [d.message for d in mine]
    assert not [d for d in diags if d.code == "SGL999"], [d.message for d in diags if d.code == "SGL999"]


def test_pack_rules_are_registered():
    from sgllint.model.rule import builtin_rules

    assert PACK <= {r.code for r in builtin_rules()}
