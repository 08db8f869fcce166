"""Model weights larger than the GPUs' memory at `--mem-fraction-static`.

## What it does
Estimates the weights each GPU holds — the model's parameter count × bytes
per parameter of its checkpoint dtype (2 for bf16/fp16, 1 for fp8, 0.5 for
fp4), divided by `--tp-size` × `--pp-size` — and compares them with the
GPU's memory × `--mem-fraction-static` (all of the memory when the flag is
not given, since SGLang's own default depends on the GPU). It reports only
when the GPU is pinned (`--gpu`, `# sgllint: gpu=`, a nodeSelector, a
SkyPilot accelerator) and the model is known (local `config.json` or
sgllint's model registry). GPU memory is the largest datasheet variant
(`catalog/gpus.toml`), and mixed-precision checkpoints count at their
smallest dtype, so the estimate never overstates.

Off by default: select it with `--extend-select SGL511` (or `extend-select =
["SGL511"]` in `[tool.sgllint]`). A GPU named in a file is often a family
(an "H100" node may be the 80 or the 94 GB part, a pool may mix them), and
a launch may load a quantized checkpoint its model id does not name; the
check is exact only where the deployment pins both.

## Why is this bad?
SGLang loads the weights first and then sizes the KV cache from what
`--mem-fraction-static` leaves: weights larger than the budget fail with
`RuntimeError: Not enough memory. Please try to increase
--mem-fraction-static.` (or CUDA out of memory while loading), after
minutes of downloading and loading.

## Example
```sh
# sgllint: gpu=H100
python -m sglang.launch_server --model-path meta-llama/Llama-3.1-70B-Instruct --tp-size 1
```

## Use instead
```sh
# sgllint: gpu=H100
python -m sglang.launch_server --model-path meta-llama/Llama-3.1-70B-Instruct --tp-size 4
```

## References
- `sglang/srt/model_executor/model_runner.py` "Not enough memory. Please try to increase
  --mem-fraction-static." (0.4.0 line 517); `pool_configurator.py` line 96 in 0.5.23.
- Parameter counts: computed from the dimensions in `sgllint/catalog/model_facts.json`
  (`_gen_model_facts.py`: Llama 3.1 8B 8.03B, 70B 70.55B, 405B 405.85B; DeepSeek-V3 671.03B;
  Qwen2.5-7B 7.62B; Mixtral-8x7B 46.70B; gpt-oss-120b 116.83B; Kimi-K2 1026.4B); multimodal
  models count their language model only, and entries whose source states no checkpoint
  dtype (slime's Megatron arguments, google-deepmind/gemma) stay silent.
"""

from sgllint.model.rule import ERROR, Invalid, Rule, Valid
from sgllint.semantics.model_fit import gib, weights_over
from sgllint.semantics.parallel import value_span

L70 = "python -m sglang.launch_server --model-path meta-llama/Llama-3.1-70B-Instruct"
DSV3 = "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --trust-remote-code"


class WeightsExceedGpuMemory(Rule):
    code = "SGL511"
    name = "weights-exceed-gpu-memory"
    severity = ERROR
    default_enabled = False  # see "Off by default" in the docs

    VALID = [
        Valid.sh(f"# sgllint: gpu=H100\n{L70} --tp-size 4"),
        Valid.sh(f"{L70} --tp-size 1"),  # GPU not pinned
        Valid.sh(f"# sgllint: gpu=H200\n{DSV3} --tp-size 8"),
        Valid.sh(f"# sgllint: gpu=H100\n{DSV3} --tp-size 16 --nnodes 2 --node-rank 0 --dist-init-addr 10.0.0.1:5000"),
    ]
    INVALID = [
        Invalid.sh(f"# sgllint: gpu=H100\n{L70} --tp-size 1", at=("1", 3), message="131.4 GiB of weights per GPU"),
        Invalid.sh(f"# sgllint: gpu=A100\n{L70} --tp-size 2 --mem-fraction-static 0.8", at="0.8",
                   message="at --mem-fraction-static 0.8"),
        Invalid.sh(f"# sgllint: gpu=L40S\n{DSV3} --tp-size 8", at="8", message="671.0B parameters × fp8 / TP 8"),
    ]

    def check(self, launch):
        over = weights_over(launch)
        if over is None:
            return
        budget = (f"{gib(over.budget)} at --mem-fraction-static {over.fraction:g} of the {over.gpu}'s {gib(over.gpu_bytes)}"
                  if over.fraction is not None else f"the {over.gpu}'s {gib(over.gpu_bytes)}")
        yield self.diagnostic(
            value_span(over.anchor),
            f"{gib(over.weights)} of weights per GPU ({over.facts.parameters / 1e9:.1f}B parameters × "
            f"{over.facts.dtype} / {over.split}) do not fit in {budget}; model facts from {over.facts.source}",
            help="raise --tp-size (or --pp-size), use a quantized checkpoint, larger GPUs, or a higher --mem-fraction-static",
            launch=launch,
        )
