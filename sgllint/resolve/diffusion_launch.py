"""``sglang serve`` / ``sglang generate`` launches of SGLang's diffusion server.

SGLang's ``sglang`` console script sends ``generate`` to the diffusion server
always, and ``serve`` there when ``sglang/cli/serve.py`` decides the model is
a diffusion model (``--model-type``, the diffusion registry's model paths and
name patterns, a registered pipeline name, a local ``model_index.json``):
`sgllint.catalog.diffusion.DiffusionRelease.route` replays that per release.
Such a launch is resolved against the release's ``multimodal_gen`` parser
(plus the selected pipeline's own options), and the leftovers that
``ServerArgs.from_cli_args``' component extractors claim
(``--component-paths.vae ...``, ``--vae-path ...``) are the server's too.

When the route depends on what the Hugging Face Hub says about the model
(`Route.HUB`), the launch is judged by the parser that knows more of its
flags: the diffusion server's when it knows more of them than the LLM
server's and most of them (a diffusion model's launch with one mistake is
judged as diffusion, not as an LLM launch with four unknown flags), else
the LLM server's.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, replace
from typing import Optional

from sgllint.catalog import Catalog, diffusion
from sgllint.resolve.context import LaunchContext
from sgllint.resolve.project import read_regular
from sgllint.resolve.argv import resolve
from sgllint.model.launchers import GENERATE, SERVE
from sgllint.model.facts import FileFacts, LaunchSite, Unresolved
from sgllint.model.kinds import LaunchForm, Resolution


@dataclass(frozen=True)
class DiffusionLaunch:
    release: str
    command: str
    route: str  # why: the routing decision's reason
    pipeline: Optional[str] = None


def _words(site: LaunchSite) -> list[str]:
    return [t.value if isinstance(t.value, str) else ("" if isinstance(t.value, Unresolved) else str(t.value)) for t in site.tokens]


def resolve_diffusion(ctx: LaunchContext, site: LaunchSite, facts: FileFacts) -> Optional[list]:
    """The launch's args against the diffusion parser, or None when SGLang's
    LLM server takes it (``ctx`` then stays as it is, and the engine resolves
    the words as it does for any launch)."""
    if site.entry not in (SERVE, GENERATE) or site.form is not LaunchForm.ARGV:
        return None
    version = diffusion.release_for(ctx.catalog.version)
    if version is None:
        return None
    rel = diffusion.load(version)
    words = _words(site)
    if site.entry == GENERATE:
        command, reason = "generate", "sglang generate (diffusion only)"
    else:
        decision = rel.route(words, _model_index_reader(rel, ctx, facts))
        if decision.route is diffusion.Route.DIFFUSION:
            command, reason = "serve", decision.reason
        elif decision.route is diffusion.Route.HUB:
            command, reason = "serve", decision.reason
            # the LLM server's path (with its --config merge) unless the
            # diffusion parser knows more of the flags
            llm_unknown = sum(a.resolution.names_no_option for a in resolve(site, ctx.catalog))
            if not llm_unknown:
                return None
            args = _resolve(rel, command, site, words)
            unknown = sum(a.resolution.names_no_option for a in args)
            flags = sum(a.resolution is not Resolution.POSITIONAL for a in args)
            if unknown >= llm_unknown or 2 * unknown >= flags:
                # the LLM server knows as many, or the diffusion server does
                # not know most of them either (no server's launch: bench
                # flags under `sglang serve`): judged as the LLM server
                return None
            why = "only the diffusion server knows its flags" if not unknown else "the diffusion server knows more of its flags"
            _target(ctx, rel, command, f"{reason}; {why}", words)
            return args
        else:
            return None
    _target(ctx, rel, command, reason, words)
    return _resolve(rel, command, site, words)


def _target(ctx: LaunchContext, rel, command: str, reason: str, words: list[str]) -> None:
    ctx.target = "diffusion"
    ctx.diffusion = DiffusionLaunch(rel.version, command, reason, rel.selected_pipeline(words))
    ctx.catalog = _catalog(rel, command, ctx.diffusion.pipeline)


def _catalog(rel, command: str, pipeline: Optional[str]) -> Catalog:
    cat = rel.catalog(command)
    parser_id = rel.pipeline_options.get(pipeline or "")
    if parser_id is None:
        return cat
    # the pipeline's own parser, read through the same conversion
    own = replace(rel, commands={"pipeline": diffusion.Command("pipeline", {"parser": parser_id})}).catalog("pipeline")
    more = [o for o in own.options if not set(o.strings) & set(cat.by_string)]
    return Catalog(version=cat.version, source=cat.source, era=cat.era, options=cat.options + more, fields={}, lists={})


def _resolve(rel, command: str, site: LaunchSite, words: list[str]) -> list:
    pipeline = rel.selected_pipeline(words)
    cat = _catalog(rel, command, pipeline)
    inner = site if site.entry == SERVE else replace(site, entry=GENERATE)
    args = resolve(inner, cat)
    left = rel.commands[command].leftovers
    if not isinstance(left, dict):
        return args
    for arg in args:
        if arg.resolution is not Resolution.UNRECOGNIZED:
            continue
        # a word whose text is unknown (a variable, a <placeholder>) is a value
        group = [arg.raw if isinstance(arg.raw, str) else str(arg.raw)] + [
            t.value if isinstance(t.value, str) else "\0" for t in arg.extra
        ]
        rest = list(group)
        for extractor in left["extractors"]:
            rest = diffusion.extract(extractor, rest)
        if not left.get("reject_rest") or group[0] not in rest:
            # known to the server: SGL101 and the other flag rules leave it be
            arg.resolution = Resolution.COMPONENT
            arg.extra = []
    return args


#: the largest model_index.json read
_MAX_INDEX_BYTES = 1 << 20


def _model_index_reader(rel, ctx: LaunchContext, facts: FileFacts):
    """``model_index(path)`` for `DiffusionRelease.route`: the parsed
    ``model_index.json`` (or the release's other index file) of a model
    directory in the project, ``{}`` for a project directory without one,
    None for a path that is not a directory of the project (a Hub id, a path
    on the serving machine)."""
    scope = ctx.scope
    base = os.path.dirname(os.path.abspath(facts.source.path))

    def model_index(model: str) -> Optional[dict]:
        real = scope.locate(model, base) if scope is not None else None
        if real is None or not os.path.isdir(real):
            return None
        for name in rel.routing["model_index"]["files"]:
            data = read_regular(os.path.join(real, name), _MAX_INDEX_BYTES)
            if data is None:
                continue
            try:
                index = json.loads(data.decode("utf-8", errors="replace"))
            except ValueError:
                continue
            if isinstance(index, dict):
                return index
        return {}

    return model_index
