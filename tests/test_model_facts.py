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
