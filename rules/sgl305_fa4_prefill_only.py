"""`fa4` as attention or decode backend in a release that only allows it for prefill.

## What it does
In SGLang 0.5.4–0.5.7, flags `--attention-backend fa4` and
`--decode-attention-backend fa4` (the choice is accepted by the parser, and
`--prefill-attention-backend fa4` works). `--attention-backend fa4` is
rejected even together with `--prefill-attention-backend fa4`: the check
reads the attention backend as written. From 0.5.8 fa4 may decode too.

## Why is this bad?
The server stops at start-up with `ValueError: FA4 backend is only supported
for prefill. Please use `--prefill-attention-backend fa4` instead.`

## Example
```sh
# sgllint: sglang=0.5.5
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --attention-backend fa4
```

## Use instead
```sh
# sgllint: sglang=0.5.5
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --prefill-attention-backend fa4 --decode-attention-backend flashinfer
```

## References
- `sglang/srt/server_args.py` `ServerArgs._handle_attention_backend_compatibility`,
  releases 0.5.4.post3, 0.5.5.post3, 0.5.6.post2 and 0.5.7 (`if
  self.attention_backend == "fa4" or self.decode_attention_backend == "fa4":
  raise ValueError(...)`); absent in 0.5.3 and from 0.5.8.post1 on.
"""

from sgllint.model.rule import ERROR, Invalid, Rule, Valid
from sgllint.semantics import effective as eff

QWEN = "python -m sglang.launch_server --model-path Qwen/Qwen3-8B"
MSG = "FA4 backend is only supported for prefill. Please use `--prefill-attention-backend fa4` instead."


class Fa4PrefillOnly(Rule):
    code = "SGL305"
    name = "fa4-prefill-only"
    severity = ERROR

    VALID = [
        Valid.sh(f"{QWEN} --prefill-attention-backend fa4 --decode-attention-backend flashinfer", sglang="0.5.5"),
        Valid.sh(f"{QWEN} --prefill-attention-backend fa4", sglang="0.5.7"),
        Valid.sh(f"# sgllint: gpu=B200\n{QWEN} --attention-backend fa4", sglang="0.5.8"),
        Valid.py(
            """
            # sgllint: sglang=0.5.4
            import sglang as sgl
            llm = sgl.Engine(model_path="Qwen/Qwen3-8B", prefill_attention_backend="fa4", decode_attention_backend="triton")
            """,
            sglang="0.5.4",
        ),
    ]
    INVALID = [
        Invalid.sh(f"{QWEN} --attention-backend fa4", at="fa4", sglang="0.5.5", message="only supported for prefill"),
        Invalid.sh(f"{QWEN} --prefill-attention-backend fa4 --decode-attention-backend fa4", at=("fa4", 2), sglang="0.5.7"),
        Invalid.sh(f"{QWEN} --attention-backend fa4 --prefill-attention-backend fa4 --decode-attention-backend flashinfer",
                   at=("fa4", 1), sglang="0.5.4"),
        Invalid.py(
            """
            # sgllint: sglang=0.5.6
            import sglang as sgl
            llm = sgl.Engine(model_path="Qwen/Qwen3-8B", attention_backend="fa4")
            """,
            at='"fa4"',
            sglang="0.5.6",
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
                  image: lmsysorg/sglang:v0.5.5.post3
                  command: ["python3", "-m", "sglang.launch_server"]
                  args: ["--model-path", "Qwen/Qwen3-8B", "--decode-attention-backend", "fa4"]
            """,
            at='"fa4"',
            sglang="0.5.5",
        ),
    ]

    def check(self, launch):
        v = eff.version(launch)
        if not eff.in_range(v, ("0.5.4", "0.5.7")):
            return
        b = eff.backends(launch)
        for role in ("attention", "decode"):
            if (b.attention if role == "attention" else b.decode_given) != "fa4":
                continue
            arg = launch.last(eff.ROLE_FIELDS[role])
            yield self.diagnostic(
                arg.value_span or arg.span,
                f"fa4 as {'attention' if role == 'attention' else 'decode'} backend; SGLang {v} only runs fa4 for prefill "
                f"and stops at start-up: \"{MSG}\"",
                help="use --prefill-attention-backend fa4 with another --decode-attention-backend (flashinfer, fa3, triton), "
                     "or SGLang 0.5.8+ for fa4 decoding",
                launch=launch,
            )
            return
