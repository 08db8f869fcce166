"""`--encoder-only` together with `--language-only`, or with `--disaggregation-mode prefill|decode`.

## What it does
Finds encoder-disaggregation launches that ask one server to be both the
multimodal encoder and the language model, or to be an encoder server and a
PD prefill/decode server at once; and, in 0.5.7–0.5.12, a `--language-only`
server without `--encoder-urls` (from 0.5.13 encoders may register
dynamically, and SGLang only logs it).

## Why is this bad?
The server stops at start-up with `ValueError: Cannot set --encoder-only and
--language-only together` (or `Cannot set --encoder-only and
--disaggregation-mode prefill/decode together`, or, 0.5.7–0.5.12,
`ValueError: requires at least one encoder urls to be set via
--encoder-urls`).

## Example
```sh
python -m sglang.launch_server --model-path Qwen/Qwen2.5-VL-7B-Instruct --encoder-only --language-only
```

## Use instead
```sh
python -m sglang.launch_server --model-path Qwen/Qwen2.5-VL-7B-Instruct --encoder-only
```

## References
- `sglang/srt/server_args.py` `ServerArgs._handle_encoder_disaggregation`
  (0.5.7-0.5.18) and `sglang/srt/arg_groups/pd_disaggregation_hook.py`
  (0.5.19-0.5.23); both checks are in every wheel 0.5.7-0.5.23.
- `--language-only` without `--encoder-urls`: a `ValueError` in
  `ServerArgs._handle_encoder_disaggregation` of 0.5.7–0.5.12
  (0.5.10.post1 `server_args.py:3280`), an info message from 0.5.13
  (`pd_disaggregation_hook.py:316` in 0.5.23); found by the rule-pack oracle.
"""

from sgllint.model.rule import ERROR, Invalid, Rule, Valid
from sgllint.semantics import effective as eff

VL = "python -m sglang.launch_server --model-path Qwen/Qwen2.5-VL-7B-Instruct"


class EncoderOnlyWithLanguageOnly(Rule):
    code = "SGL235"
    name = "encoder-only-with-language-only"
    severity = ERROR

    VALID = [
        Valid.sh(f"{VL} --encoder-only"),
        Valid.sh(f"{VL} --language-only"),
        Valid.sh(f"{VL} --language-only --encoder-urls http://10.0.0.2:30000", sglang="0.5.10"),
        Valid.py(
            """
            import sglang as sgl
            llm = sgl.Engine(model_path="Qwen/Qwen2.5-VL-7B-Instruct", encoder_only=True, language_only=False)
            """
        ),
    ]
    INVALID = [
        Invalid.sh(f"{VL} --encoder-only --language-only", at="--language-only", message="Cannot set --encoder-only and --language-only"),
        Invalid.sh(f"{VL} --encoder-only --disaggregation-mode prefill", at="prefill", message="--disaggregation-mode prefill/decode",
                   sglang="0.5.10"),
        Invalid.sh(f"{VL} --language-only", at="--language-only", message="--encoder-urls", sglang="0.5.10"),
        Invalid.py(
            """
            import sglang as sgl
            llm = sgl.Engine(model_path="Qwen/Qwen2.5-VL-7B-Instruct", encoder_only=True, language_only=True)
            """,
            at="language_only",
        ),
    ]

    def _language_without_encoders(self, launch, v, enc):
        if eff.at_least(v, "0.5.13") or launch.opaque:
            return
        lang = launch.last("language_only")
        if lang is None or lang.value is not True or (enc is not None and enc.value is not False):
            return
        urls = launch.last("encoder_urls")
        if urls is not None and (not urls.known or urls.value):
            return
        yield self.diagnostic(
            lang.flag_span,
            f"SGLang {v} refuses a --language-only server without --encoder-urls at start-up: "
            "\"requires at least one encoder urls to be set via --encoder-urls\"",
            help="pass the encoder servers with --encoder-urls URL [URL ...] (dynamic registration arrives in 0.5.13)",
            launch=launch,
        )

    def check(self, launch):
        v = eff.version(launch)
        if not eff.at_least(v, "0.5.7") or not eff.has_field(launch, "encoder_only"):
            return
        enc = launch.last("encoder_only")
        if enc is None or enc.value is not True:
            yield from self._language_without_encoders(launch, v, enc)
            return
        lang = launch.last("language_only")
        if lang is not None and lang.value is True:
            yield self.diagnostic(
                lang.flag_span,
                f"SGLang {v} refuses --encoder-only with --language-only at start-up: "
                "\"Cannot set --encoder-only and --language-only together\"",
                help="run the encoder and the language model as two servers: one with --encoder-only, one with --language-only",
                related=[(enc.flag_span, "encoder-only server")],
                launch=launch,
            )
            return
        mode = eff.given(launch, "disaggregation_mode")
        if mode in ("prefill", "decode"):
            yield self.diagnostic(
                eff.span_of(launch, "disaggregation_mode"),
                f"SGLang {v} refuses --encoder-only with --disaggregation-mode {mode} at start-up: "
                "\"Cannot set --encoder-only and --disaggregation-mode prefill/decode together\"",
                help="an encoder server is not a PD prefill/decode server: drop --disaggregation-mode on it",
                related=[(enc.flag_span, "encoder-only server")],
                launch=launch,
            )
