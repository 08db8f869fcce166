"""Deterministic inference with an attention backend SGLang does not allow for it.

## What it does
When deterministic inference is on (`--enable-deterministic-inference`, or
`--rl-on-policy-target` since 0.5.5), finds the attention backend SGLang's
check will see and compares it with the release's
`DETERMINISTIC_ATTENTION_BACKEND_CHOICES`. The backend may be implicit: a
model override pre-sets one (DeepSeek-V3/R1/Kimi-K2 on SM100 → `trtllm_mla`,
DeepSeek-V3.2/GLM-5 → `nsa`/`dsa`, DeepSeek-V4 → `dsv4`, GPT-OSS, Llama-4,
Gemma-4 on SM100 → `trtllm_mha`), 0.5.4–0.5.11 pick SGLang's generic default
before the deterministic hook runs, and 0.5.3 has no fallback at all. With the
GPU pinned the verdict is exact; unpinned, it is an error when every
plausible GPU (A100, H100, B200, B300, RTX PRO 6000) fails and a warning that
names the failing GPUs when only some do.

Two related warnings about patterns SGLang does not check have their own
codes since this code was split: SGL259 (the environment variable without the
flag) and SGL260 (a split attention backend outside the list).

## Why is this bad?
The server exits at start-up with SGLang's `ValueError: Currently only
[...] attention backends are supported for deterministic inference, but you
explicitly specified '...'` — also when you never wrote a backend and a model
override chose it.

## Example
```sh
# sgllint: gpu=H100
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --enable-deterministic-inference --attention-backend trtllm_mha
```

## Use instead
```sh
# sgllint: gpu=H100
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --enable-deterministic-inference --attention-backend fa3
```

## References
- `sglang/srt/server_args.py` `ServerArgs._handle_deterministic_inference`
  (0.5.3–0.5.18), `sglang/srt/arg_groups/overrides.py`
  `_deterministic_attention_backend` (0.5.15+) and
  `sglang/srt/arg_groups/attention_hook.py` `handle_deterministic_inference`
  (0.5.19+); the lists come from each release's catalog.
- Model overrides: `_handle_model_specific_adjustments` (≤0.5.18),
  `sglang/srt/arg_groups/model_overrides/*.py` (0.5.19+).
"""

from sgllint.model.rule import ERROR, Invalid, Rule, Valid
from sgllint.semantics import deterministic as det

QWEN = "python -m sglang.launch_server --model-path Qwen/Qwen3-8B --enable-deterministic-inference"
DSV3 = "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --enable-deterministic-inference"

class DeterministicUnsupportedAttentionBackend(Rule):
    code = "SGL201"
    name = "deterministic-unsupported-attention-backend"
    severity = ERROR
    needs_args = frozenset({'enable_deterministic_inference', 'rl_on_policy_target'})  # deterministic.analyse: off unless one of them turns it on
    rejection = det.Rejection.ALLOW_LIST  # the SGLang check this rule reports

    VALID = [
        Valid.sh(f"# sgllint: gpu=H100\n{QWEN} --attention-backend fa3"),
        Valid.sh(f"# sgllint: gpu=H100\n{QWEN}"),
        Valid.sh(f"{QWEN} --attention-backend triton"),
        Valid.sh(f"# sgllint: gpu=B200\n{DSV3} --attention-backend triton"),
        Valid.sh(f"{QWEN} --attention-backend $BACKEND"),
        Valid.sh("python -m sglang.launch_server --model-path Qwen/Qwen3-8B --attention-backend trtllm_mha"),
        Valid.sh(f"# sgllint: gpu=H100\n{QWEN} --attention-backend fa3", sglang="0.5.3"),
        Valid.py(
            """
            import sglang as sgl
            llm = sgl.Engine(model_path="Qwen/Qwen3-8B", enable_deterministic_inference=True, attention_backend="triton")
            """
        ),
        Valid.yaml(
            """
            apiVersion: v1
            kind: Pod
            metadata:
              name: sglang
            spec:
              nodeSelector:
                nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3
              containers:
                - name: sglang
                  image: lmsysorg/sglang:v0.5.23
                  command: ["python3", "-m", "sglang.launch_server"]
                  args:
                    - --model-path
                    - Qwen/Qwen3-8B
                    - --enable-deterministic-inference
                    - --attention-backend
                    - fa3
            """
        ),
        Valid.toml(
            """
            [tool.poe.tasks]
            serve = "python -m sglang.launch_server --model-path Qwen/Qwen3-8B --enable-deterministic-inference --attention-backend triton"
            """
        ),
    ]
    INVALID = [
        Invalid.sh(f"{QWEN} --attention-backend trtllm_mha", at="trtllm_mha", message="explicitly specified 'trtllm_mha'",
                   fix_to='triton', unsafe=True),
        Invalid.sh(f"# sgllint: gpu=B200\n{DSV3}", at="python -m sglang.launch_server", message="trtllm_mla",
                   fix='# sgllint: gpu=B200\npython -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --enable-deterministic-inference --attention-backend triton', unsafe=True),
        Invalid.sh(
            "# sgllint: gpu=B200\npython -m sglang.launch_server --model-path openai/gpt-oss-120b --enable-deterministic-inference",
            at="python -m sglang.launch_server",
            message="trtllm_mha",
            fix='# sgllint: gpu=B200\npython -m sglang.launch_server --model-path openai/gpt-oss-120b --enable-deterministic-inference --attention-backend triton',
            unsafe=True,
        ),
        Invalid.sh(
            f"# sgllint: gpu=B200\n{QWEN}",
            at="python -m sglang.launch_server",
            sglang="0.5.10",
            message="generic default",
            fix='# sgllint: gpu=B200\npython -m sglang.launch_server --model-path Qwen/Qwen3-8B --enable-deterministic-inference --attention-backend triton',
            unsafe=True,
        ),
        Invalid.py(
            """
            import sglang as sgl
            llm = sgl.Engine(model_path="Qwen/Qwen3-8B", enable_deterministic_inference=True, attention_backend="trtllm_mha")
            """,
            at='"trtllm_mha"',
            fix_to='"triton"',
            unsafe=True,
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
                  image: lmsysorg/sglang:v0.5.23
                  command: ["python3", "-m", "sglang.launch_server"]
                  args:
                    - --model-path
                    - Qwen/Qwen3-8B
                    - --enable-deterministic-inference
                    - --attention-backend
                    - trtllm_mha
            """,
            at="trtllm_mha",
            fix_to='triton',
            unsafe=True,
        ),
        Invalid.toml(
            """
            [tool.poe.tasks]
            serve = "python -m sglang.launch_server --model-path Qwen/Qwen3-8B --enable-deterministic-inference --attention-backend trtllm_mha"
            """,
            at="trtllm_mha",
            fix_to='triton',
            unsafe=True,
        ),
    ]

    def check(self, launch):
        a = det.analyse(launch)
        if a is None:
            return
        yield from det.rejections(self, a)
