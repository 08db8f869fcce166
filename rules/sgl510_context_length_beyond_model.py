"""A `--context-length` above the model's maximum without SGLang's override switch.

## What it does
Compares `--context-length` with the context length SGLang derives for the
model (its `get_context_length`: the first of `max_sequence_length`,
`seq_length`, `max_seq_len`, `model_max_length`, `max_position_embeddings`
in the config, times the rope-scaling factor unless the scaling is `llama3`
or names `original_max_position_embeddings`), read from a local model
directory's `config.json` or sgllint's model registry. It reports a larger
value when the launch does not set `SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN`
(true). Unknown models and launches whose environment sgllint cannot see
stay silent.

## Why is this bad?
SGLang refuses to start: `ValueError: User-specified context_length (N) is
greater than the derived context_length (M). ... To allow overriding this
maximum, set the env var SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1`. With
the variable set it starts, but positions past what the model was trained
(or scaled) for give wrong outputs or CUDA errors.

## Example
```sh
python -m sglang.launch_server --model-path meta-llama/Meta-Llama-3-8B-Instruct --context-length 32768
```

## Use instead
```sh
python -m sglang.launch_server --model-path meta-llama/Meta-Llama-3-8B-Instruct --context-length 8192
```

## References
- `sglang/srt/configs/model_config.py` (the context check; env var read at 0.4.0 line 72,
  `raise ValueError` line 79; 0.5.9 lines 371/382; 0.5.23 `_derive_context_length` lines 1303/1314 —
  present in all 34 catalog releases).
- `sglang/srt/utils/hf_transformers/common.py` `get_context_length` and `CONTEXT_LENGTH_KEYS`
  (0.5.23 lines 668-694; `hf_transformers_utils.py` in older releases).
- Model facts: `sgllint/catalog/model_facts.json` (Llama 3 8192 / Llama 3.1 131072 from
  meta-llama/llama-models `models/datatypes.py` `Model.max_seq_length` at 084b88e9; the Hub
  `config.json` models (Qwen2/2.5, Qwen3, Qwen-VL, gpt-oss, Kimi-K2, Llama 3.2, Mistral, Mixtral,
  Gemma-3-1B: sgl-project/ome's test data and mlc-llm's presets)
  through `get_context_length` as above, pinned in `model_sources.toml`; entries whose source
  states no context length — DeepSeek's reference configs, slime's Megatron arguments,
  google-deepmind/gemma — stay silent).
"""

from sgllint.model.rule import ERROR, Invalid, Rule, Valid
from sgllint.semantics.model_fit import CONTEXT_OVERRIDE_ENV, context_over
from sgllint.semantics.parallel import value_span

L3 = "python -m sglang.launch_server --model-path meta-llama/Meta-Llama-3-8B-Instruct"


class ContextLengthBeyondModel(Rule):
    code = "SGL510"
    name = "context-length-beyond-model"
    severity = ERROR
    needs_args = frozenset({'context_length'})  # context_over judges a --context-length written

    VALID = [
        Valid.sh(f"{L3} --context-length 8192"),
        Valid.sh(f"{CONTEXT_OVERRIDE_ENV}=1 {L3} --context-length 32768"),
        Valid.sh("python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct --context-length 131072"),
        Valid.sh("python -m sglang.launch_server --model-path my-org/unknown --context-length 1000000"),
    ]
    INVALID = [
        Invalid.sh(f"{L3} --context-length 32768", at="32768", message="32768 > 8192"),
        Invalid.sh("python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct --context-length 262144",
                   at="262144", message="262144 > 131072"),
    ]

    def check(self, launch):
        over = context_over(launch)
        if over is None:
            return
        yield self.diagnostic(
            value_span(over.arg),
            f"--context-length {over.asked} > {over.limit}, the model's context length ({over.facts.source}): "
            f"SGLang {launch.context.catalog.version} refuses to start unless {CONTEXT_OVERRIDE_ENV}=1 is set",
            help=f"use --context-length {over.limit} or less (or set {CONTEXT_OVERRIDE_ENV}=1 for a model "
                 "whose rope scaling really reaches further)",
            launch=launch,
        )
