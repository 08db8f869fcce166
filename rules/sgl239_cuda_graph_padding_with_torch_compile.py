"""`--disable-cuda-graph-padding` together with `--enable-torch-compile`.

## What it does
Finds launches that turn on `torch.compile` while disabling CUDA-graph
padding.

## Why is this bad?
Without padding every batch size gets its own compilation; from 0.5.12 SGLang
refuses the combination at start-up with `AssertionError:
--disable-cuda-graph-padding is incompatible with --enable-torch-compile.
... Remove --disable-cuda-graph-padding or --enable-torch-compile.`

## Example
```sh
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --enable-torch-compile --disable-cuda-graph-padding
```

## Use instead
```sh
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --enable-torch-compile
```

## References
- `sglang/srt/server_args.py` `ServerArgs.check_server_args` (0.5.12-0.5.18)
  and `sglang/srt/arg_groups/validation_hook.py` `check_server_args`
  (0.5.19-0.5.23); absent in 0.5.11 and before.
"""

from sgllint.model.rule import ERROR, Invalid, Rule, Valid
from sgllint.semantics import effective as eff

QWEN = "python -m sglang.launch_server --model-path Qwen/Qwen3-8B"


class CudaGraphPaddingWithTorchCompile(Rule):
    code = "SGL239"
    name = "cuda-graph-padding-with-torch-compile"
    severity = ERROR

    VALID = [
        Valid.sh(f"{QWEN} --enable-torch-compile"),
        Valid.sh(f"{QWEN} --disable-cuda-graph-padding"),
        Valid.sh(f"{QWEN} --enable-torch-compile --disable-cuda-graph-padding", sglang="0.5.11"),
        Valid.py(
            """
            import sglang as sgl
            llm = sgl.Engine(model_path="Qwen/Qwen3-8B", enable_torch_compile=True, disable_cuda_graph_padding=False)
            """
        ),
    ]
    INVALID = [
        Invalid.sh(f"{QWEN} --enable-torch-compile --disable-cuda-graph-padding", at="--disable-cuda-graph-padding",
                   message="incompatible with --enable-torch-compile"),
        Invalid.sh(f"{QWEN} --disable-cuda-graph-padding --enable-torch-compile", at="--disable-cuda-graph-padding", sglang="0.5.12"),
        Invalid.py(
            """
            import sglang as sgl
            llm = sgl.Engine(model_path="Qwen/Qwen3-8B", enable_torch_compile=True, disable_cuda_graph_padding=True)
            """,
            at="disable_cuda_graph_padding",
        ),
    ]

    def check(self, launch):
        v = eff.version(launch)
        if not eff.at_least(v, "0.5.12"):
            return
        pad = launch.last("disable_cuda_graph_padding")
        tc = launch.last("enable_torch_compile")
        if pad is None or tc is None or pad.value is not True or tc.value is not True:
            return
        yield self.diagnostic(
            pad.flag_span,
            f"SGLang {v} stops at start-up: \"--disable-cuda-graph-padding is incompatible with --enable-torch-compile. "
            "... Remove --disable-cuda-graph-padding or --enable-torch-compile.\"",
            help="drop --disable-cuda-graph-padding: with padding off every batch size triggers its own torch.compile",
            related=[(tc.flag_span, "torch.compile is enabled here")],
            launch=launch,
        )
