"""Generate launches for the diffusion oracle from the generated data.

``python -m tests.oracle.diffusion_cases 0.5.23 > cases.json``

Deterministic (seeded by release and command).  ``sglang serve`` and ``sglang
generate`` of a local diffusers model (``MODEL_DIR``, replaced by the oracle):
valid launches and invalid ones as for the wrapper oracle (`wrapper_cases`),
plus what is particular to multimodal_gen: dynamic component flags
(``--vae-path X``, ``--component-paths.vae X``, the other extractors' forms,
with and without a value), ``StoreBoolean`` values, unknown flags (refused
or silently ignored, by release), a pipeline's own flags.  Then routing cases
for ``sglang serve``: registered model ids and their variants, the name
patterns, ``--model-type``, a bare first word, local directories with and
without a diffusers index (``MODEL_DIR``/``LLM_DIR``).
"""

from __future__ import annotations

import json
import random
import sys

from sgllint.catalog import diffusion
from tests.oracle.wrapper_cases import _invalid, _unique_prefix, _usable, _valid_words

#: options the harness keeps for itself (the model, files it would read)
_HELD = {"--model-path", "--model", "--config", "--pipeline", "--pipeline-class-name", "--model-id",
         "--pipeline-config-path", "--prompt-file-path", "--mask-strategy-file-path", "--lora-path",
         "--prompt-path", "--image-path", "--image-paths"}


def _component_words(extractor: dict, rng: random.Random, valid: bool) -> list[str]:
    prefix = rng.choice(extractor["prefixes"]) if extractor["prefixes"] else None
    suffix = extractor.get("alias_suffix")
    flag = f"{prefix}vae" if prefix and (not suffix or rng.random() < 0.5) else f"--vae{suffix}"
    if not valid:
        return [flag]  # no value
    if extractor["kind"] == "bool":
        return rng.choice([[flag], [flag, "false"], [f"{flag}=true"]])
    if extractor["kind"] == "multi":
        return rng.choice([[flag, "a", "b"], [f"{flag}=a"]])
    return rng.choice([[flag, "x"], [f"{flag}=x"]])


def _options(release: diffusion.DiffusionRelease, command: str):
    return [o for o in _usable(release.parser(command)) if not set(o.strings) & _HELD]


def command_cases(release: diffusion.DiffusionRelease, command: str, n: int = 240) -> list[dict]:
    rng = random.Random(f"diffusion-{release.version}-{command}")
    opts = _options(release, command)
    left = release.commands[command].leftovers
    extractors = left["extractors"] if isinstance(left, dict) else []
    booleans = [o for o in opts if o.accepts]
    unique = _unique_prefix(opts)
    out = []
    for i in range(n):
        mode = i % 6
        words = _valid_words(opts, rng, rng.randint(1, 4))
        if mode == 1:
            words = _invalid(opts, rng, False)
        elif mode == 2:
            words = _valid_words(opts, rng, 2) + _invalid(opts, rng, False) + _valid_words(opts, rng, 1)
        elif mode == 3 and extractors:
            words += _component_words(rng.choice(extractors), rng, valid=rng.random() < 0.75)
        elif mode == 4 and booleans:
            o = rng.choice(booleans)
            words += rng.choice([[o.strings[0]], [o.strings[0], "true"], [o.strings[0], "FALSE"], [o.strings[0], "maybe"], [f"{o.strings[0]}=nope"]])
        elif mode == 5 and unique and rng.random() < 0.5:
            p, o = unique
            words += [p, "1"] if o.takes_value and o.type in ("int", "float", "str") and not o.choices else [p] if not o.takes_value else []
        out.append({"command": command, "argv": ["--model-path", "MODEL_DIR", *words]})
    return out + _pipeline_cases(release, command) + _not_implemented(release, command)


def _pipeline_cases(release: diffusion.DiffusionRelease, command: str) -> list[dict]:
    out = []
    for pipeline, ident in sorted(release.pipeline_options.items()):
        for o in release.parsers[ident].options:
            flag = o.strings[0]
            extra = [flag, "0.5"] if o.type == "float" else [flag] if o.accepts else [flag, "x"]
            out.append({"command": command, "argv": ["--model-path", "MODEL_DIR", "--pipeline-class-name", pipeline, *extra]})
            out.append({"command": command, "argv": ["--model-path", "MODEL_DIR", *extra]})
    return out


def _not_implemented(release: diffusion.DiffusionRelease, command: str) -> list[dict]:
    return [
        {"command": command, "argv": ["--model-path", "MODEL_DIR", o.strings[0], "x"]}
        for o in release.parser(command).options
        if o.raises
    ]


def routing_cases(release: diffusion.DiffusionRelease, n: int = 60) -> list[dict]:
    rng = random.Random(f"diffusion-route-{release.version}")
    reg = release.routing["registry"]
    ids = sorted(reg["hf_paths"])
    models = []
    for hf_id in rng.sample(ids, min(12, len(ids))):
        short = hf_id.split("/")[-1]
        models += [hf_id, f"someone/{short}-finetune", f"/models/models--{hf_id.replace('/', '--')}/snapshots/abc"]
    models += sorted(reg["patterns"])[:6]
    models += ["meta-llama/Llama-3.1-8B-Instruct", "Qwen/Qwen3-8B", "deepseek-ai/DeepSeek-V3", "LLM_DIR", "MODEL_DIR"]
    out = []
    for model in models:
        out.append({"command": "serve", "argv": ["--model-path", model]})
    model_type = release.routing.get("model_type")
    if model_type:
        for value in model_type["values"] + ["bogus"]:
            out.append({"command": "serve", "argv": ["--model-path", "LLM_DIR", "--model-type", value]})
            out.append({"command": "serve", "argv": [f"--model-type={value}", "--model-path", "MODEL_DIR"]})
    for model in ("MODEL_DIR", "LLM_DIR", ids[0] if ids else "x/y"):
        out.append({"command": "serve", "argv": [model, "--port", "30000"]})
    out.append({"command": "serve", "argv": ["--port", "30000"]})
    return out[: max(n, len(out))]


def main(argv: list[str]) -> int:
    release = diffusion.load(argv[0])
    cases = []
    for command in release.commands:
        cases += command_cases(release, command)
    cases += [dict(c, routing=True) for c in routing_cases(release)]
    json.dump(cases, sys.stdout, indent=0)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
