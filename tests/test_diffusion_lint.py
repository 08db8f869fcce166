"""Diffusion launches (``sglang serve`` of an image/video model, ``sglang
generate``) are judged by the release's ``multimodal_gen`` parser, routed the
way ``sglang/cli/serve.py`` routes them.

The fixtures are written in the shapes of SGLang's own diffusion docs and
cookbook scripts; the agreement test compares the lint verdict with
`DiffusionRelease.judge`, which tests/test_diffusion_oracle.py checks against
the real SGLang parsers.
"""

from __future__ import annotations

import random
import textwrap

import pytest

from sgllint.catalog import diffusion
from sgllint.engine.pipeline import Options, lint_source
from sgllint.model.kinds import Resolution


def _lint(text, path="serve.sh", **kw):
    return lint_source(path, textwrap.dedent(text).lstrip(), Options(use_environment=False, **kw))


def _codes(result):
    return [(d.code, d.span.text) for d in result.diagnostics]


DOC = """\
# Serving FLUX and Wan with SGLang Diffusion

```bash
sglang serve --model-path black-forest-labs/FLUX.1-dev --num-gpus 1 --port 30010 \\
    --text-encoder-cpu-offload --vae-cpu-offload --dit-precision bf16
```

Generate a video directly:

```bash
sglang generate --model-path Wan-AI/Wan2.1-T2V-1.3B-Diffusers \\
    --prompt "A curious raccoon peering through a vintage telescope" \\
    --num-frames 45 --height 480 --width 832 --save-output --output-path outputs/
```

Swap in a quantized transformer:

```bash
sglang generate --model-path Qwen/Qwen-Image --transformer-path ./ckpt/qwen-image-fp8 --prompt "a cat" --save-output
```
"""


def test_diffusion_docs_are_clean_and_judged_by_the_diffusion_parser():
    result = _lint(DOC, path="README.md", sglang_version="0.5.23")
    assert _codes(result) == []
    assert [launch.context.target for launch in result.launches] == ["diffusion"] * 3
    serve, generate, swap = (launch.context.diffusion for launch in result.launches)
    assert (serve.command, generate.command) == ("serve", "generate")
    assert serve.route.startswith("registry")
    # --transformer-path is claimed by ServerArgs' component-path extractor
    assert all(a.resolution is not Resolution.UNRECOGNIZED for a in result.launches[2].args)


def test_real_findings_against_the_diffusion_parser():
    text = "sglang serve --model-path black-forest-labs/FLUX.1-dev --num-gpus 1 --vae-cpu-ofload --dit-precision bf17\n"
    result = _lint(text, sglang_version="0.5.23")
    codes = _codes(result)
    assert ("SGL101", "--vae-cpu-ofload") in codes
    (unknown,) = [d for d in result.diagnostics if d.code == "SGL101"]
    assert "diffusion server" in unknown.message and "--vae-cpu-offload" in unknown.help


def test_llm_models_stay_with_the_llm_server():
    result = _lint("sglang serve --model-path Qwen/Qwen2.5-7B-Instruct --tp-size 2 --enable_metrics\n", sglang_version="0.5.23")
    (launch,) = result.launches
    assert launch.context.target == "sglang"
    assert ("SGL101", "--enable_metrics") in _codes(result)


def test_model_type_overrides_the_route():
    text = "sglang serve --model-type diffusion --model-path /models/my-pipeline --num-gpus 2\n"
    result = _lint(text, sglang_version="0.5.23")
    assert result.launches[0].context.target == "diffusion" and _codes(result) == []
    llm = _lint("sglang serve --model-type llm --model-path black-forest-labs/FLUX.1-dev --tp-size 2\n", sglang_version="0.5.23")
    assert llm.launches[0].context.target == "sglang"


def test_hub_model_is_judged_by_the_parser_that_knows_its_flags():
    diff = _lint("sglang serve --model-path my-org/custom-dit --num-gpus 2 --vae-cpu-offload\n", sglang_version="0.5.23")
    assert diff.launches[0].context.target == "diffusion" and _codes(diff) == []
    llm = _lint("sglang serve --model-path my-org/custom-llm --tp-size 2 --vae-cpu-offlod\n", sglang_version="0.5.23")
    assert llm.launches[0].context.target == "sglang" and ("SGL101", "--vae-cpu-offlod") in _codes(llm)


def test_hub_model_with_one_mistake_is_judged_by_the_parser_that_knows_more_flags():
    # a video model's launch with the diffusion server's parallelism flags and
    # one sampling flag `sglang serve` does not take (only `generate` does):
    # one diffusion mistake, not four unknown LLM flags
    text = "sglang serve --model-path my-org/video-dit --num-gpus 8 --ring-degree 2 --ulysses-degree 4 --adjust-frames false\n"
    diff = _lint(text, sglang_version="0.5.23")
    assert diff.launches[0].context.target == "diffusion"
    assert [(c, t) for c, t in _codes(diff) if c == "SGL101"] == [("SGL101", "--adjust-frames")]
    # an LLM launch with a typo and LLM-only flags stays an LLM launch, and
    # so does a tie (one flag unknown to each parser)
    llm = _lint("sglang serve --model-path my-org/custom-llm --mem-fraction-static 0.8 --context-length 8192 --enable-metrcs\n", sglang_version="0.5.23")
    assert llm.launches[0].context.target == "sglang"
    assert [(c, t) for c, t in _codes(llm) if c == "SGL101"] == [("SGL101", "--enable-metrcs")]
    tie = _lint("sglang serve --model-path my-org/custom-llm --mem-fraction-static 0.8 --num-gpus 2\n", sglang_version="0.5.23")
    assert tie.launches[0].context.target == "sglang"
    assert [(c, t) for c, t in _codes(tie) if c == "SGL101"] == [("SGL101", "--num-gpus")]
    # benchmark flags pasted under `sglang serve`: the diffusion server knows
    # one more of them (--backend) but not most: still the LLM server's launch
    bench = "sglang serve --backend sglang --model my-org/custom-llm --dataset-name random --num-prompts 10 --max-concurrency 1\n"
    wrong = _lint(bench, sglang_version="0.5.23")
    assert wrong.launches[0].context.target == "sglang"
    assert [t for c, t in _codes(wrong) if c == "SGL101"] == ["--backend", "--dataset-name", "--num-prompts", "--max-concurrency"]


def test_release_without_diffusion_server_is_the_llm_server():
    result = _lint("sglang serve --model-path black-forest-labs/FLUX.1-dev --tp-size 2\n", sglang_version="0.5.4")
    assert result.launches[0].context.target == "sglang"


def test_python_multimodal_gen_server_args_are_not_llm_launches():
    text = """\
    from sglang.multimodal_gen.runtime.server_args import ServerArgs

    args = ServerArgs(model_path="Qwen/Qwen-Image", num_gpus=1, pipeline_config=None, attention_backend="torch_sdpa")
    """
    result = _lint(text, path="test_unit.py")
    assert result.launches == [] and result.diagnostics == []
    llm = _lint(text.replace("sglang.multimodal_gen.runtime.server_args", "sglang.srt.server_args"), path="test_unit.py")
    assert [d.code for d in llm.diagnostics if d.code == "SGL101"]


def test_ellipsis_in_docs_is_not_a_positional_argument():
    result = _lint("sglang generate ... --warmup-mode request --perf-dump-path out.json\n", sglang_version="0.5.23")
    assert [c for c, _ in _codes(result) if c == "SGL101"] == []


# ---------------------------------------------------------------------------
# Agreement with the replayed SGLang parser
# ---------------------------------------------------------------------------


def _value(option, rng):
    if option.choices:
        return str(rng.choice(option.choices))
    if option.accepts:
        return rng.choice(option.accepts)
    return {"int": "2", "float": "0.5"}.get(option.type, "x")


def _launches(release: str, count: int, seed: int):
    rel = diffusion.load(release)
    options = [o for o in rel.parser("generate").options
               if o.action not in ("help", "version") and not o.raises and o.strings[0].startswith("--")]
    rng = random.Random(seed)
    for n in range(count):
        words = ["--model-path", "Wan-AI/Wan2.1-T2V-1.3B-Diffusers"]
        for o in rng.sample(options, 3):
            flag = rng.choice(o.strings)
            words.append(flag)
            if o.takes_value:
                nargs = o.nargs if isinstance(o.nargs, int) else 1
                words.extend(_value(o, rng) for _ in range(max(nargs, 1)))
        mutation = n % 4
        if mutation == 1:  # a typo in the last flag
            flag_at = max(i for i, w in enumerate(words) if w.startswith("--"))
            words[flag_at] = words[flag_at][:-1] + "q"
        elif mutation == 2:  # a bad value where the option has choices
            for i, w in enumerate(words):
                opt = next((o for o in options if w in o.strings and o.choices and o.takes_value), None)
                if opt is not None and i + 1 < len(words):
                    words[i + 1] = "not-a-choice"
                    break
        elif mutation == 3:  # a valueless option at the end
            opt = rng.choice([o for o in options if o.takes_value and o.nargs in (None, 1)])
            words.append(opt.strings[0])
        yield words


@pytest.mark.parametrize("release", ["0.5.5", "0.5.10", "0.5.16", "0.5.23"])
def test_lint_errors_agree_with_the_diffusion_parser(release):
    rel = diffusion.load(release)
    checked = 0
    for words in _launches(release, 60, seed=sum(map(ord, release))):
        verdict = rel.judge("generate", words)
        text = "sglang generate " + " ".join(f"'{w}'" for w in words) + "\n"
        result = _lint(text, sglang_version=release)
        errors = [d for d in result.diagnostics if d.severity.name == "ERROR"]
        rejected = verdict.outcome is diffusion.Outcome.REJECTED
        assert rejected == bool(errors), (words, verdict, [(d.code, d.message) for d in errors])
        checked += 1
    assert checked == 60


def test_llm_launch_with_a_config_file_keeps_the_merge(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "cfg.yaml").write_text("model-path: Qwen/Qwen2.5-7B-Instruct\nlora-paths:\n  - a=org/lora\n")
    script = tmp_path / "serve.sh"
    script.write_text("sglang serve --model-path my-org/custom-llm --config cfg.yaml --tp-size 2\n")
    from sgllint.engine.pipeline import lint_file

    result = lint_file(str(script), Options(use_environment=False, sglang_version="0.5.23"))
    assert result.launches[0].context.target == "sglang"
    assert ("SGL113", "lora-paths") in _codes(result)  # the config was merged and its refused key reported


def test_python_argv_list_of_sglang_generate():
    text = """\
    import subprocess

    subprocess.run(["sglang", "generate", "--model-path", "black-forest-labs/FLUX.1-dev",
                    "--prompt", "a red fox", "--save-output", "--vae-cpu-ofload"], check=True)
    """
    result = _lint(text, path="gen.py", sglang_version="0.5.23")
    assert [launch.context.target for launch in result.launches] == ["diffusion"]
    assert [(c, t) for c, t in _codes(result)] == [("SGL101", '"--vae-cpu-ofload"')]


def test_local_model_directory_is_routed_by_its_model_index(tmp_path):
    (tmp_path / ".git").mkdir()
    pipe = tmp_path / "models" / "my-dit"
    pipe.mkdir(parents=True)
    (pipe / "model_index.json").write_text('{"_class_name": "FluxPipeline", "_diffusers_version": "0.32.0"}')
    llm = tmp_path / "models" / "my-llm"
    llm.mkdir(parents=True)
    (llm / "config.json").write_text('{"architectures": ["Qwen2ForCausalLM"]}')
    script = tmp_path / "serve.sh"
    script.write_text("sglang serve --model-path ./models/my-dit --num-gpus 1\nsglang serve --model-path ./models/my-llm --tp-size 1\n")
    from sgllint.engine.pipeline import lint_file

    result = lint_file(str(script), Options(use_environment=False, sglang_version="0.5.23"))
    assert [launch.context.target for launch in result.launches] == ["diffusion", "sglang"]
    assert "model_index.json has _diffusers_version" in result.launches[0].context.diffusion.route
    assert _codes(result) == []
