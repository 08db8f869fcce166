"""Deterministic inference with a prefill, decode or draft attention backend SGLang does not check and that is not deterministic.

## What it does
When deterministic inference is on, compares `--prefill-attention-backend`,
`--decode-attention-backend` and `--speculative-draft-attention-backend` with
the release's `DETERMINISTIC_ATTENTION_BACKEND_CHOICES` (SGL201 judges
`--attention-backend`, the only one SGLang checks).

This pattern was reported as a warning under SGL201 until that code was split
into one code per bad pattern.

## Why is this bad?
SGLang checks only `--attention-backend` against the list, so a split backend
outside it bypasses the check: the launch starts, but its outputs are not
batch-invariant.

## Example
```sh
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --enable-deterministic-inference --attention-backend fa3 --decode-attention-backend trtllm_mha
```

## Use instead
```sh
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --enable-deterministic-inference --attention-backend fa3
```

## References
- `sglang/srt/server_args.py` `ServerArgs._handle_deterministic_inference`
  (0.5.3–0.5.18) and `sglang/srt/arg_groups/attention_hook.py`
  `handle_deterministic_inference` (0.5.19+) check `attention_backend` only;
  the lists come from each release's catalog.
"""

from sgllint.model.rule import WARNING, Invalid, Rule, Valid
from sgllint.semantics import deterministic as det

QWEN = "python -m sglang.launch_server --model-path Qwen/Qwen3-8B --enable-deterministic-inference"

_SPLIT = (
    ("prefill_attention_backend", "--prefill-attention-backend"),
    ("decode_attention_backend", "--decode-attention-backend"),
    ("speculative_draft_attention_backend", "--speculative-draft-attention-backend"),
)


class DeterministicUncheckedSplitAttentionBackend(Rule):
    code = "SGL260"
    name = "deterministic-unchecked-split-attention-backend"
    severity = WARNING
    needs_args = frozenset({'enable_deterministic_inference', 'rl_on_policy_target'})  # deterministic.analyse: off unless one of them turns it on

    VALID = [
        Valid.sh(f"{QWEN} --attention-backend fa3 --decode-attention-backend fa3"),
        Valid.sh("python -m sglang.launch_server --model-path Qwen/Qwen3-8B --decode-attention-backend trtllm_mha"),
    ]
    INVALID = [
        Invalid.sh(f"{QWEN} --attention-backend fa3 --decode-attention-backend trtllm_mha", at="trtllm_mha",
                   message="does not check"),
    ]

    def check(self, launch):
        a = det.analyse(launch)
        if a is None:
            return
        allow = a.catalog.lists.get(a.facts["allow_list"] or "", [])
        for field, flag in _SPLIT:
            arg = launch.last(field)
            if arg is None or not isinstance(arg.value, str) or arg.value in allow:
                continue
            yield self.diagnostic(
                arg.value_span or arg.span,
                f"{flag} '{arg.value}' is not deterministic: SGLang {a.catalog.version} does not check it against "
                f"{det.py_list(allow)} (only --attention-backend is checked), so the launch starts but its outputs "
                "are not batch-invariant",
                help=f"use one of {det.py_list(allow)} for {flag}, or drop it",
                related=a.related(),
                launch=launch,
            )
