"""A `--tp-size` that does not divide the model's attention heads (or KV heads).

## What it does
Looks up the served model's attention heads and KV heads (a local model
directory's `config.json`, else sgllint's model registry) and reports a
`--tp-size` that SGLang's model code cannot split them by:
`heads % tp != 0`, or, for the KV heads, `kv % tp != 0` when there are at
least as many KV heads as ranks, else `tp % kv != 0` (SGLang then
replicates each KV head over `tp / kv` ranks). It checks only the
architectures whose model file in the launch's release makes these
assertions (generated from the wheels into `catalog/data/head_split.json`),
and stays silent for unknown models and with DP attention or attention
context parallelism (`--enable-dp-attention`, `--attn-cp-size`, ...: attention
then splits by a smaller attention-TP group, `derive_attn_tp_size` in
`sglang/srt/layers/dp_attention.py`).

## Why is this bad?
Each tensor-parallel rank computes `heads / tp` attention heads. When that
is not a whole number, SGLang fails while building the model on every rank
(`AssertionError` in the attention layer's constructor), after the
processes, NCCL and the weight download have started: the launch never
serves.

## Example
```sh
python -m sglang.launch_server --model-path meta-llama/Llama-3.1-70B-Instruct --tp-size 3
```

## Use instead
```sh
python -m sglang.launch_server --model-path meta-llama/Llama-3.1-70B-Instruct --tp-size 4
```

## References
- `sglang/srt/models/llama.py` `assert self.total_num_heads % tp_size == 0` and the KV-head
  assertions below it (0.4.0 lines 108/114/118 to 0.5.23 lines 183/189/193); the same in
  `qwen2.py`, `qwen3.py` (`attn_tp_size`, 0.4.9+), `mixtral.py` and ~100 other model files
  (all listed per release in `sgllint/catalog/data/head_split.json`, `_gen_head_split.py`);
  DeepSeek's MLA asserts the heads only (`deepseek_v2.py` `num_heads % attn_tp_size`, 0.5.23 line 2057).
- Model facts: `sgllint/catalog/model_facts.json`, each entry derived from a file pinned in
  `model_sources.toml`: Llama 3.x (meta-llama/llama-models `models/sku_list.py` at 084b88e9);
  DeepSeek-V3/V3.1/R1 and V3.2-Exp (the reference-inference configs of deepseek-ai/DeepSeek-V3
  at 9b4e9788 and DeepSeek-V3.2-Exp at 3b99a535); Qwen2.5, Qwen3-4B/8B-FP8/30B-A3B, Qwen2/2.5/3-VL,
  gpt-oss, Kimi-K2-Instruct, Llama 3.2, Mistral-7B, Mixtral-8x7B, Gemma-3-1B (the Hub
  `config.json` files sgl-project/ome keeps as test data, at 17b77eda); Mistral-7B-v0.3,
  Qwen2.5-3B-Instruct, Qwen2-7B-Instruct, Qwen3-0.6B/1.7B (mlc-ai/mlc-llm `MODEL_PRESETS` at
  79d603f0); GLM-4.5/-Air, MiniMax-M2, Qwen3-8B/14B/32B and Qwen3-235B-A22B (THUDM/slime's
  Megatron arguments at 624b824a); Gemma 3 4B/12B/27B (google-deepmind/gemma `gm/nn/_gemma.py`
  at 7691fd4e).
"""

from sgllint.model.rule import ERROR, Invalid, Rule, Valid
from sgllint.semantics.model_fit import head_split
from sgllint.semantics.parallel import value_span

L70 = "python -m sglang.launch_server --model-path meta-llama/Llama-3.1-70B-Instruct"


class TpNotDividingHeads(Rule):
    code = "SGL509"
    name = "tp-not-dividing-heads"
    severity = ERROR
    needs_args = frozenset({'tp_size'})  # head_split judges a --tp-size written

    VALID = [
        Valid.sh(f"{L70} --tp-size 4"),
        Valid.sh(f"{L70} --tp-size 16"),  # 8 KV heads, each on 2 ranks
        Valid.sh("python -m sglang.launch_server --model-path my-org/unknown-model --tp-size 3"),
        Valid.sh(f"{L70} --tp-size 6 --dp-size 2 --enable-dp-attention", sglang="0.5.19"),
        Valid.sh(f"{L70} --tp-size 6 --attn-dp-size 2"),
        Valid.sh(f"{L70} --tp-size 6 --attn-cp-size 2", sglang="0.5.23"),
        Valid.sh(f"{L70} --tp-size $TP"),
    ]
    INVALID = [
        Invalid.sh(f"{L70} --tp-size 3", at=("3", 2), message="64 heads / TP 3"),
        Invalid.sh(f"{L70} --tp-size 6", at="6", message="64 heads / TP 6", sglang="0.4.0"),
        Invalid.sh("python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp-size 12 --trust-remote-code",
                   at="12", message="128 heads / TP 12"),
    ]

    def check(self, launch):
        split = head_split(launch)
        if split is None:
            return
        yield self.diagnostic(
            value_span(split.tp_arg),
            f"{split.reason}: SGLang {launch.context.catalog.version} splits the {split.what} evenly over the "
            f"tensor-parallel ranks and fails loading the model ({split.where}); "
            f"{split.facts.num_attention_heads} attention heads, {split.facts.num_key_value_heads} KV heads "
            f"per {split.facts.source}",
            help="use a --tp-size that divides the attention heads (and divides or is a multiple of the KV heads)",
            launch=launch,
        )
