"""A probe or container port that is not the port SGLang serves on.

## What it does
Compares the HTTP port the launch listens on — `--port`, else the release's
default (30000 in every release) — with the ports its Kubernetes container
declares: each `livenessProbe`/`readinessProbe`/`startupProbe` with an
`httpGet` or `tcpSocket` port (a named port is looked up in the container's
`ports`), and the container's `containerPort`s (reported when none of them
is the server's port). It points at the probe's `port:` or the mismatching
`containerPort:`.

## Why is this bad?
A probe on a port nothing listens on never succeeds: a `readinessProbe`
keeps the pod out of its Service forever, a `livenessProbe` or
`startupProbe` restarts it every few minutes after it has loaded the model —
a crash loop that looks like a slow model load. A `containerPort` that
differs from `--port` sends the Service's traffic (and a named probe port) to
a closed port. The usual cause: `--port 8000` added to the args while the
manifest still says 30000 (or the reverse).

A multi-node launch serves HTTP on `--node-rank 0` only: the other ranks
(and ranks not known statically, `$(LWS_WORKER_INDEX)`) are not checked.
A launch the container's script starts in the background (`cmd &`) may sit
next to another server (a router, a proxy) on the probed port: it is not
checked.

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
          command: ["python3", "-m", "sglang.launch_server", "--model-path", "/models/qwen", "--host", "0.0.0.0", "--port", "8000"]
          ports:
            - containerPort: 8000
          readinessProbe:
            httpGet: {path: /health, port: 30000}
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
          command: ["python3", "-m", "sglang.launch_server", "--model-path", "/models/qwen", "--host", "0.0.0.0", "--port", "8000"]
          ports:
            - containerPort: 8000
          readinessProbe:
            httpGet: {path: /health, port: 8000}
```

## References
- SGLang `--port` default: `sglang/srt/server_args.py` `port: int = 30000`
  (0.4.0 line 60; every release to 0.5.23, read from the catalog per release).
- SGLang's health endpoints: `@app.get("/health")`, `@app.get("/health_generate")`
  (`sglang/srt/server.py:115,121` in 0.4.0; `sglang/srt/entrypoints/http_server.py:721-722` in 0.5.23).
- Only rank 0 serves: `if node_rank >= 1: return` before the HTTP server starts
  (`sglang/srt/server.py:462` in 0.4.0, `sglang/srt/entrypoints/engine.py:850` in 0.5.4,
  `sglang/srt/entrypoints/http_server.py:3163` in 0.5.23).
- Kubernetes probes: https://kubernetes.io/docs/tasks/configure-pod-container/configure-liveness-readiness-startup-probes/
"""

from sgllint.model.kinds import LaunchFact
from sgllint.model.rule import ERROR, Invalid, Rule, Valid
from sgllint.semantics.deployment import port_mismatches

POD = """
apiVersion: v1
kind: Pod
metadata:
  name: sglang
spec:
  containers:
    - name: sglang
      image: lmsysorg/sglang:v0.5.23
      command: ["python3", "-m", "sglang.launch_server", "--model-path", "Qwen/Qwen3-8B", "--host", "0.0.0.0"%(port)s]
      ports:
        - containerPort: %(container)s
          name: http
      livenessProbe:
        httpGet:
          path: /health
          port: %(probe)s
        initialDelaySeconds: 600
"""


class ProbePortNotServed(Rule):
    code = "SGL503"
    name = "probe-port-not-served"
    severity = ERROR
    needs = frozenset({LaunchFact.DEPLOYMENT})  # port_mismatches judges a launch's container

    VALID = [
        Valid.yaml(POD % {"port": "", "container": 30000, "probe": 30000}),
        Valid.yaml(POD % {"port": ', "--port", "8080"', "container": 8080, "probe": "http"}),
        # exec probes and templated ports are not read
        Valid.yaml(POD % {"port": ', "--port", "8080"', "container": 8080, "probe": '"{{ .Values.port }}"'}),
        # the server is backgrounded next to a router on 30000
        Valid.yaml(
            """
            apiVersion: v1
            kind: Pod
            metadata:
              name: pd
            spec:
              containers:
                - name: all
                  image: lmsysorg/sglang:v0.5.23
                  command: ["bash", "-c", "python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --port 31000 & python3 -m sglang_router.launch_router --worker-urls http://127.0.0.1:31000 --port 30000"]
                  ports:
                    - containerPort: 30000
                  readinessProbe:
                    httpGet: {path: /health, port: 30000}
            """
        ),
        Valid.sh("docker run -p 8000:30000 lmsysorg/sglang:v0.5.23 python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --host 0.0.0.0"),
    ]
    INVALID = [
        Invalid.yaml(POD % {"port": ', "--port", "8000"', "container": 8000, "probe": 30000}, at="30000", message="port 8000"),
        Invalid.yaml(POD % {"port": "", "container": 8000, "probe": 30000}, at="8000", message="containerPort 8000"),
        Invalid.yaml(POD % {"port": "", "container": 8000, "probe": "http"}, at="8000", message="30000"),
    ]

    def check(self, launch):
        for m in port_mismatches(launch):
            served = f"{m.served.port}" + (" (--port)" if m.served.arg is not None else f" (SGLang {launch.context.catalog.version}'s default --port)")
            related = [(m.served.arg.span, "the port the server listens on")] if m.served.arg is not None else []
            if m.what == "containerPort":
                message = f"containerPort {m.found} but the server listens on port {served}: the Service and named probes reach a closed port"
                help_text = f"declare containerPort {m.served.port}, or pass --port {m.found}"
            else:
                message = f"{m.what} checks port {m.found} but the server listens on port {served}: the probe never succeeds"
                help_text = f"probe port {m.served.port}, or pass --port {m.found}"
            yield self.diagnostic(m.span, message, help=help_text, related=related, launch=launch)
