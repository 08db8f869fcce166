"""An explicit `--page-size` that SGLang silently replaces because of the attention backend.

## What it does
When `--page-size` is given, replays SGLang's backend-forced page sizes for
the target release and reports when the value written is not the value the
server runs with: `flashmla` → 64; `cutlass_mla` → 128 (up to 0.5.19);
`trtllm_mla` and (0.5.13+) `cutedsl_mla` → 64 unless 32/64; `trtllm_mha` → 64
unless 16/32/64 (+128 from 0.5.17); `hpc_ops` → 64 (0.5.17+); and `fa4` → 128
where that is certain: as `--prefill-attention-backend` (0.5.4 always;
0.5.5–0.5.9 for a known non-MLA model; from 0.5.10 also only on a pinned SM10x
GPU), and from 0.5.15 as the attention, decode or prefill backend, not with
EAGLE top-k > 1.

## Why is this bad?
Nothing fails: SGLang logs a warning such as `TensorRT-LLM MHA only supports
page_size of 16, 32 or 64, changing page_size from 256 to 64.` and serves with
another page size than the one in the command line, so KV-cache sizing,
prefix-cache granularity and every value derived from the page size
(`--chunked-prefill-size` divisibility, HiCache page transfers) differ from
what the launch says.

## Example
```sh
# sgllint: gpu=B200
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --attention-backend trtllm_mha --page-size 256
```

## Use instead
```sh
# sgllint: gpu=B200
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --attention-backend trtllm_mha --page-size 64
```

## References
- `sglang/srt/server_args.py` `ServerArgs._handle_attention_backend_compatibility`
  (0.5.1–0.5.18) and `sglang/srt/arg_groups/overrides.py`
  `_mla_backend_page_constraints` / the fa4 page override (0.5.19–0.5.23);
  the per-release snapping is shared with SGL231 in `sgllint/semantics/effective.py`
  (`page_snaps`). The fa4 rewrite was read in 0.5.4.post3 (always),
  0.5.5.post3–0.5.9 (`not self.use_mla_backend()`), 0.5.10.post1–0.5.14
  (`and is_sm100_supported()`; `server_args.py`, prefill backend only), and
  0.5.15–0.5.23 `arg_groups/overrides.py` `_fa4_page_constraint` (attention,
  decode or prefill backend `fa4`, `speculative_eagle_topk or 0) <= 1`;
  0.5.15.post1 :1675-1690, 0.5.23 :1273-1298).
"""

from sgllint.model.rule import WARNING, Invalid, Rule, Valid
from sgllint.semantics import effective as eff

QWEN = "python -m sglang.launch_server --model-path Qwen/Qwen3-8B"
DSV3 = "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp-size 8"
#: from 0.5.15 (`_fa4_page_constraint`) fa4 as the attention or decode backend forces page size 128 too
FA4_ANY_ROLE_FROM = "0.5.15"
FA4_MSG = "FA4 backend only supports page size 128 for non-MLA model architectures, changing page_size from {} to 128."


def fa4_snap(launch, page):
    """The fa4 prefill rewrite when it certainly happens, else None."""
    v = eff.version(launch)
    b = eff.backends(launch)
    roles = ("prefill", "decode", "attention") if eff.at_least(v, FA4_ANY_ROLE_FROM) else ("prefill",)
    if not b.any("fa4", roles) or not eff.at_least(v, "0.5.4") or page == 128:
        return None
    if eff.at_least(v, "0.5.5"):
        if eff.is_mla(launch) is not False:
            return None
    if eff.at_least(v, "0.5.10"):
        g = eff.gpu(launch)
        if g is None or g.vendor != "nvidia" or g.sm_major != 10:
            return None
    if eff.at_least(v, FA4_ANY_ROLE_FROM):
        topk = eff.given(launch, "speculative_eagle_topk")
        if topk is eff.UNKNOWN or (isinstance(topk, int) and topk > 1):
            return None
        if topk is None and eff.given(launch, "speculative_algorithm") is not None:
            return None  # SGLang may choose a top-k > 1 itself
    if not eff.at_least(v, "0.5.5"):
        msg = f"FA4 backend only supports page size 128, changing page_size from {page} to 128."
    else:
        msg = FA4_MSG.format(page)
    return eff.Snap("fa4", page, 128, msg, eff.backend_arg(launch, "fa4", roles))


class PageSizeOverridden(Rule):
    code = "SGL241"
    name = "page-size-overridden"
    severity = WARNING
    #: SGL401 leaves page_size rewrites to this rule
    sglang_rewrites = ("page_size",)

    VALID = [
        Valid.sh(f"# sgllint: gpu=B200\n{QWEN} --attention-backend trtllm_mha --page-size 64"),
        Valid.sh(f"# sgllint: gpu=B200\n{QWEN} --attention-backend trtllm_mha"),
        Valid.sh(f"# sgllint: gpu=H100\n{DSV3} --attention-backend flashmla --page-size 64"),
        Valid.sh(f"{QWEN} --attention-backend flashinfer --page-size 256"),
        Valid.sh(f"# sgllint: gpu=H100\n{QWEN} --prefill-attention-backend fa4 --decode-attention-backend fa3 --page-size 16", sglang="0.5.10"),
        # before 0.5.15 only the prefill backend fa4 forces the page size
        Valid.sh(f"# sgllint: gpu=B200\n{QWEN} --decode-attention-backend fa4 --page-size 16", sglang="0.5.14"),
        Valid.py(
            """
            # sgllint: gpu=B200
            import sglang as sgl
            llm = sgl.Engine(model_path="deepseek-ai/DeepSeek-V3", tp_size=8, attention_backend="trtllm_mla", page_size=32)
            """
        ),
    ]
    INVALID = [
        Invalid.sh(f"# sgllint: gpu=B200\n{QWEN} --attention-backend trtllm_mha --page-size 256", at="256",
                   message="changing page_size from 256 to 64"),
        Invalid.sh(f"# sgllint: gpu=H100\n{DSV3} --attention-backend flashmla --page-size 16", at="16",
                   message="FlashMLA only supports a page_size of 64"),
        Invalid.sh(f"{QWEN} --prefill-attention-backend fa4 --decode-attention-backend flashinfer --page-size 16", at="16",
                   sglang="0.5.4", message="changing page_size from 16 to 128"),
        Invalid.sh(f"# sgllint: gpu=B200\n{QWEN} --attention-backend fa4 --page-size 16", at="16",
                   sglang="0.5.23", message="changing page_size from 16 to 128"),
        Invalid.py(
            """
            # sgllint: gpu=B200
            import sglang as sgl
            llm = sgl.Engine(model_path="deepseek-ai/DeepSeek-V3", tp_size=8, attention_backend="trtllm_mla", page_size=16)
            """,
            at="16",
        ),
        Invalid.toml(
            """
            [tool.poe.tasks]
            serve = "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp-size 8 --attention-backend flashmla --page-size 1"
            """,
            at="1",
        ),
    ]

    def check(self, launch):
        v = eff.version(launch)
        if not eff.at_least(v, "0.5.1") or launch.opaque:
            return
        user = eff.given(launch, "page_size")
        if user is None or user is eff.UNKNOWN or isinstance(user, bool) or not isinstance(user, int):
            return
        b = eff.backends(launch)
        if not b.known:
            return
        device = eff.given(launch, "device")
        if device is eff.UNKNOWN or (isinstance(device, str) and not device.startswith("cuda")):
            return
        snaps = eff.page_snaps(launch, user, b)
        if not snaps:
            s = fa4_snap(launch, user)
            snaps = [s] if s is not None else []
        if not snaps:
            return
        last = snaps[-1]
        if last.after == user:
            return
        related = [(s.arg.value_span or s.arg.span, f"{s.backend} forces page size {s.after}") for s in snaps if s.arg is not None]
        yield self.diagnostic(
            eff.span_of(launch, "page_size"),
            f"--page-size {user} is overridden: SGLang {v} serves with page size {last.after} because of the {last.backend} "
            f"attention backend (\"{last.message}\")",
            help=f"write --page-size {last.after} (or a size {last.backend} accepts) so the launch says what runs",
            related=related,
            launch=launch,
        )
