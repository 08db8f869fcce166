"""A Kubernetes Service sends its traffic to a port the SGLang server does not listen on.

## What it does
Reads the `kind: Service` documents of the same YAML file as the launch and
keeps those whose `selector` matches the labels of the launch's pod
(`metadata.labels` of the Pod or of the Deployment's / StatefulSet's /
LeaderWorkerSet's pod template). When none of such a Service's ports
reaches the server — each `targetPort` (or, omitted, the `port`) is neither
`--port` (else the release's default, 30000) nor a port some container of
the pod declares, or is a named port no container declares — it reports
the Service's first `targetPort:` (or `port:`), with the server's `--port`
as a related location.

Not judged: headless Services (`clusterIP: None`, the DNS of multi-node
ranks), Services without a selector or with templated values, a target
another container of the pod declares (a sidecar's, a proxy's), a target
the SGLang container declares as `containerPort` (SGL503 reports a
`containerPort` that differs from `--port`), ranks other than 0, and
launches whose script starts other servers in the background.

## Why is this bad?
kube-proxy forwards the Service's port to the pod's `targetPort` whether or
not anything listens there: every request through the Service is refused
(`connection refused`, a 502 from the ingress) while the pod itself is
healthy and its probes pass. A named `targetPort` that no container
declares gives the Service no endpoints at all. The usual cause: `--port
8000` added to the args (or removed) while the Service still says 30000, or
a Service copied from a vLLM deployment (`targetPort: 8000`).

## Example
```yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: qwen
spec:
  selector:
    matchLabels: {app: qwen}
  template:
    metadata:
      labels: {app: qwen}
    spec:
      containers:
        - name: sglang
          image: lmsysorg/sglang:v0.5.23
          command: ["python3", "-m", "sglang.launch_server", "--model-path", "Qwen/Qwen3-8B", "--host", "0.0.0.0"]
---
apiVersion: v1
kind: Service
metadata:
  name: qwen
spec:
  selector: {app: qwen}
  ports:
    - port: 80
      targetPort: 8000
```

## Use instead
```yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: qwen
spec:
  selector:
    matchLabels: {app: qwen}
  template:
    metadata:
      labels: {app: qwen}
    spec:
      containers:
        - name: sglang
          image: lmsysorg/sglang:v0.5.23
          command: ["python3", "-m", "sglang.launch_server", "--model-path", "Qwen/Qwen3-8B", "--host", "0.0.0.0"]
---
apiVersion: v1
kind: Service
metadata:
  name: qwen
spec:
  selector: {app: qwen}
  ports:
    - port: 80
      targetPort: 30000
```

## References
- SGLang `--port` default: `sglang/srt/server_args.py` `port: int = 30000`
  (0.4.0 line 60 to 0.5.23, read from the catalog per release); only
  `--node-rank 0` serves HTTP (see SGL503).
- Kubernetes Services: `targetPort` defaults to `port`, a string names a
  container port: https://kubernetes.io/docs/concepts/services-networking/service/#defining-a-service
"""

from sgllint.model.kinds import LaunchFact
from sgllint.model.rule import ERROR, Invalid, Rule, Valid
from sgllint.semantics.deployment import service_misses

DEPLOYMENT = """
apiVersion: apps/v1
kind: Deployment
metadata:
  name: qwen
  labels: {app: qwen-deploy}
spec:
  selector:
    matchLabels: {app: qwen}
  template:
    metadata:
      labels: {app: qwen, tier: serving}
    spec:
      containers:
        - name: sglang
          image: lmsysorg/sglang:v0.5.23
          command: ["python3", "-m", "sglang.launch_server", "--model-path", "Qwen/Qwen3-8B", "--host", "0.0.0.0"%(args)s]
%(ports)s---
apiVersion: v1
kind: Service
metadata:
  name: qwen
spec:
  selector: {app: %(app)s}
  ports:
%(service)s"""


def manifest(service, args="", ports="", app="qwen"):
    return DEPLOYMENT % {"args": args, "ports": ports, "service": service, "app": app}


NAMED = "          ports:\n            - {containerPort: 8000, name: http}\n"
SIDECAR = "        - name: proxy\n          image: envoyproxy/envoy:v1.31.0\n          ports:\n            - containerPort: 8080\n"


class ServiceTargetPortNotServed(Rule):
    code = "SGL513"
    name = "service-target-port-not-served"
    severity = ERROR
    needs = frozenset({LaunchFact.DEPLOYMENT})  # service_misses judges a launch's container

    VALID = [
        Valid.yaml(manifest("    - port: 80\n      targetPort: 30000\n")),
        Valid.yaml(manifest("    - port: 30000\n")),
        Valid.yaml(manifest("    - port: 80\n      targetPort: http\n", args=', "--port", "8000"', ports=NAMED)),
        # a sidecar in the pod serves the Service's target
        Valid.yaml(manifest("    - port: 80\n      targetPort: 8080\n", ports=SIDECAR)),
        # the Service selects other pods
        Valid.yaml(manifest("    - port: 80\n      targetPort: 8000\n", app="other")),
        # one of its ports reaches the server (the other: a metrics exporter elsewhere)
        Valid.yaml(manifest("    - {name: http, port: 80, targetPort: 30000}\n    - {name: bootstrap, port: 8998}\n")),
        Valid.yaml(manifest('    - port: 80\n      targetPort: "{{ .Values.port }}"\n')),
    ]
    INVALID = [
        Invalid.yaml(manifest("    - port: 80\n      targetPort: 8000\n"), at="8000", message="port 30000"),
        Invalid.yaml(manifest("    - port: 8000\n", args=', "--port", "30001"'), at=("8000", 1), message="30001 (--port)"),
        Invalid.yaml(manifest("    - port: 80\n      targetPort: http\n"), at=("http", 1), message="no container of the pod declares a port named http"),
    ]

    def check(self, launch):
        for m in service_misses(launch):
            name = m.service.value.get("name")
            served = f"{m.served.port}" + (" (--port)" if m.served.arg is not None else f" (SGLang {launch.context.catalog.version}'s default --port)")
            sent = ", ".join(str(t) for t in m.targets)
            if m.unresolved is not None and len(m.targets) == 1:
                message = (f"Service {name} targets port {m.unresolved!r} but no container of the pod declares a port named {m.unresolved}: "
                           f"the Service has no endpoints (the server listens on {served})")
                help_text = f"declare containerPort {m.served.port} named {m.unresolved} on the SGLang container, or set targetPort: {m.served.port}"
            else:
                message = (f"Service {name} sends its traffic to port {sent} but the server listens on port {served}: "
                           f"every request through the Service is refused")
                help_text = f"set targetPort: {m.served.port}, or pass --port {m.targets[0]}" if isinstance(m.targets[0], int) else f"set targetPort: {m.served.port}"
            related = [(m.served.arg.span, "the port the server listens on")] if m.served.arg is not None else []
            yield self.diagnostic(m.span, message, help=help_text, related=related, launch=launch)
