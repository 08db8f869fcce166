"""Shared reading of the parallel-topology and speculative-decoding args for
the SGL205-SGL229 rules.

A value that is not known statically (an `Unresolved` value, a value of the
wrong type) is `UNKNOWN` (`sgllint.model.unknown`, the vocabulary
`effective` shares); a layout that depends on one is None: rules stay silent
then.
The release-dependent facts encoded here were read from the SGLang wheels
(``sglang/srt/server_args.py`` up to 0.5.18, ``sglang/srt/arg_groups/*.py``
from 0.5.19, ``sglang/srt/speculative/spec_info.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from sgllint.model.facts import Arg, Launch
from sgllint.model.kinds import Resolution
from sgllint.model.unknown import UNKNOWN, known
from sgllint.semantics.deterministic import at_least



def has_field(launch: Launch, field: str) -> bool:
    return field in launch.context.catalog.by_field or field in launch.context.catalog.fields


def int_value(launch: Launch, field: str, default: int = 1):
    """``(value, arg)``: the int the field ends up with before SGLang's own
    resolution (``default`` when not given), or ``(UNKNOWN, arg)`` when it is
    not a known int."""
    arg = launch.last(field)
    if arg is None:
        # not written: the default, unless the launch may hold flags not seen
        # (``$EXTRA_ARGS``, ``$(cmd)``, a Hydra config) that could set it
        return (UNKNOWN if launch.opaque else default), None
    value = arg.value
    if isinstance(value, bool) or not isinstance(value, int):
        return UNKNOWN, arg
    return value, arg


def flag_value(launch: Launch, field: str):
    """``(True/False, arg)`` for a switch, ``(UNKNOWN, arg)`` when unknown."""
    arg = launch.last(field)
    if arg is None:
        return False, None
    if isinstance(arg.value, bool):
        return arg.value, arg
    return UNKNOWN, arg


def str_value(launch: Launch, field: str):
    """``(str or None, arg)``; ``(UNKNOWN, arg)`` when not known statically."""
    arg = launch.last(field)
    if arg is None:
        return None, None
    if arg.value is None or isinstance(arg.value, str):
        return arg.value, arg
    return UNKNOWN, arg


def flag_of(launch: Launch, field: str) -> str:
    return launch.context.catalog.flag_for_field(field)


def written(launch: Launch, arg: Optional[Arg], field: str, value) -> str:
    """How ``field = value`` reads in the launch's own syntax (``--tp-size 4``
    or ``tp_size=4``)."""
    if arg is not None and arg.resolution is Resolution.KEYWORD:
        return f"{field}={value!r}" if isinstance(value, str) else f"{field}={value}"
    if isinstance(value, bool):
        return flag_of(launch, field)
    return f"{flag_of(launch, field)} {value}"


# ---------------------------------------------------------------------------
# Data parallelism
# ---------------------------------------------------------------------------


@dataclass
class DataParallel:
    """The DP layout SGLang resolves, per release.

    ``replicas``: data-parallel replicas (each a full TP group of its own);
    ``attn_dp``: attention data-parallel groups inside the TP group (1: off).
    Up to 0.5.21 attention DP is ``--enable-dp-attention`` with its width in
    ``--dp-size``, and ``--dp-size 1`` silently switches it off (0.5.1+).
    From 0.5.22 it is ``--attn-dp-size``; the deprecated ``--enable-dp-attention``
    moves ``--dp-size`` into ``attn_dp_size`` when ``--attn-dp-size`` is unset
    (``parallel_hook.handle_deprecated_dp_attention``).
    """

    replicas: int
    attn_dp: int
    dp_size: int  # as written (default 1)
    dp_arg: Optional[Arg]
    attn_arg: Optional[Arg]  # --enable-dp-attention or --attn-dp-size
    split_era: bool  # 0.5.22+: --attn-dp-size exists

    @property
    def attention_dp(self) -> bool:
        return self.attn_dp > 1


def data_parallel(launch: Launch) -> Optional[DataParallel]:
    dp, dp_arg = int_value(launch, "dp_size", 1)
    enabled, enable_arg = flag_value(launch, "enable_dp_attention")
    if not known(dp, enabled):
        return None
    if has_field(launch, "attn_dp_size") and at_least(launch, "0.5.22"):
        attn, attn_arg = int_value(launch, "attn_dp_size", 1)
        if attn is UNKNOWN:
            return None
        if enabled and attn == 1:
            return DataParallel(1, dp, dp, dp_arg, enable_arg, True)
        return DataParallel(dp, attn, dp, dp_arg, attn_arg if attn_arg is not None else enable_arg, True)
    if enabled and (dp > 1 or not at_least(launch, "0.5.1")):
        return DataParallel(1, dp, dp, dp_arg, enable_arg, False)
    return DataParallel(dp, 1, dp, dp_arg, None, False)


# ---------------------------------------------------------------------------
# Speculative decoding
# ---------------------------------------------------------------------------

#: members of ``SpeculativeAlgorithm`` (sglang/srt/speculative/spec_info.py)
#: from the release where ``--speculative-algorithm`` became a free string
#: (0.5.12; earlier releases use argparse ``choices``), plus the ``NEXTN``
#: alias (``_RESERVED_ALIASES`` / ``_resolve_speculative_algorithm_alias``).
SPEC_ALGORITHMS = (
    ("0.5.12", ("DFLASH", "EAGLE", "EAGLE3", "FROZEN_KV_MTP", "STANDALONE", "NGRAM", "NONE", "NEXTN")),
    ("0.5.16", ("DFLASH", "DSPARK", "EAGLE", "EAGLE3", "FROZEN_KV_MTP", "STANDALONE", "NGRAM", "NONE", "NEXTN")),
    ("0.5.20", ("DFLASH", "UNO", "DSPARK", "EAGLE", "EAGLE3", "FROZEN_KV_MTP", "STANDALONE", "NGRAM", "NONE", "NEXTN")),
)


def known_spec_algorithms(launch: Launch) -> Optional[tuple[str, ...]]:
    """The algorithm names the release accepts after upper-casing; None before
    0.5.12 (argparse choices, checked by SGL103)."""
    found = None
    for since, names in SPEC_ALGORITHMS:
        if at_least(launch, since):
            found = names
    return found


@dataclass
class Spec:
    name: str  # as SGLang compares it (upper-cased from 0.5.12; NEXTN kept)
    raw: str
    arg: Arg


def speculative(launch: Launch) -> Optional[Spec]:
    """The speculative algorithm, None when not set or not known.

    Up to 0.5.11 the value is an argparse choice (case-sensitive, SGL103
    rejects others); from 0.5.12 SGLang upper-cases it.
    """
    value, arg = str_value(launch, "speculative_algorithm")
    if arg is None or not known(value) or value is None or arg.problem:
        return None
    name = value.upper() if at_least(launch, "0.5.12") else value
    names = known_spec_algorithms(launch)
    if names is not None and name not in names:
        return None  # SGL219 reports it
    if name == "NONE":
        return None
    return Spec(name, value, arg)


def anchor(arg: Optional[Arg], launch: Launch):
    """The span of an arg, or the launch entry when the arg is implicit."""
    return arg.span if arg is not None else launch.site.entry_span


def value_span(arg: Arg):
    """The offending value of an arg (its flag for switches)."""
    return arg.value_span if arg.value_span is not None else arg.flag_span
