"""The launch needs more GPUs than its container or job gives it.

## What it does
Computes how many GPUs one node of the launch uses — `--tp-size` ×
`--pp-size` × `--dp-size` (data-parallel replicas; attention data parallelism
runs inside the tensor-parallel group and adds none), divided by `--nnodes`,
shifted by `--base-gpu-id` and spread by `--gpu-id-step` — and compares it with
the GPUs the launch sees across every place that grants them: a Kubernetes
`nvidia.com/gpu` / `amd.com/gpu` limit, SkyPilot `accelerators: H100:8`, Slurm
`--gres=gpu:8`, `docker run --gpus N` (or `device=4,5`), compose
`deploy.resources.reservations.devices` (`count` or `device_ids`), a
`--gpu H100:8` label, and `CUDA_VISIBLE_DEVICES`. The tightest grant decides,
and `CUDA_VISIBLE_DEVICES` counts within the container's grant: the container
runtime renumbers the granted GPUs from 0, and CUDA stops enumerating at the
first id that does not exist, so `CUDA_VISIBLE_DEVICES=4,5` in a 2-GPU pod
leaves none and `0,1,2,3` leaves 2. Every grant is a related location.

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
- CUDA's `CUDA_VISIBLE_DEVICES` (a list of ids; enumeration stops at the first
  invalid one): https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#env-vars;
  the NVIDIA device plugin and `docker run --gpus` expose the granted GPUs
  as ids 0..n-1 in the container: https://docs.docker.com/engine/containers/resource_constraints/#gpu,
  compose `device_ids`/`count`: https://docs.docker.com/compose/how-tos/gpu-support/
- `sglang/srt/server_args.py` / `arg_groups/parallel_hook.py` (tp, pp, dp,
  nnodes, base_gpu_id, gpu_id_step) and
  `sglang/srt/entrypoints/engine.py` (one scheduler per GPU:
  `gpu_id = base_gpu_id + (pp_rank % pp_size_per_node) * tp_size_per_node
  + (tp_rank % tp_size_per_node) * gpu_id_step`, the PP term from 0.4.6,
  e.g. 0.5.4.post3 :814-818, 0.5.23 :935-939; `tp_size_per_node = tp_size //
  max(nnodes // pp_size, 1)`, `pp_size_per_node = max(pp_size // nnodes, 1)`);
  `sglang/srt/managers/data_parallel_controller.py` (each DP replica starts
  `tp_size * gpu_id_step` ids later, `tp_size * pp_size * gpu_id_step` from
  0.5.3; 0.5.23 :445-449). The PP term is not scaled by `--gpu-id-step`.
"""

from sgllint.model.kinds import Provenance
from sgllint.model.rule import ERROR, Invalid, Rule, Valid
from sgllint.semantics import effective as eff

#: engine.py adds `(pp_rank % pp_size_per_node) * tp_size_per_node` to the device id
PP_TERM_FROM = "0.4.6"
#: data_parallel_controller.py moves each replica by tp_size * pp_size * gpu_id_step (before: tp_size * gpu_id_step)
DP_PP_FROM = "0.5.3"

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
        # ids 0, 2 (pp rank 0) and 2, 4 (pp rank 1): the PP term is not scaled by the step
        Valid.sh(f"CUDA_VISIBLE_DEVICES=0,1,2,3,4 python -m sglang.launch_server {MODEL} --tp-size 2 --pp-size 2 --gpu-id-step 2"),
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
        # the container renumbers the host's GPUs 4..7 as 0..3
        Valid.sh(f"docker run --gpus '\"device=4,5,6,7\"' -e CUDA_VISIBLE_DEVICES=0,1,2,3 lmsysorg/sglang:v0.5.23 "
                 f"python3 -m sglang.launch_server {MODEL} --tp-size 4"),
        Valid.yaml(
            f"""
            services:
              sglang:
                image: lmsysorg/sglang:v0.5.23
                command: python3 -m sglang.launch_server {MODEL} --tp-size 4
                deploy:
                  resources:
                    reservations:
                      devices:
                        - {{driver: nvidia, device_ids: ["4", "5", "6", "7"], capabilities: [gpu]}}
            """
        ),
    ]
    INVALID = [
        Invalid.sh(f"CUDA_VISIBLE_DEVICES=0,1,2,3 python -m sglang.launch_server {MODEL} --tp-size 8", at="--tp-size 8", message="8 GPUs"),
        Invalid.sh(f"CUDA_VISIBLE_DEVICES=0,1,2,3 python -m sglang.launch_server {MODEL} --tp-size 2 --pp-size 2 --gpu-id-step 2",
                   at="--tp-size 2", message="GPU ids up to 4"),
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
        # the host's ids in a container that numbers its 2 GPUs 0 and 1
        Invalid.sh(f"docker run --gpus 2 -e CUDA_VISIBLE_DEVICES=4,5 lmsysorg/sglang:v0.5.23 python3 -m sglang.launch_server {MODEL} --tp-size 2",
                   at="--tp-size 2", message="CUDA stops at id 4"),
        Invalid.yaml(
            f"""
            services:
              sglang:
                image: lmsysorg/sglang:v0.5.23
                command: python3 -m sglang.launch_server {MODEL} --tp-size 4
                deploy:
                  resources:
                    reservations:
                      devices:
                        - {{driver: nvidia, device_ids: ["0", "1"], capabilities: [gpu]}}
            """,
            at="--tp-size 4",
            message="gets 2",
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
        if replicas > 1 and nnodes > 1:
            return  # DP replicas across nodes: SGL206's concern, ids are not laid out per node
        v = eff.version(launch)
        tp_per_node = max(tp // max(nnodes // pp, 1), 1)
        pp_per_node = max(pp // nnodes, 1)
        pp_term = (pp_per_node - 1) * tp_per_node if eff.at_least(v, PP_TERM_FROM) else 0
        dp_term = (replicas - 1) * tp * (pp if eff.at_least(v, DP_PP_FROM) else 1) * step
        highest = base + dp_term + pp_term + (tp_per_node - 1) * step
        per_node = -(-(tp * pp * replicas) // nnodes)
        have = ctx.gpu_count.value
        if highest < have:
            return
        parts = [f"--tp-size {tp}"] + ([f"--pp-size {pp}"] if pp > 1 else []) + ([f"--dp-size {dp}"] if replicas > 1 else [])
        need = " × ".join(parts)
        if nnodes > 1:
            need += f" over {nnodes} nodes"
        granted = ctx.gpu_count.source + (f" {ctx.gpu_count.detail}" if "CUDA stops" in ctx.gpu_count.detail else "")
        message = f"this launch needs {per_node} GPUs per node ({need}) but gets {have} ({granted})"
        if base or step != 1:
            message = (
                f"this launch uses GPU ids up to {highest} ({need}, --base-gpu-id {base}, --gpu-id-step {step}) "
                f"but only ids 0..{have - 1} exist ({granted})"
            )
        span = (tp_arg.span if tp_arg is not None else launch.site.entry_span)
        related = []
        if ctx.gpu_count.span is not None:
            seen = "visible" if ctx.gpu_count.source is Provenance.CUDA_VISIBLE_DEVICES else "granted"
            related.append((ctx.gpu_count.span, f"{have} GPUs {seen} here"))
        for grant in ctx.gpu_grants:  # the other places that grant GPUs to this launch
            if grant is not ctx.gpu_count and grant.span is not None and grant.span != ctx.gpu_count.span:
                related.append((grant.span, f"{grant.value} GPUs granted here ({grant.source})"))
        if base_arg is not None and base:
            related.append((base_arg.span, "device ids start here"))
        yield self.diagnostic(
            span,
            message,
            help=f"raise the GPU limit to {highest + 1}, or lower the parallelism to fit {have} GPUs",
            related=related,
            launch=launch,
        )
