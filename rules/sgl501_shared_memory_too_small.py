"""A multi-GPU launch in a container that keeps the default 64 MiB `/dev/shm`.

## What it does
Finds launches that start more than one GPU process on a node — `--tp-size`
× `--pp-size` × `--dp-size` (data-parallel replicas; attention DP adds none)
divided by `--nnodes` — inside a container whose shared memory sgllint can
see: a Kubernetes pod (no `emptyDir: {medium: Memory}` mounted at
`/dev/shm`, no `hostIPC: true`), a compose service (no `shm_size:` or
`ipc: host`) or a `docker run` (no `--shm-size` or `--ipc=host`); or one that
sizes `/dev/shm` below 1 GiB. It points at the flag that makes the launch
multi-process (`--tp-size`).

Off by default: select it with `--extend-select SGL501` (or `extend-select =
["SGL501"]` in `[tool.sgllint]`). Platforms often supply what the manifest
leaves out — a cluster's pod defaults or admission webhook, an operator
(OME, KServe, llm-d) that injects the volume, a base image — and sgllint
sees only the file.

## Why is this bad?
Every rank of the tensor/pipeline/data-parallel group is its own process;
NCCL connects the ranks of one node through segments it creates in
`/dev/shm` (its SHM transport and proxy buffers, `/dev/shm/nccl-*`). A
container gets 64 MiB there unless told otherwise (Docker's `--shm-size`
default; containerd and CRI-O give a pod the same), which is too little for
eight ranks: the server dies at start-up, after downloading and loading the
weights, with `Bus error` or `NCCL WARN Error: failed to extend /dev/shm/nccl-…`
on the first all-reduce (the CUDA-graph capture). SGLang's own instructions
run its image with `--shm-size 32g` (docker) and mount a memory `emptyDir`
at `/dev/shm` (Kubernetes).

Thresholds: a `/dev/shm` sized below 1 GiB is reported; an unsized memory
`emptyDir` (bounded by the pod's memory limit), `hostIPC`, `ipc: host` and a
host bind of `/dev/shm` are accepted. A launch inside a script the
container backgrounds, a SkyPilot VM or a bare host is not checked: its
`/dev/shm` is the host's.

## Example
```sh
docker run --gpus all -p 30000:30000 -v ~/.cache/huggingface:/root/.cache/huggingface lmsysorg/sglang:v0.5.23 \\
  python3 -m sglang.launch_server --model-path meta-llama/Llama-3.1-70B-Instruct --tp-size 8
```

## Use instead
```sh
docker run --gpus all --shm-size 32g -p 30000:30000 -v ~/.cache/huggingface:/root/.cache/huggingface lmsysorg/sglang:v0.5.23 \\
  python3 -m sglang.launch_server --model-path meta-llama/Llama-3.1-70B-Instruct --tp-size 8
```

## References
- SGLang docs, "Install SGLang" (`docker run --gpus all --shm-size 32g … lmsysorg/sglang`)
  and `docs/references/multi_node_deployment` (Kubernetes: `emptyDir: {medium: Memory}` at `/dev/shm`).
- Docker `docker run --shm-size` (default 64m): https://docs.docker.com/reference/cli/docker/container/run/
- Kubernetes `emptyDir.medium: Memory`: https://kubernetes.io/docs/concepts/storage/volumes/#emptydir
- World size per node as SGL301 counts it (`sglang/srt/server_args.py` tp/pp/dp/nnodes, all releases).
"""

from sgllint.model.kinds import LaunchFact
from sgllint.model.rule import ERROR, Invalid, Rule, Valid
from sgllint.semantics.deployment import human_bytes, shm_verdict

LLAMA = "meta-llama/Llama-3.1-70B-Instruct"
#: the weights on a host directory (the Hub cache is SGL505's business)
LOCAL = "-v /models:/models lmsysorg/sglang:v0.5.23 python3 -m sglang.launch_server --model-path /models/llama-70b"

K8S_POD = """
apiVersion: apps/v1
kind: Deployment
metadata:
  name: llama-70b
spec:
  replicas: 1
  selector:
    matchLabels: {app: llama-70b}
  template:
    metadata:
      labels: {app: llama-70b}
    spec:
      containers:
        - name: sglang
          image: lmsysorg/sglang:v0.5.23
          command: ["python3", "-m", "sglang.launch_server"]
          args: ["--model-path", "/models/llama-70b", "--tp-size", "8", "--host", "0.0.0.0"]
          resources:
            limits:
              nvidia.com/gpu: 8
          volumeMounts:
            - name: models
              mountPath: /models
%(mount)s
      volumes:
        - name: models
          persistentVolumeClaim:
            claimName: models
%(volume)s
"""

SHM_MOUNT = """            - name: dshm
              mountPath: /dev/shm"""
SHM_VOLUME = """        - name: dshm
          emptyDir:
            medium: Memory
            sizeLimit: %s"""

COMPOSE = """
services:
  sglang:
    image: lmsysorg/sglang:v0.5.23
    %(shm)s
    ports:
      - "30000:30000"
    volumes:
      - ~/.cache/huggingface:/root/.cache/huggingface
    command: python3 -m sglang.launch_server --model-path %(model)s --tp-size 4 --host 0.0.0.0 --port 30000
    deploy:
      resources:
        reservations:
          devices:
            - driver: nvidia
              count: 4
              capabilities: [gpu]
"""


class SharedMemoryTooSmall(Rule):
    code = "SGL501"
    name = "shared-memory-too-small"
    severity = ERROR
    needs = frozenset({LaunchFact.DEPLOYMENT})  # shm_verdict judges a launch's container
    default_enabled = False  # see "Off by default" in the docs

    VALID = [
        Valid.yaml(K8S_POD % {"mount": SHM_MOUNT, "volume": SHM_VOLUME % "32Gi"}),
        Valid.yaml(COMPOSE % {"shm": "ipc: host", "model": LLAMA}),
        Valid.yaml(COMPOSE % {"shm": "shm_size: 16gb", "model": LLAMA}),
        Valid.sh(f"docker run --gpus all --ipc=host {LOCAL} --tp-size 8"),
        Valid.sh(f"docker run --gpus all -v /dev/shm:/dev/shm {LOCAL} --tp-size 8"),
        # one GPU: NCCL never starts
        Valid.sh(f"docker run --gpus 1 {LOCAL}"),
        Valid.sh(f"docker run --shm-size=2g --gpus 2 {LOCAL} --tp-size 2"),
        # no container: the host's /dev/shm
        Valid.sh(f"python3 -m sglang.launch_server --model-path {LLAMA} --tp-size 8"),
        Valid.yaml(
            f"""
            resources:
              accelerators: H100:8
            run: |
              python -m sglang.launch_server --model-path {LLAMA} --tp-size 8 --port 30000
            """
        ),
        # 16 ranks over 16 nodes: one per node
        Valid.sh(f"docker run --gpus 1 {LOCAL} --tp-size 16 --nnodes 16 --node-rank 0 --dist-init-addr 10.0.0.1:5000"),
    ]
    INVALID = [
        Invalid.yaml(K8S_POD % {"mount": "", "volume": ""}, at='"--tp-size", "8"', message="8 GPU processes per node"),
        Invalid.yaml(K8S_POD % {"mount": SHM_MOUNT, "volume": SHM_VOLUME % "256Mi"}, at='"--tp-size", "8"', message="256 MiB"),
        Invalid.yaml(COMPOSE % {"shm": "restart: unless-stopped", "model": LLAMA}, at="--tp-size 4", message="compose service"),
        Invalid.yaml(COMPOSE % {"shm": "shm_size: 64m", "model": LLAMA}, at="--tp-size 4", message="64 MiB"),
        Invalid.sh(f"docker run --gpus all {LOCAL} --tp-size 8", at="--tp-size 8"),
        Invalid.sh(f"docker run --gpus 2 {LOCAL} --dp-size 2", at="--dp-size 2"),
    ]

    def check(self, launch):
        verdict = shm_verdict(launch)
        if verdict is None:
            return
        world, d = verdict.world, verdict.deployment
        related = []
        if d.runtime_span is not None:
            related.append((d.runtime_span, f"the {d.where} the launch runs in"))
        if verdict.size is None:
            message = (
                f"{world.ranks} GPU processes per node ({world.description}) in a {d.where} with the default 64 MiB /dev/shm: "
                "NCCL's shared-memory segments do not fit (Bus error at start-up)"
            )
        else:
            message = (
                f"{world.ranks} GPU processes per node ({world.description}) with /dev/shm sized {human_bytes(verdict.size)}, "
                "below the 1 GiB floor NCCL's shared-memory segments need"
            )
            if verdict.sized_at is not None:
                related.append((verdict.sized_at, "/dev/shm sized here"))
        fixes = {
            "kubernetes": "mount an `emptyDir: {medium: Memory, sizeLimit: 32Gi}` volume at /dev/shm",
            "compose": "add `shm_size: 32g` (or `ipc: host`) to the service",
            "docker": "add `--shm-size 32g` (or `--ipc=host`) to docker run",
        }
        yield self.diagnostic(world.cause.span, message, help=fixes.get(d.runtime, "give the container a larger /dev/shm"), related=related, launch=launch)
