"""A launch's context: which SGLang release it targets and why.

Precedence, most specific first: ``--sglang-version`` on the command line; a
``# sgllint: sglang=X`` pragma in the file; ``sglang-version`` in config; an
SGLang container image tag in the same document; an ``sglang==X`` pin in the
project (requirements, pyproject, lock files) near the file; the sglang
distribution installed in this environment (metadata only, never imported);
else the newest shipped catalog.
"""

from __future__ import annotations

import fnmatch
import functools
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from sgllint import catalog as catalogs
from sgllint.model.facts import ContextHint, FileFacts, LaunchSite, Span
from sgllint.model.kinds import HintKind, Provenance
from sgllint.model.numbers import small_int
from sgllint.resolve.project import MARKERS, Scope, on_forget, scope_for
from sgllint.resolve.safe_read import NotRead, NotReadReason, read_regular_file

PRAGMA_RE = re.compile(r"sgllint:\s*([a-z-]+)\s*=\s*([^\s,;\]]+)")
_IMAGE_TAG_RE = re.compile(r"(?:^|/)(?:sglang(?:-[a-z0-9]+)?|sgl-dev):v?(\d+\.\d+\.\d+(?:\.post\d+)?|latest|dev|main|nightly)")
#: a nightly tagged with its day: ``nightly-dev-20251215-4449c170``, ``dev-20260105``
_DATED_TAG_RE = re.compile(r"(?:^|/)(?:sglang(?:-[a-z0-9]+)?|sgl-dev):(?:nightly|dev)(?:-dev)?[-_.]?(20\d\d)([01]\d)([0-3]\d)(?!\d)")
_WRAPPER_IMAGE_RE = re.compile(r"(?:^|/)ai-dynamo/sglang-runtime:")
_PIN_RE = re.compile(r"""(?<![\w-])sglang(?:\[[^\[\]]*\])?\s*(?:==|===)\s*v?(\d+(?:\.\d+){1,3}(?:\.?post\d+)?)""", re.I)
_LOCK_RE = re.compile(r'name\s*=\s*"sglang"\s*\n\s*version\s*=\s*"([^"]+)"')
PIN_FILES = ("requirements*.txt", "pyproject.toml", "uv.lock", "poetry.lock", "pdm.lock", "Pipfile", "setup.cfg", "environment*.yml")
#: a pin file larger than this is not read
MAX_PIN_FILE_BYTES = 4_000_000


@dataclass(frozen=True)
class Fact:
    """A value with the place it came from, for ``--show-context``."""

    value: object
    source: Provenance
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
    gpu: Optional[Fact] = None  # value: sgllint.resolve.hardware.Gpu; None = not pinned
    gpu_count: Optional[Fact] = None  # GPUs the launch sees: the tightest of `gpu_grants`
    #: every place that grants GPUs to the launch (a pod's ``nvidia.com/gpu``
    #: limit, ``docker run --gpus``, compose ``deploy.resources`` devices,
    #: SkyPilot ``accelerators``, ``#SBATCH --gres``, a ``--gpu H100:8`` label,
    #: ``CUDA_VISIBLE_DEVICES``), in the order found (`resolve_gpu_count`)
    gpu_grants: list = field(default_factory=list)
    skip_model_checks: bool = False  # instance:// and dummy models, as SGLang
    scope: Optional[Scope] = None  # where its references may be read (`sgllint.resolve.project`)
    # references left unread because they lead outside the project
    # (`HintKind.OUTSIDE_PROJECT` hints, at the reference)
    outside: list = field(default_factory=list)
    #: which parser judges the launch's args: "sglang" (SGLang's server),
    #: "diffusion" (SGLang's multimodal_gen server), "router" (a router
    #: entry point that never starts SGLang); rules declare the targets
    #: they check (``Rule.targets``)
    target: str = "sglang"
    #: the wrapper in front of SGLang (`sgllint.resolve.wrapped.WrappedLaunch`)
    wrapped: Optional[object] = None
    #: the diffusion release and command (`sgllint.resolve.diffusion_launch`)
    diffusion: Optional[object] = None

    @property
    def arch(self) -> Optional[str]:
        return self.architecture.value if self.architecture else None  # type: ignore[return-value]

    @property
    def gpu_target(self):
        return self.gpu.value if self.gpu else None

    def as_dict(self) -> dict:
        out = {"sglang_version": self.catalog.version, "sglang_version_source": self.version.source}
        if self.wrapped is not None:
            out["wrapper"] = self.wrapped.label
        if self.target != "sglang":
            out["target"] = self.target
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
        if self.wrapped is not None:
            out.append(f"wrapper {self.wrapped.label} ({self.wrapped.entry})")
        if self.diffusion is not None:
            d = self.diffusion
            out.append(f"parser: SGLang {d.release}'s diffusion server (sglang {d.command}; {d.route})")
        elif self.target != "sglang":
            out.append(f"parser: {self.target}")
        if self.model is not None:
            out.append(f"model {self.model.value}")
        if self.skip_model_checks:
            out.append("arch: not resolved (SGLang skips model checks for this model path)")
        elif self.architecture is not None:
            out.append(f"arch {self.architecture.describe()}")
        elif self.outside:
            out.append(f"arch unknown ({self.outside[0].value} is outside the project: not read; pass --allow-outside PATH)")
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
    if _WRAPPER_IMAGE_RE.search(image):
        return None  # Dynamo's sglang-runtime image is tagged with Dynamo's release
    dated = _DATED_TAG_RE.search(image)
    if dated:
        return release_after(f"{dated.group(1)}-{dated.group(2)}-{dated.group(3)}")
    m = _IMAGE_TAG_RE.search(image)
    return m.group(1) if m else None


@functools.lru_cache(maxsize=1)
def _release_dates() -> tuple[tuple[str, str], ...]:
    """(day built, release), oldest first (`catalog._gen_dates`)."""
    try:
        data = json.loads((catalogs.DATA_DIR / "release-dates.json").read_text())
    except (OSError, ValueError):
        return ()
    return tuple(sorted((v["built"], r) for r, v in data.get("releases", {}).items()))


def release_after(day: str) -> Optional[str]:
    """The release a nightly of ``day`` (YYYY-MM-DD) became: the first one
    built on or after it (the newest when none is); None without dates."""
    dates = _release_dates()
    for built, release in dates:
        if built >= day:
            return release
    return dates[-1][1] if dates else None


#: pins found per (directory, scope) in this run (`sgllint.resolve.project.forget`
#: clears it); a directory whose listing or pin file could not be read is
#: not remembered: the refusal may be lifted (the LSP server's workspace
#: established later, a permission fixed)
_PINS: dict = {}
_MAX_PINS = 4096
on_forget(_PINS.clear)


def _project_pin_in(directory: Path, scope: Scope, pin_re: Optional[re.Pattern] = None) -> Optional[tuple[str, str]]:
    key = (directory, scope, pin_re)
    if key in _PINS:
        return _PINS[key]
    pin, certain = _find_pin_in(directory, scope, pin_re)
    if certain:
        if len(_PINS) >= _MAX_PINS:
            _PINS.clear()
        _PINS[key] = pin
    return pin


_project_pin_in.cache_clear = _PINS.clear  # type: ignore[attr-defined]  # as when it was an lru_cache


def _read_pin_file(name: str, directory: Path, scope: Scope) -> tuple[Optional[str], bool]:
    """(the text of a pin file in ``directory``, or None; False when it
    exists but could not be read, so the answer is not certain). A pin file
    linking out of the project is not read; one refused as too large or not
    regular is simply no pin."""
    real = scope.locate(name, directory)
    if real is None:
        return None, True
    try:
        data, _ = read_regular_file(real, MAX_PIN_FILE_BYTES)
    except NotRead as refusal:
        return None, refusal.reason is not NotReadReason.CANNOT_READ
    return data.decode("utf-8", errors="replace"), True


def _find_pin_in(directory: Path, scope: Scope, pin_re: Optional[re.Pattern] = None) -> tuple[Optional[tuple[str, str]], bool]:
    """(the pin (an ``sglang==X`` one, or what ``pin_re`` finds) in ``directory``'s pin files, whether the answer is certain:
    nothing was refused on the way)."""
    try:
        names = os.listdir(directory)
    except (FileNotFoundError, NotADirectoryError):
        return None, True
    except OSError:
        return None, False
    certain = True
    for pattern in PIN_FILES:
        for name in sorted(fnmatch.filter(names, pattern)):
            text, sure = _read_pin_file(name, directory, scope)
            certain = certain and sure
            if text is None:
                continue
            if pin_re is not None:  # another package's pin (a wrapper's)
                m = pin_re.search(text)
            else:
                m = _LOCK_RE.search(text) if name.endswith(".lock") else None
                m = m or _PIN_RE.search(text)
            if m:
                return (m.group(1), name), True
    if pin_re is None and any(m in names for m in MARKERS):
        for name in _DOCKERFILES:
            if name.split("/")[0] not in names:
                continue
            text, sure = _read_pin_file(name, directory, scope)
            certain = certain and sure
            if text is None:
                continue
            version = _base_image_version(text)
            if version:
                return (version, name), True
    return None, certain


#: the Dockerfiles whose base image pins a project's release: the repository
#: root's own, and its docker/ folder's (where repositories keep the image
#: they run on); one deeper down is an example of its own
_DOCKERFILES = ("Dockerfile", "docker/Dockerfile")
_ARG_DEFAULT_RE = re.compile(r"^[ \t]*ARG[ \t]+([A-Za-z_]\w*)=(\S+)", re.M | re.I)
_FROM_RE = re.compile(r"^[ \t]*FROM[ \t]+(?:--\S+[ \t]+)*(\S+)", re.M | re.I)
_BUILD_ARG_RE = re.compile(r"\$\{([A-Za-z_]\w*)\}|\$([A-Za-z_]\w*)")


def _base_image_version(text: str) -> Optional[str]:
    """The SGLang release of the first ``FROM`` image that names one, its
    ``${ARG}``s filled with the defaults declared before it
    (``ARG SGLANG_IMAGE_TAG=v0.5.15.post1-cu129`` + ``FROM
    slimerl/sglang:${SGLANG_IMAGE_TAG}``)."""
    for m in _FROM_RE.finditer(text):
        defaults = {a.group(1): a.group(2).strip("\"'") for a in _ARG_DEFAULT_RE.finditer(text, 0, m.start())}
        image = _BUILD_ARG_RE.sub(lambda v: defaults.get(v.group(1) or v.group(2), "\0"), m.group(1))
        version = image_version(image) if "\0" not in image else None
        if version:
            return version
    return None


def project_pin(path: Path, scope: Optional[Scope] = None, pin_re: Optional[re.Pattern] = None) -> Optional[tuple[str, Path]]:
    """An ``sglang==X`` pin (or what ``pin_re`` finds) in the nearest project
    files above ``path``, never above its project root (`sgllint.resolve.project`)
    nor a ``.git``."""
    scope = scope or scope_for(path)
    d = Path(os.path.realpath(path)).parent
    for directory in (d, *d.parents):
        if not scope.within_root(str(directory)):
            break
        pin = _project_pin_in(directory, scope, pin_re)
        if pin:
            return pin[0], directory / pin[1]
        if (directory / ".git").exists():
            break
    return None


@functools.lru_cache(maxsize=1)
def installed_version() -> Optional[str]:
    if not _may_be_installed("sglang"):
        return None  # importlib.metadata costs more to import than a run of one file
    from importlib import metadata

    try:
        return metadata.version("sglang")
    except metadata.PackageNotFoundError:
        return None
    except Exception:  # a broken environment must not break the linter
        return None


def _may_be_installed(name: str) -> bool:
    """False only when no `sys.path` directory holds metadata of a
    distribution ``name`` (``name-X.dist-info``, ``name.egg-info``, ...), and
    no finder but the standard ones could know of one: what
    ``importlib.metadata.version`` would then fail to find."""
    import sys

    standard = ("PathFinder", "BuiltinImporter", "FrozenImporter")
    for finder in sys.meta_path:
        if getattr(finder, "find_distributions", None) is not None and getattr(finder, "__name__", type(finder).__name__) not in standard:
            return True
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except NotADirectoryError:
            return True  # a zip archive on the path: let importlib.metadata look inside
        except OSError:
            continue
        for n in names:
            low = n.lower()
            if low.startswith(name) and low[len(name):len(name) + 1] in ("-", "."):
                return True
    return False


def _usable(requested: str) -> Optional[str]:
    try:
        return catalogs.resolve_version(requested)
    except catalogs.UnknownVersion:
        return None


#: Modal's image builders: ``modal.Image.from_registry("lmsysorg/sglang:v0.5.10")``
_REGISTRY_CALL_RE = re.compile(r"\.from_(?:registry|dockerhub|aws_ecr|gcp_artifact_registry)\(\s*[rRbB]?(['\"])([^'\"\n]{1,300})\1")
#: ``.pip_install("sglang[all]==0.4.6")`` / ``.uv_pip_install(...)`` in an image build
_PIP_CALL_RE = re.compile(r"\.(?:uv_)?pip_install\(([^()]{0,2000})\)")


_image_pins_memo: tuple = (None, [])


def _python_image_pins(facts: FileFacts) -> list[tuple[str, Provenance, Optional[Span], str]]:
    """The SGLang release a Python file's container image runs: an SGLang
    image it is built from, else an ``sglang==X`` it installs. Found once
    per file: every launch asks, and a scan of the file per launch made a
    file of many launches quadratic (1 MB of ordinary Python: 10 s)."""
    global _image_pins_memo
    owner, found = _image_pins_memo
    if owner is not facts:
        found = _scan_image_pins(facts)
        _image_pins_memo = (facts, found)
    return list(found)


def _scan_image_pins(facts: FileFacts) -> list[tuple[str, Provenance, Optional[Span], str]]:
    text = facts.source.text
    found = []
    for m in _REGISTRY_CALL_RE.finditer(text):
        version = image_version(m.group(2))
        if version:
            found.append((version, Provenance.IMAGE_TAG, Span(facts.source, m.start(2), m.end(2)), m.group(2)))
    for m in _PIP_CALL_RE.finditer(text):
        pin = _PIN_RE.search(m.group(1))
        if pin:
            at = m.start(1) + pin.start()
            found.append((pin.group(1), Provenance.IMAGE_PIP_PIN, Span(facts.source, at, m.start(1) + pin.end()), pin.group(0)))
    return found


_VALUES_REF_RE = re.compile(r"\{\{-?\s*\.Values\.([A-Za-z_][\w.]*)\s*-?\}\}")


def _render_values(template: str, path: Path, scope: Scope) -> Optional[tuple[str, str]]:
    """A Helm template's ``{{ .Values.a.b }}`` references filled from a
    values file of the chart the file belongs to (the nearest directory
    above it with a ``Chart.yaml``, inside the project): ``values.yaml``,
    else the first ``values*.yaml`` that has them all; and that file's name."""
    import yaml

    d = Path(os.path.realpath(path)).parent
    for directory in (d, *d.parents):
        if not scope.within_root(str(directory)):
            return None
        if (directory / "Chart.yaml").is_file():
            break
    else:
        return None
    names = sorted(n.name for n in directory.glob("values*.yaml") if n.name != "values.yaml")
    for name in ["values.yaml", *names]:  # Helm's own first; then e.g. llmaz's values.global.yaml
        real = scope.locate(name, directory)
        try:
            data = read_regular_file(real, MAX_PIN_FILE_BYTES)[0] if real else None
            values = yaml.safe_load(data.decode("utf-8", errors="replace")) if data else None
        except (NotRead, yaml.YAMLError):
            continue
        rendered = _fill_values(template, values)
        if rendered is not None:
            return rendered, str(Path(directory.name) / name)
    return None


def _fill_values(template: str, values) -> Optional[str]:
    missing = []

    def lookup(m: re.Match) -> str:
        node = values
        for key in m.group(1).split("."):
            node = node.get(key) if isinstance(node, dict) else None
        if not isinstance(node, (str, int, float)) or isinstance(node, bool):
            missing.append(m.group(1))
            return ""
        return str(node)

    rendered = _VALUES_REF_RE.sub(lookup, template)
    if missing or "{{" in rendered:
        return None
    return rendered


def resolve_version(
    site: LaunchSite,
    facts: FileFacts,
    cli_version: Optional[str],
    config_version: Optional[str],
    file_pragmas: dict,
    use_environment: bool = True,
    scope: Optional[Scope] = None,
) -> tuple[Fact, str]:
    """The release ``site`` targets, as (fact, requested string); pins are
    looked for inside ``scope`` (default: the file's project)."""
    candidates: list[tuple[str, Provenance, Optional[Span], str]] = []
    if cli_version:
        candidates.append((cli_version, Provenance.COMMAND_LINE, None, "--sglang-version"))
    if "sglang" in file_pragmas:
        value, span = file_pragmas["sglang"]
        candidates.append((value, Provenance.PRAGMA, span, "# sgllint: sglang="))
    if config_version:
        candidates.append((config_version, Provenance.CONFIG, None, "sglang-version"))
    for hint in site.hints:
        if hint.kind is HintKind.SGLANG_IMAGE and isinstance(hint.value, str):
            v = image_version(hint.value)
            if v:
                candidates.append((v, Provenance.IMAGE_TAG, hint.span, hint.value))
    if facts.format == "python":
        candidates += _python_image_pins(facts)
    for hint in site.hints:
        if hint.kind is HintKind.SGLANG_IMAGE_VALUES and isinstance(hint.value, str):
            rendered = _render_values(hint.value, Path(facts.source.path), scope or scope_for(facts.source.path))
            v = image_version(rendered[0]) if rendered else None
            if v:
                candidates.append((v, Provenance.CHART_VALUES, hint.span, f"{rendered[0]} from {rendered[1]}"))
    for requested, source, span, detail in candidates:
        usable = _usable(requested)
        if usable:
            return Fact(usable, source, span, detail), requested
    pin = project_pin(Path(facts.source.path), scope)
    if pin:
        usable = _usable(pin[0])
        if usable:
            return Fact(usable, Provenance.PROJECT_PIN, None, f"sglang=={pin[0]} in {pin[1].name}"), pin[0]
    if use_environment:
        inst = installed_version()
        if inst and _usable(inst):
            return Fact(_usable(inst), Provenance.INSTALLED, None, inst), inst
    newest = catalogs.latest()
    return Fact(newest, Provenance.NEWEST_CATALOG), newest


# ---------------------------------------------------------------------------
# Model, GPU target and GPU count
# ---------------------------------------------------------------------------

_SBATCH_GRES_RE = re.compile(r"#SBATCH\s+--(?:gres=gpu|gpus(?:-per-node)?=?)[:=]?(?:([A-Za-z][\w.-]*):)?(\d+)")
_COUNT_SUFFIX_RE = re.compile(r"^(.*?)[:x*](\d+)$")


_sbatch_memo: tuple = (None, [])


def _sbatch_comments(facts: FileFacts) -> list[tuple[int, str, re.Match]]:
    """The file's ``#SBATCH`` GPU comments, found once per file: every
    launch asks, and a file of many launches and comments was quadratic."""
    global _sbatch_memo
    owner, found = _sbatch_memo
    if owner is not facts:
        found = [(o, t, m) for o, t in facts.comments for m in [_SBATCH_GRES_RE.search(t)] if m]
        _sbatch_memo = (facts, found)
    return found


def _arg_value(args, field_name):
    found = None
    for a in args:
        if a.field == field_name:
            found = a
    return found


def resolve_model(
    ctx: LaunchContext, args, facts: FileFacts, file_pragmas: dict, model_globs: tuple, scope: Optional[Scope] = None
) -> None:
    """The model and its architecture. A local model directory is read only
    inside ``scope`` (default: the file's project) and the Hugging Face cache
    only where the user allowed it; a model directory outside that leaves the
    architecture unknown gets a `HintKind.OUTSIDE_PROJECT` hint in ``ctx.outside``
    (for `--show-context`; rule SGL115 reports relative ones)."""
    # long on purpose: the model's sources in precedence order (pragma, local directory, Hugging Face cache,
    # registry), a few lines each
    from sgllint.model.facts import is_known
    from sgllint.resolve import modelinfo

    scope = ctx.scope = scope or ctx.scope or scope_for(facts.source.path)
    model_arg = _arg_value(args, "model_path")
    if model_arg is not None and isinstance(model_arg.value, str):
        ctx.model = Fact(model_arg.value, Provenance.MODEL_PATH_FLAG, model_arg.value_span)
        if modelinfo.is_special(model_arg.value):
            ctx.skip_model_checks = True
            return
    model = ctx.model.value if ctx.model else None
    if "arch" in file_pragmas:
        value, span = file_pragmas["arch"]
        ctx.architecture = Fact(value, Provenance.PRAGMA, span)
        return
    if model and model_globs:
        hit = modelinfo.configured_architecture(model, model_globs)
        if hit:
            ctx.architecture = Fact(hit[0], Provenance.CONFIG, None, f"[tool.sgllint.models] {hit[1]!r}")
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
                ctx.architecture = Fact(arch, Provenance.OVERRIDE_FLAG, override.value_span)
                return
    if not model:
        return
    base = Path(facts.source.path).parent
    local = modelinfo.local_config(model, base, scope)
    cache = None if local else modelinfo.hf_cache_config(model, scope)
    for path, source in ((local, Provenance.LOCAL_CONFIG_JSON), (cache, Provenance.HF_CACHE)):
        if path is None:
            continue
        config = modelinfo.read_config_json(path)
        arch = modelinfo.architecture_of(config) if config else None
        if arch:
            ctx.architecture = Fact(arch, source, None, str(path))
            ctx.traits = modelinfo.traits_of(config)
            if modelinfo.dspark_subfolder(path, scope):
                ctx.traits = ctx.traits | {"dspark-subfolder"}
            return
    hit = modelinfo.registry_lookup(model)
    if hit:
        entry, name = hit
        ctx.architecture = Fact(entry.architecture, Provenance.REGISTRY, None, model)
        ctx.traits = entry.traits
    elif model_arg is not None and modelinfo.model_dir_outside(model, base, scope):
        # only now does the unread config.json leave something unknown; an
        # absolute path (/models/x) names the serving machine's disk, a
        # relative one the tree's surroundings, which the user can allow
        ctx.outside.append(ContextHint(HintKind.OUTSIDE_PROJECT, model, model_arg.value_span))


def _gpu_from_label(label: str):
    from sgllint.resolve import hardware

    m = _COUNT_SUFFIX_RE.match(label.strip())
    name = m.group(1) if m else label
    return hardware.find(name) or hardware.find(label), (small_int(m.group(2)) if m else None)


def resolve_gpu(ctx: LaunchContext, site: LaunchSite, facts: FileFacts, cli_gpu: Optional[str],
                config_gpu: Optional[str], file_pragmas: dict) -> None:
    from sgllint.resolve import hardware

    named: list[tuple[str, Provenance, Optional[Span]]] = []
    if cli_gpu:
        named.append((cli_gpu, Provenance.COMMAND_LINE, None))
    if "gpu" in file_pragmas:
        value, span = file_pragmas["gpu"]
        named.append((value, Provenance.PRAGMA, span))
    if config_gpu:
        named.append((config_gpu, Provenance.CONFIG, None))
    for hint in site.hints:
        if hint.kind is HintKind.GPU_PRODUCT and isinstance(hint.value, str):
            named.append((hint.value, Provenance.MANIFEST, hint.span))
    for offset, text, m in _sbatch_comments(facts):
        if m.group(1):
            named.append((m.group(1), Provenance.SBATCH, Span(facts.source, offset, offset + len(text))))
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
            if hint.kind is HintKind.SGLANG_IMAGE and isinstance(hint.value, str) and "rocm" in hint.value.lower():
                ctx.gpu = Fact(hardware.Gpu("AMD GPU", "amd", None), Provenance.ROCM_IMAGE, hint.span, hint.value)
                break


def _visible_ids(value: str) -> Optional[list[int]]:
    """``CUDA_VISIBLE_DEVICES`` as device ids; None for UUIDs, MIG names or repeats."""
    ids = []
    for part in value.split(","):
        part = part.strip()
        if not part:
            continue
        if not part.isdigit() or int(part) in ids:
            return None
        ids.append(int(part))
    return ids


def resolve_gpu_count(ctx: LaunchContext, site: LaunchSite, facts: FileFacts) -> None:
    """The GPUs the launch sees, across every grant: the smallest count a
    container, job or label grants, then ``CUDA_VISIBLE_DEVICES`` within it.
    The container runtime (the NVIDIA device plugin, ``docker --gpus``)
    renumbers the granted GPUs from 0, and CUDA stops enumerating at the
    first id in ``CUDA_VISIBLE_DEVICES`` that does not exist: ``2,3`` in a
    2-GPU container leaves none, ``0,1,2,3`` leaves 2."""
    grants = list(ctx.gpu_grants)
    if ctx.gpu_count is not None:  # a count in a GPU label (`resolve_gpu`)
        grants.append(ctx.gpu_count)
    for hint in site.hints:
        if hint.kind is HintKind.GPU_COUNT and isinstance(hint.value, int):
            grants.append(Fact(hint.value, Provenance.GPU_LIMIT, hint.span))
    for offset, text, m in _sbatch_comments(facts):
        count = small_int(m.group(2))
        if count is not None:
            span = Span(facts.source, offset, offset + len(text))
            if not any(g.span == span for g in grants):  # its label gave the count already
                grants.append(Fact(count, Provenance.SBATCH, span))
            break
    granted = min(grants, key=lambda f: f.value) if grants else None
    visible = None
    for env in site.env:
        if env.name == "CUDA_VISIBLE_DEVICES" and isinstance(env.value, str):
            visible = Fact(len([d for d in env.value.split(",") if d.strip()]), Provenance.CUDA_VISIBLE_DEVICES,
                           env.value_span or env.span, env.value)
            ids = _visible_ids(env.value)
            if granted is not None and ids is not None:
                seen = 0
                while seen < len(ids) and ids[seen] < granted.value:
                    seen += 1
                if seen < len(ids):
                    visible = Fact(seen, Provenance.CUDA_VISIBLE_DEVICES, visible.span,
                                   f"{env.value}: the {granted.value} GPUs granted by the {granted.source} are ids "
                                   f"0..{granted.value - 1} and CUDA stops at id {ids[seen]}")
            elif granted is not None and ids is None:
                visible = None  # UUIDs or MIG devices: what they select is not known here
            break
    if visible is not None:
        grants.append(visible)
    ctx.gpu_grants = grants
    if visible is not None and (granted is None or visible.value <= granted.value):
        ctx.gpu_count = visible
    else:
        ctx.gpu_count = granted
