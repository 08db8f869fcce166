"""LoRA serving with a speculative algorithm SGLang does not combine with it.

## What it does
When LoRA is on (`--enable-lora`, or `--lora-paths`, which turns it on),
checks `--speculative-algorithm`: 0.5.5–0.5.18 allow only `NGRAM`; from
0.5.19 `NGRAM`, `EAGLE`/`NEXTN`, `EAGLE3`, `DFLASH` and `DSPARK`.

## Why is this bad?
SGLang raises at start-up: `ValueError: Currently LoRA is only compatible
with NGRAM speculative decoding.` (0.5.5–0.5.18), later `LoRA is only
compatible with NGRAM, EAGLE, NEXTN, EAGLE3, DFLASH, or DSPARK speculative
decoding, not STANDALONE.`

## Example
```sh
python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct --enable-lora --lora-paths my-adapter --speculative-algorithm STANDALONE --speculative-draft-model-path meta-llama/Llama-3.2-1B-Instruct
```

## Use instead
```sh
python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct --enable-lora --lora-paths my-adapter --speculative-algorithm NGRAM
```

## References
- `sglang/srt/server_args.py` `ServerArgs.check_lora_server_args`
  (0.5.5–0.5.18), `sglang/srt/arg_groups/lora_hook.py`
  `check_lora_speculative_compatibility` (0.5.19+).
"""

from sgllint.model.rule import ERROR, Invalid, Rule, Valid
from sgllint.semantics import parallel as par

L = "python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct --enable-lora --lora-paths my-adapter"
DRAFT = "--speculative-draft-model-path jamesliu1/sglang-EAGLE-Llama-3.1-Instruct-8B"
OLD = "Currently LoRA is only compatible with NGRAM speculative decoding."
ALLOWED = ("NGRAM", "EAGLE", "NEXTN", "EAGLE3", "DFLASH", "DSPARK")


class LoraIncompatibleSpeculativeAlgorithm(Rule):
    code = "SGL218"
    name = "lora-incompatible-speculative-algorithm"
    severity = ERROR

    VALID = [
        Valid.sh(f"{L} --speculative-algorithm NGRAM"),
        Valid.sh(f"{L} --speculative-algorithm EAGLE {DRAFT}"),
        Valid.sh(f"{L} --speculative-algorithm EAGLE {DRAFT}", sglang="0.5.4"),
        Valid.sh(f"{L} --speculative-algorithm $ALG"),
        Valid.py(
            """
            import sglang as sgl
            llm = sgl.Engine(model_path="meta-llama/Llama-3.1-8B-Instruct", enable_lora=True, lora_paths=["my-adapter"], speculative_algorithm="NGRAM")
            """
        ),
    ]
    INVALID = [
        Invalid.sh(
            f"{L} --speculative-algorithm STANDALONE --speculative-draft-model-path meta-llama/Llama-3.2-1B-Instruct",
            at="STANDALONE",
            message="DFLASH, or DSPARK speculative decoding, not STANDALONE.",
        ),
        Invalid.sh(f"{L} --speculative-algorithm EAGLE {DRAFT}", at=("EAGLE", 1), sglang="0.5.18", message=OLD),
        Invalid.py(
            """
            import sglang as sgl
            llm = sgl.Engine(model_path="meta-llama/Llama-3.1-8B-Instruct", lora_paths=["my-adapter"],
                             speculative_algorithm="EAGLE3", speculative_draft_model_path="my-eagle3-draft")
            """,
            at='"EAGLE3"',
            sglang="0.5.10",
            message=OLD,
        ),
    ]

    def check(self, launch):
        if not par.at_least(launch, "0.5.5"):
            return
        spec = par.speculative(launch)
        if spec is None or spec.name == "NGRAM":
            return
        enabled, lora_arg = par.flag_value(launch, "enable_lora")
        paths = launch.last("lora_paths")
        if not par.known(enabled) or (lora_arg is not None and lora_arg.value is False):
            return
        if not enabled:
            if paths is None or not paths.known or not paths.value:
                return
            lora_arg = paths
        new = par.at_least(launch, "0.5.19")
        if new:
            if spec.name in ALLOWED:
                return
            promoted = (
                " (NEXTN/EAGLE with a Gemma4 assistant draft is automatically promoted to FROZEN_KV_MTP, which does not support LoRA)"
                if spec.name == "FROZEN_KV_MTP"
                else ""
            )
            message = f"LoRA is only compatible with NGRAM, EAGLE, NEXTN, EAGLE3, DFLASH, or DSPARK speculative decoding, not {spec.name}{promoted}."
        else:
            message = OLD
        yield self.diagnostic(
            par.value_span(spec.arg),
            f"SGLang {launch.context.catalog.version} rejects this at start-up: '{message}'",
            help="use NGRAM" + (", EAGLE/EAGLE3, DFLASH or DSPARK" if new else "") + " speculative decoding with LoRA, or serve the adapters without it",
            related=[(lora_arg.span, "LoRA on")],
            launch=launch,
        )
