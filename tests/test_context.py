"""Which SGLang release a launch is judged against, and why."""

from __future__ import annotations

import pytest

from sgllint import catalog as catalogs
from sgllint.engine.config import Config
from sgllint.engine.pipeline import Options, lint_file, lint_source
from sgllint.resolve import context
from sgllint.model.kinds import Provenance

LAUNCH = "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp-size 8 --enable-double-sparsity\n"


def _launch_version(text, path="a.sh", **kw):
    options = Options(use_environment=False, **kw)
    result = lint_source(path, text, options)
    (launch,) = result.launches
    return launch.context.version, [d.code for d in result.diagnostics]


def test_default_is_newest_catalog():
    version, codes = _launch_version(LAUNCH)
    assert version.value == catalogs.latest() and version.source is Provenance.NEWEST_CATALOG
    assert codes == ["SGL106"]


def test_precedence_cli_over_pragma_over_config():
    text = "# sgllint: sglang=0.5.10\n" + LAUNCH
    version, codes = _launch_version(text)
    assert (version.value, version.source) == ("0.5.10", Provenance.PRAGMA)
    assert codes == []  # --enable-double-sparsity exists in 0.5.10
    version, _ = _launch_version(text, sglang_version="0.5.23")
    assert (version.value, version.source) == ("0.5.23", Provenance.COMMAND_LINE)
    version, _ = _launch_version(LAUNCH, config=Config(sglang_version="0.5.9"))
    assert (version.value, version.source) == ("0.5.9", Provenance.CONFIG)
    version, _ = _launch_version(text, config=Config(sglang_version="0.5.9"))
    assert version.source is Provenance.PRAGMA


def test_image_tag_in_the_same_command():
    text = "docker run --gpus all lmsysorg/sglang:v0.5.10.post1-cu126 " + LAUNCH
    version, codes = _launch_version(text)
    assert (version.value, version.source) == ("0.5.10", Provenance.IMAGE_TAG)
    assert "lmsysorg/sglang:v0.5.10.post1-cu126" in version.detail


def test_project_pin(tmp_path):
    (tmp_path / "requirements-serve.txt").write_text("torch==2.8\nsglang[all]==0.5.10.post1\n")
    (tmp_path / ".git").mkdir()
    sub = tmp_path / "deploy"
    sub.mkdir()
    script = sub / "serve.sh"
    script.write_text(LAUNCH)
    context._project_pin_in.cache_clear()
    result = lint_file(str(script), Options(use_environment=False))
    version = result.launches[0].context.version
    assert (version.value, version.source) == ("0.5.10", Provenance.PROJECT_PIN)
    assert "requirements-serve.txt" in version.detail


GRAPH_LAUNCH = "python -m sglang.launch_server --model-path Qwen/Qwen3-4B --cuda-graph-bs 1 2 4 8\n"


def _project(tmp_path, dockerfile: str, where: str = "docker/Dockerfile"):
    (tmp_path / ".git").mkdir()
    (tmp_path / where).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / where).write_text(dockerfile)
    (tmp_path / "docs").mkdir(exist_ok=True)
    script = tmp_path / "docs" / "serve.sh"
    script.write_text(GRAPH_LAUNCH)
    context._project_pin_in.cache_clear()
    result = lint_file(str(script), Options(use_environment=False))
    return result.launches[0].context.version, [d.code for d in result.diagnostics]


def test_project_dockerfile_base_image_pins_the_release(tmp_path):
    # a trainer's image built FROM its SGLang build, the tag an ARG default
    dockerfile = "ARG SGLANG_TAG=v0.5.15.post1-cu129\nARG EXTRA=1\nFROM ghcr.io/acme/sglang:${SGLANG_TAG} AS base\nRUN pip install -e .\n"
    version, codes = _project(tmp_path, dockerfile)
    assert (version.value, version.source) == ("0.5.15", Provenance.PROJECT_PIN)
    assert "Dockerfile" in version.detail
    assert codes == ["SGL107"]  # deprecated in 0.5.15, not yet ambiguous


@pytest.mark.parametrize(
    "dockerfile,where",
    [
        ("ARG SGLANG_TAG\nFROM ghcr.io/acme/sglang:${SGLANG_TAG}\n", "docker/Dockerfile"),  # no default: unknown tag
        ("FROM nvcr.io/nvidia/pytorch:25.01-py3\nRUN pip install sglang\n", "docker/Dockerfile"),  # no SGLang image
        ("FROM lmsysorg/sglang:v0.5.15.post1-cu129\n", "tools/bench/Dockerfile"),  # another tool's image
        ("FROM lmsysorg/sglang:v0.5.15.post1-cu129\n", "docs/Dockerfile"),  # an example's, beside the launch
    ],
)
def test_a_dockerfile_that_names_no_sglang_release_pins_nothing(tmp_path, dockerfile, where):
    version, codes = _project(tmp_path, dockerfile, where)
    assert version.source is Provenance.NEWEST_CATALOG
    assert codes == ["SGL102"]  # ambiguous in the newest release


def test_installed_sglang_is_consulted(monkeypatch):
    monkeypatch.setattr(context, "installed_version", lambda: "0.5.9")
    result = lint_source("a.sh", LAUNCH, Options(use_environment=True))
    assert result.launches[0].context.version.source is Provenance.INSTALLED
    assert result.launches[0].context.version.value == "0.5.9"


@pytest.mark.parametrize(
    "requested,expected",
    [("0.5.4", "0.5.4"), ("v0.5.4.post3", "0.5.4"), ("0.5.10.post1", "0.5.10"), ("latest", None), ("dev", None)],
)
def test_version_mapping(requested, expected):
    assert catalogs.resolve_version(requested) == (expected or catalogs.latest())


def test_image_version_parsing():
    assert context.image_version("lmsysorg/sglang:v0.5.4.post3-cu126") == "0.5.4.post3"
    assert context.image_version("docker.io/lmsysorg/sglang:latest") == "latest"
    assert context.image_version("vllm/vllm-openai:v0.5.4") is None


def test_removed_and_not_yet_available_depend_on_the_release():
    moe = "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp-size 8 --enable-ep-moe\n"
    r = lint_source("a.sh", moe, Options(sglang_version="0.5.23", use_environment=False))
    (d,) = r.diagnostics
    assert d.code == "SGL106" and "use --ep-size" in d.help
    # SGLang 0.5.2 still accepted it (with a deprecation warning)
    r = lint_source("a.sh", moe, Options(sglang_version="0.5.2", use_environment=False))
    assert [d.code for d in r.diagnostics] == ["SGL107"]
    new = "python -m sglang.launch_server --model-path m --attn-dp-size 2\n"
    r = lint_source("a.sh", new, Options(sglang_version="0.5.10", use_environment=False))
    assert [d.code for d in r.diagnostics] == ["SGL111"]
    assert "needs SGLang >=" in r.diagnostics[0].message and "0.5.10" in r.diagnostics[0].message


def test_compare_to_upgrade_preview(tmp_path, run_cli):
    (tmp_path / "serve.sh").write_text(
        "python -m sglang.launch_server --model-path m --enable-double-sparsity --cuda-graph-max-bs 8\n"
    )
    r = run_cli("check", ".", "--sglang-version", "0.5.23", "--compare-to", "0.5.10", "--no-environment")
    assert r.returncode == 1
    assert "Upgrade preview: SGLang 0.5.10 -> 0.5.23" in r.stdout
    new_section = r.stdout.split("New diagnostics")[1].split("Diagnostics that go away")[0]
    assert "SGL106" in new_section and "SGL102" in new_section
    assert "Defaults that change" in r.stdout


def test_kubernetes_image_tag_selects_the_release(tmp_path, run_cli):
    """Issue acceptance: a manifest with image lmsysorg/sglang:v0.5.4 is judged
    against 0.5.4 with no flag or config. --enable-double-sparsity exists in
    0.5.4 and was removed in 0.5.11, so the same manifest on v0.5.23 gets SGL106.
    (--enable-ep-moe is not usable for this: SGLang 0.5.4 itself rejects it
    (DeprecatedAction raises ValueError in 0.5.4's server_args.py) and
    0.5.4.post3, the catalog shipped for 0.5.4, no longer has it.)"""
    manifest = """\
apiVersion: v1
kind: Pod
metadata: {name: sglang}
spec:
  containers:
    - name: server
      image: lmsysorg/sglang:TAG
      args: ["python3", "-m", "sglang.launch_server", "--model-path", "Qwen/Qwen2.5-7B-Instruct", "--enable-double-sparsity"]
"""
    (tmp_path / "old.yaml").write_text(manifest.replace("TAG", "v0.5.4"))
    (tmp_path / "new.yaml").write_text(manifest.replace("TAG", "v0.5.23"))
    r = run_cli("check", ".", "--output-format", "concise", "--no-environment", "--isolated", "--show-context")
    lines = r.stdout.splitlines()
    assert any(l.startswith("old.yaml:8:") and "SGLang 0.5.4 from image tag" in l for l in lines), lines
    findings = [l for l in lines if " SGL1" in l]
    assert findings == [
        "new.yaml:8:99: SGL106 --enable-double-sparsity was removed in SGLang 0.5.11 (last in 0.5.10); "
        "this launch targets 0.5.23 [removed-flag]"
    ]
