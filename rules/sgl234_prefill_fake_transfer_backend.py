"""A PD-disaggregation prefill server with `--disaggregation-transfer-backend fake`.

## What it does
Finds `--disaggregation-mode prefill` launches whose KV transfer backend is
`fake` (the testing backend that only decode servers accept).

## Why is this bad?
The server stops at start-up with `AssertionError: Prefill server does not
support 'fake' as the transfer backend`.

## Example
```sh
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --disaggregation-mode prefill --disaggregation-transfer-backend fake
```

## Use instead
```sh
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --disaggregation-mode prefill --disaggregation-transfer-backend mooncake
```

## References
- `sglang/srt/server_args.py` `ServerArgs._handle_disaggregation`
  (0.5.10-0.5.18) and `sglang/srt/arg_groups/pd_disaggregation_hook.py`
  (0.5.19-0.5.23); the assert is in every wheel 0.5.10-0.5.23 and in none
  before.
"""

from sgllint.model.rule import ERROR, Invalid, Rule, Valid
from sgllint.semantics import effective as eff

QWEN = "python -m sglang.launch_server --model-path Qwen/Qwen3-8B"


class PrefillFakeTransferBackend(Rule):
    code = "SGL234"
    name = "prefill-fake-transfer-backend"
    severity = ERROR

    VALID = [
        Valid.sh(f"{QWEN} --disaggregation-mode prefill --disaggregation-transfer-backend mooncake"),
        Valid.sh(f"{QWEN} --disaggregation-mode decode --disaggregation-transfer-backend fake"),
        Valid.sh(f"{QWEN} --disaggregation-mode $MODE --disaggregation-transfer-backend fake"),
        Valid.py(
            """
            import sglang as sgl
            llm = sgl.Engine(model_path="Qwen/Qwen3-8B", disaggregation_mode="prefill", disaggregation_transfer_backend="nixl")
            """
        ),
    ]
    INVALID = [
        Invalid.sh(f"{QWEN} --disaggregation-mode prefill --disaggregation-transfer-backend fake", at="fake",
                   message="Prefill server does not support 'fake'"),
        Invalid.sh(f"{QWEN} --disaggregation-transfer-backend fake --disaggregation-mode prefill", at="fake", sglang="0.5.10"),
        Invalid.py(
            """
            import sglang as sgl
            llm = sgl.Engine(model_path="Qwen/Qwen3-8B", disaggregation_mode="prefill", disaggregation_transfer_backend="fake")
            """,
            at='"fake"',
        ),
    ]

    def check(self, launch):
        v = eff.version(launch)
        if not eff.at_least(v, "0.5.10"):
            return
        mode = eff.given(launch, "disaggregation_mode")
        backend = eff.given(launch, "disaggregation_transfer_backend")
        if mode != "prefill" or backend != "fake":
            return
        yield self.diagnostic(
            eff.span_of(launch, "disaggregation_transfer_backend"),
            f"SGLang {v} refuses a prefill server with the 'fake' KV transfer backend at start-up: "
            "\"Prefill server does not support 'fake' as the transfer backend\"",
            help="use a real transfer backend on the prefill side (mooncake, nixl, ...); 'fake' is only for decode-side tests",
            related=[(eff.span_of(launch, "disaggregation_mode"), "prefill server")],
            launch=launch,
        )
