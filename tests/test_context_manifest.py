"""Issue acceptance: context resolved from a Kubernetes manifest, shown with
sources, and the GPU-count rule; a local config.json beats the registry."""

from __future__ import annotations

import json
from pathlib import Path

from sgllint.model.kinds import Provenance

FIXTURE = Path(__file__).parent / "fixtures" / "context" / "kimi-b200.yaml"


def _manifest(tmp_path, model):
    target = tmp_path / "deploy.yaml"
    target.write_text(FIXTURE.read_text().replace("MODEL_PLACEHOLDER", model))
    return target


def test_kimi_on_b200_context_and_gpu_count(tmp_path, run_cli):
    _manifest(tmp_path, "moonshotai/Kimi-K2-Instruct")
    r = run_cli("check", "deploy.yaml", "--show-context", "--output-format", "json", "--no-environment", "--isolated")
    # with a machine format the context lines go to stderr: stdout stays one JSON document (issue 20)
    context_line, body = r.stderr.partition("\n")[0], r.stdout
    assert "SGLang 0.5.10 from image tag (lmsysorg/sglang:v0.5.10) at deploy.yaml:13" in context_line
    assert "arch DeepseekV3ForCausalLM from registry (moonshotai/Kimi-K2-Instruct)" in context_line
    assert "gpu B200 (SM100) from manifest at deploy.yaml:10" in context_line
    assert "gpus 4 from GPU limit at deploy.yaml:23" in context_line
    items = json.loads(body)
    sgl301 = [i for i in items if i["code"] == "SGL301"]
    assert len(sgl301) == 1
    d = sgl301[0]
    assert (d["line"], d["column"]) == (18, 15)  # the --tp flag
    assert "needs 8 GPUs per node" in d["message"] and "gets 4" in d["message"]
    assert d["related"][0]["line"] == 23
    ctx = d["context"]
    assert (ctx["sglang_version"], ctx["architecture"], ctx["gpu_sm"], ctx["gpu_count"]) == (
        "0.5.10",
        "DeepseekV3ForCausalLM",
        100,
        4,
    )


def test_local_config_json_beats_registry(tmp_path, run_cli):
    model_dir = tmp_path / "models" / "Kimi-K2-Instruct"
    model_dir.mkdir(parents=True)
    (model_dir / "config.json").write_text(json.dumps({"architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2"}))
    _manifest(tmp_path, "models/Kimi-K2-Instruct")
    r = run_cli("check", "deploy.yaml", "--show-context", "--output-format", "concise", "--no-environment", "--isolated")
    first = r.stdout.splitlines()[0]
    assert "arch Qwen2ForCausalLM from local config.json" in first
    assert "DeepseekV3ForCausalLM" not in first


def test_no_network_and_hf_cache(tmp_path, monkeypatch):
    """Context resolution never opens a socket; the local HF cache is read
    when the user allows it (it is outside every project)."""
    import socket

    from sgllint.engine.config import Config
    from sgllint.engine.pipeline import Options, lint_source

    def refuse(*args, **kwargs):
        raise AssertionError("sgllint tried to open a network connection")

    monkeypatch.setattr(socket, "socket", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    snap = tmp_path / "hub" / "models--acme--secret-model" / "snapshots" / "abc123"
    snap.mkdir(parents=True)
    (snap / "config.json").write_text(json.dumps({"architectures": ["DeepseekV2ForCausalLM"], "kv_lora_rank": 512}))
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    text = "python -m sglang.launch_server --model-path acme/secret-model --tp-size 2\n"
    (launch,) = lint_source("a.sh", text, Options(use_environment=False)).launches
    assert launch.context.arch != "DeepseekV2ForCausalLM"
    allowed = Options(use_environment=False, config=Config(allow_outside=(tmp_path / "hub",)))
    (launch,) = lint_source("a.sh", text, allowed).launches
    assert launch.context.arch == "DeepseekV2ForCausalLM"
    assert launch.context.architecture.source is Provenance.HF_CACHE
    assert "mla" in launch.context.traits
