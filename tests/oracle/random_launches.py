"""Seeded random launches for the random differential (issue 17).

A launch is an argv for ``python -m sglang.launch_server`` with a model, a GPU
and a GPU count. Flags come from the release's catalog
(``sgllint/catalog/data/sglang-<v>.json``, read as plain JSON: this module is
stdlib only and runs in the oracle virtualenvs too), with valid, edge and a
small share of invalid values, biased toward the groups of flags that interact
in SGLang's start-up validation (speculative decoding, PD disaggregation,
attention DP, determinism, attention backends, quantization and KV-cache
dtypes, MoE/EP, LoRA, hierarchical cache, mamba/hybrid, multimodal, pipeline
parallel).

Placeholders in an argv, replaced by the oracle with local directories holding
only a ``config.json`` (no weights): ``{MODEL}`` (the case's model),
``{DRAFT_EAGLE}``, ``{DRAFT_EAGLE3}``, ``{DRAFT_SMALL}`` (draft models),
``{LORA}`` (a LoRA adapter directory with ``adapter_config.json``).

``python -m tests.oracle.random_launches --release 0.5.23 --n 2000 --seed 17``
prints the cases as JSON. The same (release, n, seed, GENERATOR_VERSION) always
gives the same cases (``random.Random`` seeded with a string).
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from pathlib import Path

#: bump when the sampling changes (recorded in every fixture)
GENERATOR_VERSION = 1
DEFAULT_SEED = 17
CATALOG_DIR = Path(__file__).resolve().parents[2] / "sgllint" / "catalog" / "data"

# --------------------------------------------------------------------------
# Models: config.json in the shapes the real checkpoints publish (no weights)
# --------------------------------------------------------------------------

_LLAMA3_8B = {
    "architectures": ["LlamaForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
    "bos_token_id": 128000, "eos_token_id": [128001, 128008, 128009], "hidden_act": "silu",
    "hidden_size": 4096, "initializer_range": 0.02, "intermediate_size": 14336,
    "max_position_embeddings": 131072, "mlp_bias": False, "model_type": "llama", "num_attention_heads": 32,
    "num_hidden_layers": 32, "num_key_value_heads": 8, "pretraining_tp": 1, "rms_norm_eps": 1e-05,
    "rope_scaling": {"factor": 8.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
                     "original_max_position_embeddings": 8192, "rope_type": "llama3"},
    "rope_theta": 500000.0, "tie_word_embeddings": False, "torch_dtype": "bfloat16", "use_cache": True,
    "vocab_size": 128256,
}
_QWEN3_8B = {
    "architectures": ["Qwen3ForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
    "bos_token_id": 151643, "eos_token_id": 151645, "head_dim": 128, "hidden_act": "silu", "hidden_size": 4096,
    "initializer_range": 0.02, "intermediate_size": 12288, "max_position_embeddings": 40960,
    "max_window_layers": 36, "model_type": "qwen3", "num_attention_heads": 32, "num_hidden_layers": 36,
    "num_key_value_heads": 8, "rms_norm_eps": 1e-06, "rope_scaling": None, "rope_theta": 1000000,
    "sliding_window": None, "tie_word_embeddings": False, "torch_dtype": "bfloat16", "use_cache": True,
    "use_sliding_window": False, "vocab_size": 151936,
}
_QWEN3_30B_A3B = {
    "architectures": ["Qwen3MoeForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
    "bos_token_id": 151643, "decoder_sparse_step": 1, "eos_token_id": 151645, "head_dim": 128,
    "hidden_act": "silu", "hidden_size": 2048, "initializer_range": 0.02, "intermediate_size": 6144,
    "max_position_embeddings": 40960, "max_window_layers": 48, "mlp_only_layers": [], "model_type": "qwen3_moe",
    "moe_intermediate_size": 768, "norm_topk_prob": True, "num_attention_heads": 32, "num_experts": 128,
    "num_experts_per_tok": 8, "num_hidden_layers": 48, "num_key_value_heads": 4, "output_router_logits": False,
    "rms_norm_eps": 1e-06, "rope_scaling": None, "rope_theta": 1000000.0, "router_aux_loss_coef": 0.001,
    "sliding_window": None, "tie_word_embeddings": False, "torch_dtype": "bfloat16", "use_cache": True,
    "use_sliding_window": False, "vocab_size": 151936,
}
_DEEPSEEK_V3 = {
    "architectures": ["DeepseekV3ForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
    "bos_token_id": 0, "eos_token_id": 1, "ep_size": 1, "first_k_dense_replace": 3, "hidden_act": "silu",
    "hidden_size": 7168, "initializer_range": 0.02, "intermediate_size": 18432, "kv_lora_rank": 512,
    "max_position_embeddings": 163840, "model_type": "deepseek_v3", "moe_intermediate_size": 2048,
    "moe_layer_freq": 1, "n_group": 8, "n_routed_experts": 256, "n_shared_experts": 1, "norm_topk_prob": True,
    "num_attention_heads": 128, "num_experts_per_tok": 8, "num_hidden_layers": 61, "num_key_value_heads": 128,
    "num_nextn_predict_layers": 1, "q_lora_rank": 1536, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64,
    "quantization_config": {"activation_scheme": "dynamic", "fmt": "e4m3", "quant_method": "fp8",
                            "weight_block_size": [128, 128]},
    "rms_norm_eps": 1e-06,
    "rope_scaling": {"beta_fast": 32, "beta_slow": 1, "factor": 40, "mscale": 1.0, "mscale_all_dim": 1.0,
                     "original_max_position_embeddings": 4096, "type": "yarn"},
    "rope_theta": 10000, "routed_scaling_factor": 2.5, "scoring_func": "sigmoid", "tie_word_embeddings": False,
    "topk_group": 4, "topk_method": "noaux_tc", "torch_dtype": "bfloat16", "use_cache": True, "v_head_dim": 128,
    "vocab_size": 129280,
}
_QWEN3_NEXT_80B_A3B = {
    "architectures": ["Qwen3NextForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
    "bos_token_id": 151643, "decoder_sparse_step": 1, "eos_token_id": 151645, "full_attention_interval": 4,
    "head_dim": 256, "hidden_act": "silu", "hidden_size": 2048, "initializer_range": 0.02,
    "intermediate_size": 5120, "linear_conv_kernel_dim": 4, "linear_key_head_dim": 128, "linear_num_key_heads": 16,
    "linear_num_value_heads": 32, "linear_value_head_dim": 128, "max_position_embeddings": 262144,
    "mlp_only_layers": [], "model_type": "qwen3_next", "moe_intermediate_size": 512, "norm_topk_prob": True,
    "num_attention_heads": 16, "num_experts": 512, "num_experts_per_tok": 10, "num_hidden_layers": 48,
    "num_key_value_heads": 2, "output_router_logits": False, "partial_rotary_factor": 0.25, "rms_norm_eps": 1e-06,
    "rope_scaling": None, "rope_theta": 10000000, "router_aux_loss_coef": 0.001,
    "shared_expert_intermediate_size": 512, "tie_word_embeddings": False, "torch_dtype": "bfloat16",
    "use_cache": True, "use_sliding_window": False, "vocab_size": 151936,
}
_QWEN2_5_VL_7B = {
    "architectures": ["Qwen2_5_VLForConditionalGeneration"], "attention_dropout": 0.0, "bos_token_id": 151643,
    "eos_token_id": 151645, "vision_start_token_id": 151652, "vision_end_token_id": 151653,
    "vision_token_id": 151654, "image_token_id": 151655, "video_token_id": 151656, "hidden_act": "silu",
    "hidden_size": 3584, "initializer_range": 0.02, "intermediate_size": 18944, "max_position_embeddings": 128000,
    "max_window_layers": 28, "model_type": "qwen2_5_vl", "num_attention_heads": 28, "num_hidden_layers": 28,
    "num_key_value_heads": 4, "rms_norm_eps": 1e-06, "rope_theta": 1000000.0, "sliding_window": 32768,
    "tie_word_embeddings": False, "torch_dtype": "bfloat16", "use_cache": True, "use_sliding_window": False,
    "vision_config": {"depth": 32, "hidden_act": "silu", "hidden_size": 1280, "intermediate_size": 3420,
                      "num_heads": 16, "in_chans": 3, "out_hidden_size": 3584, "patch_size": 14,
                      "spatial_merge_size": 2, "spatial_patch_size": 14, "window_size": 112,
                      "fullatt_block_indexes": [7, 15, 23, 31], "tokens_per_second": 2, "temporal_patch_size": 2},
    "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]}, "vocab_size": 152064,
}
_GPT_OSS_120B = {
    "architectures": ["GptOssForCausalLM"], "attention_bias": True, "attention_dropout": 0.0,
    "eos_token_id": 200002, "experts_per_token": 4, "head_dim": 64, "hidden_act": "silu", "hidden_size": 2880,
    "initial_context_length": 4096, "initializer_range": 0.02, "intermediate_size": 2880,
    "layer_types": ["sliding_attention", "full_attention"] * 18, "max_position_embeddings": 131072,
    "model_type": "gpt_oss", "num_attention_heads": 64, "num_experts_per_tok": 4, "num_hidden_layers": 36,
    "num_key_value_heads": 8, "num_local_experts": 128, "output_router_logits": False, "pad_token_id": 199999,
    "quantization_config": {"modules_to_not_convert": ["model.layers.*.self_attn", "model.layers.*.mlp.router",
                                                       "model.embed_tokens", "lm_head"],
                            "quant_method": "mxfp4"},
    "rms_norm_eps": 1e-05,
    "rope_scaling": {"beta_fast": 32.0, "beta_slow": 1.0, "factor": 32.0, "original_max_position_embeddings": 4096,
                     "rope_type": "yarn", "truncate": False},
    "rope_theta": 150000, "router_aux_loss_coef": 0.9, "sliding_window": 128, "swiglu_limit": 7.0,
    "tie_word_embeddings": False, "use_cache": True, "vocab_size": 201088,
}

#: model key -> (config.json, the oldest sampled release whose wheel ships the
#: model: 0.4.10.post2 has no models/qwen3_next.py nor models/gpt_oss.py)
MODELS: dict[str, tuple[dict, str]] = {
    "llama3-8b": (_LLAMA3_8B, "0.4.0"),
    "qwen3-8b": (_QWEN3_8B, "0.4.0"),
    "qwen3-30b-a3b": (_QWEN3_30B_A3B, "0.4.0"),
    "deepseek-v3": (_DEEPSEEK_V3, "0.4.0"),
    "qwen3-next-80b-a3b": (_QWEN3_NEXT_80B_A3B, "0.5.4"),
    "qwen2.5-vl-7b": (_QWEN2_5_VL_7B, "0.4.0"),
    "gpt-oss-120b": (_GPT_OSS_120B, "0.5.4"),
}

#: draft checkpoints as EAGLE / EAGLE3 heads for Llama-3.1-8B and a small
#: STANDALONE draft (Qwen3-0.6B) declare them
DRAFTS: dict[str, dict] = {
    "DRAFT_EAGLE": {**_LLAMA3_8B, "architectures": ["LlamaForCausalLMEagle"], "num_hidden_layers": 1},
    "DRAFT_EAGLE3": {**_LLAMA3_8B, "architectures": ["LlamaForCausalLMEagle3"], "num_hidden_layers": 1,
                     "draft_vocab_size": 32000},
    "DRAFT_SMALL": {**_QWEN3_8B, "hidden_size": 1024, "intermediate_size": 3072, "num_attention_heads": 16,
                    "num_hidden_layers": 28, "num_key_value_heads": 8, "tie_word_embeddings": True},
}
#: what the oracle writes into every model and draft directory (the config
#: alone: no hf_quant_config.json, no weights), known to the evaluator as the
#: model directory's listing (``LaunchFacts.model_files``)
MODEL_DIR_FILES = ("config.json",)
#: a PEFT LoRA adapter directory (adapter_config.json)
LORA_ADAPTER = {
    "base_model_name_or_path": "meta-llama/Llama-3.1-8B-Instruct", "peft_type": "LORA", "task_type": "CAUSAL_LM",
    "r": 16, "lora_alpha": 32, "lora_dropout": 0.05, "bias": "none",
    "target_modules": ["q_proj", "k_proj", "v_proj", "o_proj"],
}

# --------------------------------------------------------------------------
# GPUs
# --------------------------------------------------------------------------

#: key -> facts the oracle fakes (torch.cuda answers, nvidia-smi / rocminfo)
GPUS: dict[str, dict] = {
    "A100": {"vendor": "nvidia", "capability": [8, 0], "name": "NVIDIA A100-SXM4-80GB", "memory_mib": 81920,
             "sms": 108},
    "H100": {"vendor": "nvidia", "capability": [9, 0], "name": "NVIDIA H100 80GB HBM3", "memory_mib": 81559,
             "sms": 132},
    "B200": {"vendor": "nvidia", "capability": [10, 0], "name": "NVIDIA B200", "memory_mib": 183359, "sms": 148},
    "RTXPRO6000": {"vendor": "nvidia", "capability": [12, 0],
                   "name": "NVIDIA RTX PRO 6000 Blackwell Server Edition", "memory_mib": 97887, "sms": 188},
    "MI300X": {"vendor": "amd", "capability": [9, 4], "name": "AMD Instinct MI300X", "memory_mib": 196592,
               "sms": 304, "gcn_arch": "gfx942:sramecc+:xnack-"},
}
GPU_COUNTS = (1, 2, 4, 8)

# --------------------------------------------------------------------------
# Flag groups (regular expressions over ServerArgs dests, so that they follow
# the catalog of every release)
# --------------------------------------------------------------------------

GROUPS: dict[str, str] = {
    "speculative": r"^speculative_|^enable_multi_layer_eagle$|draft",
    "pd_disaggregation": r"^disaggregation_|^num_reserved_decode_tokens$|^encoder_only$|^language_only$|"
                         r"^encoder_transfer_backend$|^enable_pdmux$",
    "dp_attention": r"^enable_dp_attention$|^dp_size$|^attn_dp_size$|^enable_dp_lm_head$|^moe_dense_tp_size$|"
                    r"^load_balance_method$|^attn_cp_size$|^enable_prefill_cp$|^dcp_size$|^enable_two_batch_overlap$",
    "deterministic": r"deterministic|^rl_on_policy_target$|^sampling_backend$|^disable_radix_cache$",
    "attention_backend": r"attention_backend$|^page_size$|^dsa_|^nsa_|^triton_attention|^flashinfer_mla|"
                         r"^disable_chunked_prefix_cache$",
    "quantization": r"^quantization$|kv_cache_dtype$|fp8|fp4|_gemm_|^modelopt_quant$|^dtype$|mxfp",
    "moe_ep": r"^ep_size$|moe|deepep|^enable_eplb$|^ep_num_redundant_experts$|^expert_distribution|a2a|"
              r"^enable_ep_moe$|shared_experts",
    "lora": r"lora",
    "hierarchical_cache": r"^hicache_|hierarchical|^radix_eviction_policy$|^enable_hisparse$",
    "mamba_hybrid": r"mamba|^linear_attn|swa_|hybrid",
    "multimodal": r"^mm_|multimodal|^image_processor|^language_only$|^encoder_urls$|^disable_fast_image",
    "pipeline_parallel": r"^pp_|^pp_size$",
    "core": r"^tp_size$|^chunked_prefill_size$|^mem_fraction_static$|^context_length$|^max_running_requests$|"
            r"^cuda_graph_max_bs|^disable_cuda_graph$|^enable_mixed_chunk$|^enable_torch_compile$|"
            r"^disable_overlap_schedule$|^max_total_tokens$|^max_prefill_tokens$|^schedule_policy$|^device$|"
            r"^json_model_override_args$|^load_format$|^enable_single_batch_overlap$|^skip_tokenizer_init$",
}
#: groups more likely with a model of this kind
MODEL_AFFINITY = {
    "qwen3-30b-a3b": ("moe_ep",), "deepseek-v3": ("moe_ep", "attention_backend", "speculative"),
    "qwen3-next-80b-a3b": ("mamba_hybrid", "moe_ep"), "qwen2.5-vl-7b": ("multimodal",),
    "gpt-oss-120b": ("moe_ep", "quantization"),
}

#: never sampled: the harness sets them, or they only name files, hosts,
#: credentials or outputs that start-up validation cannot judge without them
_EXCLUDED = re.compile(
    r"^(help|version|model_path|config|host|port|tokenizer_path|revision|download_dir|served_model_name|"
    r"log_level|log_level_http|api_key|admin_api_key|chat_template|completion_template|file_storage_path)$|"
    r"path$|_dir$|folder|file|_url|urls$|endpoint|ssl_|_ip$|socket|_name$|header|labels|template|"
    r"weight_version|checksum|sidecar|otlp|trace|crash_dump|debug_tensor|msprobe|kv_events|tool_server|"
    r"kt_|remote_instance|modelexpress|decrypted|watermark_config|^numa_node$|^gc_threshold$|ib_device|"
    r"^warmups$|^custom_weight_loader$|bucket|^allowed_media_domains$|_config$|^decoupled_spec|sigquit|"
    r"^dllm_algorithm_config$|extra_config$|^ds_|^pdlb|corpus|sps_table|sts_path|token_map|uno_lora"
)

#: free-form string options with the values a launch would use (others are not sampled)
_STR_VALUES: dict[str, tuple] = {
    "speculative_algorithm": ("EAGLE", "EAGLE3", "NEXTN", "STANDALONE", "NGRAM", "DFLASH", "eagle", "MEDUSA"),
    "dist_init_addr": ("127.0.0.1:5000", "10.0.0.1:29500", "localhost"),
    "json_model_override_args": ('{}', '{"max_position_embeddings": 8192}', '{"architectures": ["LlamaForCausalLM"]}',
                                 '{not json'),
    "device": ("cuda", "cpu", "auto"),
    "eplb_algorithm": ("auto", "deepseek", "elasticity_aware"),
    "init_expert_location": ("trivial",),
    "ep_dispatch_algorithm": ("static", "dynamic", "fake"),
    "expert_distribution_recorder_mode": ("stat", "per_pass", "per_token"),
    "model_impl": ("auto", "sglang", "transformers"),
    "lora_backend": ("triton", "csgmv"),
    "offload_mode": ("cpu", "meta"),
    "radix_cache_backend": ("radix", "lru"),
    "dllm_algorithm": ("LowConfidence",),
    "modelopt_quant": ("fp8", "nvfp4"),
    "rl_quant_profile": ("fp8",),
    "preferred_sampling_params": ('{"temperature": 0.7}',),
    "speculative_adaptive_config": ('{}',),
    "hisparse_config": ('{}',),
}
#: path options given a local directory the oracle writes
_HANDLED_PATHS = {"speculative_draft_model_path", "lora_paths"}
_PARALLEL_SIZES = {"tp_size", "dp_size", "pp_size", "ep_size", "attn_dp_size", "attn_cp_size", "moe_dp_size",
                   "dcp_size", "moe_dense_tp_size", "shared_experts_tp_size", "dwdp_size"}
_INT_VALUES: list[tuple[str, tuple]] = [
    (r"^(c128_)?page_size$", (1, 16, 32, 64, 128, 48, 256)),
    (r"^chunked_prefill_size$|^max_prefill_tokens$", (-1, 2048, 4096, 8192, 16384, 1000)),
    (r"^speculative_num_steps$", (1, 2, 3, 5)),
    (r"^speculative_eagle_topk$", (1, 2, 4, 8)),
    (r"^speculative_num_draft_tokens$", (1, 2, 4, 8, 16)),
    (r"block_size$", (4, 8, 16)),
    (r"port$", (30100, 30200, 8998)),
    (r"^max_running_requests$|max_bs|batch_size|^max_loras_per_batch$|^max_loaded_loras$", (1, 8, 64, 256, 0)),
    (r"^max_lora_rank$", (8, 16, 64, 0)),
    (r"^max_total_tokens$|^context_length$|cache_size$|^hicache_size$", (4096, 32768, 131072, 1000000, 0)),
    (r"^ep_num_redundant_experts$", (0, 8, 32)),
    (r"^nnodes$", (1, 2)),
    (r"^node_rank$", (0, 1)),
    (r"^cpu_offload_gb$", (0, 16)),
]
_GENERIC_INTS = (0, 1, 2, 4, 8, 16, 64, 1024, -1)
_FLOAT_VALUES: list[tuple[str, tuple]] = [
    (r"^mem_fraction_static$", (0.5, 0.7, 0.85, 0.9, 0.95, 1.0, 0.0, 1.2)),
    (r"ratio$|threshold|fraction", (0.0, 0.25, 0.5, 1.0, 2.0, -0.5)),
]
_GENERIC_FLOATS = (0.0, 0.1, 0.5, 1.0, 2.0, 10.0)

INVALID_CHOICE_SHARE = 0.03  # argparse rejections are the flag rules' job: keep a few
INVALID_TYPE_SHARE = 0.01


# --------------------------------------------------------------------------
# Sampling
# --------------------------------------------------------------------------


def load_options(release: str, catalog_dir: Path = CATALOG_DIR) -> list[dict]:
    """The release catalog's options that the generator may sample."""
    raw = json.loads((catalog_dir / f"sglang-{release}.json").read_text(encoding="utf-8"))
    out = []
    for o in raw["options"]:
        if o.get("action") == "help" or (_EXCLUDED.search(o["dest"]) and o["dest"] not in _STR_VALUES
                                         and o["dest"] not in _HANDLED_PATHS):
            continue
        out.append(o)
    return out


def catalog_source(release: str, catalog_dir: Path = CATALOG_DIR) -> str:
    """The wheel the release's catalog was made from (``source``)."""
    return json.loads((catalog_dir / f"sglang-{release}.json").read_text(encoding="utf-8"))["source"]


def _version_key(v: str) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", v)[:3])


def models_for(release: str) -> list[str]:
    return [k for k, (_, since) in MODELS.items() if _version_key(release) >= _version_key(since)]


def _pick_from(rng: random.Random, table: list[tuple[str, tuple]], dest: str, default: tuple):
    for pattern, values in table:
        if re.search(pattern, dest):
            return rng.choice(values)
    return rng.choice(default)


def _parallel_size(rng: random.Random, count: int) -> int:
    """Mostly sizes that fit the GPU count; sometimes more, or an odd one."""
    r = rng.random()
    if r < 0.75:
        return rng.choice([d for d in (1, 2, 4, 8) if d <= count])
    return rng.choice((3, count * 2, 16))


def _one_value(rng: random.Random, o: dict, count: int):
    """One token for option ``o`` (a string), or None when not sampleable."""
    dest, typ, choices = o["dest"], o.get("type") or "str", o.get("choices")
    if choices:
        if rng.random() < INVALID_CHOICE_SHARE:
            return "bogus-choice"
        return str(rng.choice(choices))
    if rng.random() < INVALID_TYPE_SHARE and typ in ("int", "float", "human_readable_int"):
        return "abc"
    if dest in _PARALLEL_SIZES:
        return str(_parallel_size(rng, count))
    if typ in ("int", "human_readable_int"):
        return str(_pick_from(rng, _INT_VALUES, dest, _GENERIC_INTS))
    if typ == "float":
        return str(_pick_from(rng, _FLOAT_VALUES, dest, _GENERIC_FLOATS))
    if typ in ("json", "json_list"):
        return "{}" if typ == "json" else "[]"
    if dest in _STR_VALUES:
        return rng.choice(_STR_VALUES[dest])
    if dest in ("speculative_draft_attention_backend",):
        return rng.choice(("fa3", "flashinfer", "triton", "trtllm_mha", "fa4"))
    return None


def _option_tokens(rng: random.Random, o: dict, count: int, algo_holder: list) -> list[str] | None:
    """The argv words for option ``o``, or None when it cannot be sampled."""
    action, strings, dest = o.get("action"), o["strings"], o["dest"]
    long_strings = [s for s in strings if s.startswith("--")] or strings
    if action == "boolean_optional":
        pos = [s for s in long_strings if not s.startswith("--no-")]
        neg = [s for s in long_strings if s.startswith("--no-")]
        return [rng.choice(neg)] if neg and rng.random() < 0.25 else [pos[0]]
    if action in ("store_true", "store_false", "deprecated_store_true"):
        return [long_strings[0]]
    flag = long_strings[0]
    if action == "lora_paths" or dest == "lora_paths":
        vals = rng.choice((["{LORA}"], ["adapter0={LORA}"], ["adapter0={LORA}", "adapter1={LORA}"]))
        return [flag, *vals]
    if dest == "speculative_draft_model_path":
        algo = algo_holder[0] if algo_holder else None
        draft = {"EAGLE3": "{DRAFT_EAGLE3}", "STANDALONE": "{DRAFT_SMALL}", "NEXTN": "{MODEL}"}.get(
            (algo or "").upper(), "{DRAFT_EAGLE}")
        return [flag, draft]
    if dest == "lora_target_modules" and o.get("choices"):
        return [flag, *rng.sample(list(o["choices"]), k=min(len(o["choices"]), rng.choice((1, 2, 4))))]
    v = _one_value(rng, o, count)
    if v is None:
        return None
    if dest == "speculative_algorithm":
        algo_holder[:] = [v]
    nargs = o.get("nargs")
    if nargs in ("+", "*") and rng.random() < 0.3:
        w = _one_value(rng, o, count)
        return [flag, v] + ([w] if w is not None else [])
    return [flag, v]


def _group_members(options: list[dict]) -> dict[str, list[dict]]:
    return {g: [o for o in options if re.search(rx, o["dest"])] for g, rx in GROUPS.items()}


def _sample_options(rng: random.Random, members: dict[str, list[dict]], options: list[dict],
                    model: str) -> list[dict]:
    groups = [g for g in GROUPS if members[g]]
    weights = [3.0 if g in MODEL_AFFINITY.get(model, ()) else 1.0 for g in groups]
    chosen_groups = set(rng.choices(groups, weights=weights, k=rng.choice((1, 1, 2, 2, 3))))
    picked: dict[str, dict] = {}
    for g in sorted(chosen_groups):
        pool = members[g]
        head = [o for o in pool if o["dest"] in ("speculative_algorithm", "disaggregation_mode", "enable_lora",
                                                  "enable_hierarchical_cache", "enable_dp_attention")]
        if head and rng.random() < 0.7:
            picked.setdefault(head[0]["dest"], head[0])
        for o in rng.sample(pool, k=min(len(pool), rng.choice((1, 2, 3, 4)))):
            picked.setdefault(o["dest"], o)
    if rng.random() < 0.3:
        for o in rng.sample(options, k=rng.choice((1, 2))):
            picked.setdefault(o["dest"], o)
    draft = [o for o in options if o["dest"] == "speculative_draft_model_path"]
    if "speculative_algorithm" in picked and draft and rng.random() < 0.7:
        picked.setdefault("speculative_draft_model_path", draft[0])
    # the speculative algorithm before its draft model (the draft follows the algorithm)
    return sorted(picked.values(), key=lambda o: o["dest"] != "speculative_algorithm")


def generate(release: str, n: int, seed: int = DEFAULT_SEED, catalog_dir: Path = CATALOG_DIR) -> list[dict]:
    """``n`` launches for ``release``: ``{"id", "model", "gpu", "count", "argv"}``."""
    rng = random.Random(f"sgllint-random-launches:{GENERATOR_VERSION}:{release}:{seed}")
    options = load_options(release, catalog_dir)
    members = _group_members(options)
    models = models_for(release)
    cases = []
    for i in range(n):
        model, gpu, count = rng.choice(models), rng.choice(sorted(GPUS)), rng.choice(GPU_COUNTS)
        argv = ["--model-path", "{MODEL}"]
        algo_holder: list = []
        if rng.random() < 0.5:
            argv += ["--tp-size", str(_parallel_size(rng, count))]
        for o in _sample_options(rng, members, options, model):
            if o["dest"] == "tp_size" and "--tp-size" in argv:
                continue
            toks = _option_tokens(rng, o, count, algo_holder)
            if toks:
                argv += toks
        cases.append({"id": i, "model": model, "gpu": gpu, "count": count, "argv": argv})
    return cases


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--release", required=True, help="catalog release, e.g. 0.5.23")
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED)
    ap.add_argument("--out", default="-")
    args = ap.parse_args(argv)
    cases = generate(args.release, args.n, args.seed)
    text = json.dumps({"release": args.release, "seed": args.seed, "generator_version": GENERATOR_VERSION,
                       "n": args.n, "cases": cases})
    if args.out == "-":
        print(text)
    else:
        Path(args.out).write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
