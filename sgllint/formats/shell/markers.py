"""Words that change what a launch is, found among a file's commands by
every format: a patched SGLang (`patched_sglang`) and Hydra/OmegaConf
overrides that make a keyword-form site (`hydra_site`). They run no
extractor, so the shell extractor and the formats that embed it can all
ask them."""

from __future__ import annotations

import re
from typing import Optional

from sgllint.model.facts import ContextHint, FileFacts, Kwarg, LaunchSite, SourceMap, Span, Token, Unresolved
from sgllint.model.kinds import HintKind, LaunchForm


def patched_sglang(text: str, smap: SourceMap, facts: FileFacts) -> bool:
    """A file whose commands patch the installed SGLang (SpecForge's
    ``scripts/apply_sglang_spec_capture_patch.sh``, ``git apply
    patches/sglang/x.patch``, a ``sglang-patched`` package) launches a
    patched SGLang: its parser may have options the release lacks. Each
    launch gets a ``patched-sglang`` hint at the first such word; comment
    lines are not commands."""
    at = 0
    for line in text.split("\n"):
        if not line.lstrip().startswith("#"):
            for m in _WORD.finditer(line):
                word = m.group().lower()
                if "sglang" in word and "patch" in word:
                    hint = ContextHint(HintKind.PATCHED_SGLANG, m.group(), smap.span(at + m.start(), at + m.end()))
                    for site in facts.sites:
                        site.hints.append(hint)
                    return True
        at += len(line) + 1
    return False


_WORD = re.compile(r"[^\s'\"`;|&<>()]+")


# ---------------------------------------------------------------------------
# Hydra overrides among a command's words
# ---------------------------------------------------------------------------

#: the entry of a site made of Hydra/OmegaConf overrides (`_py_hydra`)
HYDRA_ENTRY = "hydra override"
#: the rest of the engine's arguments come from the Hydra config
HYDRA_CONFIG_REASON = "the other engine arguments come from the Hydra config"


def hydra_site(tokens: list[Token], span: Span, facts: FileFacts) -> Optional[LaunchSite]:
    """The keyword-form site of the Hydra overrides among a command's words
    (a shell script's ``python3 -m verl.trainer.main_ppo +a.b.sglang.x=1``,
    a YAML argv), or None when there is none."""
    return hydra_site_of_kwargs([k for k in (_token_kwarg(t) for t in tokens) if k is not None], span, facts)


def hydra_site_of_kwargs(kwargs: list[Kwarg], span: Span, facts: FileFacts, entry: str = HYDRA_ENTRY) -> Optional[LaunchSite]:
    """The site of engine keyword arguments a Hydra (or other framework)
    config sets."""
    if not kwargs:
        return None
    site = LaunchSite(span.source, span, entry, span, LaunchForm.KWARGS, kwargs=kwargs)
    site.opaque.append(HYDRA_CONFIG_REASON)
    facts.sites.append(site)
    return site


def _token_kwarg(token: Token) -> Optional[Kwarg]:
    value = token.value
    text = value if isinstance(value, str) else value.known_prefix if isinstance(value, Unresolved) else ""
    if ".sglang." not in text:
        return None  # what every override has: the Python format's parser of them is not even imported
    from sgllint.formats.python.commands import HYDRA_OVERRIDE, hydra_value

    m = HYDRA_OVERRIDE.match(text)
    if m is None:
        return None
    name_span = token.sub_span(m.start("field"), m.end("field"))
    value_span = token.sub_span(m.start("value"), len(text)) if isinstance(value, str) else Span(
        token.span.source, token.sub_span(m.start("value"), m.start("value")).start, token.span.end
    )
    if isinstance(value, str):
        return Kwarg(m.group("field"), hydra_value(m.group("value")), name_span, value_span)
    return Kwarg(m.group("field"), Unresolved(value_span.text, value.reason, m.group("value")), name_span, value_span)
