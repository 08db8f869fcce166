"""The facts of the launch being evaluated, as the environment model reads them."""

from __future__ import annotations

from .. import interp
from ..domain import Unknown


class Env:
    """The facts of one launch, read by the model (reads are recorded: a
    module's import is cached by the facts it read)."""

    def __init__(self, facts):
        self.facts = facts
        g = facts.gpu
        self.vendor = g.vendor if g else None
        self.sm = g.sm if g else None
        self.count = g.count if g else None
        self.mem_gib = g.memory_gib if g else None
        self.gpu_name = g.name if g else None
        self.gpu_arch = g.arch if g else None
        self.cuda_version = g.cuda if g else None
        self.env = dict(facts.env or {})
        self.model_config = facts.model_config
        self.model_files = facts.model_files
        path = (facts.user_args or {}).get("model_path")
        self.model_path = path.rstrip("/") if isinstance(path, str) and path.strip("/") else None

    def fact_key(self, name: str):
        """The fact as a module cache compares it (Unknown as "?")."""
        v = self.fact(name)
        return "?" if isinstance(v, Unknown) else v

    def fact(self, name: str):
        rec = interp.RT.recorders
        if name.startswith("env:"):
            v = self.getenv(name[4:])
        else:
            v = getattr(self, name)
        if rec:
            rec[-1].add((name, v if not isinstance(v, Unknown) else "?"))
        return v

    def getenv(self, name: str):
        if name in self.env:
            return self.env[name]
        if name.startswith(("SGLANG_", "SGL_", "ENABLE_", "NCCL_", "TORCH_", "CUDA_LAUNCH")):
            return None
        return Unknown(f"environment variable {name}")


def env() -> Env:
    return interp.RT.env
