"""Deterministic inference of an absorbed-MLA model on a backend SGLang allows only for other models.

## What it does
When deterministic inference is on and the model's `architectures[0]` is in
the list SGLang's deterministic check treats as DeepSeek/absorbed-MLA (per
release: DeepSeek-V2/V3/V3.2 and Kimi-K2 since 0.5.5, Mistral-Large-3 and
Pixtral since 0.5.6, GLM-5 since 0.5.9, GLM-4.7-Flash since 0.5.18, Glm5Next
since 0.5.20), checks the effective attention backend against the backends
SGLang allows for those models: the hard-coded `["fa3", "triton"]` up to
0.5.16, `RADIX_SUPPORTED_DETERMINISTIC_ATTENTION_BACKEND` from 0.5.17. An
implicit backend is judged too: 0.5.5–0.5.11 pick SGLang's generic default
first (`flashinfer` for MLA on SM100), and from 0.5.20 the fallback's own
architecture list lacks Glm5Next, so it falls back to `flashinfer`.

## Why is this bad?
The server exits at start-up with `ValueError: Currently only [...] attention
backends are supported for deterministic inference with absorbed-MLA models.
But you're using flashinfer.` ("with DeepSeek models" before 0.5.18).

## Example
```sh
python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --enable-deterministic-inference --attention-backend flashinfer
```

## Use instead
```sh
python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --enable-deterministic-inference --attention-backend triton
```

## References
- `sglang/srt/server_args.py` `ServerArgs._handle_deterministic_inference`
  (`is_deepseek_model` block, 0.5.4.post3–0.5.18) and
  `sglang/srt/arg_groups/attention_hook.py` `handle_deterministic_inference`
  (0.5.19+); the architecture and backend lists come from each release's
  catalog (`deterministic.check_architectures`, `deterministic.mla_backends`).
"""

from sgllint.model.rule import ERROR, Invalid, Rule, Valid
from sgllint.semantics import deterministic as det

DSV3 = "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --enable-deterministic-inference"


class DeterministicMlaAttentionBackend(Rule):
    code = "SGL202"
    name = "deterministic-mla-attention-backend"
    severity = ERROR
    needs_args = frozenset({'enable_deterministic_inference', 'rl_on_policy_target'})  # deterministic.analyse: off unless one of them turns it on
    rejection = det.Rejection.MLA_BACKEND  # the SGLang check this rule reports

    VALID = [
        Valid.sh(f"{DSV3} --attention-backend triton"),
        Valid.sh(f"# sgllint: gpu=H100\n{DSV3} --attention-backend fa3"),
        Valid.sh(f"# sgllint: gpu=H100\n{DSV3}"),
        Valid.sh(f"# sgllint: gpu=B200\n{DSV3} --attention-backend fa4"),
        Valid.sh(f"{DSV3} --attention-backend flashinfer", sglang="0.5.3"),
        Valid.py(
            """
            import sglang as sgl
            llm = sgl.Engine(model_path="deepseek-ai/DeepSeek-V3", enable_deterministic_inference=True, attention_backend="triton")
            """
        ),
        Valid.yaml(
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
                    - deepseek-ai/DeepSeek-V3
                    - --enable-deterministic-inference
                    - --attention-backend
                    - triton
            """
        ),
        Valid.toml(
            """
            [tool.poe.tasks]
            serve = "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --enable-deterministic-inference --attention-backend triton"
            """
        ),
    ]
    INVALID = [
        Invalid.sh(f"{DSV3} --attention-backend flashinfer", at="flashinfer", message="absorbed-MLA models",
                   fix_to='triton', unsafe=True),
        Invalid.sh(f"{DSV3} --attention-backend fa4", at="fa4", sglang="0.5.16", message="['fa3', 'triton']",
                   fix_to='triton', unsafe=True),
        Invalid.sh(
            "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V2-Lite --rl-on-policy-target fsdp --attention-backend flashinfer",
            at="flashinfer",
            sglang="0.5.10",
            message="DeepSeek models",
            fix_to='triton',
            unsafe=True,
        ),
        Invalid.sh(
            "# sgllint: gpu=B200\npython -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V2-Lite --enable-deterministic-inference",
            at="python -m sglang.launch_server",
            sglang="0.5.10",
            message="generic default",
            fix='# sgllint: gpu=B200\npython -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V2-Lite --enable-deterministic-inference --attention-backend triton',
            unsafe=True,
        ),
        Invalid.py(
            """
            import sglang as sgl
            llm = sgl.Engine(model_path="deepseek-ai/DeepSeek-V3", enable_deterministic_inference=True, attention_backend="flashinfer")
            """,
            at='"flashinfer"',
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
                    - deepseek-ai/DeepSeek-V3
                    - --enable-deterministic-inference
                    - --attention-backend
                    - flashinfer
            """,
            at="flashinfer",
            fix_to='triton',
            unsafe=True,
        ),
        Invalid.toml(
            """
            [tool.poe.tasks]
            serve = "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --enable-deterministic-inference --attention-backend flashinfer"
            """,
            at="flashinfer",
            fix_to='triton',
            unsafe=True,
        ),
    ]

    def check(self, launch):
        a = det.analyse(launch)
        if a is None:
            return
        yield from det.rejections(self, a)
