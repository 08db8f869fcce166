"""Facts of the generated diffusion data (data/diffusion), read through the loader."""

from __future__ import annotations

from sgllint.catalog import diffusion
from sgllint.catalog.wrappers import Outcome, Reason

SERVE = "serve"


def test_releases_with_a_diffusion_server():
    versions = diffusion.versions()
    assert versions[0] == "0.5.5" and versions[-1] == "0.5.23"
    assert diffusion.release_for("0.5.4.post3") is None
    assert diffusion.release_for("0.5.10.post1") == "0.5.10"


def test_serve_parser_is_multimodal_gen_not_the_llm_server():
    release = diffusion.load("0.5.23")
    strings = release.option_strings(SERVE)
    assert {"--config", "--model-path", "--num-gpus", "--vae-cpu-offload", "--pipeline-class-name"} <= strings
    assert "--mem-fraction-static" not in strings
    catalog = release.catalog(SERVE)
    assert catalog.by_string["--backend"].choices == ("auto", "sglang", "diffusers")
    # sglang generate adds SamplingParams' flags
    assert {"--prompt", "--num-inference-steps"} <= release.option_strings("generate") - strings


def test_leftovers_refused_from_0_5_10_ignored_before():
    old, new = diffusion.load("0.5.9"), diffusion.load("0.5.10")
    assert not old.commands[SERVE].leftovers["reject_rest"] and not old.commands[SERVE].leftovers["extractors"]
    assert old.judge(SERVE, ["--model-path", "m", "--no-such-flag"]).outcome is Outcome.ACCEPTED
    verdict = new.judge(SERVE, ["--model-path", "m", "--no-such-flag", "1"])
    assert verdict.reason is Reason.UNRECOGNIZED and verdict.option == "--no-such-flag 1"
    # the dynamic component path form is claimed by from_cli_args
    assert new.judge(SERVE, ["--model-path", "m", "--vae-path", "/w/vae"]).outcome is Outcome.ACCEPTED
    assert new.judge(SERVE, ["--model-path", "m", "--vae-path"]).reason is Reason.UNRECOGNIZED


def test_generate_0_5_5_parses_strictly():
    release = diffusion.load("0.5.5")
    assert release.commands["generate"].parse_kind == "parse"
    assert release.judge("generate", ["--model-path", "m", "--vae-path", "x"]).reason is Reason.UNRECOGNIZED


def test_store_boolean_takes_true_or_false_only():
    release = diffusion.load("0.5.23")
    assert release.judge(SERVE, ["--model-path", "m", "--vae-tiling", "FALSE"]).outcome is Outcome.ACCEPTED
    assert release.judge(SERVE, ["--model-path", "m", "--vae-tiling", "maybe"]).reason is Reason.INVALID_VALUE


def test_pipeline_flags_join_when_the_pipeline_is_selected():
    release = diffusion.load("0.5.23")
    assert "Flux3ImagePipeline" in release.pipeline_options
    argv = ["--model-path", "m", "--flux3-alpha", "0.5"]
    assert release.judge(SERVE, argv).reason is Reason.UNRECOGNIZED
    assert release.judge(SERVE, ["--pipeline-class-name", "Flux3ImagePipeline", *argv]).outcome is Outcome.ACCEPTED


def test_routing_rule_per_era():
    old, mid, new = diffusion.load("0.5.5"), diffusion.load("0.5.10"), diffusion.load("0.5.23")
    assert old.routing["model_type"] is None and old.routing["registry"]["function"] is None
    assert old.routing["model_index"] == {"files": ["model_index.json"], "key": "_diffusers_version"}
    assert mid.routing["model_type"]["values"] == ["auto", "llm", "diffusion"]
    assert mid.routing["registry"]["match"] == ["substring_patterns", "exact", "short_name", "hf_cache"]
    assert not mid.routing["registry"]["for_local_dirs"] and new.routing["registry"]["for_local_dirs"]
    assert new.routing["model_index"]["files"] == ["model_index.json", "modular_model_index.json"]
    assert new.routing["registry"]["requires_diffusers"] and new.routing["positional_model_path"]
    assert new.routing["hf_library_name"] == "diffusers"
    assert "patterns" in new.routing["registry"]["match"]


def test_route_decisions():
    release = diffusion.load("0.5.23")
    assert release.route(["black-forest-labs/FLUX.1-dev"]).route is diffusion.Route.DIFFUSION
    assert release.route(["--model-path", "/ckpt/models--Qwen--Qwen-Image/snapshots/1"]).route is diffusion.Route.DIFFUSION
    assert release.route(["--model-path", "Qwen/Qwen3-8B"]).route is diffusion.Route.HUB
    assert release.route(["--model-path", "./llm"], model_index=lambda p: {}).route is diffusion.Route.LLM
    assert release.route(["--model-path", "x", "--model-type", "llm"]).route is diffusion.Route.LLM
    assert release.route(["--model-path", "x", "--model-type", "nope"]).route is diffusion.Route.REFUSED
    # before 0.5.16 a bare first word is not a model path
    assert diffusion.load("0.5.15").route(["black-forest-labs/FLUX.1-dev"]).route is diffusion.Route.REFUSED


def test_local_directory_is_judged_by_its_files_before_0_5_17():
    """0.5.10-0.5.16 look into a local directory before asking the registry:
    a directory named like a registered model but without a diffusers index
    is an LLM there, a diffusion model from 0.5.17 on."""
    argv = ["--model-path", "/ckpt/FLUX.1-dev"]
    no_index = {"/ckpt/FLUX.1-dev": {}}.get
    assert diffusion.load("0.5.16").route(argv, no_index).route is diffusion.Route.LLM
    assert diffusion.load("0.5.17").route(argv, no_index).route is diffusion.Route.DIFFUSION
    # the name patterns of 0.5.10-0.5.16 match anywhere in the path
    assert diffusion.load("0.5.10").route(["--model-path", "/w/my-hunyuan3d-run"], no_index).route is diffusion.Route.DIFFUSION
