"""Run launches through SGLang's REAL ``sglang serve`` / ``sglang generate``
dispatch for diffusion models and record what happens.

Run inside the oracle venv with one SGLang wheel installed ``--no-deps`` (plus
``diffusers``, which multimodal_gen imports; see ``run_diffusion_oracle.sh``)::

    python tests/oracle/diffusion_oracle.py --wheel sglang-0.5.23-...whl \
        --cases cases.json --out tests/data/oracle/diffusion/sglang-0.5.23.json

No sgllint code runs here.  Recorded:

* ``option_strings``: every key of ``parser._option_string_actions`` of the
  parsers ``add_multimodal_gen_serve_args`` / ``add_multimodal_gen_generate_args``
  build on ``argparse.ArgumentParser()`` (as ``sglang/cli/serve.py`` does);
* ``registry``: what the release's own ``sglang.multimodal_gen.registry``
  holds once imported (registered Hugging Face ids, pipeline names), and the
  config modules it skipped because they did not import here;
* per case, in a fresh ``os.fork()``: the release's own ``serve(args, argv)`` /
  ``generate(args, argv)`` of ``sglang/cli`` is called with ``sys.argv`` set
  as the ``sglang`` console script would have it.  ``MODEL_DIR`` in a case
  stands for a local directory holding only a diffusers ``model_index.json``
  (so every release's own detection picks the diffusion server);
  ``LLM_DIR`` for one holding only a ``config.json``.  Nothing is started:
  ``ServerArgs.get_provided_args`` (the first thing ``from_cli_args`` does
  after checking the leftovers) raises, which records ``accepted`` with
  ``route: diffusion``; the LLM server's ``prepare_server_args`` raises
  likewise (``route: llm``).  argparse errors are ``rejected`` with the reason
  kind argparse's message names; an exception raised by SGLang's own code
  before that point (``--model-type`` checks, a custom Action) is
  ``rejected`` with its class and message.
"""

from __future__ import annotations

import argparse
import io
import json
import logging
import os
import re
import sys
import tempfile
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import _harness  # noqa: E402
from wrapper_oracle import classify  # noqa: E402


class _Reached(Exception):
    """Raised where the launch would start a server."""


def _stop_at(route: str):
    def stop(*_args, **_kwargs):
        raise _Reached(route)

    return stop


def _model_dirs() -> dict[str, str]:
    base = Path(tempfile.mkdtemp(prefix="sgl-diffusion-oracle-"))
    (base / "diffusers-model").mkdir()
    (base / "diffusers-model" / "model_index.json").write_text(
        json.dumps({"_class_name": "FluxPipeline", "_diffusers_version": "0.30.0"}), encoding="utf-8"
    )
    (base / "llm-model").mkdir()
    (base / "llm-model" / "config.json").write_text(json.dumps({"architectures": ["LlamaForCausalLM"]}), encoding="utf-8")
    return {"MODEL_DIR": str(base / "diffusers-model"), "LLM_DIR": str(base / "llm-model")}


def _patch_release() -> None:
    """Where a launch would start something, stop instead."""
    from sglang.multimodal_gen.runtime import server_args as mm_sa

    mm_sa.ServerArgs.get_provided_args = staticmethod(_stop_at("diffusion"))
    import sglang.srt.server_args as srt_sa

    srt_sa.prepare_server_args = _stop_at("llm")
    import sglang.cli.serve as cli_serve

    if hasattr(cli_serve, "kill_process_tree"):
        cli_serve.kill_process_tree = lambda *a, **k: None


def _run(command: str, argv: list[str]) -> None:
    sys.argv = ["sglang", command, *argv]
    if command == "serve":
        from sglang.cli.serve import serve

        serve(argparse.Namespace(subcommand="serve"), list(argv))
    else:
        from sglang.cli.generate import generate

        generate(argparse.Namespace(subcommand="generate"), list(argv))


def run_case(command: str, argv: list[str]) -> dict:
    err, out = io.StringIO(), io.StringIO()
    try:
        with redirect_stderr(err), redirect_stdout(out):
            _run(command, argv)
        return {"verdict": "exited" if "usage" in out.getvalue().lower() else "accepted", "route": None}
    except _Reached as stop:
        return {"verdict": "accepted", "route": str(stop)}
    except SystemExit as exc:
        if exc.code in (0, None):
            return {"verdict": "exited"}
        text = err.getvalue().strip() or str(exc.code)
        kind, subject = classify(text)
        return {"verdict": "rejected", "reason": kind, "subject": subject, "message": text.splitlines()[-1]}
    except NotImplementedError as exc:
        return {"verdict": "rejected", "reason": "not_implemented", "error": f"NotImplementedError: {exc}"}
    except ValueError as exc:
        kind = "invalid_value" if "Invalid boolean value" in str(exc) else "other"
        return {"verdict": "rejected", "reason": kind, "error": f"ValueError: {exc}"}
    except Exception as exc:  # noqa: BLE001 - SGLang's own refusal (model type, model path)
        return {"verdict": "rejected", "reason": "sglang", "error": f"{type(exc).__name__}: {exc}"}


def _option_strings() -> dict:
    out = {}
    sys.argv = ["sglang", "serve"]
    for command, module, func in (
        ("serve", "sglang.multimodal_gen.runtime.entrypoints.cli.serve", "add_multimodal_gen_serve_args"),
        ("generate", "sglang.multimodal_gen.runtime.entrypoints.cli.generate", "add_multimodal_gen_generate_args"),
    ):
        mod = __import__(module, fromlist=[func])
        parser = argparse.ArgumentParser()
        getattr(mod, func)(parser)
        out[command] = sorted(parser._option_string_actions)
    return out


def _registry() -> dict:
    skipped: list[str] = []

    class _Skips(logging.Handler):
        def emit(self, record):
            msg = record.getMessage()
            m = re.search(r"Skipping (?:config|pipeline) module (\S+)", msg)
            if m:
                skipped.append(m.group(1))

    logging.getLogger().addHandler(_Skips())
    for name in ("sglang.multimodal_gen.registry",):
        logging.getLogger(name).addHandler(_Skips())
    from sglang.multimodal_gen import registry as reg

    discovery_error = None
    if hasattr(reg, "_discover_and_register_pipelines"):
        # releases before ~0.5.17 stop at the first pipeline module that does
        # not import (0.5.10: glm_image reads GPU properties at import): the
        # pipelines found until then are recorded, with the error
        try:
            reg._discover_and_register_pipelines()
        except Exception as exc:  # noqa: BLE001
            discovery_error = f"{type(exc).__name__}: {exc}"
    return {
        "hf_paths": sorted(getattr(reg, "_MODEL_HF_PATH_TO_NAME", {})),
        "pipeline_names": sorted(getattr(reg, "_PIPELINE_REGISTRY", {})),
        "skipped_modules": sorted(set(skipped)),
        "pipeline_discovery_error": discovery_error,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--wheel", required=True)
    ap.add_argument("--cases", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    cases = json.load(open(args.cases, encoding="utf-8"))
    from dump_option_strings import _warm_up_third_party_probes

    _warm_up_third_party_probes()
    _harness.warm_up_torch_probes()
    finder = _harness.oracle_stub_finder(__file__)
    sys.meta_path.append(finder)
    from sglang.version import __version__

    option_strings = _option_strings()
    registry = _registry()
    _patch_release()
    import sglang.cli.generate  # noqa: F401
    import sglang.cli.serve  # noqa: F401

    dirs = _model_dirs()
    results = []
    for case in cases:
        argv = [dirs.get(w, w) for w in case["argv"]]
        res = _harness.run_in_fork(lambda: run_case(case["command"], argv), timeout=120)
        results.append({**case, **res})
    data = {
        "sglang": __version__,
        "wheel": os.path.basename(args.wheel),
        "python": sys.version.split()[0],
        "source": "SGLang's own sglang/cli serve/generate for diffusion models (tests/oracle/diffusion_oracle.py)",
        "stubbed_modules": sorted(finder.stubbed),
        "option_strings": option_strings,
        "registry": registry,
        "cases": results,
    }
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=0)
        f.write("\n")
    counts: dict = {}
    for r in results:
        counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
    print(f"{args.out}: {len(results)} cases {counts}; option strings {[len(v) for v in option_strings.values()]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
