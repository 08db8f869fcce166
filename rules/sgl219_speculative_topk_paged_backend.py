"""EAGLE `--speculative-eagle-topk` > 1 with a page size > 1 on an attention backend that cannot run the tree draft.

## What it does
For `EAGLE`, `EAGLE3`, `NEXTN` and `STANDALONE` launches with an explicit
`--speculative-eagle-topk` above 1, computes the page size SGLang ends up with
(the given `--page-size`, then the backend-forced sizes: `flashmla` → 64,
`cutlass_mla` → 128, `trtllm_mla` / `cutedsl_mla` → 64 unless 32/64,
`hpc_ops` → 64, DeepSeek DSA models → 64) and checks the attention backend
against the release's allow-list: only `flashinfer` in 0.5.2–0.5.5,
`flashinfer`/`fa3` in 0.5.6–0.5.12, `flashinfer`/`fa3`/`triton` from 0.5.13.
The backend judged is `--attention-backend` (or the prefill/decode backend
when both are given and equal, which SGLang copies into it); an
auto-selected backend, a page size that may still be 1, and `trtllm_mha`
(SGL240) are left alone.

## Why is this bad?
SGLang stops at start-up with `ValueError: speculative_eagle_topk > 1 with
page_size > 1 is unstable and produces incorrect results for paged attention
backends. This combination is only supported for the 'flashinfer' backend.`
(up to 0.5.12), or from 0.5.13 `speculative_eagle_topk > 1 with page_size > 1
is only supported on ('flashinfer', 'fa3', 'triton'); got
attention_backend='flashmla'. Use page_size == 1 or one of those backends.`
With a backend-forced page size the user never wrote a page size at all.

## Example
```sh
python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp-size 8 --attention-backend flashmla --speculative-algorithm EAGLE --speculative-num-steps 3 --speculative-eagle-topk 4 --speculative-num-draft-tokens 8
```

## Use instead
```sh
python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp-size 8 --attention-backend flashmla --speculative-algorithm EAGLE --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4
```

## References
- `sglang/srt/server_args.py` `ServerArgs._handle_speculative_decoding`
  (0.5.2–0.5.12: `!= "flashinfer"` up to 0.5.5, `not in ["flashinfer", "fa3"]`
  0.5.6–0.5.12) and `sglang/srt/arg_groups/speculative_hook.py`
  (`_PAGE_TREE_SPEC_BACKENDS = ("flashinfer", "fa3", "triton")`, 0.5.13–0.5.23,
  `_handle_eagle_family` from 0.5.19); verified in the wheels 0.5.1–0.5.23.
  The page size is the one after `_handle_attention_backend_compatibility`
  (≤0.5.18) / `overrides._mla_backend_page_constraints` (0.5.19+), which run
  first; see `sgllint/semantics/effective.py`.
"""

from sgllint.model.rule import ERROR, Invalid, Rule, Valid
from sgllint.semantics import effective as eff
from sgllint.semantics import parallel as par

DSV3 = ("python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp-size 8 --speculative-algorithm EAGLE "
        "--speculative-num-steps 3")
LLAMA = ("python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct --speculative-algorithm EAGLE "
         "--speculative-draft-model-path jamesliu1/sglang-EAGLE-Llama-3.1-Instruct-8B --speculative-num-steps 3")
FAMILY = ("EAGLE", "EAGLE3", "NEXTN", "STANDALONE")

OLD_MSG = ("speculative_eagle_topk > 1 with page_size > 1 is unstable and produces incorrect results for paged attention "
           "backends. This combination is only supported for the 'flashinfer' backend.")


def allowed_backends(version: str) -> tuple:
    if eff.at_least(version, "0.5.13"):
        return ("flashinfer", "fa3", "triton")
    if eff.at_least(version, "0.5.6"):
        return ("flashinfer", "fa3")
    return ("flashinfer",)


def judged_backend(launch):
    """(backend, arg) SGLang compares, or None when it is auto-selected or
    unknown."""
    b = eff.backends(launch)
    if not b.known:
        return None
    if b.prefill_given is not None and b.prefill_given == b.decode_given:
        return b.prefill_given, launch.last("prefill_attention_backend")
    if b.attention is not None:
        return b.attention, launch.last("attention_backend")
    return None


class SpeculativeTopkPagedBackend(Rule):
    code = "SGL219"
    name = "speculative-topk-paged-backend"
    severity = ERROR

    VALID = [
        Valid.sh(f"{DSV3} --attention-backend flashmla --speculative-eagle-topk 1 --speculative-num-draft-tokens 4"),
        Valid.sh(f"{LLAMA} --attention-backend flashinfer --page-size 16 --speculative-eagle-topk 4 --speculative-num-draft-tokens 8"),
        Valid.sh(f"{LLAMA} --attention-backend triton --page-size 16 --speculative-eagle-topk 4 --speculative-num-draft-tokens 8"),
        Valid.sh(f"{LLAMA} --attention-backend fa3 --page-size 16 --speculative-eagle-topk 4 --speculative-num-draft-tokens 8",
                 sglang="0.5.6"),
        Valid.sh(f"{LLAMA} --attention-backend triton --speculative-eagle-topk 4 --speculative-num-draft-tokens 8", sglang="0.5.12"),
        Valid.py(
            """
            import sglang as sgl
            llm = sgl.Engine(model_path="meta-llama/Llama-3.1-8B-Instruct", speculative_algorithm="EAGLE",
                             speculative_draft_model_path="jamesliu1/sglang-EAGLE-Llama-3.1-Instruct-8B",
                             speculative_num_steps=3, speculative_eagle_topk=4, speculative_num_draft_tokens=8,
                             attention_backend="flashinfer", page_size=16)
            """
        ),
    ]
    INVALID = [
        Invalid.sh(f"{DSV3} --attention-backend flashmla --speculative-eagle-topk 4 --speculative-num-draft-tokens 8",
                   at="4", message="attention_backend='flashmla'"),
        Invalid.sh(f"{LLAMA} --attention-backend triton --page-size 16 --speculative-eagle-topk 4 --speculative-num-draft-tokens 8",
                   at="4", sglang="0.5.12", message="only supported for the 'flashinfer' backend"),
        Invalid.sh(f"{LLAMA} --attention-backend fa3 --page-size 16 --speculative-eagle-topk 2 --speculative-num-draft-tokens 8",
                   at="2", sglang="0.5.5"),
        Invalid.py(
            """
            import sglang as sgl
            llm = sgl.Engine(model_path="meta-llama/Llama-3.1-8B-Instruct", speculative_algorithm="EAGLE",
                             speculative_draft_model_path="jamesliu1/sglang-EAGLE-Llama-3.1-Instruct-8B",
                             speculative_num_steps=3, speculative_eagle_topk=4, speculative_num_draft_tokens=8,
                             attention_backend="torch_native", page_size=16)
            """,
            at="4",
        ),
        Invalid.yaml(
            """
            services:
              sglang:
                image: lmsysorg/sglang:v0.5.23
                command: >-
                  python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp-size 8
                  --attention-backend flashmla --speculative-algorithm NEXTN --speculative-num-steps 3
                  --speculative-eagle-topk 4 --speculative-num-draft-tokens 8
            """,
            at=("4", 1),
        ),
    ]

    def check(self, launch):
        v = eff.version(launch)
        if not eff.at_least(v, "0.5.2") or launch.opaque:
            return
        spec = par.speculative(launch)
        if spec is None or spec.name not in FAMILY:
            return
        topk_arg = launch.last("speculative_eagle_topk")
        if topk_arg is None or isinstance(topk_arg.value, bool) or not isinstance(topk_arg.value, int) or topk_arg.value <= 1:
            return
        if launch.last("speculative_num_steps") is None:
            return  # SGL214 / SGLang's own choice
        draft, _ = par.str_value(launch, "speculative_draft_model_path")
        model, _ = par.str_value(launch, "model_path")
        names = " ".join(x.lower() for x in (draft, model) if isinstance(x, str))
        if "gemma" in names:
            return  # Gemma4 drafts become FROZEN_KV_MTP
        device = eff.given(launch, "device")
        if device is eff.UNKNOWN or (isinstance(device, str) and not device.startswith("cuda")):
            return
        b = eff.backends(launch)
        if not b.known or b.any("trtllm_mha", ("attention", "prefill", "decode", "draft")):
            return  # SGL240 reports trtllm_mha first
        judged = judged_backend(launch)
        if judged is None:
            return
        backend, backend_arg = judged
        if backend == "fa3" and eff.given(launch, "kv_cache_dtype") in ("fp8_e5m2", eff.UNKNOWN):
            return  # rewritten to triton (0.5.5+)
        allowed = allowed_backends(v)
        if backend in allowed:
            return
        res = eff.page_candidates(launch)
        if res is None:
            return
        cands, snaps, user = res
        if not cands or min(cands) <= 1:
            return
        page = min(cands)
        if eff.at_least(v, "0.5.13"):
            quote = (f"speculative_eagle_topk > 1 with page_size > 1 is only supported on {allowed!r}; "
                     f"got attention_backend={backend!r}. Use page_size == 1 or one of those backends.")
        else:
            quote = OLD_MSG
        why = f"--page-size {user}" if user is not None and not snaps else None
        if snaps:
            why = f"{snaps[-1].backend} forces page size {snaps[-1].after}"
        elif why is None:
            why = f"page size {page} for this model"
        related = [(backend_arg.value_span or backend_arg.span, f"attention backend {backend}")] if backend_arg is not None else []
        if user is not None:
            related.append((eff.span_of(launch, "page_size"), f"--page-size {user}"))
        yield self.diagnostic(
            topk_arg.value_span or topk_arg.span,
            f"--speculative-eagle-topk {topk_arg.value} with page size {page} ({why}) on the {backend} attention backend; "
            f"SGLang {v} stops at start-up: \"{quote}\"",
            help=f"use --speculative-eagle-topk 1, or --attention-backend {' / '.join(allowed)} with a page size > 1",
            related=related,
            launch=launch,
        )
