"""The deployment around a launch (issue 19): the deploy-* facts the
extractors record, the verdicts of `sgllint.semantics.deployment`, and
SGL502's promise that a credential is never printed in any output format."""

from __future__ import annotations

import textwrap

import pytest

from sgllint.formats.shell.extractor import extract as extract_shell
from sgllint.formats.yaml.deployment import size_bytes
from sgllint.formats.yaml.extractor import extract as extract_yaml
from sgllint.model.facts import Source
from sgllint.model.secrets import find_secrets, mask, secret_offsets
from sgllint.output import FORMATS
from sgllint.output.excerpt import excerpt
from sgllint.model.facts import Span

TOKEN = "hf_Qm7vRzT2kWpL9sNbX4cYhJ8dFgA3eUoMiK"  # sgllint: ignore[SGL502] (made up)


def deploy_hints(site) -> list[tuple]:
    return [(h.kind, h.value) for h in site.hints if h.kind.startswith("deploy-")]


def yaml_sites(text: str):
    return extract_yaml(Source("deploy.yaml", textwrap.dedent(text))).sites


LWS = """
apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata:
  name: deepseek
spec:
  leaderWorkerTemplate:
    size: 2
    leaderTemplate:
      spec:
        containers:
          - name: leader
            image: lmsysorg/sglang:v0.5.23
            command: ["python3", "-m", "sglang.launch_server", "--model-path", "deepseek-ai/DeepSeek-R1", "--tp", "16",
                      "--nnodes", "2", "--node-rank", "0", "--dist-init-addr", "$(LWS_LEADER_ADDRESS):20000"]
            ports:
              - containerPort: 30000
                name: http
            readinessProbe:
              httpGet: {path: /health, port: http}
              periodSeconds: 10
            volumeMounts:
              - {name: dshm, mountPath: /dev/shm}
              - {name: hf, mountPath: /root/.cache/huggingface}
        volumes:
          - name: dshm
            emptyDir: {medium: Memory, sizeLimit: 64Gi}
          - name: hf
            persistentVolumeClaim: {claimName: hf-cache}
"""


def test_pod_facts_reach_the_container_launch():
    (site,) = yaml_sites(LWS)
    hints = deploy_hints(site)
    assert ("deploy-runtime", "kubernetes") in hints
    assert ("deploy-volume", {"name": "dshm", "kind": "emptyDir", "medium": "Memory", "bytes": 64 * 1024 ** 3}) in hints
    assert ("deploy-volume", {"name": "hf", "kind": "persistentVolumeClaim", "medium": None, "bytes": None}) in hints
    assert ("deploy-mount", {"path": "/dev/shm", "volume": "dshm", "kind": "k8s-shm-mount"}) in hints
    assert ("deploy-port", {"port": 30000, "name": "http"}) in hints
    (probe,) = [v for k, v in hints if k == "deploy-probe"]
    assert probe["probe"] == "readinessProbe" and probe["port"] == "http" and probe["path"] == "/health" and probe["periodSeconds"] == 10


def test_compose_and_docker_run_facts():
    (site,) = yaml_sites(
        """
        services:
          sglang:
            image: lmsysorg/sglang:v0.5.23
            shm_size: 16gb
            ports: ["8000:30000"]
            volumes: [hf:/root/.cache/huggingface]
            command: python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp 2
        volumes:
          hf: {}
        """
    )
    hints = deploy_hints(site)
    assert ("deploy-runtime", "compose") in hints
    assert ("deploy-shm", {"how": "shm_size", "bytes": 16 * 1024 ** 3}) in hints
    assert ("deploy-port", {"port": 30000, "name": None}) in hints
    assert ("deploy-mount", {"path": "/root/.cache/huggingface", "volume": "hf", "kind": "volume"}) in hints
    facts = extract_shell(Source("run.sh", "docker run --gpus all --ipc=host -p 30000:30000 -v ~/.cache/huggingface:/root/.cache/huggingface "
                                 "lmsysorg/sglang:v0.5.23 python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp 2\n"))
    hints = deploy_hints(facts.sites[0])
    assert ("deploy-runtime", "docker") in hints
    assert ("deploy-shm", {"how": "--ipc host", "bytes": None}) in hints
    assert ("deploy-mount", {"path": "/root/.cache/huggingface", "volume": "~/.cache/huggingface", "kind": "bind"}) in hints
    assert ("deploy-port", {"port": 30000, "name": None}) in hints


@pytest.mark.parametrize(
    "text,docker,expected",
    [("10Gi", False, 10 * 1024 ** 3), ("10G", False, 10 * 1000 ** 3), ("16g", True, 16 * 1024 ** 3), ("16gb", True, 16 * 1024 ** 3),
     ("512Mi", False, 512 * 1024 ** 2), ("64m", True, 64 * 1024 ** 2), ("lots", False, None), ("{{ .Values.shm }}", False, None)],
)
def test_sizes(text, docker, expected):
    assert size_bytes(text, docker) == expected


# ---------------------------------------------------------------------------
# Secrets
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text,found",
    [
        (f"HF_TOKEN={TOKEN}", [TOKEN]),
        (f"  - name: HF_TOKEN\n    value: {TOKEN}\n", [TOKEN]),
        ('  - name: WANDB_API_KEY\n    value: "c0ffee9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e"\n', ["c0ffee9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e"]),
        ("--api-key=Zq81LmN4pRt7VwX9", ["Zq81LmN4pRt7VwX9"]),  # sgllint: ignore[SGL502]
        ("HF_TOKEN=hf_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", []),
        ("HF_TOKEN=<your-hf-token>", []),
        ("OPENAI_API_KEY: ${OPENAI_API_KEY}", []),
        ("--api-key sk-123456", []),
        ("api_key: EMPTY", []),
        ("  - name: HF_TOKEN\n    valueFrom:\n      secretKeyRef: {name: hf, key: token}\n", []),
        ("MAX_TOKENS=4096", []),
    ],
)
def test_secret_shapes(text, found):
    assert [text[a:b] for a, b in find_secrets(text)] == found


def test_mask_keeps_a_prefix_only():
    assert mask(TOKEN) == "hf_Qm7…(37 chars)"
    text = f"export HF_TOKEN={TOKEN}\n"
    shown = excerpt(Span(Source("x.sh", text), 0, 6)).text
    assert TOKEN not in shown and shown == "export HF_TOKEN=hf_Qm7" + "*" * 31
    assert secret_offsets(text, 0, len(text)) == set(range(text.index(TOKEN) + 6, text.index(TOKEN) + len(TOKEN)))


#: not the rules' example token: SARIF embeds the rules' docs
LEAKED = "hf_Tn3bWq8YxKp2VmZr5LcJd7HsGf4Au9EoRk"  # sgllint: ignore[SGL502] (made up)
LEAKED_KEY = "Pw92KdLx7QrT4NvZ"
SCRIPT = f"""#!/bin/bash
export HF_TOKEN={LEAKED}
HUGGING_FACE_HUB_TOKEN={LEAKED} docker run --gpus all lmsysorg/sglang:v0.5.23 python3 -m sglang.launch_server --model-path meta-llama/Llama-3.1-70B-Instruct --tp 8 --api-key {LEAKED_KEY}
"""


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_no_output_format_prints_a_secret(run_cli, tmp_path, fmt):
    (tmp_path / "serve.sh").write_text(SCRIPT)
    for attempt in range(2):  # the second run reads the cache
        r = run_cli("check", "serve.sh", "--output-format", fmt, "--sglang-version", "0.5.23", "--select", "ALL")
        out = r.stdout + r.stderr
        assert "SGL502" in out or fmt == "lsp" and "plain text" in out, out
        assert LEAKED[6:] not in out and LEAKED_KEY[6:] not in out
        if fmt in ("full", "concise", "json", "sarif"):
            assert "hf_Tn3" in out and "Pw92Kd" in out


# ---------------------------------------------------------------------------
# Launch groups
# ---------------------------------------------------------------------------

PD_DOCS = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: prefill
spec:
  template:
    spec:
      containers:
        - name: sglang
          image: lmsysorg/sglang:v0.5.23
          command: ["python3", "-m", "sglang.launch_server", "--model-path", "/models/dsv3", "--disaggregation-mode", "prefill", "--page-size", "64"]
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: decode
spec:
  template:
    spec:
      containers:
        - name: sglang
          image: lmsysorg/sglang:v0.5.23
          command: ["python3", "-m", "sglang.launch_server", "--model-path", "/models/dsv3", "--disaggregation-mode", "decode", "--page-size", "32"]
"""


def _lint(path, text, select):
    from sgllint.engine.config import Config
    from sgllint.engine.pipeline import Options, lint_source

    config = Config(select=tuple(select))
    result = lint_source(path, text, Options(sglang_version="0.5.23", use_environment=False, config=config))
    return [d for d in result.diagnostics if d.code in select]


def test_a_group_spans_the_documents_of_one_yaml_file_and_shows_in_json_and_sarif():
    import json

    from sgllint.output import renderer

    (d,) = _lint("pd.yaml", PD_DOCS, ["SGL506"])
    assert d.span.start_line_col()[0] == 23 and d.span.text == '"--page-size", "32"'
    assert [(r.span.start_line_col()[0], r.span.text) for r in d.related] == [(11, '"--page-size", "64"')]
    doc = json.loads(renderer("json")([d]))
    (item,) = doc if isinstance(doc, list) else doc["diagnostics"]
    assert item["related"][0]["line"] == 11 and "prefill" in item["related"][0]["message"]
    sarif = json.loads(renderer("sarif")([d]))
    (result,) = sarif["runs"][0]["results"]
    related = result["relatedLocations"][0]["physicalLocation"]["region"]["startLine"]
    assert related == 11


def test_groups_across_one_script_and_none_across_markdown_alternatives():
    script = (
        "python -m sglang.launch_server --model-path m --tp 16 --nnodes 2 --node-rank 0 --dist-init-addr 10.0.0.1:5000 &\n"
        "python -m sglang.launch_server --model-path m --tp 16 --nnodes 2 --node-rank 0 --dist-init-addr 10.0.0.1:5000 &\n"
    )
    (d,) = _lint("serve.sh", script, ["SGL508"])
    assert d.span.start_line_col()[0] == 2 and d.related[0].span.start_line_col()[0] == 1
    markdown = "Node 0:\n\n```bash\n" + script.splitlines()[0] + "\n```\n\nOn a second cluster:\n\n```bash\n" + script.splitlines()[1] + "\n```\n"
    assert _lint("README.md", markdown, ["SGL508"]) == []


def test_shared_memory_and_cache_checks_run_only_when_selected():
    from sgllint.engine.config import Config
    from sgllint.engine.pipeline import Options, lint_source

    script = "docker run --gpus all lmsysorg/sglang:v0.5.23 python3 -m sglang.launch_server --model-path Qwen/Qwen2.5-72B-Instruct --tp-size 4\n"

    def codes(config):
        result = lint_source("serve.sh", script, Options(sglang_version="0.5.23", use_environment=False, config=config))
        return sorted(d.code for d in result.diagnostics if d.code.startswith("SGL5"))

    assert codes(Config()) == []  # ALL alone does not turn them on
    assert codes(Config(extend_select=("SGL501", "SGL505"))) == ["SGL501", "SGL505"]
    assert codes(Config(select=("SGL5",))) == ["SGL501", "SGL505"]
    assert codes(Config(select=("shared-memory-too-small",))) == ["SGL501"]
