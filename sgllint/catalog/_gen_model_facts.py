"""Generate (and verify) ``catalog/model_facts.json`` from the pinned sources
listed in ``catalog/model_sources.toml``.

The registry holds DERIVED facts only (architecture, layers, attention / KV
heads, head dim, hidden size, max context when the source states it,
parameter count, checkpoint dtype), each entry with the repository, commit
and path it was derived from. Nothing of the source files is stored.

    python -m sgllint.catalog._gen_model_facts --mirror DIR   # files exported at the pinned commits
    python -m sgllint.catalog._gen_model_facts                          # online: raw.githubusercontent.com
    python -m sgllint.catalog._gen_model_facts --check                  # offline consistency check

``--check`` (also run by the tests) re-derives every parameter count from the
stored dimensions, checks the head arithmetic and that every entry names a
source pinned in ``model_sources.toml`` at a full commit hash. With
``--mirror`` or online, ``--check`` also re-reads the sources and compares.

Parameter counts are computed from the architecture's dimensions (the
formula of each format below), not copied: they count the served model's
weights (for DeepSeek-V3 without the MTP module, as the model card's 671B).
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
import urllib.request
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
    url = f"https://raw.githubusercontent.com/{src['repo']}/{src['commit']}/{src['path']}"
    with urllib.request.urlopen(url, timeout=30) as resp:  # noqa: S310 - pinned https URL
        return resp.read().decode("utf-8")


# ---------------------------------------------------------------------------
# Parameter counts from dimensions
# ---------------------------------------------------------------------------


def llama_params(d: dict) -> int:
    """Dense GQA decoder with SwiGLU MLP, RMSNorm, untied embeddings
    (Llama 3 reference ``model.py``)."""
    h, heads, kv, hd = d["hidden_size"], d["num_attention_heads"], d["num_key_value_heads"], d["head_dim"]
    attn = h * heads * hd * 2 + h * kv * hd * 2
    mlp = 3 * h * d["intermediate_size"]
    layer = attn + mlp + 2 * h
    embed = d["vocab_size"] * h * (1 if d.get("tie_word_embeddings") else 2)
    return embed + d["num_hidden_layers"] * layer + h


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
    n_dense = d["first_k_dense_replace"]
    layers = n_dense * (attn + dense + 2 * h) + (d["num_hidden_layers"] - n_dense) * (attn + moe + 2 * h)
    return 2 * d["vocab_size"] * h + layers + h


PARAMS = {"llama": llama_params, "deepseek": deepseek_params}


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
    dtype = {"fp8": "fp8", "bf16": "bfloat16"}.get(c.get("dtype", "bf16"), "bfloat16")
    return {m: {"family": "deepseek", "dims": dims, "dtype": dtype} for m in src["models"]}


FORMATS = {"llama-models-sku": from_llama_sku, "deepseek-inference": from_deepseek_inference}


def _entry(model: str, raw: dict, src: dict) -> dict:
    dims = raw["dims"]
    params = PARAMS[raw["family"]](dims)
    entry = {
        "id": model,
        "architecture": src["architecture"],
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
            models[model] = _entry(model, raw[model], src)
    return {"generated_by": "python -m sgllint.catalog._gen_model_facts", "models": models}


def check(data: dict) -> list[str]:
    """Offline consistency of a registry: the problems found (empty = good)."""
    problems = []
    sources = tomllib.loads(SOURCES.read_text(encoding="utf-8"))["source"]
    pinned = {(s["repo"], s["commit"], s["path"]): s for s in sources}
    for model, e in data["models"].items():
        src = e["source"]
        key = (src["repo"], src["commit"], src["path"])
        if key not in pinned or not _COMMIT.match(src["commit"]):
            problems.append(f"{model}: source {key} is not pinned in model_sources.toml")
        elif model not in pinned[key]["models"]:
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
        if e["dtype"] not in DTYPE_BYTES:
            problems.append(f"{model}: unknown dtype {e['dtype']}")
        if e["max_position_embeddings"] is not None and e["max_position_embeddings"] < 2048:
            problems.append(f"{model}: context length {e['max_position_embeddings']} below SGLang's 2048 fallback")
    return problems


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mirror", help="directory of git mirrors (<owner>+<name>/repo); default: fetch from GitHub")
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
