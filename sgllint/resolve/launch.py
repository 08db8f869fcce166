"""Which parser judges a launch's words, and the args SGLang gets from them.

`resolve_parsers` is the engine's step between release inference and
SGLang's own argv resolution: a wrapper entry point (`sgllint.resolve.wrapped`)
splits the words between its own parser and SGLang's, a router-only entry
point never reaches SGLang at all, and a diffusion launch
(`sgllint.resolve.diffusion_launch`) is judged by the release's
``multimodal_gen`` parser.  Anything else returns ``args=None``: the engine
resolves the words against SGLang's catalog as before.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Optional

from sgllint import catalog as catalogs
from sgllint.catalog import wrappers as wrapper_data
from sgllint.resolve.context import Fact, LaunchContext
from sgllint.resolve.argv import resolve
from sgllint.model.launchers import ROUTER_LAUNCH_SERVER, WRAPPED_ENTRIES
from sgllint.model.config_file import ConfigParser
from sgllint.model.facts import FileFacts, LaunchSite
from sgllint.model.kinds import HintKind, Provenance
from sgllint.resolve import wrapped as w

#: a YAML file that is an SGLang ``--config`` file, linted on its own
#: (`sgllint.formats.yaml.extractor`)
CONFIG_ENTRY = "sglang --config file"

#: release sources a wrapper's own SGLang pin does not override
_EXPLICIT = (Provenance.COMMAND_LINE, Provenance.PRAGMA, Provenance.CONFIG)


def resolve_parsers(
    ctx: LaunchContext, site: LaunchSite, facts: FileFacts, file_pragmas: dict, scope, parse_config: ConfigParser
):
    """(site, args) for a launch another parser judges first; args None
    when SGLang's server parser takes the words as they are. ``parse_config``
    reads the text of an SGLang ``--config`` file (the YAML format's, handed
    down by the engine)."""
    package = WRAPPED_ENTRIES.get(site.entry)
    if package is not None and wrapper_data.versions(package):
        return _wrapped(ctx, site, facts, package, file_pragmas, scope, parse_config)
    if site.entry == CONFIG_ENTRY:
        return _config_file(ctx, site, parse_config)
    from sgllint.resolve.diffusion_launch import resolve_diffusion

    args = resolve_diffusion(ctx, site, facts)
    return site, args


def _wrapped(
    ctx: LaunchContext, site: LaunchSite, facts: FileFacts, package: str, file_pragmas: dict, scope, parse_config: ConfigParser
):
    version, source = w.wrapper_release(package, site.hints, file_pragmas, w.pin_reader(facts.source.path, scope))
    wrapper = wrapper_data.load(package, version)
    if site.entry not in wrapper.entries:
        # the entry point is not in this release (dynamo.sglang.worker after
        # 0.5): judge it by the newest release that has it
        having = [v for v in wrapper_data.versions(package) if site.entry in wrapper_data.load(package, v).entries]
        if not having:
            return site, None
        version, source = having[-1], f"newest {package} with {site.entry}"
        wrapper = wrapper_data.load(package, version)
    _sglang_release(ctx, wrapper)
    split = w.split(wrapper, site.entry, list(site.tokens), bool(site.opaque), ctx.catalog)
    split.source = source
    ctx.wrapped = split
    if split.sglang_tokens is None:
        # the router's own entry point (or a subcommand SGLang never sees)
        ctx.target = "router"
        return site, []
    cat, own_ids = w.combined_catalog(wrapper, split.final, ctx.catalog)
    inner = replace(site, tokens=split.sglang_tokens)
    if site.entry == ROUTER_LAUNCH_SERVER and any(isinstance(t.value, str) and t.value.startswith("--conf") for t in inner.tokens):
        from sgllint.resolve.sglang_config import merge_config

        inner = merge_config(inner, cat, Path(facts.source.path).parent, scope, parse=parse_config)
    inner, args = drop_refused(inner, resolve(inner, cat))
    args = w.take_own(args, own_ids, split, split.final)
    return inner, args


def _sglang_release(ctx: LaunchContext, wrapper) -> None:
    """A wrapper that pins SGLang runs that release unless the user named
    one (command line, pragma, configuration)."""
    if ctx.version.source in _EXPLICIT:
        return
    pinned: Optional[str] = w.pinned_sglang(wrapper)
    if pinned is None:
        return
    ctx.version = Fact(pinned, Provenance.WRAPPER_PIN, None, f"{wrapper.package} {wrapper.version} requires {wrapper.requires_sglang}")
    ctx.requested = wrapper.sglang_pin or pinned
    ctx.catalog = catalogs.load(pinned)


def _config_file(ctx: LaunchContext, site: LaunchSite, parse_config: ConfigParser):
    """A standalone ``--config`` file: its words as the release's
    ``ConfigArgumentMerger`` builds them (the extractor's are
    release-free), and the keys the merger refuses as
    ``config-unsupported-option`` hints (SGL113)."""
    from sgllint.catalog import version_key
    from sgllint.resolve.sglang_config import config_tokens, unsupported_options

    if "--config" not in ctx.catalog.by_string:
        return site, None  # no merger in this release: the raw words
    entries, problems = parse_config(site.source)
    if problems or not entries:
        return site, None
    if version_key(ctx.catalog.version) >= (0, 5, 8) and not all(isinstance(e.key, str) for e in entries):
        return site, None
    refused = unsupported_options(entries, ctx.catalog)
    inner = replace(site, tokens=config_tokens(entries, ctx.catalog), hints=list(site.hints) + refused)
    return drop_refused(inner, resolve(inner, ctx.catalog))


def drop_refused(site: LaunchSite, args: list) -> tuple[LaunchSite, list]:
    """A config key the merger refuses stops SGLang before its parser runs
    (SGL113): the key is not an argparse arg, and what the server would do
    with the rest is not known (the launch is opaque, as for any refused
    ``--config``)."""
    refused = {h.span for h in site.hints if h.kind is HintKind.CONFIG_UNSUPPORTED_OPTION}
    if not refused:
        return site, args
    keys = ", ".join(sorted({str(h.value) for h in site.hints if h.kind is HintKind.CONFIG_UNSUPPORTED_OPTION}))
    site = replace(site, opaque=list(site.opaque) + [f"SGLang refuses the config keys {keys}"])
    return site, [a for a in args if a.flag_span not in refused]
