"""A resolved `Launch` as the facts SGLang's derived start-up validation
reads, and its verdict, computed once per launch (issue 17, items 5 and 6).

`launch_facts(launch)` builds the evaluator's ``LaunchFacts``: the ServerArgs
fields the user gave (from the launch's resolved args), the entry point, the
model's config.json when the launch's context read one (a local directory or
the Hugging Face cache, inside the project's scope), the pinned GPU and the
environment variables the launch itself sets. `verdict(launch)` runs
``sgllint.semantics.validation.evaluate`` once and caches the typed verdict on
the launch, so SGL400, SGL401, ``sgllint explain`` and the LSP hover share it.

Everything degrades to "no verdict" rather than a guess: a launch with an
unresolved value, an unknown flag or an argparse problem is not evaluated
(argparse stops SGLang before validation; SGL101-SGL105 report it), and when
``sgllint.semantics.validation`` is not importable there is no verdict at all.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from sgllint.model.facts import Launch, Span
from sgllint.model.kinds import LaunchForm, Provenance

_CACHE_ATTR = "_sgllint_validation"


#: set to 1 to run the evaluator on every launch before it declares itself ready (``LINT_READY``)
FORCE_ENV = "SGLLINT_DERIVED_VALIDATION"


def evaluator():
    """The evaluator package, or None while it is not installed or not ready
    for linting: loading a release's program costs seconds and a launch tens
    of milliseconds until the evaluator meets issue 17's budget (20 ms per
    launch), so it runs in every lint only once it sets ``LINT_READY = True``
    (or the user sets ``SGLLINT_DERIVED_VALIDATION=1``)."""
    import os

    try:
        from sgllint.semantics import validation
    except ImportError:
        return None
    if not getattr(validation, "LINT_READY", False) and os.environ.get(FORCE_ENV, "") != "1":
        return None  # asked before touching ``evaluate``, which loads the interpreter
    if not hasattr(validation, "evaluate"):
        return None
    return validation


@dataclass
class Evaluated:
    """A launch's facts as given to the evaluator, where each came from, and
    the verdict (None: not evaluated, with ``skipped`` saying why)."""

    facts: Any = None  # validation.LaunchFacts
    verdict: Any = None  # validation.Verdict
    skipped: str = ""
    provenance: dict = field(default_factory=dict)  # "model_config"/"gpu"/"gpu_count"/"env:X" -> where from


def _not_evaluable(launch: Launch) -> str:
    if launch.context.target != "sglang":
        return f"the launch is judged by the {launch.context.target} parser, not SGLang's server"
    if launch.opaque:
        return "some arguments are not known statically (" + "; ".join(launch.site.opaque) + ")"
    for a in launch.args:
        if a.field is None or a.resolution.names_no_option:
            return f"{a.spelling} is not an argument SGLang knows (argparse stops first)"
        if a.problem:
            return f"{a.spelling}: {a.problem} (argparse stops first)"
        if not a.known:
            return f"the value of {a.spelling} is not known statically"
    return ""


def _model_config(launch: Launch) -> tuple[Optional[dict], str, Optional[frozenset]]:
    """The model's full config.json, read where the context read it (a
    registry or pragma architecture alone is not a config: None), and the
    model directory's listing when it is a local directory of the project."""
    from pathlib import Path

    from sgllint.resolve import modelinfo

    ctx = launch.context
    if ctx.skip_model_checks or ctx.model is None or not isinstance(ctx.model.value, str):
        return None, "", None
    arch = ctx.architecture
    if arch is None or not arch.source.read_from_model_files:
        return None, "", None
    path = Path(arch.detail) if arch.detail else None
    if path is None or (ctx.scope is not None and arch.source is Provenance.LOCAL_CONFIG_JSON
                        and modelinfo.local_config(ctx.model.value, Path(launch.source.path).parent, ctx.scope) != path):
        return None, "", None
    config = modelinfo.read_config_json(path)
    if not isinstance(config, dict):
        return None, "", None
    # SGLang probes a local model directory for other files (hf_quant_config.json, ...)
    listing = modelinfo.model_dir_listing(path) if arch.source is Provenance.LOCAL_CONFIG_JSON else None
    return config, f"{arch.source} {path}", listing


def launch_facts(launch: Launch, validation) -> Evaluated:
    out = Evaluated()
    why = _not_evaluable(launch)
    if why:
        out.skipped = why
        return out
    ctx = launch.context
    user_args = {a.field: a.value for a in launch.args}
    config, where, listing = _model_config(launch)
    if config is not None:
        out.provenance["model_config"] = where
    if listing is not None:
        out.provenance["model_files"] = "the entries of the directory of that config.json"
    gpu = None
    g = ctx.gpu_target
    count = ctx.gpu_count.value if ctx.gpu_count is not None and isinstance(ctx.gpu_count.value, int) else None
    if g is not None or count is not None:
        gpu = validation.GpuFacts(vendor=getattr(g, "vendor", None), sm=getattr(g, "sm", None),
                                  name=getattr(g, "name", None), count=count,
                                  arch=getattr(g, "arch", None))
        if g is not None:
            where = f" at {ctx.gpu.span.path}:{ctx.gpu.span.start_line_col()[0]}" if ctx.gpu.span is not None else ""
            out.provenance["gpu"] = f"{g.describe()} from {ctx.gpu.source}{where}"
        if count is not None:
            out.provenance["gpu_count"] = ctx.gpu_count.describe()
    env = {}
    for e in launch.site.env:
        if isinstance(e.value, str):
            env[e.name] = e.value
            line = e.span.start_line_col()[0]
            out.provenance[f"env:{e.name}"] = f"set at {e.span.path}:{line}"
    entry = "engine" if launch.site.form is LaunchForm.KWARGS else "cli"
    out.facts = validation.LaunchFacts(release=ctx.catalog.version, user_args=user_args, entry=entry,
                                       model_config=config, gpu=gpu, env=env,
                                       model_files=listing)
    return out


def evaluated(launch: Launch) -> Evaluated:
    """The launch's facts and verdict, computed once per launch."""
    cached = launch.__dict__.get(_CACHE_ATTR)
    if cached is not None:
        return cached
    validation = evaluator()
    if validation is None:
        result = Evaluated(skipped="the evaluator (sgllint.semantics.validation) is not installed")
    else:
        result = launch_facts(launch, validation)
        if result.facts is not None:
            try:
                result.verdict = validation.evaluate(result.facts)
            except Exception as exc:  # noqa: BLE001 - an evaluator failure is an unknown outcome, never an error
                result.verdict = None
                result.skipped = f"the evaluator failed: {type(exc).__name__}: {exc}"
    launch.__dict__[_CACHE_ATTR] = result
    return result


def verdict(launch: Launch):
    """The typed verdict, or None when the launch is not evaluated."""
    return evaluated(launch).verdict


# ---------------------------------------------------------------------------
# What a check read, for the "why" of SGL400 and for explain
# ---------------------------------------------------------------------------


def site_record(version: str, file: str, line: int) -> Optional[dict]:
    """The generator's record of the site at ``file:line`` (its facts, class)."""
    from sgllint.catalog import validation as data

    rel = data.load(version)
    if rel is None:
        return None
    for s in rel.sites:
        if s["file"] == file and s["line"] <= line <= s.get("end_line", s["line"]):
            return s
    return None


def condition_fields(launch: Launch, hit) -> list[str]:
    """The ServerArgs fields the failing condition read: the evaluator's
    answer, completed by the generator's site record."""
    fields: list[str] = []
    rec = site_record(launch.context.catalog.version, hit.file, hit.line)
    for f in list(getattr(hit, "facts", ()) or ()) + list(rec["facts"] if rec else ()):
        name = f.split(":", 1)[1] if f.startswith(("field:", "auto:")) else (None if ":" in f else f)
        if name and name not in fields:
            fields.append(name)
    return fields


def condition_facts(launch: Launch, hit) -> list[str]:
    """The model/GPU/runtime fact families the failing condition read."""
    rec = site_record(launch.context.catalog.version, hit.file, hit.line)
    names = list(getattr(hit, "facts", ()) or ()) + list(rec["facts"] if rec else ())
    return sorted({f for f in names if f.startswith(("model:", "gpu:", "runtime:"))})


def user_set_in_order(launch: Launch, fields: list[str]):
    """The user-given args among ``fields``, in the order they are written."""
    wanted = set(fields)
    seen, out = set(), []
    for a in reversed(launch.args):
        if a.field in wanted and a.field not in seen:
            seen.add(a.field)
            out.append(a)
    out.reverse()
    out.sort(key=lambda a: a.flag_span.start)
    return out


def value_span(arg) -> Span:
    return arg.value_span if (arg.value_span is not None and arg.value is not True) else arg.flag_span


def covered_checks(rule_classes=None) -> set[str]:
    """Site ids a curated rule covers (``sglang_checks`` class attribute):
    the derived SGL400 for those sites is dropped, the curated rule wins."""
    if rule_classes is None:
        from sgllint.model.rule import REGISTRY, builtin_index

        # the built-in rules' from their index (imported or not), a user's from their classes
        rule_classes = [*builtin_index().values(), *REGISTRY.values()]
    out: set[str] = set()
    for cls in rule_classes:
        out.update(getattr(cls, "sglang_checks", ()) or ())
    return out


def covered_rewrites(rule_classes=None) -> set[str]:
    """ServerArgs fields whose rewrites a curated rule reports
    (``sglang_rewrites`` class attribute, e.g. SGL241's page_size)."""
    if rule_classes is None:
        from sgllint.model.rule import REGISTRY, builtin_index

        # the built-in rules' from their index (imported or not), a user's from their classes
        rule_classes = [*builtin_index().values(), *REGISTRY.values()]
    out: set[str] = set()
    for cls in rule_classes:
        out.update(getattr(cls, "sglang_rewrites", ()) or ())
    return out
