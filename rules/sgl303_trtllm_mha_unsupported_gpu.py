"""`trtllm_mha` as prefill or decode backend on a GPU SGLang does not allow it on.

## What it does
When the GPU target is pinned, checks the effective prefill backend
(`--prefill-attention-backend`, else `--attention-backend`) and decode
backend (`--decode-attention-backend`, else `--attention-backend`) against
the target release: 0.5.1-0.5.9 any `trtllm_mha` needs SM10x; 0.5.10-0.5.18
prefill needs SM10x, decode SM90/SM10x/SM12x; from 0.5.19 both need
SM90/SM10x/SM12x.

## Why is this bad?
The server stops at start-up with `ValueError: TRTLLM MHA backend is only
supported on Blackwell GPUs (SM100). Please use a different backend.`
(0.5.1-0.5.9) or its per-phase successors (`TRTLLM MHA backend for prefill
...`, `TRTLLM MHA backend for decode ...`).

## Example
```sh
# sgllint: gpu=A100
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --attention-backend trtllm_mha
```

## Use instead
```sh
# sgllint: gpu=A100
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --attention-backend flashinfer
```

## References
- `sglang/srt/server_args.py` `ServerArgs._handle_attention_backend_compatibility`
  (0.5.1-0.5.18) and `sglang/srt/arg_groups/attention_hook.py`
  (0.5.19-0.5.23); verified in the wheels 0.5.1, 0.5.3, 0.5.4, 0.5.9, 0.5.10,
  0.5.13, 0.5.18, 0.5.19, 0.5.23.
"""

from sgllint.model.rule import ERROR, Invalid, Rule, Valid
from sgllint.semantics import effective as eff

QWEN = "python -m sglang.launch_server --model-path Qwen/Qwen3-8B"
OLD = "TRTLLM MHA backend is only supported on Blackwell GPUs (SM100). Please use a different backend."
PREFILL_OLD = "TRTLLM MHA backend for prefill is only supported on Blackwell GPUs (SM100). Please use a different prefill backend."
PREFILL_NEW = ("TRTLLM MHA backend for prefill requires Hopper (SM90), Blackwell (SM100), or SM120 GPUs. "
               "Please use a different prefill backend.")
DECODE = ("TRTLLM MHA backend for decode is only supported on Hopper (SM90), Blackwell (SM100) and (SM120) GPUs. "
          "Please use a different decode backend.")


class TrtllmMhaUnsupportedGpu(Rule):
    code = "SGL303"
    name = "trtllm-mha-unsupported-gpu"
    severity = ERROR

    VALID = [
        Valid.sh(f"# sgllint: gpu=B200\n{QWEN} --attention-backend trtllm_mha"),
        Valid.sh(f"# sgllint: gpu=H100\n{QWEN} --attention-backend trtllm_mha"),
        Valid.sh(f"# sgllint: gpu=H100\n{QWEN} --prefill-attention-backend fa3 --decode-attention-backend trtllm_mha", sglang="0.5.10"),
        Valid.sh(f"{QWEN} --attention-backend trtllm_mha"),
        Valid.py(
            """
            # sgllint: gpu=B200
            import sglang as sgl
            llm = sgl.Engine(model_path="Qwen/Qwen3-8B", attention_backend="trtllm_mha")
            """
        ),
    ]
    INVALID = [
        Invalid.sh(f"# sgllint: gpu=A100\n{QWEN} --attention-backend trtllm_mha", at="trtllm_mha", message="for prefill requires Hopper"),
        Invalid.sh(f"# sgllint: gpu=H100\n{QWEN} --attention-backend trtllm_mha", at="trtllm_mha", sglang="0.5.10",
                   message="for prefill is only supported on Blackwell"),
        Invalid.sh(f"# sgllint: gpu=H100\n{QWEN} --decode-attention-backend trtllm_mha", at="trtllm_mha", sglang="0.5.9",
                   message="(SM100). Please use a different backend."),
        Invalid.py(
            """
            # sgllint: gpu=A100
            import sglang as sgl
            llm = sgl.Engine(model_path="Qwen/Qwen3-8B", attention_backend="trtllm_mha")
            """,
            at='"trtllm_mha"',
        ),
    ]

    def check(self, launch):
        v = eff.version(launch)
        g = eff.gpu(launch)
        if g is None or not eff.at_least(v, "0.5.1"):
            return
        b = eff.backends(launch)
        if not b.any("trtllm_mha"):
            return
        hopper_up = (9, 10, 12)
        if not eff.at_least(v, "0.5.10"):
            fails = eff.gpu_fails(g, (10,))
            msg, need, role = OLD, (10,), None
        else:
            prefill_need = (10,) if not eff.at_least(v, "0.5.19") else hopper_up
            if b.prefill == "trtllm_mha" and eff.gpu_fails(g, prefill_need):
                fails, msg, need, role = True, (PREFILL_OLD if prefill_need == (10,) else PREFILL_NEW), prefill_need, "prefill"
            elif b.decode == "trtllm_mha" and eff.gpu_fails(g, hopper_up):
                fails, msg, need, role = True, DECODE, hopper_up, "decode"
            else:
                fails = False
        if not fails:
            return
        if role == "prefill":
            arg = launch.last("prefill_attention_backend") if b.prefill_given == "trtllm_mha" else launch.last("attention_backend")
        elif role == "decode":
            arg = launch.last("decode_attention_backend") if b.decode_given == "trtllm_mha" else launch.last("attention_backend")
        else:
            arg = eff.backend_arg(launch, "trtllm_mha", ("attention", "prefill", "decode"))
        what = f"trtllm_mha{' for ' + role if role else ''}"
        yield self.diagnostic(
            arg.value_span or arg.span,
            f"{what} needs a {eff.describe_majors(need)} GPU in SGLang {v}, but the target is {g.describe()}; "
            f"SGLang stops at start-up: \"{msg}\"",
            help="use --attention-backend fa3 on Hopper, flashinfer or triton elsewhere",
            related=eff.gpu_related(launch),
            launch=launch,
        )
