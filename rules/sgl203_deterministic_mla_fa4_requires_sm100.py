"""Deterministic inference of an absorbed-MLA model on `fa4` needs an SM100/SM110 GPU.

## What it does
From SGLang 0.5.17, deterministic inference of a model in the release's
absorbed-MLA list (DeepSeek-V2/V3/V3.2, Kimi-K2, Mistral-Large-3, GLM-5, ...)
on `--attention-backend fa4` is rejected unless the GPU is SM100 or SM110
(B200/GB200/B300, Thor). With the GPU pinned (`--gpu`, `# sgllint: gpu=...`,
a Kubernetes nodeSelector, `#SBATCH --gres=gpu:h100:8`) this is an error on
any other GPU and silent on SM100/SM110; with no GPU pinned it is a warning.

## Why is this bad?
The server exits at start-up with `ValueError: Deterministic inference with
absorbed-MLA models on the fa4 attention backend requires SM100/SM110: it runs
absorbed MLA, whose qv argument flash_attn.cute only implements on those
archs.`

## Example
```sh
# sgllint: gpu=H100
python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --enable-deterministic-inference --attention-backend fa4
```

## Use instead
```sh
# sgllint: gpu=H100
python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --enable-deterministic-inference --attention-backend fa3
```

## References
- `sglang/srt/server_args.py` `ServerArgs._handle_deterministic_inference`
  (`is_sm100_or_sm110_supported()`, 0.5.17–0.5.18) and
  `sglang/srt/arg_groups/attention_hook.py` `handle_deterministic_inference`
  (`get_platform().is_sm100_or_sm110`, 0.5.19+); the catalog's
  `deterministic.fa4_sm_check` says which releases have the check.
"""

from sgllint.model.rule import ERROR, Invalid, Rule, Valid
from sgllint.semantics import deterministic as det

DSV3 = "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --enable-deterministic-inference"


class DeterministicMlaFa4RequiresSm100(Rule):
    code = "SGL203"
    name = "deterministic-mla-fa4-requires-sm100"
    severity = ERROR
    needs_args = frozenset({'enable_deterministic_inference', 'rl_on_policy_target'})  # deterministic.analyse: off unless one of them turns it on
    rejection = det.Rejection.MLA_FA4  # the SGLang check this rule reports

    VALID = [
        Valid.sh(f"# sgllint: gpu=B200\n{DSV3} --attention-backend fa4"),
        Valid.sh(f"# sgllint: gpu=B300\n{DSV3} --attention-backend fa4"),
        Valid.sh(f"# sgllint: gpu=H100\n{DSV3} --attention-backend fa3"),
        Valid.sh("# sgllint: gpu=H100\npython -m sglang.launch_server --model-path Qwen/Qwen3-8B --enable-deterministic-inference --attention-backend fa4"),
        Valid.py(
            """
            # sgllint: gpu=B200
            import sglang as sgl
            llm = sgl.Engine(model_path="deepseek-ai/DeepSeek-V3", enable_deterministic_inference=True, attention_backend="fa4")
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
                nvidia.com/gpu.product: NVIDIA-B200
              containers:
                - name: sglang
                  image: lmsysorg/sglang:v0.5.23
                  command: ["python3", "-m", "sglang.launch_server"]
                  args:
                    - --model-path
                    - deepseek-ai/DeepSeek-V3
                    - --enable-deterministic-inference
                    - --attention-backend
                    - fa4
            """
        ),
        Valid.toml(
            """
            # sgllint: gpu=B200
            [tool.poe.tasks]
            serve = "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --enable-deterministic-inference --attention-backend fa4"
            """
        ),
    ]
    INVALID = [
        Invalid.sh(f"# sgllint: gpu=H100\n{DSV3} --attention-backend fa4", at="fa4", message="requires SM100/SM110",
                   fix_to='fa3', unsafe=True),
        Invalid.sh(f"# sgllint: gpu=RTX5090\n{DSV3} --attention-backend fa4", at="fa4", sglang="0.5.17",
                   fix_to='triton', unsafe=True),
        Invalid.sh(f"{DSV3} --attention-backend fa4", at="fa4", message="pin the target",
                   fix_to='triton', unsafe=True),
        Invalid.py(
            """
            # sgllint: gpu=H100
            import sglang as sgl
            llm = sgl.Engine(model_path="deepseek-ai/DeepSeek-V3", enable_deterministic_inference=True, attention_backend="fa4")
            """,
            at='"fa4"',
            fix_to='"fa3"',
            unsafe=True,
        ),
        Invalid.yaml(
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
                    - deepseek-ai/DeepSeek-V3
                    - --enable-deterministic-inference
                    - --attention-backend
                    - fa4
            """,
            at="fa4",
            fix_to='fa3',
            unsafe=True,
        ),
        Invalid.toml(
            """
            # sgllint: gpu=H100
            [tool.poe.tasks]
            serve = "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --enable-deterministic-inference --attention-backend fa4"
            """,
            at="fa4",
            fix_to='fa3',
            unsafe=True,
        ),
    ]

    def check(self, launch):
        a = det.analyse(launch)
        if a is None or not a.facts.get("fa4_sm_check"):
            return
        yield from det.rejections(self, a)
