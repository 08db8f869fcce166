"""GPU names -> SM version and vendor, from the curated ``catalog/gpus.toml``.

Matching is by whole words of a normalised label, so ``NVIDIA-H100-80GB-HBM3``,
``nvidia-h100-80gb``, ``H100:8`` and ``--gpu h100`` all find the H100, while
``a10`` does not match ``a100`` and ``b200`` does not match ``gb200``.
"""

from __future__ import annotations

import functools
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

_TABLE = Path(__file__).parents[1] / "catalog" / "gpus.toml"


@dataclass(frozen=True)
class Gpu:
    name: str
    vendor: str  # "nvidia" | "amd"
    sm: Optional[int]  # compute capability x10 (90 = 9.0); None for AMD
    arch: Optional[str] = None  # gfx942 ...
    memory_gb: Optional[int] = None  # largest datasheet variant (gpus.toml)

    @property
    def sm_major(self) -> Optional[int]:
        return None if self.sm is None else self.sm // 10

    def describe(self) -> str:
        if self.vendor == "amd":
            return f"{self.name} (AMD {self.arch})"
        return f"{self.name} (SM{self.sm})"


def _norm(label: str) -> str:
    return "-" + re.sub(r"[^a-z0-9]+", "-", label.lower()).strip("-") + "-"


@functools.lru_cache(maxsize=1)
def _table():
    data = tomllib.loads(_TABLE.read_text(encoding="utf-8"))
    gpus = {}
    patterns = []
    for name, entry in data["gpu"].items():
        gpu = Gpu(name, entry.get("vendor", "nvidia"), entry.get("sm"), entry.get("arch"), entry.get("memory_gb"))
        gpus[name.lower()] = gpu
        for m in entry.get("match", []) + [name]:
            patterns.append((_norm(m), gpu))
    patterns.sort(key=lambda p: -len(p[0]))
    instances = sorted(((_norm(k), v) for k, v in data.get("instance", {}).items()), key=lambda p: -len(p[0]))
    return gpus, patterns, instances


def by_name(name: str) -> Optional[Gpu]:
    return find(name)


def find(label: str) -> Optional[Gpu]:
    """The GPU a label names (a node label value, an accelerator string, an
    instance type), or None."""
    if not label:
        return None
    gpus, patterns, instances = _table()
    norm = _norm(label)
    for pattern, gpu in patterns:
        if pattern in norm:
            return gpu
    for prefix, name in instances:
        if norm.startswith(prefix):
            return gpus.get(name.lower())
    return None


def from_sm(sm: int) -> Gpu:
    """A nameless target for ``--sm 90``."""
    return Gpu(f"SM{sm}", "nvidia", sm)


def names() -> list[str]:
    return sorted(g.name for g in _table()[0].values())
