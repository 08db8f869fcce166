"""SGL201-SGL204, SGL259, SGL260: SGLang's deterministic-inference check, per release."""

from __future__ import annotations

import pytest

from sgllint import catalog
from sgllint.formats.registry import supported_formats
from sgllint.model.rule import Example
from sgllint.resolve import hardware
from sgllint.semantics import deterministic as det
from sgllint.testing import lint_example

CODES = ("SGL201", "SGL202", "SGL203", "SGL204", "SGL259", "SGL260")


def lint(code: str, fmt: str = "sh", sglang: str | None = None):
    ex = Example(code=code, fmt=fmt, sglang=sglang)
    return [d for d in lint_example(ex) if d.code in CODES], ex.source


def one(code: str, fmt: str = "sh", sglang: str | None = None):
    diags, src = lint(code, fmt, sglang)
    assert len(diags) == 1, [(d.code, d.message) for d in diags]
    return diags[0], src


K8S = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: sglang-dsv3
spec:
  template:
    spec:
{selector}      containers:
        - name: sglang
          image: lmsysorg/sglang:v0.5.23
          command: ["python3", "-m", "sglang.launch_server"]
          args:
            - --model-path
            - deepseek-ai/DeepSeek-V3
            - --enable-deterministic-inference
            - --attention-backend
            - {backend}
"""
SELECTOR = "      nodeSelector:\n        nvidia.com/gpu.product: {gpu}\n"

needs_yaml = pytest.mark.skipif(
    "yaml" not in supported_formats(), reason="the YAML extractor is not registered yet (sgllint/formats/registry.py)"
)


@needs_yaml
def test_k8s_flashinfer_is_sgl202_at_the_value_with_sglangs_message():
    d, src = one(K8S.format(selector="", backend="flashinfer"), "yaml")
    assert d.code == "SGL202" and d.severity.value == "error"
    assert d.span.start_line_col() == (17, 15)
    assert d.span.text == "flashinfer"
    assert (
        "Currently only ['ascend', 'fa3', 'fa4', 'triton'] attention backends are supported for deterministic "
        "inference with absorbed-MLA models. But you're using flashinfer." in d.message
    )
    assert d.fix is not None and d.fix.applicability == "unsafe"
    assert d.fix.edits[0].span.text == "flashinfer" and d.fix.edits[0].content == "triton"
    texts = [r.span.text for r in d.related]
    assert "--enable-deterministic-inference" in texts and "deepseek-ai/DeepSeek-V3" in texts


@needs_yaml
def test_k8s_fa4_b200_is_clean():
    diags, _ = lint(K8S.format(selector=SELECTOR.format(gpu="NVIDIA-B200"), backend="fa4"), "yaml")
    assert diags == []


@needs_yaml
def test_k8s_fa4_h100_is_sgl203_error():
    d, _ = one(K8S.format(selector=SELECTOR.format(gpu="NVIDIA-H100-80GB-HBM3"), backend="fa4"), "yaml")
    assert d.code == "SGL203" and d.severity.value == "error"
    assert d.span.text == "fa4"
    assert "requires SM100/SM110" in d.message
    assert d.fix.edits[0].content == "fa3"


@needs_yaml
def test_k8s_fa4_unpinned_is_sgl203_warning():
    d, _ = one(K8S.format(selector="", backend="fa4"), "yaml")
    assert d.code == "SGL203" and d.severity.value == "warning"
    assert "pin the target" in d.message


SH = "{pragma}python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --enable-deterministic-inference --attention-backend {backend}\n"


def test_shell_flashinfer_is_sgl202():
    d, src = one(SH.format(pragma="", backend="flashinfer"))
    assert d.code == "SGL202" and d.severity.value == "error"
    assert d.span.text == "flashinfer"
    assert "But you're using flashinfer." in d.message


def test_shell_fa4_b200_clean():
    assert lint(SH.format(pragma="# sgllint: gpu=B200\n", backend="fa4"))[0] == []


def test_shell_fa4_h100_error_and_unpinned_warning():
    d, _ = one(SH.format(pragma="# sgllint: gpu=H100\n", backend="fa4"))
    assert (d.code, d.severity.value) == ("SGL203", "error")
    d, _ = one(SH.format(pragma="", backend="fa4"))
    assert (d.code, d.severity.value) == ("SGL203", "warning")


def test_fa4_before_0_5_17_is_not_sm_checked_but_mla_list_rejects_it():
    d, _ = one(SH.format(pragma="# sgllint: gpu=H100\n", backend="fa4"), sglang="0.5.16")
    assert d.code == "SGL202" and "['fa3', 'triton']" in d.message and "DeepSeek models" in d.message
    # 0.5.17 allows fa4 for DeepSeek, with the SM check
    assert lint(SH.format(pragma="# sgllint: gpu=sm110\n", backend="fa4"), sglang="0.5.17")[0] == []


def test_messages_follow_the_release():
    d, _ = one(SH.format(pragma="", backend="flashinfer"), sglang="0.5.10")
    assert "Currently only ['fa3', 'triton'] attention backends are supported for deterministic inference with DeepSeek models." in d.message
    d, _ = one(SH.format(pragma="", backend="trtllm_mla"), sglang="0.5.13")
    assert d.code == "SGL201"
    assert "Currently only ['flashinfer', 'fa3', 'triton', 'ascend'] attention backends are supported for deterministic inference, but you explicitly specified 'trtllm_mla'." in d.message


def test_implicit_backend_model_override_trtllm_mla_on_b200():
    src = "# sgllint: gpu=B200\npython -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --enable-deterministic-inference\n"
    d, _ = one(src)
    assert d.code == "SGL201" and "trtllm_mla" in d.message and d.severity.value == "error"
    assert d.span.text == "python -m sglang.launch_server"
    # the fix (insert --attention-backend triton) is SGL201's example `fix=`, run by tests/test_rules.py


def test_implicit_backend_unpinned_some_targets_fail_is_a_warning():
    d, _ = one("python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --enable-deterministic-inference\n")
    assert d.code == "SGL201" and d.severity.value == "warning"
    assert "B200 (SM100)" in d.message and "H100 (SM90)" in d.message


def test_generic_default_first_before_0_5_12():
    # DeepSeek-V2 (no trtllm_mla override) on B200: 0.5.10 picks the generic
    # MLA default flashinfer, then the DeepSeek check rejects it ...
    src = "# sgllint: gpu=B200\npython -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V2-Lite --enable-deterministic-inference\n"
    d, _ = one(src, sglang="0.5.10")
    assert d.code == "SGL202" and "generic default" in d.help
    # ... while 0.5.15 falls back to triton for it
    assert lint(src, sglang="0.5.15")[0] == []
    # Llama on B200 in 0.5.7-0.5.11: generic MHA default trtllm_mha
    llama = "# sgllint: gpu=B200\npython -m sglang.launch_server --model-path Qwen/Qwen3-8B --enable-deterministic-inference\n"
    assert one(llama, sglang="0.5.10")[0].code == "SGL201"
    # 0.5.5: the SM100 MHA default is flashinfer (allowed, radix off)
    assert one(llama, sglang="0.5.5")[0].code == "SGL204"


def test_0_5_3_rejects_a_missing_backend():
    d, _ = one("# sgllint: gpu=H100\npython -m sglang.launch_server --model-path Qwen/Qwen3-8B --enable-deterministic-inference\n",
               sglang="0.5.3")
    assert d.code == "SGL201"
    assert "Currently only ['flashinfer', 'fa3', 'triton'] attention backends are supported for deterministic inference." in d.message


def test_glm5next_falls_back_to_flashinfer_then_fails_the_mla_check():
    src = ("# sgllint: gpu=B200\n# sgllint: arch=Glm5NextForConditionalGeneration\n"
           "python -m sglang.launch_server --model-path /models/glm5next --enable-deterministic-inference\n")
    d, _ = one(src, sglang="0.5.23")
    assert d.code == "SGL202" and "flashinfer" in d.message
    # 0.5.19's check list lacks Glm5Next: accepted, but without the radix cache
    assert [d.code for d in lint(src, sglang="0.5.19")[0]] == ["SGL204"]


def test_rl_on_policy_target_enables_it():
    d, _ = one("python -m sglang.launch_server --model-path Qwen/Qwen3-8B --rl-on-policy-target fsdp --attention-backend trtllm_mha\n")
    assert d.code == "SGL201"
    assert any("--rl-on-policy-target" in r.message for r in d.related)


def test_split_backends_are_warned():
    d, _ = one("python -m sglang.launch_server --model-path Qwen/Qwen3-8B --enable-deterministic-inference "
               "--attention-backend triton --prefill-attention-backend trtllm_mha\n")
    assert d.code == "SGL260" and d.severity.value == "warning" and "does not check" in d.message


def test_radix_with_hierarchical_cache():
    d, _ = one("python -m sglang.launch_server --model-path Qwen/Qwen3-8B --enable-deterministic-inference "
               "--attention-backend flashinfer --enable-hierarchical-cache\n")
    assert d.code == "SGL204" and "--enable-hierarchical-cache then fails" in d.message


def test_instance_model_paths_are_not_deepseek():
    assert lint("python -m sglang.launch_server --model-path instance://10.0.0.1:9000 --enable-deterministic-inference "
                "--attention-backend triton\n")[0] == []


def test_judge_matches_the_decision_procedure_on_every_release():
    """Direct replay: DeepSeek-V3 with explicit flashinfer is rejected by the
    MLA check exactly in the releases that have it."""
    for v in catalog.versions():
        cat = catalog.load(v)
        if cat.deterministic is None:
            continue
        verdict = det.judge(cat, det.Model("DeepseekV3ForCausalLM", True, mla=True), hardware.find("H100"), "flashinfer")
        has_check = bool(cat.deterministic["check_architectures"])
        assert (verdict.check is det.Rejection.MLA_BACKEND) is has_check, v


@pytest.mark.parametrize(
    "arch, dsa, first, backend",
    [
        # the DeepSeek list of _handle_model_specific_adjustments (server_args.py):
        # Kimi-K2.5 and GLM-5 joined it in 0.5.9, Mistral-Large-3 in 0.5.6 (0.5.6.post2);
        # the oracle rejects Kimi-K2.5 on B200 with 'trtllm_mla' in 0.5.10
        ("KimiK25ForConditionalGeneration", False, "0.5.9", "trtllm_mla"),
        ("MistralLarge3ForCausalLM", False, "0.5.6", "trtllm_mla"),
        ("MistralLarge3ForCausalLM", True, "0.5.6", "nsa"),
        ("GlmMoeDsaForCausalLM", True, "0.5.9", "nsa"),
    ],
)
def test_model_override_boundaries_follow_the_wheels(arch, dsa, first, backend):
    b200 = hardware.find("B200")
    before = catalog.versions()[catalog.versions().index(first) - 1]
    o = det._override(first, arch, dsa, b200)
    assert o is not None and o.backend == backend
    assert det._override(before, arch, dsa, b200) is None
