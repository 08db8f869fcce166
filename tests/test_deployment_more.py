"""The deployment around a launch, continued (issue 19): GPU count across
every grant (SGL301), and the checks added after the first round, each on
manifests shaped like real deployments with a correct look-alike that stays
clean."""

from __future__ import annotations

import textwrap

import pytest


def _lint(path, text, select, version="0.5.23", extend=()):
    from sgllint.engine.config import Config
    from sgllint.engine.pipeline import Options, lint_source

    config = Config(select=tuple(select), extend_select=tuple(extend))
    result = lint_source(path, textwrap.dedent(text), Options(sglang_version=version, use_environment=False, config=config))
    return [d for d in result.diagnostics if d.code in select]


def _line(d) -> int:
    return d.span.start_line_col()[0]


def line_of(text: str, needle: str, nth: int = 1) -> int:
    """The 1-based line of the nth line of (dedented) ``text`` holding ``needle``."""
    lines = [i for i, line in enumerate(textwrap.dedent(text).splitlines(), 1) if needle in line]
    return lines[nth - 1]


# ---------------------------------------------------------------------------
# GPU count across every grant (SGL301)
# ---------------------------------------------------------------------------

QWEN = "Qwen/Qwen2.5-72B-Instruct"


def k8s_deployment(args: str, env: str = "", limit: str = "8") -> str:
    return f"""\
    apiVersion: apps/v1
    kind: Deployment
    metadata:
      name: qwen
    spec:
      replicas: 1
      selector:
        matchLabels: {{app: qwen}}
      template:
        metadata:
          labels: {{app: qwen}}
        spec:
          containers:
            - name: sglang
              image: lmsysorg/sglang:v0.5.23
              command: ["python3", "-m", "sglang.launch_server"]
              args: ["--model-path", "{QWEN}", "--host", "0.0.0.0", {args}]
              env:
                - name: HF_HOME
                  value: /models/hf{env}
              resources:
                limits:
                  nvidia.com/gpu: {limit}
    """


CVD = """
                - name: CUDA_VISIBLE_DEVICES
                  value: "{}\""""


def compose(command: str, devices: str, environment: str = "") -> str:
    return f"""\
    services:
      sglang:
        image: lmsysorg/sglang:v0.5.23
        ipc: host
        command: {command}{environment}
        deploy:
          resources:
            reservations:
              devices:
                - driver: nvidia
                  {devices}
                  capabilities: [gpu]
    """


SKY = """\
resources:
  accelerators: {acc}
  image_id: docker:lmsysorg/sglang:v0.5.23
{envs}run: |
  python3 -m sglang.launch_server --model-path Qwen/Qwen2.5-72B-Instruct --tp-size {tp} --port 8000
"""


@pytest.mark.parametrize(
    "path,text,message",
    [
        # the pod's limit is 8 but CUDA_VISIBLE_DEVICES keeps 2 of them
        ("deploy.yaml", k8s_deployment('"--tp-size", "4"', CVD.format("0,1")), "gets 2 (CUDA_VISIBLE_DEVICES)"),
        # 4 ids named in a 2-GPU container: CUDA stops at id 2
        ("deploy.yaml", k8s_deployment('"--tp-size", "4"', CVD.format("0,1,2,3"), limit="2"), "CUDA stops at id 2"),
        # ids of the host's GPUs in a container that renumbers them from 0
        ("deploy.yaml", k8s_deployment('"--tp-size", "2"', CVD.format("4,5"), limit="2"), "gets 0"),
        ("compose.yaml", compose(f"python3 -m sglang.launch_server --model-path {QWEN} --tp-size 4", 'device_ids: ["0", "1"]'), "gets 2"),
        ("compose.yaml", compose(f"python3 -m sglang.launch_server --model-path {QWEN} --tp-size 4", "count: 4",
                                 '\n        environment:\n          CUDA_VISIBLE_DEVICES: "0,1"'), "gets 2 (CUDA_VISIBLE_DEVICES)"),
        ("sky.yaml", SKY.format(acc="H100:8", envs='envs:\n  CUDA_VISIBLE_DEVICES: "0,1,2,3"\n', tp=8), "gets 4"),
        ("sky.yaml", SKY.format(acc="H100:2", envs="", tp=4), "gets 2 (GPU limit)"),
        ("serve.sh", f"docker run --gpus 2 --ipc=host -e CUDA_VISIBLE_DEVICES=0,1,2,3 lmsysorg/sglang:v0.5.23 "
                     f"python3 -m sglang.launch_server --model-path {QWEN} --tp-size 4\n", "CUDA stops at id 2"),
        ("serve.sh", f"docker run --gpus all --ipc=host -e CUDA_VISIBLE_DEVICES=0,1 lmsysorg/sglang:v0.5.23 "
                     f"python3 -m sglang.launch_server --model-path {QWEN} --tp-size 4\n", "gets 2 (CUDA_VISIBLE_DEVICES)"),
    ],
)
def test_the_tightest_grant_decides(path, text, message):
    (d,) = _lint(path, text, ["SGL301"])
    assert message in d.message, d.message
    assert "--tp-size" in d.span.text and _line(d) == line_of(text, "--tp-size")


def test_every_grant_is_a_related_location():
    (d,) = _lint("deploy.yaml", k8s_deployment('"--tp-size", "4"', CVD.format("0,1")), ["SGL301"])
    text = k8s_deployment('"--tp-size", "4"', CVD.format("0,1"))
    assert sorted((_line(r), r.message) for r in d.related) == [
        (line_of(text, '"0,1"'), "2 GPUs visible here"), (line_of(text, "nvidia.com/gpu"), "8 GPUs granted here (GPU limit)")]


@pytest.mark.parametrize(
    "path,text",
    [
        ("deploy.yaml", k8s_deployment('"--tp-size", "4"', CVD.format("0,1,2,3"))),
        ("deploy.yaml", k8s_deployment('"--tp-size", "8"')),
        # UUIDs select devices sgllint cannot number: the limit alone counts
        ("deploy.yaml", k8s_deployment('"--tp-size", "2"', CVD.format("GPU-5c1a5b2e-7e0f-4d4b-9f0a-1d2c3b4a5f6e"), limit="2")),
        ("compose.yaml", compose(f"python3 -m sglang.launch_server --model-path {QWEN} --tp-size 4", 'device_ids: ["4", "5", "6", "7"]')),
        ("compose.yaml", compose(f"python3 -m sglang.launch_server --model-path {QWEN} --tp-size 4", "count: all")),
        ("sky.yaml", SKY.format(acc="H100:8", envs='envs:\n  CUDA_VISIBLE_DEVICES: "0,1,2,3"\n', tp=4)),
        # the container renumbers the host's GPUs 4..7 as 0..3
        ("serve.sh", f"docker run --gpus '\"device=4,5,6,7\"' --ipc=host -e CUDA_VISIBLE_DEVICES=0,1,2,3 lmsysorg/sglang:v0.5.23 "
                     f"python3 -m sglang.launch_server --model-path {QWEN} --tp-size 4\n"),
        ("serve.sh", f"CUDA_VISIBLE_DEVICES=4,5,6,7 python3 -m sglang.launch_server --model-path {QWEN} --tp-size 4\n"),
    ],
)
def test_grants_that_fit_stay_clean(path, text):
    assert _lint(path, text, ["SGL301"]) == []


# ---------------------------------------------------------------------------
# Probe paths (SGL512) and Service target ports (SGL513)
# ---------------------------------------------------------------------------

LWS_WITH_SERVICE = """\
apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata:
  name: dsr1
spec:
  replicas: 1
  leaderWorkerTemplate:
    size: 2
    leaderTemplate:
      metadata:
        labels: {{role: leader, app: dsr1}}
      spec:
        containers:
          - name: sglang-leader
            image: lmsysorg/sglang:v0.5.23
            command: ["python3", "-m", "sglang.launch_server", "--model-path", "/models/DeepSeek-R1", "--tp", "16",
                      "--nnodes", "2", "--node-rank", "0", "--dist-init-addr", "$(LWS_LEADER_ADDRESS):20000",
                      "--host", "0.0.0.0", "--port", "{port}"]
            ports:
              - {{containerPort: {port}, name: http}}
            readinessProbe:
              httpGet: {{path: {path}, port: http}}
              periodSeconds: 10
            startupProbe:
              httpGet: {{path: /health, port: http}}
              failureThreshold: 180
              periodSeconds: 10
    workerTemplate:
      spec:
        containers:
          - name: sglang-worker
            image: lmsysorg/sglang:v0.5.23
            command: ["python3", "-m", "sglang.launch_server", "--model-path", "/models/DeepSeek-R1", "--tp", "16",
                      "--nnodes", "2", "--node-rank", "$(LWS_WORKER_INDEX)", "--dist-init-addr", "$(LWS_LEADER_ADDRESS):20000"]
---
apiVersion: v1
kind: Service
metadata:
  name: dsr1-leader
spec:
  selector: {{role: leader, app: dsr1}}
  ports:
    - name: http
      port: 80
      targetPort: {target}
---
apiVersion: v1
kind: Service
metadata:
  name: dsr1-ranks
spec:
  clusterIP: None
  selector: {{app: dsr1}}
  ports:
    - port: 20000
"""

STATEFULSET = """\
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: llama
spec:
  serviceName: llama
  replicas: 1
  selector:
    matchLabels: {{app: llama}}
  template:
    metadata:
      labels: {{app: llama}}
    spec:
      containers:
        - name: sglang
          image: lmsysorg/sglang:{tag}
          args: ["python3", "-m", "sglang.launch_server", "--model-path", "meta-llama/Llama-3.1-8B-Instruct", "--host", "0.0.0.0"]
          livenessProbe:
            httpGet:
              path: {path}
              port: 30000
            initialDelaySeconds: 600
        - name: metrics-proxy
          image: nginx:1.27
          ports:
            - containerPort: 9100
---
apiVersion: v1
kind: Service
metadata:
  name: llama
spec:
  selector:
    app: llama
  ports:
    - port: 30000
{extra}"""


@pytest.mark.parametrize(
    "text,code,at,message",
    [
        (LWS_WITH_SERVICE.format(port=8000, path="/healthz", target="http"), "SGL512", "/healthz",
         "the readinessProbe asks GET /healthz but SGLang 0.5.23 serves no GET /healthz"),
        (LWS_WITH_SERVICE.format(port=8000, path="/health", target=30000), "SGL513", "30000",
         "Service dsr1-leader sends its traffic to port 30000 but the server listens on port 8000 (--port)"),
        (LWS_WITH_SERVICE.format(port=8000, path="/health", target="web"), "SGL513", "web",
         "no container of the pod declares a port named web"),
        (STATEFULSET.format(tag="v0.5.23", path="/v1/health", extra=""), "SGL512", "/v1/health", "livenessProbe"),
        # /ready arrived in a later release than 0.4.6
        (STATEFULSET.format(tag="v0.4.6.post5", path="/ready", extra=""), "SGL512", "/ready", "SGLang 0.4.6 serves no GET /ready"),
        (STATEFULSET.format(tag="v0.5.23", path="/health", extra="      targetPort: 8000\n"), "SGL513", "8000", "refused"),
    ],
)
def test_probe_paths_and_service_ports(text, code, at, message):
    (d,) = _lint("deploy.yaml", text, [code], version=None)  # the release: the image tag
    assert message in d.message, d.message
    assert d.span.text == at and _line(d) == line_of(text, at if at != "30000" else "targetPort")


@pytest.mark.parametrize(
    "text",
    [
        LWS_WITH_SERVICE.format(port=8000, path="/health_generate", target="http"),
        LWS_WITH_SERVICE.format(port=8000, path="/v1/models", target=8000),
        STATEFULSET.format(tag="v0.5.23", path="/ready", extra=""),
        STATEFULSET.format(tag="v0.4.6.post5", path="/ping", extra=""),
        STATEFULSET.format(tag="v0.5.23", path="/health?verbose=1", extra=""),
        # the sidecar serves 9100
        STATEFULSET.format(tag="v0.5.23", path="/metrics", extra="    - port: 9100\n"),
        STATEFULSET.format(tag="v0.5.23", path="/health", extra="      targetPort: 30000\n"),
    ],
)
def test_look_alikes_stay_clean(text):
    assert _lint("deploy.yaml", text, ["SGL512", "SGL513", "SGL503"], version=None) == []


def test_the_fix_replaces_the_path_only():
    text = LWS_WITH_SERVICE.format(port=8000, path="/healthz", target="http")
    (d,) = _lint("deploy.yaml", text, ["SGL512"])
    assert d.fix is not None and d.fix.applicability == "unsafe"
    (edit,) = d.fix.edits
    fixed = text[: edit.span.start] + edit.content + text[edit.span.end:]
    assert fixed == text.replace("{path: /healthz,", "{path: /health,")


def test_routes_data_covers_every_release_and_regenerates(tmp_path, monkeypatch):
    import json
    import os
    from pathlib import Path

    from sgllint.catalog import _gen_http_routes as gen

    checked_in = gen.OUTPUT
    data = json.loads(checked_in.read_text(encoding="utf-8"))["releases"]
    assert len(data) >= 30
    for release, entry in data.items():
        paths = {r["path"] for r in entry["routes"]}
        assert {"/health", "/health_generate", "/v1/models"} <= paths, release
        assert [m["path"] for m in entry["mounts"]] == ["/metrics"], release
    cache = os.environ.get("SGLLINT_WHEEL_CACHE")
    if not cache or not (Path(cache) / "src").is_dir():
        pytest.skip("SGLLINT_WHEEL_CACHE with unpacked wheels (src/<version>) not set")
    monkeypatch.setattr(gen, "OUTPUT", tmp_path / "routes.json")
    assert gen.main([str(Path(cache) / "src")]) == 0
    assert json.loads((tmp_path / "routes.json").read_text()) == json.loads(checked_in.read_text())
