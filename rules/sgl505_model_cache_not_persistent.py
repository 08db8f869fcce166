"""A Hub model downloaded into a cache that dies with the container.

## What it does
Finds launches in a Kubernetes pod, a compose service or a `docker run`
whose `--model-path` is a Hugging Face Hub id (`org/name`) while the Hugging
Face cache — `HF_HUB_CACHE`, else `$HF_HOME/hub`, else
`~/.cache/huggingface/hub` (`~` is `/root` in SGLang's images, or `$HOME`) —
is on no volume (the container's own filesystem) or on an `emptyDir`. It
points at `--model-path`. A cache on a PersistentVolumeClaim, a `hostPath`,
NFS or CSI volume, a compose named volume or bind mount, or a `docker run -v`
stays clean; so do `--download-dir`, `HF_HUB_OFFLINE` (the weights are
already there) and ModelScope downloads.

Off by default: select it with `--extend-select SGL505` (or `extend-select =
["SGL505"]` in `[tool.sgllint]`). Platforms often supply what the manifest
leaves out — a cluster's pod defaults or admission webhook, an operator
(OME, KServe, llm-d) that injects the volume, a base image — and sgllint
sees only the file.

## Why is this bad?
SGLang downloads the checkpoint at start-up through `huggingface_hub`
(`snapshot_download` into the cache). When the cache lives and dies with the
container, every restart, rollout, reschedule and scale-up downloads the whole
model again: 16 GB for an 8B model in BF16, 140 GB for a 70B one, ~690 GB
for DeepSeek-V3 — minutes to hours of start-up, egress costs, and Hub
rate limits (HTTP 429) when several replicas start at once. An `emptyDir`
survives a container restart but not a rollout or a reschedule.

## Example
```sh
docker run --gpus all --shm-size 32g -p 30000:30000 lmsysorg/sglang:v0.5.23 \\
  python3 -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct --host 0.0.0.0
```

## Use instead
```sh
docker run --gpus all --shm-size 32g -p 30000:30000 -v ~/.cache/huggingface:/root/.cache/huggingface \\
  lmsysorg/sglang:v0.5.23 python3 -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct --host 0.0.0.0
```

## References
- huggingface_hub cache location (`HF_HUB_CACHE`, `HF_HOME`, default `~/.cache/huggingface/hub`):
  https://huggingface.co/docs/huggingface_hub/package_reference/environment_variables
- SGLang's docker instructions mount `-v ~/.cache/huggingface:/root/.cache/huggingface`;
  SGLang downloads through `huggingface_hub` (`sglang/srt/model_loader/weight_utils.py`
  `download_weights_from_hf`: line 208 in 0.4.0, 402 in 0.5.4, 621 in 0.5.23), honouring `--download-dir`.
- Kubernetes `emptyDir` lifetime ("deleted permanently when a Pod is removed from a node"):
  https://kubernetes.io/docs/concepts/storage/volumes/#emptydir
"""

from sgllint.model.kinds import LaunchFact
from sgllint.model.rule import WARNING, Invalid, Rule, Valid
from sgllint.semantics.deployment import cache_verdict

DEPLOYMENT = """
apiVersion: apps/v1
kind: Deployment
metadata:
  name: qwen
spec:
  replicas: 2
  selector:
    matchLabels: {app: qwen}
  template:
    metadata:
      labels: {app: qwen}
    spec:
      containers:
        - name: sglang
          image: lmsysorg/sglang:v0.5.23
          command: ["python3", "-m", "sglang.launch_server"]
          args: ["--model-path", "Qwen/Qwen2.5-7B-Instruct", "--host", "0.0.0.0"]
%(env)s
          volumeMounts:
            - name: cache
              mountPath: %(path)s
      volumes:
        - name: cache
%(volume)s
"""
PVC = "          persistentVolumeClaim:\n            claimName: hf-cache"
EMPTY = "          emptyDir: {}"
HF_HOME = "          env:\n            - name: HF_HOME\n              value: /data/hf"


class ModelCacheNotPersistent(Rule):
    code = "SGL505"
    name = "model-cache-not-persistent"
    severity = WARNING
    needs = frozenset({LaunchFact.DEPLOYMENT})  # cache_verdict judges a launch's container
    default_enabled = False  # see "Off by default" in the docs

    VALID = [
        Valid.yaml(DEPLOYMENT % {"env": "", "path": "/root/.cache/huggingface", "volume": PVC}),
        Valid.yaml(DEPLOYMENT % {"env": HF_HOME, "path": "/data", "volume": PVC}),
        Valid.yaml(DEPLOYMENT % {"env": "", "path": "/root/.cache", "volume": "          hostPath:\n            path: /mnt/hf"}),
        Valid.sh("docker run --gpus all -v $HOME/.cache/huggingface:/root/.cache/huggingface lmsysorg/sglang:v0.5.23 "
                 "python3 -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct"),
        Valid.yaml(
            """
            services:
              sglang:
                image: lmsysorg/sglang:v0.5.23
                volumes:
                  - hf-cache:/root/.cache/huggingface
                command: python3 -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct --host 0.0.0.0
            volumes:
              hf-cache: {}
            """
        ),
        # a local directory, not a Hub download
        Valid.sh("docker run --gpus all -v /models:/models lmsysorg/sglang:v0.5.23 python3 -m sglang.launch_server --model-path /models/qwen"),
        # no container: the host's own cache persists
        Valid.sh("python3 -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct"),
        Valid.sh("docker run --gpus all -e HF_HUB_OFFLINE=1 lmsysorg/sglang:v0.5.23 python3 -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct"),
    ]
    INVALID = [
        Invalid.yaml(DEPLOYMENT % {"env": "", "path": "/root/.cache/huggingface", "volume": EMPTY}, at='"Qwen/Qwen2.5-7B-Instruct"', message="emptyDir"),
        Invalid.yaml(DEPLOYMENT % {"env": HF_HOME, "path": "/root/.cache/huggingface", "volume": PVC}, at='"Qwen/Qwen2.5-7B-Instruct"', message="/data/hf/hub"),
        Invalid.sh("docker run --gpus all lmsysorg/sglang:v0.5.23 python3 -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct",
                   at="Qwen/Qwen2.5-7B-Instruct", message="docker run container"),
        Invalid.yaml(
            """
            services:
              sglang:
                image: lmsysorg/sglang:v0.5.23
                command: python3 -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct --host 0.0.0.0
            """,
            at="Qwen/Qwen2.5-7B-Instruct",
        ),
    ]

    def check(self, launch):
        verdict = cache_verdict(launch)
        if verdict is None:
            return
        d = verdict.deployment
        model = verdict.model
        if verdict.ephemeral_mount is not None:
            where = "an emptyDir, deleted with the pod"
            related = [(verdict.ephemeral_mount.span, "the cache's emptyDir mount")]
        else:
            where = f"the {d.where}'s own filesystem"
            related = [(d.runtime_span, f"the {d.where}")] if d.runtime_span is not None else []
        fixes = {
            "kubernetes": f"mount a PersistentVolumeClaim (or a hostPath) at {verdict.cache_dir.rsplit('/hub', 1)[0]}",
            "compose": f"mount a named volume: `volumes: [hf-cache:{verdict.cache_dir.rsplit('/hub', 1)[0]}]`",
            "docker": f"add `-v ~/.cache/huggingface:{verdict.cache_dir.rsplit('/hub', 1)[0]}`",
        }
        yield self.diagnostic(
            model.value_span or model.span,
            f"{model.value} is downloaded from the Hugging Face Hub into {verdict.cache_dir} ({verdict.cache_source}) on {where}: "
            "every restart, rollout or reschedule downloads it again",
            help=fixes.get(d.runtime, "keep the Hugging Face cache on a persistent volume") + ", or pre-download it and pass a local --model-path",
            related=related,
            launch=launch,
        )
