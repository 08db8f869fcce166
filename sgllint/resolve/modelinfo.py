"""What model a launch serves and its architecture, resolved offline.

Order (most specific first): a ``# sgllint: arch=`` pragma; the config's
``[tool.sgllint.models]`` globs; ``--json-model-override-args
'{"architectures": [...]}'``; a local model directory's ``config.json``
(relative to the launch file, or absolute) inside the project; the local
Hugging Face cache, when the user allowed it (``--allow-outside``); the
curated registry ``catalog/models.toml``. Nothing here touches the network,
and ``config.json`` is read, never executed, and size-capped.
"""

from __future__ import annotations

import fnmatch
import functools
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from sgllint.catalog import _gen_model_facts as _gen
from sgllint.resolve.project import Scope, read_regular, scope_for

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

_REGISTRY = Path(__file__).parents[1] / "catalog" / "models.toml"
MAX_CONFIG_BYTES = 2 * 1024 * 1024


@dataclass(frozen=True)
class ModelEntry:
    architecture: str
    traits: frozenset


@functools.lru_cache(maxsize=1)
def _registry() -> dict[str, ModelEntry]:
    data = tomllib.loads(_REGISTRY.read_text(encoding="utf-8"))
    by_name = {}
    for item in data.get("model", []):
        entry = ModelEntry(item["architecture"], frozenset(item.get("traits", [])))
        for name in item.get("names", []):
            by_name[name.lower()] = entry
    return by_name


def registry_lookup(model: str) -> Optional[tuple[ModelEntry, str]]:
    """(entry, matched name) for a model id, a mirror (``unsloth/DeepSeek-V3``)
    or a local path ending in a known name (``/models/DeepSeek-V3/``)."""
    name = model.rstrip("/").rsplit("/", 1)[-1].lower()
    entry = _registry().get(name)
    return (entry, name) if entry else None


def is_special(model: str) -> bool:
    """SGLang skips model-dependent checks for these (``instance://``,
    ``dummy``/``none``)."""
    low = model.strip().lower()
    return low in ("dummy", "none") or low.startswith("instance://")


def read_config_json(path: Path) -> Optional[dict]:
    """A ``config.json`` found by `local_config` or `hf_cache_config` (so in
    scope); None when it is not a regular file, too large or not JSON."""
    raw = read_regular(str(path), MAX_CONFIG_BYTES)
    if raw is None:
        return None
    try:
        data = json.loads(raw.decode("utf-8", errors="replace"))
    except (ValueError, RecursionError):
        return None
    return data if isinstance(data, dict) else None


#: a model directory with more entries than this is not listed (not a checkpoint)
MAX_MODEL_DIR_ENTRIES = 4096


def model_dir_listing(config_path: Path) -> Optional[frozenset]:
    """The entries of the model directory holding ``config_path`` (found by
    `local_config`, so in scope): file names, subdirectories with a trailing
    "/". Names only, nothing is opened. None when it cannot be told exactly:
    unreadable, too many entries, or a symbolic link among them (what it
    leads to is not looked at)."""
    names = set()
    try:
        with os.scandir(config_path.parent) as entries:
            for entry in entries:
                if len(names) >= MAX_MODEL_DIR_ENTRIES or entry.is_symlink():
                    return None
                names.add(entry.name + "/" if entry.is_dir(follow_symlinks=False) else entry.name)
    except OSError:
        return None
    return frozenset(names)


def architecture_of(config: dict) -> Optional[str]:
    archs = config.get("architectures")
    if isinstance(archs, list) and archs and isinstance(archs[0], str):
        return archs[0]
    return None


#: keys marking a checkpoint that bundles its DSpark draft head
#: (``speculative/dspark_components/dspark_config.py`` ``checkpoint_bundles_dspark_draft``, 0.5.16-0.5.23)
DSPARK_BUNDLE_KEYS = ("dspark_block_size", "dspark_markov_rank", "dspark_noise_token_id", "dspark_target_layer_ids")


def dspark_subfolder(config_path: Path, scope: Optional[Scope] = None) -> bool:
    """A ``dspark/config.json`` beside the checkpoint's ``config.json`` (the
    draft SGLang 0.5.23+ uses when ``--speculative-draft-model-path`` is unset)."""
    scope = scope or scope_for(config_path)
    real = scope.locate(os.path.join("dspark", "config.json"), config_path.parent)
    return real is not None and os.path.isfile(real)


def traits_of(config: dict) -> frozenset:
    traits = set()
    text = config.get("text_config") if isinstance(config.get("text_config"), dict) else {}
    if config.get("kv_lora_rank") or text.get("kv_lora_rank"):
        traits.add("mla")
    if config.get("index_topk") or text.get("index_topk"):
        traits.add("dsa")
    if config.get("n_routed_experts") or config.get("num_experts") or config.get("num_local_experts"):
        traits.add("moe")
    if "vision_config" in config:
        traits.add("multimodal")
    if any(config.get(k) is not None for k in DSPARK_BUNDLE_KEYS):
        traits.add("dspark-draft")
    return frozenset(traits)


def _config_reference(model: str) -> Optional[str]:
    """Where a local model directory named by ``model`` keeps its config."""
    if "://" in model or not model or "\0" in model:
        return None
    return os.path.join(os.path.expanduser(model), "config.json")


def local_config(model: str, base_dir: Path, scope: Optional[Scope] = None) -> Optional[Path]:
    """``config.json`` of a local model directory named by ``model``
    (absolute, or relative to ``base_dir``) when it is a file inside
    ``scope`` (default: the project of ``base_dir``)."""
    reference = _config_reference(model)
    if reference is None:
        return None
    scope = scope or scope_for(base_dir)
    real = scope.locate(reference, base_dir)
    if real is None or not os.path.isfile(real):
        return None
    return base_dir / reference if not os.path.isabs(reference) else Path(reference)


def model_dir_outside(model: str, base_dir: Path, scope: Scope) -> bool:
    """Whether ``model`` names a local directory outside ``scope``."""
    reference = _config_reference(model)
    return reference is not None and scope.locate(reference, base_dir) is None


def hf_cache_dirs() -> list[Path]:
    dirs = []
    if os.environ.get("HF_HUB_CACHE"):
        dirs.append(Path(os.environ["HF_HUB_CACHE"]))
    if os.environ.get("HF_HOME"):
        dirs.append(Path(os.environ["HF_HOME"]) / "hub")
    dirs.append(Path(os.path.expanduser("~/.cache/huggingface/hub")))
    return dirs


def hf_cache_config(model: str, scope: Optional[Scope] = None) -> Optional[Path]:
    """``config.json`` of ``org/name`` in the local Hugging Face cache. The
    cache is the user's, outside every project: it is read only inside a
    path ``scope`` allows (``--allow-outside ~/.cache/huggingface/hub``)."""
    if scope is None or not scope.allowed:
        return None
    if model.count("/") != 1 or model.startswith(("/", ".", "~")) or "\0" in model:
        return None
    folder = "models--" + model.replace("/", "--")
    for root in hf_cache_dirs():
        if not scope.allows_outside(os.path.realpath(root)):
            continue
        snapshots = root / folder / "snapshots"
        try:
            found = sorted(snapshots.glob("*/config.json"), key=lambda p: p.stat().st_mtime, reverse=True)
        except OSError:
            continue
        if found:
            return found[0]
    return None


def configured_architecture(model: str, mapping: tuple) -> Optional[tuple[str, str]]:
    """(architecture, glob) from ``[tool.sgllint.models]``."""
    for pattern, arch in mapping:
        if fnmatch.fnmatchcase(model.lower(), pattern.lower()):
            return arch, pattern
    return None


# ---------------------------------------------------------------------------
# Model facts (shape, context, size) for the model-fit checks
# ---------------------------------------------------------------------------

_FACTS = Path(__file__).parents[1] / "catalog" / "model_facts.json"

#: bytes per parameter of a checkpoint dtype / quantization (lower bound for
#: mixed formats, so a size estimate never overstates); SGLang's
#: ``CONTEXT_LENGTH_KEYS``: both shared with the registry's generator
DTYPE_BYTES = _gen.DTYPE_BYTES
CONTEXT_LENGTH_KEYS = _gen.CONTEXT_LENGTH_KEYS


@dataclass(frozen=True)
class ModelFacts:
    """What the model-fit checks need; a field is None when not known."""

    architecture: Optional[str]
    num_attention_heads: Optional[int]
    num_key_value_heads: Optional[int]
    context_length: Optional[int]  # as SGLang derives it (get_context_length)
    parameters: Optional[int]
    dtype: Optional[str]
    source: str  # where the facts come from, for messages and --show-context

    @property
    def weight_bytes(self) -> Optional[float]:
        if self.parameters is None or self.dtype not in DTYPE_BYTES:
            return None
        return self.parameters * DTYPE_BYTES[self.dtype]


def _alias_names(model_id: str) -> list[str]:
    name = model_id.rsplit("/", 1)[-1].lower()
    names = [model_id.lower(), name]
    if name.startswith("meta-llama-3"):
        names.append(name[len("meta-"):])  # HF renamed meta-llama/Meta-Llama-3.1-* to Llama-3.1-*
    return names


@functools.lru_cache(maxsize=1)
def _facts_registry() -> dict[str, ModelFacts]:
    data = json.loads(_FACTS.read_text(encoding="utf-8"))
    out = {}
    for model_id, e in data["models"].items():
        src = e["source"]
        facts = ModelFacts(
            e["architecture"], e["num_attention_heads"], e["num_key_value_heads"], e.get("max_position_embeddings"),
            e["parameters"], e["dtype"], f"sgllint's model registry ({model_id}, from {src['url']})",
        )
        for name in _alias_names(model_id):
            out.setdefault(name, facts)
    return out


def registry_facts(model: str) -> Optional[ModelFacts]:
    """Registry facts for a Hub id, a mirror or a local path ending in a known name."""
    low = model.rstrip("/").lower()
    reg = _facts_registry()
    return reg.get(low) or reg.get(low.rsplit("/", 1)[-1])


def _pos_int(value) -> Optional[int]:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def derived_context_length(text: dict) -> Optional[int]:
    """SGLang's ``get_context_length`` on a (text) config dict; None when no
    key is set (SGLang falls back to 2048; sgllint stays silent)."""
    return _gen.sglang_context_length(text)


def _config_params(config: dict) -> Optional[int]:
    """Parameter count from the dimensions, with the registry's formulas
    (dense GQA, MoE, MLA; a multimodal wrapper's language model); None for
    any other shape (sgllint then stays silent rather than guess)."""
    try:
        raw = _gen.hf_config_facts(config)
        # a user's file: every dimension a whole number (flags aside), or no count
        dims = raw["dims"]
        if any(not isinstance(v, (bool, int)) or v < 0 for v in dims.values() if v is not None):
            return None
        if not all(_pos_int(dims[k]) for k in ("hidden_size", "num_hidden_layers", "num_attention_heads",
                                                "num_key_value_heads", "head_dim", "vocab_size")):
            return None
        return _pos_int(_gen.PARAMS[raw["family"]](dims))
    except (_gen.UnmodelledConfig, KeyError, TypeError, ValueError, ZeroDivisionError, IndexError, AttributeError):
        return None


def facts_of_config(config: dict, source: str) -> ModelFacts:
    """Facts of a Hugging Face ``config.json`` (its ``text_config`` for a
    multimodal wrapper), read as SGLang reads it."""
    text = config.get("text_config") if isinstance(config.get("text_config"), dict) else config
    heads = _pos_int(text.get("num_attention_heads"))
    kv = _pos_int(text.get("num_key_value_heads")) or heads
    if text.get("kv_lora_rank"):
        kv = 1  # MLA: one latent KV head
    quant = config.get("quantization_config") if isinstance(config.get("quantization_config"), dict) else None
    dtype = config.get("torch_dtype") or config.get("dtype") or text.get("torch_dtype") or text.get("dtype")
    if quant is not None:
        dtype = _gen.QUANT_DTYPE.get(str(quant.get("quant_method", "")).lower())
    return ModelFacts(
        architecture_of(config), heads, kv, derived_context_length(text), _config_params(config),
        dtype if isinstance(dtype, str) else None, source,
    )
