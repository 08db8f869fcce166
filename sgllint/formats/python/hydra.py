"""Hydra/OmegaConf overrides that configure an SGLang engine.

verl and similar RL frameworks pass engine settings as overrides such as
``actor_rollout_ref.rollout.engine_kwargs.sglang.attention_backend=triton``;
the framework turns ``engine_kwargs.sglang`` into ``sglang.Engine(**kw)``.
Every list display and every string (outside a list) holding such overrides
becomes one keyword-form site, entry ``"hydra override"``, with one `Kwarg`
per override. This scan reads literals only; it does not follow names.
"""

from __future__ import annotations

import libcst as cst

from sgllint.formats.shell.markers import HYDRA_CONFIG_REASON as _CONFIG_REASON, HYDRA_ENTRY as ENTRY
from sgllint.formats.python.commands import hydra_kwarg, posix_words, HYDRA_MARKER
from sgllint.formats.python.evaluate import Evaluator
from sgllint.formats.python.values import Scalar, Str
from sgllint.model.facts import FileFacts, Kwarg, LaunchSite
from sgllint.model.kinds import LaunchForm

_STRING_NODES = (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)


def scan_hydra_overrides(ctx, module: cst.Module, facts: FileFacts) -> None:
    module.visit(_HydraScan(ctx, facts))


class _HydraScan(cst.CSTVisitor):
    def __init__(self, ctx, facts: FileFacts):
        self.ctx = ctx
        self.facts = facts
        self.ev = Evaluator(ctx, lambda name: None)  # literals only
        self._in_lists: set[int] = set()  # strings already read as list elements

    def visit_List(self, node) -> bool:
        kwargs: list[Kwarg] = []
        for element in node.elements:
            value = element.value
            if isinstance(value, _STRING_NODES):
                self._in_lists.add(id(value))
                if _may_hold_override(value):
                    kwargs.extend(self._overrides(value, split=False))
        self._add_site(node, kwargs)
        return True

    visit_Tuple = visit_List

    def visit_SimpleString(self, node) -> bool:
        self._string(node)
        return False

    def visit_ConcatenatedString(self, node) -> bool:
        self._string(node)
        return False

    def visit_FormattedString(self, node) -> bool:
        self._string(node)
        return False

    def _string(self, node) -> None:
        if id(node) in self._in_lists or not _may_hold_override(node):
            return
        self._add_site(node, self._overrides(node, split=True))

    def _overrides(self, node, split: bool) -> list[Kwarg]:
        """The overrides in a string: the whole string is one argv word in a
        list; elsewhere it is a command line, split like a shell would."""
        value = self.ev.eval(node)
        text = value.text if isinstance(value, Scalar) else None
        if text is None:
            return []
        if not split:
            whole = hydra_kwarg(text, self.ctx.source)
            if whole is not None or not any(c.isspace() for c in text.text):
                return [whole] if whole is not None else []
        found = []
        for word in _shell_words(text):  # a command line inside the list
            kwarg = hydra_kwarg(word, self.ctx.source)
            if kwarg is not None:
                found.append(kwarg)
        return found

    def _add_site(self, node, kwargs: list[Kwarg]) -> None:
        if not kwargs:
            return
        span = self.ctx.span(node)
        site = LaunchSite(self.ctx.source, span, ENTRY, span, LaunchForm.KWARGS, kwargs=kwargs)
        site.opaque.append(_CONFIG_REASON)
        self.facts.sites.append(site)


def _shell_words(text: Str) -> list[Str]:
    return [word for word, _, _ in posix_words(text)]


def _may_hold_override(node) -> bool:
    """A cheap test on the literal's source before evaluating it."""
    if isinstance(node, cst.SimpleString):
        return HYDRA_MARKER.search(node.value) is not None
    if isinstance(node, cst.ConcatenatedString):
        return _may_hold_override(node.left) or _may_hold_override(node.right)
    return any(isinstance(p, cst.FormattedStringText) and ".sglang." in p.value for p in node.parts)
