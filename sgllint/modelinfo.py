"""What model a launch serves and its architecture, resolved offline.

Order (most specific first): a ``# sgllint: arch=`` pragma; the config's
``[tool.sgllint.models]`` globs; ``--json-model-override-args
'{"architectures": [...]}'``; a local model directory's ``config.json``
(relative to the launch file, or absolute); the local Hugging Face cache; the
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

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

_REGISTRY = Path(__file__).parent / "catalog" / "models.toml"
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
    try:
        if path.stat().st_size > MAX_CONFIG_BYTES:
            return None
        data = json.loads(path.read_text(encoding="utf-8", errors="replace"))
    except (OSError, ValueError, RecursionError):
        return None
    return data if isinstance(data, dict) else None


def architecture_of(config: dict) -> Optional[str]:
    archs = config.get("architectures")
    if isinstance(archs, list) and archs and isinstance(archs[0], str):
        return archs[0]
    return None


#: keys marking a checkpoint that bundles its DSpark draft head
#: (``speculative/dspark_components/dspark_config.py`` ``checkpoint_bundles_dspark_draft``, 0.5.16-0.5.23)
DSPARK_BUNDLE_KEYS = ("dspark_block_size", "dspark_markov_rank", "dspark_noise_token_id", "dspark_target_layer_ids")


def dspark_subfolder(config_path: Path) -> bool:
    """A ``dspark/config.json`` beside the checkpoint's ``config.json`` (the
    draft SGLang 0.5.23+ uses when ``--speculative-draft-model-path`` is unset)."""
    try:
        return (config_path.parent / "dspark" / "config.json").is_file()
    except OSError:
        return False


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


def local_config(model: str, base_dir: Path) -> Optional[Path]:
    """``config.json`` of a local model directory named by ``model``."""
    if "://" in model or not model:
        return None
    candidate = Path(os.path.expanduser(model))
    if not candidate.is_absolute():
        candidate = base_dir / candidate
    cfg = candidate / "config.json"
    try:
        return cfg if cfg.is_file() else None
    except OSError:
        return None


def hf_cache_dirs() -> list[Path]:
    dirs = []
    if os.environ.get("HF_HUB_CACHE"):
        dirs.append(Path(os.environ["HF_HUB_CACHE"]))
    if os.environ.get("HF_HOME"):
        dirs.append(Path(os.environ["HF_HOME"]) / "hub")
    dirs.append(Path(os.path.expanduser("~/.cache/huggingface/hub")))
    return dirs


def hf_cache_config(model: str) -> Optional[Path]:
    """``config.json`` of ``org/name`` in the local Hugging Face cache."""
    if model.count("/") != 1 or model.startswith(("/", ".", "~")):
        return None
    folder = "models--" + model.replace("/", "--")
    for root in hf_cache_dirs():
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
