"""Speculative decoding on the `flex_attention` backend.

## What it does
Flags `--attention-backend flex_attention` together with any
`--speculative-algorithm` (0.5.3+, the releases that offer the backend).

## Why is this bad?
SGLang asserts it while resolving the attention backend: `AssertionError:
Speculative decoding is currently not supported with Flex Attention backend`
(it also silently disables CUDA graphs for that backend).

## Example
```sh
python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct --attention-backend flex_attention --speculative-algorithm NGRAM
```

## Use instead
```sh
python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct --attention-backend triton --speculative-algorithm NGRAM
```

## References
- `sglang/srt/server_args.py` `ServerArgs._handle_attention_backend_compatibility`
  (0.5.3–0.5.18), `sglang/srt/arg_groups/attention_hook.py` (0.5.19+).
"""

from sgllint.model.rule import ERROR, Invalid, Rule, Valid
from sgllint.semantics import parallel as par

L = "python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct"
MSG = "Speculative decoding is currently not supported with Flex Attention backend"


class SpeculativeFlexAttention(Rule):
    code = "SGL216"
    name = "speculative-flex-attention"
    severity = ERROR

    VALID = [
        Valid.sh(f"{L} --attention-backend flex_attention"),
        Valid.sh(f"{L} --attention-backend triton --speculative-algorithm NGRAM"),
        Valid.sh(f"{L} --attention-backend $BACKEND --speculative-algorithm NGRAM"),
        Valid.py(
            """
            import sglang as sgl
            llm = sgl.Engine(model_path="meta-llama/Llama-3.1-8B-Instruct", attention_backend="flex_attention")
            """
        ),
    ]
    INVALID = [
        Invalid.sh(f"{L} --attention-backend flex_attention --speculative-algorithm NGRAM", at="flex_attention", message=MSG),
        Invalid.sh(f"{L} --speculative-algorithm NGRAM --attention-backend flex_attention", at="flex_attention", sglang="0.5.4", message=MSG),
        Invalid.py(
            """
            import sglang as sgl
            llm = sgl.Engine(model_path="meta-llama/Llama-3.1-8B-Instruct", attention_backend="flex_attention", speculative_algorithm="NGRAM")
            """,
            at='"flex_attention"',
        ),
    ]

    def check(self, launch):
        if not par.at_least(launch, "0.5.3"):
            return
        backend, arg = par.str_value(launch, "attention_backend")
        if arg is None or backend != "flex_attention" or arg.problem:
            return
        spec = par.speculative(launch)
        if spec is None:
            return
        yield self.diagnostic(
            par.value_span(arg),
            f"SGLang {launch.context.catalog.version} rejects this at start-up: '{MSG}' ({spec.name} is set)",
            help="use another attention backend (e.g. triton or fa3) or drop speculative decoding",
            related=[(spec.arg.span, "speculative decoding on")],
            launch=launch,
        )
