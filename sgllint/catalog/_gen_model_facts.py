"""Generate (and verify) ``catalog/model_facts.json`` from the pinned sources
listed in ``catalog/model_sources.toml``.

The registry holds DERIVED facts only (architecture, layers, attention / KV
heads, head dim, hidden size, the context length SGLang derives when the
source states it, parameter count, checkpoint dtype when the source states
it -- else null, and the checks needing it stay silent), each entry with the
repository, commit and path it was derived from. Nothing of the source files
is stored. Formats (one parser each): ``llama-models-sku``,
``deepseek-inference``, ``hf-config`` (a Hub ``config.json``),
``megatron-args`` (slime's model scripts), ``gemma-transformer``
(google-deepmind/gemma); parameter families: ``llama`` (dense GQA and its
relatives), ``moe`` (Qwen-MoE, Mixtral, gpt-oss, GLM-4.5, MiniMax-M2),
``deepseek`` (MLA: DeepSeek, Kimi K2).

    python -m sgllint.catalog._gen_model_facts --mirror DIR   # files exported at the pinned commits
    python -m sgllint.catalog._gen_model_facts                          # online: raw.githubusercontent.com
    python -m sgllint.catalog._gen_model_facts --check                  # offline consistency check

``--check`` (also run by the tests) re-derives every parameter count from the
stored dimensions, checks the head arithmetic and that every entry names a
source pinned in ``model_sources.toml`` at a full commit hash. With
``--mirror`` or online, ``--check`` also re-reads the sources and compares.

Parameter counts are computed from the architecture's dimensions (the
formula of each family below), not copied: they count the served model's
weights (for DeepSeek-V3 without the MTP module, as the model card's 671B;
for a multimodal model its language model, ``parameters_cover`` says so).
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

HERE = Path(__file__).parent
SOURCES = HERE / "model_sources.toml"
OUTPUT = HERE / "model_facts.json"

#: bytes per parameter of a checkpoint dtype (the lower bound for mixed formats)
DTYPE_BYTES = {"bfloat16": 2.0, "float16": 2.0, "float32": 4.0, "fp8": 1.0, "fp8-mixed": 1.0, "fp4": 0.5, "mxfp4": 0.5}

_COMMIT = re.compile(r"[0-9a-f]{40}\Z")


def read_source(src: dict, mirror: str | None) -> str:
    if mirror:
        # a directory of files exported at the pinned commit: <mirror>/<owner+name>/<commit>/<path>
        # (sgllint's package never starts a program, generators included)
        return (Path(mirror) / src["repo"].replace("/", "+") / src["commit"] / src["path"]).read_text(encoding="utf-8")
    import urllib.request  # only when generating online: sgllint's checks import this module's formulas

    url = f"https://raw.githubusercontent.com/{src['repo']}/{src['commit']}/{src['path']}"
    with urllib.request.urlopen(url, timeout=30) as resp:  # noqa: S310 - pinned https URL
        return resp.read().decode("utf-8")


# ---------------------------------------------------------------------------
# Parameter counts from dimensions
# ---------------------------------------------------------------------------


def llama_params(d: dict) -> int:
    """Dense GQA decoder with SwiGLU (or GeGLU) MLP and RMSNorm (Llama 3
    reference ``model.py``); the optional dims cover its relatives: Qwen2's
    q/k/v biases (``qkv_bias``), gpt-oss's o-projection bias and attention
    sinks (``o_bias``, ``attention_sinks``), Qwen3's and Gemma 3's per-head
    q/k RMSNorm (``qk_norm``; MiniMax-M2's over all heads: ``qk_norm_full``),
    Gemma 3's four norms per layer (``norms_per_layer``)."""
    h, heads, kv, hd = d["hidden_size"], d["num_attention_heads"], d["num_key_value_heads"], d["head_dim"]
    attn = h * heads * hd * 2 + h * kv * hd * 2
    if d.get("qkv_bias"):
        attn += heads * hd + 2 * kv * hd
    if d.get("o_bias"):
        attn += h
    if d.get("attention_sinks"):
        attn += heads
    if d.get("qk_norm"):
        attn += 2 * hd
    if d.get("qk_norm_full"):  # one RMSNorm over all heads (MiniMax-M2)
        attn += heads * hd + kv * hd
    mlp = 3 * h * d["intermediate_size"]
    layer = attn + mlp + d.get("norms_per_layer", 2) * h
    embed = d["vocab_size"] * h * (1 if d.get("tie_word_embeddings") else 2)
    return embed + d["num_hidden_layers"] * layer + h


def moe_params(d: dict) -> int:
    """A router over ``num_experts`` SwiGLU experts of width
    ``moe_intermediate_size`` (Qwen3-MoE, Mixtral, gpt-oss, GLM-4.5,
    MiniMax-M2), attention as `llama_params`; gpt-oss's experts and router
    carry biases (``expert_bias``, ``router_bias``), GLM-4.5's and
    MiniMax-M2's router a score-correction bias (``router_bias``); GLM-4.5
    adds a shared expert (``shared_expert_intermediate_size``) and starts
    with dense layers (``first_k_dense_replace``, of ``intermediate_size``)."""
    h, e, w = d["hidden_size"], d["num_experts"], d["moe_intermediate_size"]
    expert = 3 * h * w + ((2 * w + h) if d.get("expert_bias") else 0)
    router = h * e + (e if d.get("router_bias") else 0)
    shared = 3 * h * d.get("shared_expert_intermediate_size", 0)
    n_dense = d.get("first_k_dense_replace", 0)
    base = llama_params(dict(d, intermediate_size=0))
    return base + n_dense * 3 * h * d["intermediate_size"] + (d["num_hidden_layers"] - n_dense) * (
        e * expert + router + shared)


def deepseek_params(d: dict) -> int:
    """MLA attention + dense-then-MoE MLP (DeepSeek reference ``inference/model.py``)."""
    h, heads = d["hidden_size"], d["num_attention_heads"]
    qk = d["qk_nope_head_dim"] + d["qk_rope_head_dim"]
    q = (h * d["q_lora_rank"] + d["q_lora_rank"] + d["q_lora_rank"] * heads * qk) if d["q_lora_rank"] else h * heads * qk
    kv = h * (d["kv_lora_rank"] + d["qk_rope_head_dim"]) + d["kv_lora_rank"]
    kv += d["kv_lora_rank"] * heads * (d["qk_nope_head_dim"] + d["v_head_dim"])
    attn = q + kv + heads * d["v_head_dim"] * h
    dense = 3 * h * d["intermediate_size"]
    experts = d["n_routed_experts"] + d["n_shared_experts"]
    moe = experts * 3 * h * d["moe_intermediate_size"] + d["n_routed_experts"] * h
    if d.get("gate_bias"):
        moe += d["n_routed_experts"]
    if d.get("index_n_heads"):
        # DeepSeek-V3.2's lightning indexer (reference ``inference/model.py``
        # ``Indexer``): wq_b, wk, k_norm (LayerNorm: weight and bias), weights_proj
        ihd = d["index_head_dim"]
        attn += d["q_lora_rank"] * d["index_n_heads"] * ihd + h * ihd + 2 * ihd + h * d["index_n_heads"]
    n_dense = d["first_k_dense_replace"]
    layers = n_dense * (attn + dense + 2 * h) + (d["num_hidden_layers"] - n_dense) * (attn + moe + 2 * h)
    return 2 * d["vocab_size"] * h + layers + h


PARAMS = {"llama": llama_params, "moe": moe_params, "deepseek": deepseek_params}


# ---------------------------------------------------------------------------
# Formats
# ---------------------------------------------------------------------------


def _kw(call: ast.Call, name: str):
    for kw in call.keywords:
        if kw.arg == name:
            return kw.value
    return None


def _literal(node, names: dict):
    if isinstance(node, ast.Name) and node.id in names:
        return names[node.id]
    if isinstance(node, ast.Dict):
        return {ast.literal_eval(k): _literal(v, names) for k, v in zip(node.keys, node.values)}
    if isinstance(node, ast.Attribute):
        return node.attr
    return ast.literal_eval(node)


def from_llama_sku(text: str, src: dict, context: dict | None = None) -> dict[str, dict]:
    """``Model(huggingface_repo=..., model_args={...})`` calls; the FFN width
    as the reference ``FeedForward`` computes it (``multiple_of`` rounding of
    ``ffn_dim_multiplier × 8/3 × dim``)."""
    tree = ast.parse(text)
    names = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            try:
                names[node.targets[0].id] = ast.literal_eval(node.value)
            except ValueError:
                pass
    out = {}
    for call in ast.walk(tree):
        if not (isinstance(call, ast.Call) and getattr(call.func, "id", None) == "Model"):
            continue
        repo = _kw(call, "huggingface_repo")
        args = _kw(call, "model_args")
        if repo is None or args is None:
            continue
        repo = _literal(repo, names)
        if repo not in src["models"]:
            continue
        a = _literal(args, names)
        quant = _kw(call, "quantization_format")
        dim = a["dim"]
        hidden = int(2 * (4 * dim) / 3)
        hidden = int(a["ffn_dim_multiplier"] * hidden)
        hidden = a["multiple_of"] * ((hidden + a["multiple_of"] - 1) // a["multiple_of"])
        dims = {
            "hidden_size": dim,
            "num_hidden_layers": a["n_layers"],
            "num_attention_heads": a["n_heads"],
            "num_key_value_heads": a["n_kv_heads"],
            "head_dim": dim // a["n_heads"],
            "intermediate_size": hidden,
            "vocab_size": a["vocab_size"],
        }
        dtype = "fp8-mixed" if quant is not None and "fp8" in _literal(quant, names) else "bfloat16"
        core = _literal(_kw(call, "core_model_id"), names)
        family = "llama3_1" if core.startswith("meta_llama3_1_") else "llama3" if core.startswith("meta_llama3_") else None
        out[repo] = {"family": "llama", "dims": dims, "dtype": dtype,
                     "max_position_embeddings": context.get(family) if context else None}
    return out


def llama_max_seq_length(text: str) -> dict[str, int]:
    """``Model.max_seq_length`` of llama-models ``datatypes.py``: the
    ``if self.model_family == ModelFamily.X: return N`` branches."""
    out = {}
    for fn in ast.walk(ast.parse(text)):
        if not (isinstance(fn, ast.FunctionDef) and fn.name == "max_seq_length"):
            continue
        for node in ast.walk(fn):
            if not isinstance(node, ast.If) or not isinstance(node.test, ast.Compare):
                continue
            left, right = node.test.left, node.test.comparators[0]
            if getattr(left, "attr", None) == "model_family" and isinstance(right, ast.Attribute):
                ret = node.body[0]
                if isinstance(ret, ast.Return) and isinstance(ret.value, ast.Constant):
                    out[right.attr] = ret.value.value
    return out


def from_deepseek_inference(text: str, src: dict) -> dict[str, dict]:
    c = json.loads(text)
    dims = {
        "hidden_size": c["dim"],
        "num_hidden_layers": c["n_layers"],
        "num_attention_heads": c["n_heads"],
        # MLA: one latent KV head shared by all heads (SGLang's
        # get_num_kv_heads returns 1 for MLA models)
        "num_key_value_heads": 1,
        "head_dim": c["qk_nope_head_dim"] + c["qk_rope_head_dim"],
        "intermediate_size": c["inter_dim"],
        "moe_intermediate_size": c["moe_inter_dim"],
        "vocab_size": c["vocab_size"],
        "n_routed_experts": c["n_routed_experts"],
        "n_shared_experts": c["n_shared_experts"],
        "first_k_dense_replace": c["n_dense_layers"],
        "q_lora_rank": c["q_lora_rank"],
        "kv_lora_rank": c["kv_lora_rank"],
        "qk_nope_head_dim": c["qk_nope_head_dim"],
        "qk_rope_head_dim": c["qk_rope_head_dim"],
        "v_head_dim": c["v_head_dim"],
        "gate_bias": c["dim"] == 7168,  # the 671B gate carries a bias (reference model.py Gate)
    }
    if c.get("index_n_heads"):  # V3.2: DeepSeek Sparse Attention's indexer
        dims.update(index_n_heads=c["index_n_heads"], index_head_dim=c["index_head_dim"])
    dtype = {"fp8": "fp8", "bf16": "bfloat16"}.get(c.get("dtype", "bf16"), "bfloat16")
    return {m: {"family": "deepseek", "dims": dims, "dtype": dtype} for m in src["models"]}


# -- Hugging Face config.json -------------------------------------------------

#: SGLang's ``CONTEXT_LENGTH_KEYS`` (``get_context_length``), first hit wins
CONTEXT_LENGTH_KEYS = ("max_sequence_length", "seq_length", "max_seq_len", "model_max_length", "max_position_embeddings")


def sglang_context_length(text: dict):
    """SGLang's ``get_context_length`` on a (text) config dict
    (``sglang/srt/utils/hf_transformers/common.py``): the first of
    ``CONTEXT_LENGTH_KEYS`` times the rope-scaling factor (1 for llama3
    scaling or when ``original_max_position_embeddings`` is given); None
    when no key is set (SGLang falls back to 2048)."""
    rope = text.get("rope_scaling")
    factor = 1
    if isinstance(rope, dict) and rope:
        factor = rope.get("factor", 1)
        if "original_max_position_embeddings" in rope or rope.get("rope_type") == "llama3":
            factor = 1
        if not isinstance(factor, (int, float)) or isinstance(factor, bool):
            return None
    for key in CONTEXT_LENGTH_KEYS:
        value = text.get(key)
        if value is not None:
            return int(factor * value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None
    return None


#: ``model_type`` (of the text config) -> (parameter family, architecture
#: options of `llama_params` / `moe_params`): what the model's code builds
#: that config.json does not say (Qwen2's q/k/v biases, Qwen3's and Gemma 3's
#: q/k norms, gpt-oss's biases and sinks; Gemma's tied embeddings)
HF_ARCHITECTURES = {
    "llama": ("llama", {}),
    "mistral": ("llama", {}),
    "qwen2": ("llama", {"qkv_bias": True}),
    "qwen2_vl": ("llama", {"qkv_bias": True}),
    "qwen2_5_vl": ("llama", {"qkv_bias": True}),
    "qwen3": ("llama", {"qk_norm": True}),
    "qwen3_vl_text": ("llama", {"qk_norm": True}),
    "gemma3_text": ("llama", {"qk_norm": True, "norms_per_layer": 4, "tie_word_embeddings": True}),
    "mixtral": ("moe", {}),
    "qwen3_moe": ("moe", {"qk_norm": True}),
    "qwen3_vl_moe_text": ("moe", {"qk_norm": True}),
    "gpt_oss": ("moe", {"qkv_bias": True, "o_bias": True, "attention_sinks": True, "expert_bias": True,
                        "router_bias": True}),
    "deepseek_v3": ("deepseek", {}),
    "kimi_k2": ("deepseek", {}),
    "deepseek_v32": ("deepseek", {}),
    # the next two read their MoE layout from their own keys (`_moe_layout`); a
    # config.json of theirs is read when a local model directory holds one
    "glm4_moe": ("moe", {"router_bias": True}),
    "minimax_m2": ("moe", {}),
}

#: quantization_config.quant_method -> checkpoint dtype (DTYPE_BYTES)
QUANT_DTYPE = {"fp8": "fp8", "mxfp4": "mxfp4", "fbgemm_fp8": "fp8-mixed", "modelopt_fp4": "fp4", "nvfp4": "fp4"}


class UnmodelledConfig(ValueError):
    """A config.json whose shape no parameter formula here covers."""


def _moe_layout(model_type: str, t: dict) -> dict:
    """The MoE dims of `moe_params` from a config's own keys."""
    if model_type == "glm4_moe":  # Glm4MoeConfig: dense first layers, shared experts
        return {"num_experts": t["n_routed_experts"], "moe_intermediate_size": t["moe_intermediate_size"],
                "shared_expert_intermediate_size": t.get("n_shared_experts", 0) * t["moe_intermediate_size"],
                "first_k_dense_replace": t.get("first_k_dense_replace", 0),
                **({"qkv_bias": True} if t.get("attention_bias") else {}),
                **({"qk_norm": True} if t.get("use_qk_norm") else {})}
    if model_type == "minimax_m2":  # experts of intermediate_size; q/k norm over all heads
        if t.get("use_qk_norm") and t.get("qk_norm_type", "per_layer") != "per_layer":
            raise UnmodelledConfig(f"minimax_m2 qk_norm_type {t.get('qk_norm_type')!r}")
        return {"num_experts": t["num_local_experts"], "moe_intermediate_size": t["intermediate_size"],
                **({"router_bias": True} if t.get("use_routing_bias") else {}),
                **({"qk_norm_full": True} if t.get("use_qk_norm") else {})}
    # every layer sparse (Qwen3-MoE's decoder_sparse_step 1, no mlp_only_layers)
    if t.get("decoder_sparse_step", 1) != 1 or t.get("mlp_only_layers"):
        raise UnmodelledConfig("dense layers in a Qwen-MoE config")
    return {"num_experts": t.get("num_experts") or t["num_local_experts"],
            "moe_intermediate_size": t.get("moe_intermediate_size") or t["intermediate_size"]}


def hf_config_facts(c: dict) -> dict:
    """The derived facts of a Hugging Face ``config.json`` (a dict): the
    text model's dimensions (``text_config`` of a multimodal wrapper, whose
    vision encoder is then not counted), its parameter family, the context
    length as SGLang derives it, the checkpoint dtype
    (``quantization_config`` first). Raises `UnmodelledConfig` (or
    KeyError for a missing dimension) for a shape not covered."""
    t = c["text_config"] if isinstance(c.get("text_config"), dict) else c
    model_type = t.get("model_type") or c.get("model_type")
    if model_type not in HF_ARCHITECTURES:
        raise UnmodelledConfig(f"model_type {model_type!r}")
    family, options = HF_ARCHITECTURES[model_type]
    heads = t["num_attention_heads"]
    dims = {
        "hidden_size": t["hidden_size"],
        "num_hidden_layers": t["num_hidden_layers"],
        "num_attention_heads": heads,
        "num_key_value_heads": t.get("num_key_value_heads") or heads,
        "head_dim": t.get("head_dim") or t["hidden_size"] // heads,
        "intermediate_size": t["intermediate_size"],
        "vocab_size": t["vocab_size"],
    }
    tied = t.get("tie_word_embeddings", c.get("tie_word_embeddings"))
    if tied:
        dims["tie_word_embeddings"] = True
    dims.update(options)
    if family == "moe":
        dims.update(_moe_layout(model_type, t))
    elif family == "deepseek":
        dims.update({k: t[k] for k in ("moe_intermediate_size", "n_routed_experts", "n_shared_experts",
                                       "first_k_dense_replace", "q_lora_rank", "kv_lora_rank",
                                       "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim")})
        dims["num_key_value_heads"] = 1  # MLA: one latent KV head (SGLang's get_num_kv_heads)
        dims["head_dim"] = t["qk_nope_head_dim"] + t["qk_rope_head_dim"]
        dims["gate_bias"] = t.get("topk_method") == "noaux_tc"  # e_score_correction_bias
        if t.get("moe_layer_freq", 1) != 1:
            raise UnmodelledConfig("moe_layer_freq != 1")
        if t.get("index_n_heads"):  # V3.2's indexer
            dims.update(index_n_heads=t["index_n_heads"], index_head_dim=t["index_head_dim"])
    quant = c.get("quantization_config") or t.get("quantization_config")
    if isinstance(quant, dict):
        dtype = QUANT_DTYPE.get(str(quant.get("quant_method", "")).lower())
    else:
        dtype = c.get("torch_dtype") or c.get("dtype") or t.get("torch_dtype") or t.get("dtype")
    raw = {"family": family, "dims": dims, "dtype": dtype, "architecture": (c.get("architectures") or [None])[0],
           "max_position_embeddings": sglang_context_length(t)}
    if t is not c:
        raw["parameters_cover"] = "language model (the vision encoder is not counted)"
    return raw


def from_hf_config(text: str, src: dict) -> dict[str, dict]:
    """A model's ``config.json`` as its Hub repository publishes it."""
    raw = hf_config_facts(json.loads(text))
    if not raw["architecture"]:
        raise SystemExit(f"{src['path']}: no architectures")
    if raw["dtype"] not in DTYPE_BYTES:
        raise SystemExit(f"{src['path']}: checkpoint dtype {raw['dtype']!r} unknown")
    return {m: raw for m in src["models"]}


def from_mlc_preset(text: str, src: dict) -> dict[str, dict]:
    """mlc-ai/mlc-llm's ``model_preset.py``: ``MODEL_PRESETS``, the Hub
    ``config.json`` of each preset as a dict literal (read with ``ast``, never
    imported); ``preset`` in the source names the entry."""
    for node in ast.parse(text).body:
        target = node.targets[0] if isinstance(node, ast.Assign) else getattr(node, "target", None)
        if getattr(target, "id", None) == "MODEL_PRESETS" and isinstance(node.value, ast.Dict):
            for key, value in zip(node.value.keys, node.value.values):
                if ast.literal_eval(key) == src["preset"]:
                    return from_hf_config(json.dumps(ast.literal_eval(value)), src)
    raise SystemExit(f"{src['path']}: no MODEL_PRESETS[{src['preset']!r}]")


# -- Megatron arguments of slime's model scripts --------------------------------

#: ``--spec`` plugins that change what the arguments build
MEGATRON_SPECS = {"slime_plugins.models.minimax_m2": {"qk_norm": False, "qk_norm_full": True}}


def _bash_value(text: str, env: dict[str, str]) -> str:
    """``text`` of the script with ``$((A + B))``, ``$VAR``, ``${VAR}`` and
    ``${VAR:-default}`` expanded (what slime's model scripts use)."""
    def term(t: str) -> int:
        t = t.strip().lstrip("$")
        return int(env.get(t, t))

    def var(m):
        name = m.group(1) or m.group(3) or m.group(4)
        default = m.group(2)
        return env.get(name, default if default is not None else m.group(0))

    text = re.sub(r"\$\(\(([\w\s+$]+)\)\)", lambda m: str(sum(term(t) for t in m.group(1).split("+"))), text)
    return re.sub(r"\$\{(\w+):-([^}]*)\}|\$\{(\w+)\}|\$(\w+)", var, text)


def megatron_args(text: str) -> tuple[dict, dict]:
    """(``MODEL_ARGS`` as {flag: value or True}, the script's variables)."""
    import shlex

    env: dict[str, str] = {}
    for line in text.splitlines():
        m = re.fullmatch(r"\s*(\w+)=(\S+)\s*", line)
        if m and not m.group(2).startswith("("):
            env[m.group(1)] = _bash_value(m.group(2).strip('"'), env)
    block = re.search(r"MODEL_ARGS=\((.*?)\n\s*\)", text, re.S)
    if block is None:
        raise SystemExit("no MODEL_ARGS=( ... ) in the script")
    tokens = shlex.split(_bash_value(block.group(1), env), comments=True)
    args: dict = {}
    for i, tok in enumerate(tokens):
        if tok.startswith("--"):
            nxt = tokens[i + 1] if i + 1 < len(tokens) else None
            args[tok[2:]] = nxt if nxt is not None and not nxt.startswith("--") else True
            if tok == "--spec":  # --spec MODULE FUNCTION
                args["spec"] = nxt
    return args, env


def _dense_layers(args: dict, env: dict) -> int:
    """Leading dense layers: ``--moe-layer-freq [0]*K+[1]*M`` (K), or the
    list slime's scripts build from ``FIRST_K_DENSE_REPLACE``."""
    freq = args.get("moe-layer-freq")
    if freq is None:
        return 0
    if freq.startswith("$") and "FIRST_K_DENSE_REPLACE" in env:
        return int(env["FIRST_K_DENSE_REPLACE"])
    m = re.fullmatch(r"\[0\]\*(\d+)\+\[1\]\*(\d+)", freq.replace(" ", ""))
    if m:
        return int(m.group(1))
    m = re.fullmatch(r"\[1\]\*(\d+)", freq.replace(" ", ""))
    if m:
        return 0
    raise SystemExit(f"--moe-layer-freq {freq!r} not understood")


def from_megatron_args(text: str, src: dict) -> dict[str, dict]:
    """THUDM/slime's ``scripts/models/*.sh``: the Megatron arguments slime
    trains and converts each Hugging Face checkpoint with (mbridge maps
    them to the checkpoint's tensors, so the shapes are the checkpoint's).
    They state neither the context length nor the checkpoint dtype."""
    a, env = megatron_args(text)
    if "multi-latent-attention" in a:
        raise SystemExit(f"{src['path']}: MLA scripts are read from the models' own sources instead")
    heads = int(a["num-attention-heads"])
    dims = {
        "hidden_size": int(a["hidden-size"]),
        "num_hidden_layers": int(a["num-layers"]),
        "num_attention_heads": heads,
        "num_key_value_heads": int(a["num-query-groups"]) if a.get("group-query-attention") else heads,
        "head_dim": int(a.get("kv-channels") or int(a["hidden-size"]) // heads),
        "intermediate_size": int(a["ffn-hidden-size"]),
        "vocab_size": int(a["vocab-size"]),
    }
    if not a.get("untie-embeddings-and-output-weights"):
        dims["tie_word_embeddings"] = True
    if a.get("add-qkv-bias"):
        dims["qkv_bias"] = True
    if a.get("qk-layernorm"):
        dims["qk_norm"] = True
    dims.update(MEGATRON_SPECS.get(a.get("spec"), {}))
    dims = {k: v for k, v in dims.items() if v is not False}
    family = "llama"
    if a.get("num-experts"):
        family = "moe"
        dims.update(num_experts=int(a["num-experts"]), moe_intermediate_size=int(a["moe-ffn-hidden-size"]))
        if a.get("moe-shared-expert-intermediate-size"):
            dims["shared_expert_intermediate_size"] = int(a["moe-shared-expert-intermediate-size"])
        if a.get("moe-router-enable-expert-bias"):
            dims["router_bias"] = True
        dense = _dense_layers(a, env)
        if dense:
            dims["first_k_dense_replace"] = dense
    return {m: {"family": family, "dims": dims, "dtype": None, "architecture": src["architecture"]}
            for m in src["models"]}


# -- google-deepmind/gemma's TransformerConfig ------------------------------------


def _arith(node, names: dict):
    """An integer/bool expression of constants, module constants and
    + - * // (how ``_gemma.py`` writes its dimensions)."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name) and node.id in names:
        return names[node.id]
    if isinstance(node, ast.BinOp):
        left, right = _arith(node.left, names), _arith(node.right, names)
        ops = {ast.Add: lambda: left + right, ast.Sub: lambda: left - right, ast.Mult: lambda: left * right,
               ast.FloorDiv: lambda: left // right}
        if type(node.op) in ops:
            return ops[type(node.op)]()
    raise SystemExit(f"expression not understood: {ast.unparse(node)}")


def from_gemma_transformer(text: str, src: dict) -> dict[str, dict]:
    """google-deepmind/gemma's ``gm/nn/_gemma.py``: the ``TransformerConfig``
    of each model class (``classes`` in the source maps Hub id -> class).
    Gemma ties its embeddings; the vision encoder is not counted; the file
    states no context length or checkpoint dtype."""
    tree = ast.parse(text)
    names = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            try:
                names[node.targets[0].id] = _arith(node.value, names)
            except SystemExit:
                pass
    configs = {}
    for cls in tree.body:
        if not isinstance(cls, ast.ClassDef):
            continue
        for node in cls.body:
            if isinstance(node, ast.AnnAssign) and getattr(node.target, "id", None) == "config" and isinstance(
                    node.value, ast.Call):
                configs[cls.name] = {kw.arg: kw.value for kw in node.value.keywords}
    out = {}
    for model in src["models"]:
        kw = configs[src["classes"][model]]
        layers = next(k.value for k in kw["attention_types"].keywords if k.arg == "num_layers")
        norms = 2 + bool(_arith(kw["use_post_attn_norm"], names)) + bool(_arith(kw["use_post_ffw_norm"], names))
        dims = {
            "hidden_size": _arith(kw["embed_dim"], names),
            "num_hidden_layers": _arith(layers, names),
            "num_attention_heads": _arith(kw["num_heads"], names),
            "num_key_value_heads": _arith(kw["num_kv_heads"], names),
            "head_dim": _arith(kw["head_dim"], names),
            "intermediate_size": _arith(kw["hidden_dim"], names),
            "vocab_size": _arith(kw["num_embed"], names),
            "tie_word_embeddings": True,
            "norms_per_layer": norms,
        }
        if _arith(kw["use_qk_norm"], names):
            dims["qk_norm"] = True
        raw = {"family": "llama", "dims": dims, "dtype": None, "architecture": src["architecture"]}
        vision = kw.get("vision_encoder")
        if vision is not None and not (isinstance(vision, ast.Constant) and vision.value is None):
            raw["parameters_cover"] = "language model (the vision encoder is not counted)"
        out[model] = raw
    return out


FORMATS = {"llama-models-sku": from_llama_sku, "deepseek-inference": from_deepseek_inference,
           "hf-config": from_hf_config, "megatron-args": from_megatron_args,
           "gemma-transformer": from_gemma_transformer, "mlc-preset": from_mlc_preset}


def _entry(model: str, raw: dict, src: dict) -> dict:
    dims = raw["dims"]
    params = PARAMS[raw["family"]](dims)
    architecture = raw.get("architecture", src.get("architecture"))
    if src.get("architecture") and architecture != src["architecture"]:
        raise SystemExit(f"{model}: the source says {architecture}, model_sources.toml {src['architecture']}")
    entry = {
        "id": model,
        "architecture": architecture,
        "family": raw["family"],
        "num_hidden_layers": dims["num_hidden_layers"],
        "num_attention_heads": dims["num_attention_heads"],
        "num_key_value_heads": dims["num_key_value_heads"],
        "head_dim": dims["head_dim"],
        "hidden_size": dims["hidden_size"],
        "max_position_embeddings": raw.get("max_position_embeddings"),
        "parameters": params,
        "dtype": raw["dtype"],
        "dims": dims,
        "source": {
            "repo": src["repo"],
            "commit": src["commit"],
            "path": src["path"],
            "url": f"https://github.com/{src['repo']}/blob/{src['commit']}/{src['path']}",
        },
    }
    if raw.get("parameters_cover"):
        entry["parameters_cover"] = raw["parameters_cover"]
    # which part of a many-model file: an MLC preset, a gemma class
    if src.get("preset"):
        entry["source"]["entry"] = f"MODEL_PRESETS[{src['preset']!r}]"
    elif src.get("classes"):
        entry["source"]["entry"] = src["classes"][model]
    if src.get("context_path") and entry["max_position_embeddings"] is not None:
        entry["source"]["context_url"] = f"https://github.com/{src['repo']}/blob/{src['commit']}/{src['context_path']}"
    return entry


def generate(mirror: str | None) -> dict:
    sources = tomllib.loads(SOURCES.read_text(encoding="utf-8"))["source"]
    models = {}
    for src in sources:
        if src.get("context_path"):
            context = llama_max_seq_length(read_source(dict(src, path=src["context_path"]), mirror))
            raw = FORMATS[src["format"]](read_source(src, mirror), src, context)
        else:
            raw = FORMATS[src["format"]](read_source(src, mirror), src)
        missing = set(src["models"]) - set(raw)
        if missing:
            raise SystemExit(f"{src['repo']}:{src['path']}: no entry for {sorted(missing)}")
        for model in src["models"]:
            if model in models:
                raise SystemExit(f"{model}: listed under two sources")
            models[model] = _entry(model, raw[model], src)
    return {"generated_by": "python -m sgllint.catalog._gen_model_facts", "models": models}


def check(data: dict) -> list[str]:
    """Offline consistency of a registry: the problems found (empty = good)."""
    problems = []
    sources = tomllib.loads(SOURCES.read_text(encoding="utf-8"))["source"]
    pinned: dict[tuple, set] = {}  # (repo, commit, path) -> the models listed under it (one file, several presets)
    for source in sources:
        pinned.setdefault((source["repo"], source["commit"], source["path"]), set()).update(source["models"])
    for model, e in data["models"].items():
        src = e["source"]
        key = (src["repo"], src["commit"], src["path"])
        if key not in pinned or not _COMMIT.match(src["commit"]):
            problems.append(f"{model}: source {key} is not pinned in model_sources.toml")
        elif model not in pinned[key]:
            problems.append(f"{model}: not listed under its source in model_sources.toml")
        if e["family"] not in PARAMS:
            problems.append(f"{model}: unknown family {e['family']}")
            continue
        if PARAMS[e["family"]](e["dims"]) != e["parameters"]:
            problems.append(f"{model}: parameters {e['parameters']} != {PARAMS[e['family']](e['dims'])} from its dims")
        for key in ("num_hidden_layers", "num_attention_heads", "num_key_value_heads", "head_dim", "hidden_size"):
            if e[key] != e["dims"][key]:
                problems.append(f"{model}: {key} {e[key]} != dims {e['dims'][key]}")
        if e["num_attention_heads"] % e["num_key_value_heads"]:
            problems.append(f"{model}: {e['num_attention_heads']} heads not a multiple of {e['num_key_value_heads']} KV heads")
        if e["dtype"] is not None and e["dtype"] not in DTYPE_BYTES:  # None: the source does not say
            problems.append(f"{model}: unknown dtype {e['dtype']}")
        if e["max_position_embeddings"] is not None and e["max_position_embeddings"] < 2048:
            problems.append(f"{model}: context length {e['max_position_embeddings']} below SGLang's 2048 fallback")
    return problems


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mirror", help="directory of the pinned files (<owner>+<name>/<commit>/<path>); default: fetch from GitHub")
    ap.add_argument("--check", action="store_true", help="verify the checked-in registry instead of writing it")
    ap.add_argument("--offline", action="store_true", help="with --check: do not re-read the sources")
    opts = ap.parse_args(argv)
    if opts.check:
        data = json.loads(OUTPUT.read_text(encoding="utf-8"))
        problems = check(data)
        if not opts.offline:
            fresh = generate(opts.mirror)
            if fresh != data:
                problems.append("model_facts.json differs from what its sources give: regenerate it")
        for p in problems:
            print(p)
        print(f"{len(data['models'])} models, {len(problems)} problems")
        return 1 if problems else 0
    data = generate(opts.mirror)
    OUTPUT.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {OUTPUT} ({len(data['models'])} models)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
