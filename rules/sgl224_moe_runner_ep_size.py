"""`--moe-runner-backend flashinfer_cutlass|flashinfer_cutedsl` with an `--ep-size` other than 1 or the tensor-parallel size.

## What it does
Checks an explicit `--ep-size` against `--tp-size` (given or its default 1)
when `--moe-runner-backend` is `flashinfer_cutlass` (0.5.1+) or
`flashinfer_cutedsl` (0.5.11+): the expert-parallel size must be 1 or equal
to the tensor-parallel size.

An all-to-all `--moe-a2a-backend` does not help: SGLang rewrites `ep_size`
to the tensor-parallel size for it only in `_handle_a2a_moe`, which runs
after this assertion in every release. Not judged (SGLang may set
`ep_size = tp_size` itself before the assertion): launches with context
parallelism (`--enable-prefill-cp`, `--attn-cp-size`, the NSA/DSA
prefill-CP switches), `--dwdp-size`, `--elastic-ep-backend`, or the
deprecated `--enable-ep-moe` / `--enable-deepep-moe`, and DeepSeek-V4.

## Why is this bad?
SGLang stops at start-up with `AssertionError: The expert parallel size must
be 1 or the same as the tensor parallel size` (right after its quantization
check for the same runner, see SGL223).

## Example
```sh
python -m sglang.launch_server --model-path Qwen/Qwen3-30B-A3B --tp-size 8 --ep-size 2 --moe-runner-backend flashinfer_cutlass
```

## Use instead
```sh
python -m sglang.launch_server --model-path Qwen/Qwen3-30B-A3B --tp-size 8 --ep-size 8 --moe-runner-backend flashinfer_cutlass
```

## References
- `sglang/srt/server_args.py` `ServerArgs._handle_moe_kernel_config`
  (0.5.1 :553–556, 0.5.4.post3 :1368–1371, 0.5.10.post1 :2674–2677,
  0.5.14 :5063ff., called before `_handle_a2a_moe` at :2575–2576) and
  `sglang/srt/arg_groups/moe_hook.py` `handle_moe_kernel_config` (0.5.23
  :89–92 and :101–104 for `flashinfer_cutedsl`); the cutedsl assert is in
  every wheel 0.5.11–0.5.23. The all-to-all rewrite comes later:
  `_handle_a2a_moe` is called right after `_handle_moe_kernel_config` in
  every wheel (0.5.14 :2575–2576, 0.5.18 :3729–3730, 0.5.19
  `arg_groups/pipeline.py:305–306`), from 0.5.15 through `overrides.py`
  `_a2a_ep_size` (0.5.23 :1612–1619).
"""

from sgllint.model.rule import ERROR, Invalid, Rule, Valid
from sgllint.semantics import effective as eff
from sgllint.semantics import parallel as par

Q = "python -m sglang.launch_server --model-path Qwen/Qwen3-30B-A3B"
MSG = "The expert parallel size must be 1 or the same as the tensor parallel size"
SINCE = {"flashinfer_cutlass": "0.5.1", "flashinfer_cutedsl": "0.5.11"}
#: fields whose presence lets SGLang set ep_size itself before the assert
REWRITERS = ("enable_ep_moe", "enable_deepep_moe", "enable_nsa_prefill_context_parallel",
             "enable_dsa_prefill_context_parallel", "enable_prefill_context_parallel", "enable_prefill_cp",
             "attn_cp_size", "dwdp_size", "elastic_ep_backend")


class MoeRunnerEpSize(Rule):
    code = "SGL224"
    name = "moe-runner-ep-size"
    severity = ERROR

    VALID = [
        Valid.sh(f"{Q} --tp-size 8 --ep-size 8 --moe-runner-backend flashinfer_cutlass"),
        Valid.sh(f"{Q} --tp-size 8 --moe-runner-backend flashinfer_cutlass"),
        Valid.sh(f"{Q} --tp-size 8 --ep-size 2 --moe-runner-backend triton"),
        Valid.sh(f"# sgllint: gpu=B200\n{Q} --tp-size 4 --ep-size 2 --moe-runner-backend flashinfer_cutedsl --quantization modelopt_fp4",
                 sglang="0.5.10"),
        Valid.py(
            """
            import sglang as sgl
            llm = sgl.Engine(model_path="Qwen/Qwen3-30B-A3B", tp_size=4, ep_size=4, moe_runner_backend="flashinfer_cutlass")
            """
        ),
    ]
    INVALID = [
        Invalid.sh(f"{Q} --tp-size 8 --ep-size 2 --moe-runner-backend flashinfer_cutlass", at="--ep-size 2", message=MSG),
        Invalid.sh(f"# sgllint: gpu=B200\n{Q} --tp-size 4 --ep-size 2 --moe-runner-backend flashinfer_cutedsl --quantization modelopt_fp4",
                   at="--ep-size 2", sglang="0.5.19", message=MSG),
        Invalid.sh(f"{Q} --tp-size 8 --ep-size 4 --moe-runner-backend flashinfer_cutlass --moe-a2a-backend deepep",
                   at="--ep-size 4", message=MSG),
        Invalid.py(
            """
            import sglang as sgl
            llm = sgl.Engine(model_path="Qwen/Qwen3-30B-A3B", tp_size=8, ep_size=2, moe_runner_backend="flashinfer_cutlass")
            """,
            at="ep_size=2",
        ),
        Invalid.toml(
            """
            [tool.poe.tasks]
            serve = "python -m sglang.launch_server --model-path Qwen/Qwen3-30B-A3B --tp-size 8 --ep-size 2 --moe-runner-backend flashinfer_cutlass"
            """,
            at="--ep-size 2",
        ),
    ]

    def check(self, launch):
        v = eff.version(launch)
        if launch.opaque:
            return
        runner = eff.given(launch, "moe_runner_backend")
        if not isinstance(runner, str) or runner not in SINCE or not eff.at_least(v, SINCE[runner]):
            return
        ep, ep_arg = par.int_value(launch, "ep_size", 1)
        tp, tp_arg = par.int_value(launch, "tp_size", 1)
        if not par.known(ep, tp) or ep_arg is None or ep in (1, tp):
            return
        if any(launch.last(f) is not None for f in REWRITERS):
            return
        if (launch.context.arch or "") == "DeepseekV4ForCausalLM":
            return
        runner_arg = launch.last("moe_runner_backend")
        related = [(runner_arg.value_span or runner_arg.span, f"--moe-runner-backend {runner}")]
        if tp_arg is not None:
            related.append((tp_arg.span, f"tensor parallel size {tp}"))
        yield self.diagnostic(
            ep_arg.span,
            f"{runner} with expert parallel size {ep} and tensor parallel size {tp}; SGLang {v} stops at start-up: "
            f"\"{MSG}\"",
            help=f"use {par.flag_of(launch, 'ep_size')} {tp} (experts sharded over the whole TP group) or 1, or another "
                 "--moe-runner-backend",
            related=related,
            launch=launch,
        )
