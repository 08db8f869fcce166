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

It also warns, under this code, about two things SGLang does not check:
`--prefill-attention-backend`, `--decode-attention-backend` and
`--speculative-draft-attention-backend` values outside the list bypass the
allow-list but still break determinism; and `SGLANG_ENABLE_DETERMINISTIC_INFERENCE=1`
in the launch's environment without the flag does nothing (SGLang overwrites
the variable from the flag).

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

from sgllint import deterministic as det
from sgllint.rule import ERROR, WARNING, Invalid, Rule, Valid

QWEN = "python -m sglang.launch_server --model-path Qwen/Qwen3-8B --enable-deterministic-inference"
DSV3 = "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --enable-deterministic-inference"

_SPLIT = (
    ("prefill_attention_backend", "--prefill-attention-backend"),
    ("decode_attention_backend", "--decode-attention-backend"),
    ("speculative_draft_attention_backend", "--speculative-draft-attention-backend"),
)


class DeterministicUnsupportedAttentionBackend(Rule):
    code = "SGL201"
    name = "deterministic-unsupported-attention-backend"
    severity = ERROR

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
        Invalid.sh(f"{QWEN} --attention-backend trtllm_mha", at="trtllm_mha", message="explicitly specified 'trtllm_mha'"),
        Invalid.sh(f"# sgllint: gpu=B200\n{DSV3}", at="python -m sglang.launch_server", message="trtllm_mla"),
        Invalid.sh(
            "# sgllint: gpu=B200\npython -m sglang.launch_server --model-path openai/gpt-oss-120b --enable-deterministic-inference",
            at="python -m sglang.launch_server",
            message="trtllm_mha",
        ),
        Invalid.sh(
            f"# sgllint: gpu=B200\n{QWEN}",
            at="python -m sglang.launch_server",
            sglang="0.5.10",
            message="generic default",
        ),
        Invalid.sh(f"{QWEN} --attention-backend fa3 --decode-attention-backend trtllm_mha", at="trtllm_mha",
                   message="does not check"),
        Invalid.sh(
            "SGLANG_ENABLE_DETERMINISTIC_INFERENCE=1 python -m sglang.launch_server --model-path Qwen/Qwen3-8B",
            at="SGLANG_ENABLE_DETERMINISTIC_INFERENCE=1",
            message="overwrites",
        ),
        Invalid.py(
            """
            import sglang as sgl
            llm = sgl.Engine(model_path="Qwen/Qwen3-8B", enable_deterministic_inference=True, attention_backend="trtllm_mha")
            """,
            at='"trtllm_mha"',
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
        ),
        Invalid.toml(
            """
            [tool.poe.tasks]
            serve = "python -m sglang.launch_server --model-path Qwen/Qwen3-8B --enable-deterministic-inference --attention-backend trtllm_mha"
            """,
            at="trtllm_mha",
        ),
    ]

    def check(self, launch):
        env = det.env_only(launch)
        if env is not None:
            flag = launch.context.catalog.flag_for_field("enable_deterministic_inference")
            yield self.diagnostic(
                env.span,
                f"{det.ENV_FLAG}=1 alone does not enable deterministic inference: SGLang {launch.context.catalog.version} "
                f"overwrites the variable from {flag} at start-up",
                help=f"pass {flag} instead",
                severity=WARNING,
                launch=launch,
            )
            return
        a = det.analyse(launch)
        if a is None:
            return
        yield from det.rejections(self, a)
        allow = a.catalog.lists.get(a.facts["allow_list"] or "", [])
        for field, flag in _SPLIT:
            arg = launch.last(field)
            if arg is None or not isinstance(arg.value, str) or arg.value in allow:
                continue
            yield self.diagnostic(
                arg.value_span or arg.span,
                f"{flag} '{arg.value}' is not deterministic: SGLang {a.catalog.version} does not check it against "
                f"{det.py_list(allow)} (only --attention-backend is checked), so the launch starts but its outputs "
                "are not batch-invariant",
                help=f"use one of {det.py_list(allow)} for {flag}, or drop it",
                related=a.related(),
                severity=WARNING,
                launch=launch,
            )
