"""`--chunked-prefill-size` that is not a multiple of the page size SGLang ends up using.

## What it does
Computes the page size SGLang uses after its own rewrites — the given
`--page-size` (default 1), then the backend-forced sizes (`flashmla` → 64,
`cutlass_mla` → 128 up to 0.5.19, `trtllm_mla` → 64 unless 32/64,
`cutedsl_mla` → 64 unless 32/64, `trtllm_mha` → 64 unless 16/32/64 (+128 from
0.5.17), `hpc_ops` → 64), DeepSeek DSA models → 64, `fa4` on SM100 with a
non-MLA model → 128 — and checks that a positive `--chunked-prefill-size` is a
multiple of it. When the result depends on an unknown architecture or GPU it
reports only if every possible page size fails. Without `--chunked-prefill-size`
(0.5.4+), SGLang's own default — 2048, 4096, 8192, 16384 or 32768 by GPU
memory, all multiples of 2048 — is checked for a text model (`*ForCausalLM`,
also with `--is-embedding`, which keeps the default: the oracle saw all four
releases reject `--page-size 48 --is-embedding`; not with `--enable-mis`):
a page size that does not divide 2048 fails with every default. Decode servers
(`--disaggregation-mode decode`) and attention-DP launches (which divide the
chunk size first) are not checked.

## Why is this bad?
The server stops at start-up with `AssertionError: chunked_prefill_size must
be divisible by page_size`; with a backend-forced page size the page size in
the error is not even the one in the command line.

## Example
```sh
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --page-size 48 --chunked-prefill-size 4000
```

## Use instead
```sh
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --page-size 32 --chunked-prefill-size 4096
```

## References
- `sglang/srt/server_args.py` `ServerArgs.check_server_args` (0.4.10-0.5.18)
  and `sglang/srt/arg_groups/validation_hook.py` `check_server_args`
  (0.5.19-0.5.23), all releases 0.4.10+; page snapping in
  `_handle_attention_backend_compatibility` (<=0.5.18) and
  `arg_groups/overrides.py` `_mla_backend_page_constraints` (0.5.19+), see
  `sgllint/semantics/effective.py`.
- The default chunk size: `ServerArgs._handle_gpu_memory_settings`
  (`sglang/srt/server_args.py`, 0.5.4.post3 :692–768) and
  `arg_groups/memory_hook.py` (0.5.23 :97–177); models and modes that turn
  chunked prefill off instead (`chunked_prefill_size=-1`):
  `arg_groups/model_hook.py` (embedding, multimodal without chunked prefill,
  HRM text; 0.5.23 :220–1031) and `attention_hook.py:569` (`--enable-mis`).
  Found by the rule-pack oracle: `--page-size 48` alone is rejected by
  0.5.4.post3–0.5.23 (`validation_hook.py:244` in 0.5.23).
"""

from sgllint.model.rule import ERROR, Invalid, Rule, Valid
from sgllint.semantics import effective as eff

QWEN = "python -m sglang.launch_server --model-path Qwen/Qwen3-8B"
DSV3 = "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp-size 8"


#: every default chunk size SGLang picks (2048 ... 32768) is a multiple of this
DEFAULT_CHUNK_GCD = 2048


class ChunkedPrefillNotMultipleOfPageSize(Rule):
    code = "SGL231"
    name = "chunked-prefill-not-multiple-of-page-size"
    severity = ERROR

    VALID = [
        Valid.sh(f"{QWEN} --page-size 32 --chunked-prefill-size 4096"),
        Valid.sh(f"{QWEN} --page-size 48 --chunked-prefill-size -1"),
        Valid.sh(f"{QWEN} --page-size 48 --chunked-prefill-size 4000 --disaggregation-mode decode"),
        Valid.sh(f"{QWEN} --page-size 48 --chunked-prefill-size $CHUNK"),
        Valid.sh(f"{QWEN} --page-size 64"),
        Valid.sh(f"{QWEN} --page-size 48 --chunked-prefill-size 4800"),
        Valid.sh(f"# sgllint: gpu=B200\n{DSV3} --attention-backend trtllm_mla --page-size 64 --chunked-prefill-size 8192"),
        Valid.py(
            """
            import sglang as sgl
            llm = sgl.Engine(model_path="Qwen/Qwen3-8B", page_size=16, chunked_prefill_size=8192)
            """
        ),
    ]
    INVALID = [
        Invalid.sh(f"{QWEN} --page-size 48 --chunked-prefill-size 4000", at="4000", message="page size 48"),
        Invalid.sh(f"{QWEN} --page-size 48", at="48", message="default"),
        Invalid.sh(f"# sgllint: gpu=H100\n{DSV3} --attention-backend flashmla --chunked-prefill-size 1000",
                   at="1000", message="flashmla"),
        Invalid.py(
            """
            import sglang as sgl
            llm = sgl.Engine(model_path="Qwen/Qwen3-8B", page_size=48, chunked_prefill_size=4000)
            """,
            at="4000",
        ),
        Invalid.yaml(
            """
            apiVersion: v1
            kind: Pod
            metadata:
              name: sglang
            spec:
              containers:
                - name: sglang
                  image: lmsysorg/sglang:v0.5.23
                  command: ["python3", "-m", "sglang.launch_server"]
                  args: ["--model-path", "Qwen/Qwen3-8B", "--page-size", "48", "--chunked-prefill-size", "4000"]
            """,
            at='"4000"',
        ),
    ]

    @staticmethod
    def _default_applies(launch, v) -> bool:
        """SGLang's GPU-memory default chunk size is used (not -1)."""
        if not eff.at_least(v, "0.5.4") or launch.opaque:
            return False
        arch = launch.context.arch or ""
        if not arch.endswith("ForCausalLM") or arch.startswith("HrmText"):
            return False
        for field in ("enable_mis", "enable_multi_item_scoring"):
            if eff.has_field(launch, field) and eff.flag_true(launch, field) is not False:
                return False
        device = eff.value(launch, "device") if eff.has_field(launch, "device") else None
        return device in (None, "cuda")

    def check(self, launch):
        v = eff.version(launch)
        if not eff.at_least(v, "0.4.10"):
            return
        chunk = eff.given(launch, "chunked_prefill_size")
        implicit = chunk is None and launch.last("chunked_prefill_size") is None and self._default_applies(launch, v)
        if implicit:
            chunk = DEFAULT_CHUNK_GCD
        if chunk is None or chunk is eff.UNKNOWN or isinstance(chunk, bool) or not isinstance(chunk, int) or chunk <= 0:
            return
        mode = eff.value(launch, "disaggregation_mode")
        if mode is eff.UNKNOWN or mode == "decode":
            return
        dp_att = eff.flag_true(launch, "enable_dp_attention") if eff.has_field(launch, "enable_dp_attention") else False
        attn_dp = eff.int_value(launch, "attn_dp_size") if eff.has_field(launch, "attn_dp_size") else 1
        if dp_att is eff.UNKNOWN or dp_att or attn_dp is eff.UNKNOWN or (attn_dp or 1) > 1:
            return
        res = eff.page_candidates(launch)
        if res is None:
            return
        cands, snaps, user = res
        if any(chunk % c == 0 for c in cands):
            return
        page = max(cands) if len(cands) > 1 else next(iter(cands))
        how = f"page size {page}"
        related = []
        if user is not None:
            related.append((eff.span_of(launch, "page_size"), f"--page-size {user}"))
        for s in snaps:
            if s.arg is not None:
                related.append((s.arg.value_span or s.arg.span, f"{s.backend} forces page size {s.after}"))
        if snaps:
            how += f" ({snaps[-1].backend} rewrites the page size: \"{snaps[-1].message}\")"
        elif user is None or page != user:
            how += " (the page size SGLang picks for this model/backend)"
        if len(cands) > 1:
            how = "every page size SGLang may use here (" + ", ".join(str(c) for c in sorted(cands)) + ")"
        if implicit:
            yield self.diagnostic(
                eff.span_of(launch, "page_size") or launch.site.entry_span,
                f"the default --chunked-prefill-size (2048–32768 by GPU memory, always a multiple of 2048) is not a "
                f"multiple of {how}; SGLang {v} stops at start-up: \"chunked_prefill_size must be divisible by page_size\"",
                help="use a page size that divides 2048 (a power of two), or set --chunked-prefill-size to a multiple of it",
                related=related[1:] if related and user is not None else related,
                launch=launch,
            )
            return
        good = chunk - chunk % page if chunk >= page else page
        yield self.diagnostic(
            eff.span_of(launch, "chunked_prefill_size"),
            f"--chunked-prefill-size {chunk} is not a multiple of {how}; SGLang {v} stops at start-up: "
            "\"chunked_prefill_size must be divisible by page_size\"",
            help=f"use a multiple of {page}, e.g. --chunked-prefill-size {good}",
            related=related,
            launch=launch,
        )
