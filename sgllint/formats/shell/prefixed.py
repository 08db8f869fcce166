"""Trainers that take SGLang's server arguments under a prefix.

slime (THUDM/slime) registers every option of SGLang's ``ServerArgs`` on
its own parser as ``--sglang-<option>`` (``slime/backends/sglang_utils/
arguments.py``: ``add_sglang_arguments`` wraps ``parser.add_argument`` so
that ``ServerArgs.add_cli_args`` adds ``--sglang-{flag}``), and starts the
engines with them. A command that passes such words (``python3
train.py ... --sglang-mem-fraction-static 0.7``, often through an array)
holds one launch: each ``--sglang-X`` word whose ``--X`` is an SGLang option
(or a near miss of one) becomes ``--X`` with its values, at the exact place
written. The trainer's own ``--sglang-*`` flags (``--sglang-router-ip``,
``--sglang-server-concurrency``) name no SGLang option and are left out;
the arguments slime sets itself (its ``skipped_args``: the model path, the
node layout) are unknown values, and ``--tp-size`` is what slime derives
from ``--rollout-num-gpus-per-engine``. A skipped argument has no
``--sglang-`` form at all, so such a word is the trainer's own
(``--sglang-config`` is slime's deployment YAML, not SGLang's ``--config``).
"""

from __future__ import annotations

import re
from typing import Optional

from sgllint.model.facts import FileFacts, LaunchSite, SourceMap, Span, Token, Unresolved
from sgllint.model.kinds import LaunchForm

ENTRY = "slime --sglang-* arguments"
PREFIX = "--sglang-"
_REASON = "set by the trainer"
#: ServerArgs slime sets itself (``skipped_args`` in sglang_utils/arguments.py)
_SET_BY_SLIME = ("--model-path", "--nnodes", "--node-rank", "--dist-init-addr", "--port")
#: every ServerArgs field slime's ``add_sglang_arguments`` does not register
#: under ``--sglang-`` (``skipped_args``, slime/backends/sglang_utils/
#: arguments.py at THUDM/slime 624b824): ``--sglang-<one of them>`` is the
#: trainer's own flag or none at all, never an SGLang option
_SKIPPED_BY_SLIME = frozenset({
    "model_path", "config", "trust_remote_code", "random_seed", "enable_memory_saver", "tp_size", "port",
    "nnodes", "node_rank", "dist_init_addr", "gpu_id_step", "base_gpu_id", "nccl_port", "skip_server_warmup",
    "enable_return_routed_experts",
})
_NUMBER = re.compile(r"-\d")


def prefixed_site(tokens: list[Token], span: Span, facts: FileFacts) -> Optional[LaunchSite]:
    """The launch the ``--sglang-*`` words of a command make, or None."""
    out: list[Token] = []
    i = 0
    while i < len(tokens):
        renamed = _renamed(tokens[i])
        i += 1
        if renamed is None:
            continue
        out.append(renamed)
        if "=" in renamed.value:
            continue
        while i < len(tokens) and not _is_flag(tokens[i]):
            out.append(tokens[i])
            i += 1
    if not out:
        return None
    out.append(_tp_size(tokens, span))
    out += [Token(Unresolved(out[0].span.text, _REASON, flag + "="), out[0].span) for flag in _SET_BY_SLIME]
    site = LaunchSite(span.source, span, ENTRY, out[0].span, LaunchForm.ARGV, tokens=out)
    facts.sites.append(site)
    return site


def _tp_size(tokens: list[Token], span: Span) -> Token:
    """slime sets ``tp_size = rollout_num_gpus_per_engine // sglang_pp_size``
    (``sglang_utils/arguments.py``): ``--tp-size`` at the word giving the GPU
    count, unknown when it is not written or not a number."""
    gpus = _int_after(tokens, "--rollout-num-gpus-per-engine")
    pp = _int_after(tokens, "--sglang-pp-size") or _int_after(tokens, "--sglang-pipeline-parallel-size") or (1, None)
    if gpus is not None and gpus[0] and pp[0] and gpus[0] % pp[0] == 0:
        return Token(f"--tp-size={gpus[0] // pp[0]}", gpus[1].span)
    at = gpus[1].span if gpus is not None else Span(span.source, span.end, span.end)
    return Token(Unresolved(at.text, "set by the trainer from --rollout-num-gpus-per-engine", "--tp-size="), at)


def _int_after(tokens: list[Token], flag: str) -> Optional[tuple[int, Token]]:
    """The integer value of the last ``flag`` and its token."""
    found = None
    for i, token in enumerate(tokens[:-1]):
        value = tokens[i + 1].value
        if token.value == flag and isinstance(value, str) and value.isdigit():
            found = (int(value), tokens[i + 1])
    return found


def _is_flag(token: Token) -> bool:
    value = token.value
    return isinstance(value, str) and value.startswith("-") and len(value) > 1 and not _NUMBER.match(value)


def _renamed(token: Token) -> Optional[Token]:
    """``--X`` for a ``--sglang-X`` word naming an SGLang option, mapped onto
    the word as written; None otherwise."""
    value = token.value
    if not isinstance(value, str) or not value.startswith(PREFIX):
        return None
    stem = value[len(PREFIX) :]
    name = stem.split("=", 1)[0]
    if name.replace("-", "_") in _SKIPPED_BY_SLIME or not _sglang_option(name):
        return None
    renamed = "--" + stem
    first = token.sub_span(0, 2)
    rest = token.sub_span(len(PREFIX), len(value))
    if rest.end - rest.start != len(stem) or first.end - first.start != 2:
        return Token(renamed, token.span)  # escapes inside the word: no character map
    offsets = [first.start, first.start + 1] + list(range(rest.start, rest.end)) + [rest.end]
    return Token(renamed, token.span, SourceMap(token.span.source, 0, offsets))


def _sglang_option(stem: str) -> bool:
    from sgllint.formats.yaml.sglang_config import known_spellings

    known = known_spellings()
    if stem in known:
        return True
    import difflib  # only for a prefixed word that is no flag: most runs never get here

    return bool(difflib.get_close_matches(stem, known, n=1, cutoff=0.9))
