"""The model-facts registry: its checked-in verifier, its published figures,
and how modelinfo reads it and a local config.json."""

from __future__ import annotations

import json

import pytest

from sgllint.catalog import _gen_model_facts as gen
from sgllint.resolve import modelinfo


def test_registry_is_consistent_offline():
    data = json.loads(gen.OUTPUT.read_text(encoding="utf-8"))
    assert gen.check(data) == []
    assert gen.main(["--check", "--offline"]) == 0


def test_verifier_catches_a_tampered_entry():
    data = json.loads(gen.OUTPUT.read_text(encoding="utf-8"))
    entry = data["models"]["meta-llama/Meta-Llama-3.1-8B-Instruct"]
    entry["parameters"] += 1
    entry["num_attention_heads"] = 33
    entry["source"]["commit"] = "main"
    problems = gen.check(data)
    assert any("parameters" in p for p in problems)
    assert any("num_attention_heads" in p for p in problems)
    assert any("not pinned" in p for p in problems)


@pytest.mark.parametrize(
    "model,billions",
    [
        # the sizes the model cards publish, from the parameter formula over the derived dimensions
        ("meta-llama/Meta-Llama-3.1-8B-Instruct", 8.03),
        ("meta-llama/Meta-Llama-3.1-70B-Instruct", 70.55),
        ("meta-llama/Meta-Llama-3.1-405B-Instruct", 405.85),
        ("deepseek-ai/DeepSeek-V3", 671.03),
    ],
)
def test_parameter_counts_match_the_model_cards(model, billions):
    data = json.loads(gen.OUTPUT.read_text(encoding="utf-8"))
    assert round(data["models"][model]["parameters"] / 1e9, 2) == billions


@pytest.mark.parametrize(
    "model,billions,unit",
    [
        # the totals the model cards publish, to their last digit (`unit`, rounded or truncated):
        # one per parameter formula
        ("Qwen/Qwen2.5-7B", 7.61, 0.01),  # dense GQA with q/k/v biases
        ("Qwen/Qwen2.5-72B", 72.7, 0.1),
        ("Qwen/Qwen3-4B", 4.0, 0.1),  # q/k norm, tied embeddings
        ("Qwen/Qwen3-30B-A3B", 30.5, 0.1),  # Qwen MoE
        ("mistralai/Mistral-7B-v0.1", 7.24, 0.01),
        ("mistralai/Mixtral-8x7B-v0.1", 46.7, 0.1),  # Mixtral MoE
        ("openai/gpt-oss-120b", 116.83, 0.01),  # MoE with expert/router biases and attention sinks
        ("openai/gpt-oss-20b", 20.91, 0.01),
        ("moonshotai/Kimi-K2-Instruct", 1030, 10),  # MLA: "1T" on the card, 1.03T in the checkpoint
        ("google/gemma-3-1b-it", 1.0, 0.1),  # four norms per layer, q/k norm, tied embeddings
        ("deepseek-ai/DeepSeek-V3.2-Exp", 671, 1),  # the card's 685B includes the 14B MTP module
        ("zai-org/GLM-4.5-Air", 106, 1),  # dense-then-MoE with a shared expert (slime's Megatron args)
        ("MiniMaxAI/MiniMax-M2", 229, 1),  # q/k norm over all heads
        ("Qwen/Qwen3-235B-A22B", 235, 1),
        ("Qwen/Qwen3-32B", 32.8, 0.1),
        ("Qwen/Qwen3-0.6B", 0.6, 0.1),
        ("meta-llama/Llama-3.2-1B-Instruct", 1.23, 0.01),  # tied embeddings
        ("google/gemma-3-27b-it", 27.0, 0.1),  # language model (the card's 27B; 27.4B with SigLIP)
    ],
)
def test_parameter_counts_of_the_other_families(model, billions, unit):
    data = json.loads(gen.OUTPUT.read_text(encoding="utf-8"))
    assert billions - unit / 2 <= data["models"][model]["parameters"] / 1e9 < billions + unit


@pytest.mark.parametrize(
    "model,arch,heads,kv,context,dtype",
    [
        ("Qwen/Qwen2.5-VL-7B-Instruct", "Qwen2_5_VLForConditionalGeneration", 28, 4, 128000, "bfloat16"),
        ("Qwen/Qwen3-VL-235B-A22B-Instruct", "Qwen3VLMoeForConditionalGeneration", 64, 4, 262144, "bfloat16"),
        ("openai/gpt-oss-120b", "GptOssForCausalLM", 64, 8, 131072, "mxfp4"),  # yarn with original_max: x1
        ("moonshotai/Kimi-K2-Instruct", "DeepseekV3ForCausalLM", 64, 1, 131072, "fp8"),  # MLA: one KV head
        ("Qwen/Qwen3-8B-FP8", "Qwen3ForCausalLM", 32, 8, 40960, "fp8"),
        ("deepseek-ai/DeepSeek-V3.2-Exp", "DeepseekV32ForCausalLM", 128, 1, None, "fp8"),
    ],
)
def test_registry_facts_of_the_other_families(model, arch, heads, kv, context, dtype):
    facts = modelinfo.registry_facts(model)
    assert (facts.architecture, facts.num_attention_heads, facts.num_key_value_heads, facts.context_length,
            facts.dtype) == (arch, heads, kv, context, dtype)


def test_multimodal_entries_say_what_their_count_covers():
    data = json.loads(gen.OUTPUT.read_text(encoding="utf-8"))["models"]
    assert "vision encoder is not counted" in data["Qwen/Qwen3-VL-2B-Instruct"]["parameters_cover"]
    assert "parameters_cover" not in data["Qwen/Qwen3-4B"]


def test_verifier_recomputes_the_new_formulas():
    data = json.loads(gen.OUTPUT.read_text(encoding="utf-8"))
    for model, key in (("openai/gpt-oss-20b", "num_experts"), ("deepseek-ai/DeepSeek-V3.2-Exp", "index_n_heads"),
                       ("Qwen/Qwen2.5-7B", "intermediate_size")):
        data["models"][model]["dims"][key] += 1
    problems = gen.check(data)
    assert len([p for p in problems if "parameters" in p]) == 3


def test_every_entry_cites_a_pinned_source():
    data = json.loads(gen.OUTPUT.read_text(encoding="utf-8"))
    for model, e in data["models"].items():
        assert len(e["source"]["commit"]) == 40, model
        assert e["source"]["url"].startswith(f"https://github.com/{e['source']['repo']}/blob/{e['source']['commit']}/")


@pytest.mark.parametrize(
    "name,arch,heads,context",
    [
        ("meta-llama/Llama-3.1-70B-Instruct", "LlamaForCausalLM", 64, 131072),  # HF's renamed id
        ("meta-llama/Meta-Llama-3-8B-Instruct", "LlamaForCausalLM", 32, 8192),
        ("/models/DeepSeek-V3/", "DeepseekV3ForCausalLM", 128, None),  # a local path ending in the name
        ("unsloth/DeepSeek-V3", "DeepseekV3ForCausalLM", 128, None),  # a mirror org
    ],
)
def test_registry_lookup(name, arch, heads, context):
    facts = modelinfo.registry_facts(name)
    assert (facts.architecture, facts.num_attention_heads, facts.context_length) == (arch, heads, context)


def test_unknown_model_has_no_facts():
    assert modelinfo.registry_facts("my-org/my-finetune") is None


# config.json shapes as the Hub repositories publish them (fields trimmed to what SGLang reads)
QWEN3_8B_SHAPE = {
    "architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "hidden_size": 4096, "intermediate_size": 12288,
    "num_hidden_layers": 36, "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128,
    "max_position_embeddings": 40960, "rope_scaling": None, "tie_word_embeddings": False, "torch_dtype": "bfloat16",
    "vocab_size": 151936,
}


def test_local_config_facts():
    facts = modelinfo.facts_of_config(QWEN3_8B_SHAPE, "config.json")
    assert (facts.num_attention_heads, facts.num_key_value_heads, facts.context_length) == (32, 8, 40960)
    assert round(facts.parameters / 1e9, 2) == 8.19  # Qwen3-8B's card: 8.2B
    assert facts.weight_bytes == facts.parameters * 2


@pytest.mark.parametrize(
    "rope,expected",
    [
        ({"rope_type": "yarn", "factor": 4.0}, 163840),  # scaled: factor × max_position_embeddings
        ({"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768}, 40960),
        ({"rope_type": "llama3", "factor": 8.0}, 40960),
        (None, 40960),
    ],
)
def test_context_length_as_sglang_derives_it(rope, expected):
    assert modelinfo.derived_context_length(dict(QWEN3_8B_SHAPE, rope_scaling=rope)) == expected


def test_quantized_config_counts_its_quantized_bytes():
    cfg = dict(QWEN3_8B_SHAPE, quantization_config={"quant_method": "fp8", "fmt": "e4m3"})
    assert modelinfo.facts_of_config(cfg, "config.json").dtype == "fp8"
    cfg = dict(QWEN3_8B_SHAPE, quantization_config={"quant_method": "awq", "bits": 4})
    assert modelinfo.facts_of_config(cfg, "config.json").weight_bytes is None  # unknown format: no estimate


def test_unknown_shape_has_no_parameter_count():
    cfg = dict(QWEN3_8B_SHAPE, model_type="some_hybrid")
    assert modelinfo.facts_of_config(cfg, "config.json").parameters is None


# the shape of openai/gpt-oss-20b's config.json (fields trimmed to what the formulas read)
GPT_OSS_20B_SHAPE = {
    "architectures": ["GptOssForCausalLM"], "model_type": "gpt_oss", "hidden_size": 2880, "intermediate_size": 2880,
    "num_hidden_layers": 24, "num_attention_heads": 64, "num_key_value_heads": 8, "head_dim": 64,
    "num_local_experts": 32, "vocab_size": 201088, "max_position_embeddings": 131072, "tie_word_embeddings": False,
    "rope_scaling": {"rope_type": "yarn", "factor": 32.0, "original_max_position_embeddings": 4096},
    "quantization_config": {"quant_method": "mxfp4"}, "torch_dtype": "bfloat16",
}


def test_local_config_uses_the_registry_formulas():
    facts = modelinfo.facts_of_config(GPT_OSS_20B_SHAPE, "config.json")
    assert (facts.num_attention_heads, facts.num_key_value_heads, facts.context_length, facts.dtype) == (
        64, 8, 131072, "mxfp4")
    assert round(facts.parameters / 1e9, 2) == 20.91  # the model card's 20.91B
    assert facts.weight_bytes == facts.parameters * 0.5


def test_local_multimodal_config_counts_its_language_model():
    wrapped = {"architectures": ["Qwen3VLForConditionalGeneration"], "model_type": "qwen3_vl",
               "tie_word_embeddings": False, "vision_config": {"depth": 27},
               "text_config": dict(QWEN3_8B_SHAPE, model_type="qwen3_vl_text", architectures=None)}
    facts = modelinfo.facts_of_config(wrapped, "config.json")
    assert facts.num_attention_heads == 32 and facts.context_length == 40960
    assert facts.parameters == modelinfo.facts_of_config(QWEN3_8B_SHAPE, "config.json").parameters


def test_local_mla_config_has_one_kv_head():
    kimi_like = {"architectures": ["DeepseekV3ForCausalLM"], "model_type": "kimi_k2", "hidden_size": 7168,
                 "intermediate_size": 18432, "moe_intermediate_size": 2048, "num_hidden_layers": 61,
                 "num_attention_heads": 64, "num_key_value_heads": 64, "n_routed_experts": 384, "n_shared_experts": 1,
                 "first_k_dense_replace": 1, "q_lora_rank": 1536, "kv_lora_rank": 512, "qk_nope_head_dim": 128,
                 "qk_rope_head_dim": 64, "v_head_dim": 128, "topk_method": "noaux_tc", "vocab_size": 163840,
                 "max_position_embeddings": 131072, "quantization_config": {"quant_method": "fp8"}}
    facts = modelinfo.facts_of_config(kimi_like, "config.json")
    assert facts.num_key_value_heads == 1
    assert facts.parameters == modelinfo.registry_facts("moonshotai/Kimi-K2-Instruct").parameters


def test_incomplete_local_config_has_no_parameter_count():
    cfg = {k: v for k, v in GPT_OSS_20B_SHAPE.items() if k != "num_local_experts"}
    assert modelinfo.facts_of_config(cfg, "config.json").parameters is None


SLIME_STYLE_SCRIPT = """
N_DENSE=2
N_MOE=${LAYERS_OVERRIDE:-4}
MODEL_ARGS=(
   --num-layers $((N_DENSE + N_MOE))
   --hidden-size 64 --ffn-hidden-size 256
   --num-attention-heads 8
   --group-query-attention
   --num-query-groups 2
   --kv-channels 16
   --vocab-size 1000
   --untie-embeddings-and-output-weights
   --add-qkv-bias  # comment
   # moe
   --num-experts 4
   --moe-ffn-hidden-size 32
   --moe-shared-expert-intermediate-size 32
   --moe-router-enable-expert-bias
   --moe-layer-freq [0]*$N_DENSE+[1]*$N_MOE
)
"""


def test_megatron_args_of_a_slime_style_script():
    raw = gen.from_megatron_args(SLIME_STYLE_SCRIPT, {"models": ["m"], "architecture": "A", "path": "x.sh"})["m"]
    d = raw["dims"]
    assert (raw["family"], raw["dtype"], d["num_hidden_layers"], d["num_key_value_heads"], d["head_dim"]) == (
        "moe", None, 6, 2, 16)
    assert (d["first_k_dense_replace"], d["shared_expert_intermediate_size"], d["qkv_bias"], d["router_bias"]) == (
        2, 32, True, True)
    assert "tie_word_embeddings" not in d
    attn = 64 * 8 * 16 * 2 + 64 * 2 * 16 * 2 + 8 * 16 + 2 * 2 * 16
    moe = 4 * 3 * 64 * 32 + 64 * 4 + 4 + 3 * 64 * 32
    expected = 2 * 1000 * 64 + 6 * (attn + 2 * 64) + 2 * 3 * 64 * 256 + 4 * moe + 64
    assert gen.PARAMS["moe"](d) == expected


def test_entries_without_a_dtype_give_no_weight_estimate():
    facts = modelinfo.registry_facts("zai-org/GLM-4.5")
    assert (facts.architecture, facts.num_attention_heads, facts.num_key_value_heads) == ("Glm4MoeForCausalLM", 96, 8)
    assert facts.dtype is None and facts.weight_bytes is None and facts.context_length is None


def _hub_shaped(model: str, **keys) -> dict:
    """A config.json in the Hub's key names, its dimensions taken from a
    registry entry derived from another format (so both readings must agree)."""
    e = json.loads(gen.OUTPUT.read_text(encoding="utf-8"))["models"][model]
    d = e["dims"]
    base = {"architectures": [e["architecture"]], "hidden_size": d["hidden_size"],
            "num_hidden_layers": d["num_hidden_layers"], "num_attention_heads": d["num_attention_heads"],
            "num_key_value_heads": d["num_key_value_heads"], "head_dim": d["head_dim"],
            "intermediate_size": d["intermediate_size"], "vocab_size": d["vocab_size"],
            "tie_word_embeddings": bool(d.get("tie_word_embeddings")), "torch_dtype": "bfloat16",
            "max_position_embeddings": 131072}
    return dict(base, **keys), e["parameters"]


@pytest.mark.parametrize(
    "model,keys",
    [
        ("zai-org/GLM-4.5-Air", {"model_type": "glm4_moe", "n_routed_experts": 128, "n_shared_experts": 1,
                                 "moe_intermediate_size": 1408, "first_k_dense_replace": 1,
                                 "attention_bias": True, "use_qk_norm": False}),
        ("zai-org/GLM-4.5", {"model_type": "glm4_moe", "n_routed_experts": 160, "n_shared_experts": 1,
                             "moe_intermediate_size": 1536, "first_k_dense_replace": 3,
                             "attention_bias": True, "use_qk_norm": True}),
        ("MiniMaxAI/MiniMax-M2", {"model_type": "minimax_m2", "num_local_experts": 256, "use_routing_bias": True,
                                  "use_qk_norm": True, "qk_norm_type": "per_layer"}),
        ("deepseek-ai/DeepSeek-V3.2-Exp", {"model_type": "deepseek_v32", "n_routed_experts": 256, "n_shared_experts": 1,
                                           "moe_intermediate_size": 2048, "first_k_dense_replace": 3,
                                           "q_lora_rank": 1536, "kv_lora_rank": 512, "qk_nope_head_dim": 128,
                                           "qk_rope_head_dim": 64, "v_head_dim": 128, "topk_method": "noaux_tc",
                                           "index_n_heads": 64, "index_head_dim": 128}),
    ],
)
def test_local_configs_of_megatron_sourced_families_agree(model, keys):
    cfg, expected = _hub_shaped(model, **keys)
    assert modelinfo.facts_of_config(cfg, "config.json").parameters == expected


@pytest.mark.parametrize("bad", [{"hidden_size": "2880"}, {"num_local_experts": -32}, {"vocab_size": 2.5e5},
                                 {"model_type": None}, {"num_attention_heads": 0}])
def test_malformed_local_config_has_no_parameter_count(bad):
    assert modelinfo.facts_of_config(dict(GPT_OSS_20B_SHAPE, **bad), "config.json").parameters is None
