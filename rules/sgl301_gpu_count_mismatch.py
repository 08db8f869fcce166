"""The launch needs more GPUs than its container or job gives it.

## What it does
Computes how many GPUs one node of the launch uses — `--tp-size` ×
`--pp-size` × `--dp-size` (data-parallel replicas; attention data parallelism
runs inside the tensor-parallel group and adds none), divided by `--nnodes`,
shifted by `--base-gpu-id` and spread by `--gpu-id-step` — and compares it with
the GPUs the surrounding manifest grants: a Kubernetes `nvidia.com/gpu` /
`amd.com/gpu` limit, SkyPilot `accelerators: H100:8`, Slurm `--gres=gpu:8`,
`docker run --gpus N`, or `CUDA_VISIBLE_DEVICES`.

## Why is this bad?
SGLang starts one scheduler process per GPU and binds each to a device id; a
device that does not exist fails at start-up (`CUDA error: invalid device
ordinal`) after the image pull and model download, or the pod stays pending
because the request cannot be scheduled.

## Example
```sh
CUDA_VISIBLE_DEVICES=0,1,2,3 python -m sglang.launch_server --model-path Qwen/Qwen2.5-72B-Instruct --tp-size 8
```

## Use instead
```sh
CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7 python -m sglang.launch_server --model-path Qwen/Qwen2.5-72B-Instruct --tp-size 8
```

## References
- `sglang/srt/server_args.py` / `arg_groups/parallel_hook.py` (tp, pp, dp,
  nnodes, base_gpu_id, gpu_id_step) and
  `sglang/srt/entrypoints/engine.py` (one scheduler per GPU:
  `gpu_id = base_gpu_id + (tp_rank % tp_size_per_node) * gpu_id_step`), all releases.
"""

from sgllint.rule import ERROR, Invalid, Rule, Valid

MODEL = "--model-path Qwen/Qwen2.5-72B-Instruct"


def _int(launch, field, default):
    arg = launch.last(field)
    if arg is None:
        return default, None
    value = arg.value
    if isinstance(value, bool) or not isinstance(value, int):
        return None, arg
    return value, arg


class GpuCountMismatch(Rule):
    code = "SGL301"
    name = "gpu-count-mismatch"
    severity = ERROR

    VALID = [
        Valid.sh(f"CUDA_VISIBLE_DEVICES=0,1,2,3 python -m sglang.launch_server {MODEL} --tp-size 4"),
        Valid.sh(f"CUDA_VISIBLE_DEVICES=0,1,2,3 python -m sglang.launch_server {MODEL} --tp-size 8 --nnodes 2 --node-rank 0 --dist-init-addr 10.0.0.1:5000"),
        Valid.sh(f"docker run --gpus 8 lmsysorg/sglang:v0.5.23 python3 -m sglang.launch_server {MODEL} --tp-size 4 --dp-size 2"),
        Valid.sh(f"CUDA_VISIBLE_DEVICES=0,1,2,3 python -m sglang.launch_server {MODEL} --tp-size $TP"),
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
                  args: ["--model-path", "meta-llama/Llama-3.1-70B-Instruct", "--tp-size=4"]
                  resources:
                    limits:
                      nvidia.com/gpu: 4
            """
        ),
    ]
    INVALID = [
        Invalid.sh(f"CUDA_VISIBLE_DEVICES=0,1,2,3 python -m sglang.launch_server {MODEL} --tp-size 8", at="--tp-size 8", message="8 GPUs"),
        Invalid.sh(
            f"docker run --gpus 4 lmsysorg/sglang:v0.5.23 python3 -m sglang.launch_server {MODEL} --tp-size 4 --dp-size 2",
            at="--tp-size 4",
        ),
        Invalid.sh(
            f"CUDA_VISIBLE_DEVICES=0,1,2,3 python -m sglang.launch_server {MODEL} --tp-size 2 --base-gpu-id 3",
            at="--tp-size 2",
            message="--base-gpu-id 3",
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
                  args: ["--model-path", "meta-llama/Llama-3.1-70B-Instruct", "--tp-size=8"]
                  resources:
                    limits:
                      nvidia.com/gpu: 4
            """,
            at="--tp-size=8",
            message="8 GPUs",
        ),
    ]

    def check(self, launch):
        ctx = launch.context
        if ctx.gpu_count is None or not isinstance(ctx.gpu_count.value, int) or launch.opaque:
            return
        tp, tp_arg = _int(launch, "tp_size", 1)
        pp, _ = _int(launch, "pp_size", 1)
        dp, _ = _int(launch, "dp_size", 1)
        nnodes, _ = _int(launch, "nnodes", 1)
        base, base_arg = _int(launch, "base_gpu_id", 0)
        step, _ = _int(launch, "gpu_id_step", 1)
        if None in (tp, pp, dp, nnodes, base, step) or min(tp, pp, dp, nnodes) < 1:
            return
        dp_attention = launch.value("enable_dp_attention") is True or (launch.value("attn_dp_size") or 1) > 1
        replicas = 1 if dp_attention else dp
        total = tp * pp * replicas
        per_node = -(-total // nnodes)
        highest = base + (per_node - 1) * step
        have = ctx.gpu_count.value
        if highest < have:
            return
        parts = [f"--tp-size {tp}"] + ([f"--pp-size {pp}"] if pp > 1 else []) + ([f"--dp-size {dp}"] if replicas > 1 else [])
        need = " × ".join(parts)
        if nnodes > 1:
            need += f" over {nnodes} nodes"
        message = f"this launch needs {per_node} GPUs per node ({need}) but gets {have} ({ctx.gpu_count.source})"
        if base or step != 1:
            message = (
                f"this launch uses GPU ids up to {highest} ({need}, --base-gpu-id {base}, --gpu-id-step {step}) "
                f"but only ids 0..{have - 1} exist ({ctx.gpu_count.source})"
            )
        span = (tp_arg.span if tp_arg is not None else launch.site.entry_span)
        related = []
        if ctx.gpu_count.span is not None:
            related.append((ctx.gpu_count.span, f"{have} GPUs granted here"))
        if base_arg is not None and base:
            related.append((base_arg.span, "device ids start here"))
        yield self.diagnostic(
            span,
            message,
            help=f"raise the GPU limit to {highest + 1}, or lower the parallelism to fit {have} GPUs",
            related=related,
            launch=launch,
        )
