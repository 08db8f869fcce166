"""A liveness or startup probe that restarts the server before it can load the model.

## What it does
Computes how long Kubernetes lets the container start before the probe that
restarts it gives up: the `startupProbe`'s window when there is one (the
`livenessProbe` waits for it), else the `livenessProbe`'s —
`initialDelaySeconds + failureThreshold × periodSeconds`, with Kubernetes'
defaults for what is omitted (0, 3 and 10 s) — and reports a window under
120 seconds. It points at the probe's key. `readinessProbe`s are not
checked: they never restart a container.

## Why is this bad?
SGLang answers `/health` only once the scheduler has loaded the weights,
profiled memory and captured its CUDA graphs: tens of seconds for a 1B
model read from a local disk, minutes for a 70B one, and the download time
on top when the weights come from the Hub. A probe that fails sooner
restarts the container while it is still loading — the pod never becomes
ready and the restarts repeat the load (and the download) in a loop
(`CrashLoopBackOff`, "Liveness probe failed: connection refused").

Threshold: 120 s is a floor any SGLang launch needs (weights load +
CUDA-graph capture of even a small model). When sgllint knows the model
(its registry, or the `config.json` of a local model directory) the floor
grows with its size: the checkpoint's bytes per node (parameters × bytes
of the checkpoint dtype, split over `--nnodes`) read at 5 GiB/s — the
sequential read of a fast local NVMe drive on a cold start; a network
volume or a Hub download is slower — plus the 120 s. DeepSeek-V3's 625 GiB
of FP8 weights on one node need at least 125 + 120 s, Llama 3.1 405B's
756 GiB of bfloat16 over 2 nodes at least 76 + 120 s.

## Example
```yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: llama
spec:
  selector:
    matchLabels: {app: llama}
  template:
    metadata:
      labels: {app: llama}
    spec:
      containers:
        - name: sglang
          image: lmsysorg/sglang:v0.5.23
          command: ["python3", "-m", "sglang.launch_server", "--model-path", "/models/llama-70b", "--tp-size", "8"]
          livenessProbe:
            httpGet: {path: /health, port: 30000}
            initialDelaySeconds: 30
            periodSeconds: 10
```

## Use instead
```yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: llama
spec:
  selector:
    matchLabels: {app: llama}
  template:
    metadata:
      labels: {app: llama}
    spec:
      containers:
        - name: sglang
          image: lmsysorg/sglang:v0.5.23
          command: ["python3", "-m", "sglang.launch_server", "--model-path", "/models/llama-70b", "--tp-size", "8"]
          startupProbe:
            httpGet: {path: /health, port: 30000}
            periodSeconds: 10
            failureThreshold: 120
          livenessProbe:
            httpGet: {path: /health, port: 30000}
            periodSeconds: 10
```

## References
- Kubernetes probe fields and defaults (`initialDelaySeconds` 0, `periodSeconds` 10,
  `failureThreshold` 3; a `startupProbe` holds the others back):
  https://kubernetes.io/docs/tasks/configure-pod-container/configure-liveness-readiness-startup-probes/
- SGLang serves `/health` from `sglang/srt/entrypoints/http_server.py` (0.5.23 line 721) once the
  server is up (`_wait_and_warmup`); the scheduler loads the model and captures CUDA graphs first.
"""

from sgllint.model.kinds import LaunchFact
from sgllint.model.rule import WARNING, Invalid, Rule, Valid
from sgllint.semantics.deployment import LOAD_BYTES_PER_SECOND, PROBE_FLOOR_SECONDS, short_probe
from sgllint.semantics.model_fit import gib

POD = """
apiVersion: v1
kind: Pod
metadata:
  name: sglang
spec:
  containers:
    - name: sglang
      image: lmsysorg/sglang:v0.5.23
      command: ["python3", "-m", "sglang.launch_server", "--model-path", "Qwen/Qwen3-8B", "--host", "0.0.0.0"]
%s
"""
LIVE = """      livenessProbe:
        httpGet: {path: /health, port: 30000}
"""


class ProbeKillsModelLoad(Rule):
    code = "SGL504"
    name = "probe-kills-model-load"
    severity = WARNING
    needs = frozenset({LaunchFact.DEPLOYMENT})  # short_probe judges a launch's container

    VALID = [
        Valid.yaml(POD % (LIVE + "        initialDelaySeconds: 300\n")),
        Valid.yaml(POD % ("      startupProbe:\n        httpGet: {path: /health, port: 30000}\n        failureThreshold: 60\n" + LIVE)),
        # readiness never restarts the container
        Valid.yaml(POD % "      readinessProbe:\n        httpGet: {path: /health, port: 30000}\n"),
        Valid.yaml(POD % (LIVE + "        initialDelaySeconds: {{ .Values.delay }}\n")),
        Valid.yaml((POD % (LIVE + "        initialDelaySeconds: 300\n")).replace("Qwen/Qwen3-8B", "deepseek-ai/DeepSeek-V3")),
    ]
    INVALID = [
        Invalid.yaml(POD % LIVE, at="livenessProbe", message="0 + 3 × 10 = 30s"),
        # 200 s pass the floor, not DeepSeek-V3's 625 GiB read on one node
        Invalid.yaml((POD % (LIVE + "        initialDelaySeconds: 170\n")).replace("Qwen/Qwen3-8B", "deepseek-ai/DeepSeek-V3"),
                     at="livenessProbe", message="take at least 125 s to read"),
        Invalid.yaml(POD % ("      startupProbe:\n        tcpSocket: {port: 30000}\n        failureThreshold: 6\n" + LIVE), at="startupProbe", message="60s"),
    ]

    def check(self, launch):
        short = short_probe(launch)
        if short is None:
            return
        name = short.probe.value.get("probe", "probe")
        follow = "" if name == "startupProbe" else " and no startupProbe holds it back"
        why = f"SGLang serves /health only after loading the model and capturing CUDA graphs (at least {short.floor} s)"
        periods = 120
        if short.load is not None:
            load = short.load
            split = f" per node (of {load.nnodes})" if load.nnodes > 1 else ""
            why = (f"SGLang serves /health only after loading the model: {gib(load.bytes_per_node)} of {load.facts.dtype} "
                   f"weights{split} take at least {load.read_seconds} s to read at {gib(LOAD_BYTES_PER_SECOND)}/s, "
                   f"plus {PROBE_FLOOR_SECONDS} s of start-up (at least {short.floor} s)")
            periods = max(periods, -(-short.floor * 2 // 10))
        yield self.diagnostic(
            short.probe.span,
            f"the {name} restarts the container {short.seconds} s after it starts ({short.formula}){follow}: {why}",
            help=f"add a startupProbe on /health with failureThreshold × periodSeconds covering the model load (e.g. {periods} × 10 s)",
            launch=launch,
        )
