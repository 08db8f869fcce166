"""A launch's context: which SGLang release it targets and why.

Precedence, most specific first: ``--sglang-version`` on the command line; a
``# sgllint: sglang=X`` pragma in the file; ``sglang-version`` in config; an
SGLang container image tag in the same document; an ``sglang==X`` pin in the
project (requirements, pyproject, lock files) near the file; the sglang
distribution installed in this environment (metadata only, never imported);
else the newest shipped catalog.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from sgllint import catalog as catalogs
from sgllint.model import FileFacts, LaunchSite, Span

PRAGMA_RE = re.compile(r"sgllint:\s*([a-z-]+)\s*=\s*([^\s,;\]]+)")
_IMAGE_TAG_RE = re.compile(r"(?:^|/)sglang(?:-[a-z0-9]+)?:v?(\d+\.\d+\.\d+(?:\.post\d+)?|latest|dev|main|nightly)")
_PIN_RE = re.compile(r"""(?<![\w-])sglang(?:\[[^\]]*\])?\s*(?:==|===)\s*v?(\d+(?:\.\d+){1,3}(?:\.?post\d+)?)""", re.I)
_LOCK_RE = re.compile(r'name\s*=\s*"sglang"\s*\n\s*version\s*=\s*"([^"]+)"')
PIN_FILES = ("requirements*.txt", "pyproject.toml", "uv.lock", "poetry.lock", "pdm.lock", "Pipfile", "setup.cfg", "environment*.yml")


@dataclass(frozen=True)
class Fact:
    """A value with the place it came from, for ``--show-context``."""

    value: object
    source: str  # "command line", "pragma", "config", "image tag", ...
    span: Optional[Span] = None
    detail: str = ""

    def describe(self) -> str:
        where = ""
        if self.span is not None:
            line, _ = self.span.start_line_col()
            where = f" at {self.span.path}:{line}"
        detail = f" ({self.detail})" if self.detail else ""
        return f"{self.value} from {self.source}{detail}{where}"


@dataclass
class LaunchContext:
    version: Fact  # the catalog release the launch is judged against
    catalog: "catalogs.Catalog"
    requested: str = ""  # what the source asked for, before mapping to a catalog
    model: Optional[Fact] = None  # the model path / id as given
    architecture: Optional[Fact] = None  # config.json architectures[0]
    traits: frozenset = frozenset()  # mla, dsa, moe, multimodal, hybrid
    gpu: Optional[Fact] = None  # value: sgllint.hardware.Gpu; None = not pinned
    gpu_count: Optional[Fact] = None  # GPUs the container / job gives the launch
    skip_model_checks: bool = False  # instance:// and dummy models, as SGLang

    @property
    def arch(self) -> Optional[str]:
        return self.architecture.value if self.architecture else None  # type: ignore[return-value]

    @property
    def gpu_target(self):
        return self.gpu.value if self.gpu else None

    def as_dict(self) -> dict:
        out = {"sglang_version": self.catalog.version, "sglang_version_source": self.version.source}
        if self.model is not None:
            out["model"] = self.model.value
        if self.architecture is not None:
            out["architecture"] = self.architecture.value
            out["architecture_source"] = self.architecture.describe()
        if self.gpu is not None:
            gpu = self.gpu.value
            out["gpu"] = gpu.name
            out["gpu_sm"] = gpu.sm
            out["gpu_vendor"] = gpu.vendor
            out["gpu_source"] = self.gpu.describe()
        if self.gpu_count is not None:
            out["gpu_count"] = self.gpu_count.value
            out["gpu_count_source"] = self.gpu_count.describe()
        return out

    def lines(self) -> list[str]:
        """Human lines for ``--show-context``."""
        out = [f"SGLang {self.version.describe()}"]
        if self.model is not None:
            out.append(f"model {self.model.value}")
        if self.skip_model_checks:
            out.append("arch: not resolved (SGLang skips model checks for this model path)")
        elif self.architecture is not None:
            out.append(f"arch {self.architecture.describe()}")
        else:
            out.append("arch unknown (pin it: # sgllint: arch=..., or [tool.sgllint.models])")
        if self.gpu is not None:
            gpu = self.gpu.value
            out.append(f"gpu {gpu.describe()} from {self.gpu.source}{_where(self.gpu)}")
        else:
            out.append("gpu not pinned (--gpu, # sgllint: gpu=..., or a nodeSelector)")
        if self.gpu_count is not None:
            out.append(f"gpus {self.gpu_count.describe()}")
        return out


def _where(fact: Fact) -> str:
    if fact.span is None:
        return ""
    line, _ = fact.span.start_line_col()
    return f" at {fact.span.path}:{line}"


def pragmas(facts: FileFacts) -> dict[str, tuple[str, Span]]:
    found: dict[str, tuple[str, Span]] = {}
    for offset, text in facts.comments:
        for m in PRAGMA_RE.finditer(text):
            key = m.group(1)
            if key in ("ignore", "ignore-file"):
                continue
            found.setdefault(key, (m.group(2), Span(facts.source, offset, offset + len(text))))
    return found


def image_version(image: str) -> Optional[str]:
    m = _IMAGE_TAG_RE.search(image)
    return m.group(1) if m else None


@functools.lru_cache(maxsize=256)
def _project_pin_in(directory: Path) -> Optional[tuple[str, str]]:
    for pattern in PIN_FILES:
        for f in sorted(directory.glob(pattern)):
            try:
                if f.stat().st_size > 4_000_000:
                    continue
                text = f.read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            m = _LOCK_RE.search(text) if f.suffix == ".lock" else None
            m = m or _PIN_RE.search(text)
            if m:
                return m.group(1), f.name
    return None


def project_pin(path: Path) -> Optional[tuple[str, Path]]:
    """An ``sglang==X`` pin in the nearest project files above ``path``,
    stopping at the repository root."""
    try:
        d = path.resolve().parent
    except OSError:
        return None
    for directory in (d, *d.parents):
        pin = _project_pin_in(directory)
        if pin:
            return pin[0], directory / pin[1]
        if (directory / ".git").exists():
            break
    return None


@functools.lru_cache(maxsize=1)
def installed_version() -> Optional[str]:
    from importlib import metadata

    try:
        return metadata.version("sglang")
    except metadata.PackageNotFoundError:
        return None
    except Exception:  # a broken environment must not break the linter
        return None


def _usable(requested: str) -> Optional[str]:
    try:
        return catalogs.resolve_version(requested)
    except catalogs.UnknownVersion:
        return None


def resolve_version(
    site: LaunchSite,
    facts: FileFacts,
    cli_version: Optional[str],
    config_version: Optional[str],
    file_pragmas: dict,
    use_environment: bool = True,
) -> tuple[Fact, str]:
    """The release ``site`` targets, as (fact, requested string)."""
    candidates: list[tuple[str, str, Optional[Span], str]] = []
    if cli_version:
        candidates.append((cli_version, "command line", None, "--sglang-version"))
    if "sglang" in file_pragmas:
        value, span = file_pragmas["sglang"]
        candidates.append((value, "pragma", span, "# sgllint: sglang="))
    if config_version:
        candidates.append((config_version, "config", None, "sglang-version"))
    for hint in site.hints:
        if hint.kind == "sglang-image" and isinstance(hint.value, str):
            v = image_version(hint.value)
            if v:
                candidates.append((v, "image tag", hint.span, hint.value))
    for requested, source, span, detail in candidates:
        usable = _usable(requested)
        if usable:
            return Fact(usable, source, span, detail), requested
    pin = project_pin(Path(facts.source.path))
    if pin:
        usable = _usable(pin[0])
        if usable:
            return Fact(usable, "project pin", None, f"sglang=={pin[0]} in {pin[1].name}"), pin[0]
    if use_environment:
        inst = installed_version()
        if inst and _usable(inst):
            return Fact(_usable(inst), "installed sglang", None, inst), inst
    newest = catalogs.latest()
    return Fact(newest, "default (newest catalog)"), newest


# ---------------------------------------------------------------------------
# Model, GPU target and GPU count
# ---------------------------------------------------------------------------

_SBATCH_GRES_RE = re.compile(r"#SBATCH\s+--(?:gres=gpu|gpus(?:-per-node)?=?)[:=]?(?:([A-Za-z][\w.-]*):)?(\d+)")
_COUNT_SUFFIX_RE = re.compile(r"^(.*?)[:x*](\d+)$")


def _arg_value(args, field_name):
    found = None
    for a in args:
        if a.field == field_name:
            found = a
    return found


def resolve_model(ctx: LaunchContext, args, facts: FileFacts, file_pragmas: dict, model_globs: tuple) -> None:
    from sgllint import modelinfo
    from sgllint.model import is_known

    model_arg = _arg_value(args, "model_path")
    if model_arg is not None and isinstance(model_arg.value, str):
        ctx.model = Fact(model_arg.value, "--model-path", model_arg.value_span)
        if modelinfo.is_special(model_arg.value):
            ctx.skip_model_checks = True
            return
    model = ctx.model.value if ctx.model else None
    if "arch" in file_pragmas:
        value, span = file_pragmas["arch"]
        ctx.architecture = Fact(value, "pragma", span)
        return
    if model and model_globs:
        hit = modelinfo.configured_architecture(model, model_globs)
        if hit:
            ctx.architecture = Fact(hit[0], "config", None, f"[tool.sgllint.models] {hit[1]!r}")
            return
    override = _arg_value(args, "json_model_override_args")
    if override is not None and is_known(override.value):
        data = override.value
        if isinstance(data, str):
            try:
                data = json.loads(data)
            except ValueError:
                data = None
        if isinstance(data, dict):
            arch = modelinfo.architecture_of(data)
            if arch:
                ctx.architecture = Fact(arch, "--json-model-override-args", override.value_span)
                return
    if not model:
        return
    base = Path(facts.source.path).parent
    local = modelinfo.local_config(model, base)
    cache = None if local else modelinfo.hf_cache_config(model)
    for path, source in ((local, "local config.json"), (cache, "Hugging Face cache")):
        if path is None:
            continue
        config = modelinfo.read_config_json(path)
        arch = modelinfo.architecture_of(config) if config else None
        if arch:
            ctx.architecture = Fact(arch, source, None, str(path))
            ctx.traits = modelinfo.traits_of(config)
            if modelinfo.dspark_subfolder(path):
                ctx.traits = ctx.traits | {"dspark-subfolder"}
            return
    hit = modelinfo.registry_lookup(model)
    if hit:
        entry, name = hit
        ctx.architecture = Fact(entry.architecture, "registry", None, model)
        ctx.traits = entry.traits


def _gpu_from_label(label: str):
    from sgllint import hardware

    m = _COUNT_SUFFIX_RE.match(label.strip())
    name = m.group(1) if m else label
    return hardware.find(name) or hardware.find(label), (int(m.group(2)) if m else None)


def resolve_gpu(ctx: LaunchContext, site: LaunchSite, facts: FileFacts, cli_gpu: Optional[str],
                config_gpu: Optional[str], file_pragmas: dict) -> None:
    from sgllint import hardware

    named: list[tuple[str, str, Optional[Span]]] = []
    if cli_gpu:
        named.append((cli_gpu, "command line", None))
    if "gpu" in file_pragmas:
        value, span = file_pragmas["gpu"]
        named.append((value, "pragma", span))
    if config_gpu:
        named.append((config_gpu, "config", None))
    for hint in site.hints:
        if hint.kind == "gpu-product" and isinstance(hint.value, str):
            named.append((hint.value, "manifest", hint.span))
    for offset, text in facts.comments:
        m = _SBATCH_GRES_RE.search(text)
        if m and m.group(1):
            named.append((m.group(1), "#SBATCH", Span(facts.source, offset, offset + len(text))))
    for label, source, span in named:
        if re.fullmatch(r"(?:sm_?)?(\d{2,3})", label.strip().lower()):
            gpu = hardware.from_sm(int(re.sub(r"\D", "", label)))
            count = None
        else:
            gpu, count = _gpu_from_label(label)
        if gpu is not None:
            ctx.gpu = Fact(gpu, source, span, label)
            if count is not None and ctx.gpu_count is None:
                ctx.gpu_count = Fact(count, source, span, label)
            break
    if ctx.gpu is None:
        for hint in site.hints:
            if hint.kind == "sglang-image" and isinstance(hint.value, str) and "rocm" in hint.value.lower():
                ctx.gpu = Fact(hardware.Gpu("AMD GPU", "amd", None), "ROCm image", hint.span, hint.value)
                break


def resolve_gpu_count(ctx: LaunchContext, site: LaunchSite, facts: FileFacts) -> None:
    if ctx.gpu_count is not None:
        return
    for hint in site.hints:
        if hint.kind == "gpu-count" and isinstance(hint.value, int):
            ctx.gpu_count = Fact(hint.value, "GPU limit", hint.span)
            return
    for env in site.env:
        if env.name == "CUDA_VISIBLE_DEVICES" and isinstance(env.value, str):
            ids = [d for d in env.value.split(",") if d.strip()]
            ctx.gpu_count = Fact(len(ids), "CUDA_VISIBLE_DEVICES", env.value_span or env.span, env.value)
            return
    for offset, text in facts.comments:
        m = _SBATCH_GRES_RE.search(text)
        if m:
            ctx.gpu_count = Fact(int(m.group(2)), "#SBATCH", Span(facts.source, offset, offset + len(text)))
            return
