"""`STANDALONE` or `NGRAM` speculative decoding with attention data parallelism.

## What it does
Flags `--speculative-algorithm STANDALONE` (0.5.2+) or `NGRAM` (0.5.3+) when
attention data parallelism is on: `--enable-dp-attention` with `--dp-size` > 1
up to 0.5.21, `--attn-dp-size` > 1 from 0.5.22.

## Why is this bad?
SGLang raises while resolving the speculative-decoding arguments:
`ValueError: Currently standalone speculative decoding does not support dp
attention.` / `Currently ngram speculative decoding does not support dp attention.`

## Example
```sh
python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp-size 8 --attn-dp-size 8 --speculative-algorithm NGRAM
```

## Use instead
```sh
python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp-size 8 --speculative-algorithm NGRAM
```

## References
- `sglang/srt/server_args.py` `ServerArgs._handle_speculative_decoding`
  (0.5.2–0.5.18), `sglang/srt/arg_groups/speculative_hook.py`
  (`_handle_eagle_family` / the NGRAM handler, 0.5.19+).
"""

from sgllint.model.rule import ERROR, Invalid, Rule, Valid
from sgllint.semantics import parallel as par

L = "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp-size 8"
SINCE = {"STANDALONE": "0.5.2", "NGRAM": "0.5.3"}


class SpeculativeDpAttentionUnsupported(Rule):
    code = "SGL215"
    name = "speculative-dp-attention-unsupported"
    severity = ERROR

    VALID = [
        Valid.sh(f"{L} --speculative-algorithm NGRAM"),
        Valid.sh(f"{L} --attn-dp-size 8 --speculative-algorithm EAGLE"),
        Valid.sh(f"{L} --dp-size 1 --enable-dp-attention --speculative-algorithm NGRAM", sglang="0.5.10"),
        Valid.sh(f"{L} --attn-dp-size $ADP --speculative-algorithm NGRAM"),
        Valid.py(
            """
            import sglang as sgl
            llm = sgl.Engine(model_path="deepseek-ai/DeepSeek-V3", tp_size=8, speculative_algorithm="NGRAM")
            """
        ),
    ]
    INVALID = [
        Invalid.sh(f"{L} --attn-dp-size 8 --speculative-algorithm NGRAM", at="NGRAM", message="ngram speculative decoding does not support dp attention"),
        Invalid.sh(
            f"{L} --enable-dp-attention --dp-size 8 --speculative-algorithm STANDALONE --speculative-draft-model-path Qwen/Qwen2.5-0.5B-Instruct",
            at="STANDALONE",
            sglang="0.5.10",
            message="standalone speculative decoding does not support dp attention",
        ),
        Invalid.py(
            """
            import sglang as sgl
            llm = sgl.Engine(model_path="deepseek-ai/DeepSeek-V3", tp_size=8, attn_dp_size=4, speculative_algorithm="ngram")
            """,
            at='"ngram"',
        ),
    ]

    def check(self, launch):
        spec = par.speculative(launch)
        if spec is None or spec.name not in SINCE or not par.at_least(launch, SINCE[spec.name]):
            return
        dp = par.data_parallel(launch)
        if dp is None or not dp.attention_dp:
            return
        message = f"Currently {spec.name.lower()} speculative decoding does not support dp attention."
        yield self.diagnostic(
            par.value_span(spec.arg),
            f"SGLang {launch.context.catalog.version} rejects this at start-up: '{message}'",
            help="drop attention data parallelism, or use EAGLE/EAGLE3 speculative decoding",
            related=[(dp.attn_arg.span, "attention data parallelism on")] if dp.attn_arg is not None else [],
            launch=launch,
        )
