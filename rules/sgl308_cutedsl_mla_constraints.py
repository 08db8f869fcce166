"""`cutedsl_mla` (or `tokenspeed_mla`) as prefill backend, off Blackwell, with an unsupported KV-cache dtype or a non-MLA model.

## What it does
From SGLang 0.5.13 (where `cutedsl_mla` appears), checks a launch that names
`cutedsl_mla` in `--attention-backend`, `--decode-attention-backend` or
`--prefill-attention-backend` (in 0.5.23 also the deprecated alias
`tokenspeed_mla`, renamed to `cutedsl_mla` for the attention/decode roles),
in SGLang's order:

1. `--prefill-attention-backend cutedsl_mla` is refused (decode-only kernel).
   `--attention-backend cutedsl_mla` alone is fine: SGLang then sets the
   prefill backend to `trtllm_mla` (and a `tokenspeed_mla` prefill becomes
   `trtllm_mla` in 0.5.23);
2. a pinned GPU that is not SM10x (`is_sm100_supported()` /
   `get_platform().is_sm100`; without a pinned GPU this is not judged);
3. an explicit `--kv-cache-dtype` other than `fp8_e4m3`, `bf16`, `bfloat16`,
   `auto` (not for the 0.5.23 alias, which forces `fp8_e4m3`);
4. a model whose architecture is known not to use MLA, when `cutedsl_mla`
   is the decode backend (the attention registry refuses it when the model
   runner builds the backend).

Before 0.5.23, `tokenspeed_mla` (0.5.12–0.5.22) is a backend of its own, as
`--attention-backend` or `--decode-attention-backend`: it needs a pinned GPU
that is SM10x/SM11x/SM12x (`is_blackwell_supported()` /
`get_platform().is_blackwell`) and `--kv-cache-dtype fp8_e4m3`: another
explicit value is reported, and so is the default `auto` when the model's
architecture is known and no model override replaces it (DeepSeek DSA models,
DeepSeek-V4 and Kimi-K3 get `fp8_e4m3` from SGLang).

## Why is this bad?
SGLang stops at start-up, while resolving the arguments, with
`AssertionError: CuteDSL MLA only supports decoding for now`, `ValueError:
CuteDSL MLA backend is only supported on Blackwell GPUs (SM100). Please use a
different backend.`, `ValueError: CuteDSL MLA backend only supports
kv-cache-dtype of fp8_e4m3, bf16, or auto.`, `ValueError: tokenspeed_mla
backend is only supported on Blackwell GPUs (SM100/SM12x).` or `ValueError:
tokenspeed_mla backend requires kv-cache-dtype=fp8_e4m3, got fp8_e5m2.`; with a non-MLA model it gets as
far as loading the model and fails with `ValueError: cutedsl_mla backend can
only be used with MLA models.`

## Example
```sh
# sgllint: gpu=B200
python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp-size 8 --prefill-attention-backend cutedsl_mla
```

## Use instead
```sh
# sgllint: gpu=B200
python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp-size 8 --attention-backend cutedsl_mla
```

## References
- `sglang/srt/server_args.py` `ServerArgs._handle_attention_backend_compatibility`
  (0.5.13.post1 :2936–2963, 0.5.14 :4580–4607) and, from 0.5.15.post1,
  `sglang/srt/arg_groups/overrides.py` `_cutedsl_prefill_backend_fill`
  (0.5.19 :1253–1283, 0.5.23 :1233–1259); the checks and the kv-cache dtype
  list are identical in every wheel 0.5.13.post1–0.5.23 (0.5.12 has only
  `tokenspeed_mla`).
- `sglang/srt/arg_groups/serving_hook.py` `_handle_deprecated_args` (0.5.23
  :304–331): `tokenspeed_mla` → `cutedsl_mla` (prefill → `trtllm_mla`, KV
  forced to `fp8_e4m3`); before it, `tokenspeed_mla`'s own checks in
  `_handle_attention_backend_compatibility` (0.5.12 :2733–2751) and
  `overrides.py` (0.5.15.post1–0.5.22; 0.5.19 :1225–1238).
- `sglang/srt/layers/attention/attention_registry.py`
  `create_cutedsl_mla_backend` (0.5.13.post1 :77–80, 0.5.23 :118–121).
"""

from sgllint.model.rule import ERROR, Invalid, Rule, Valid
from sgllint.semantics import effective as eff

DSV3 = "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp-size 8"
QWEN = "python -m sglang.launch_server --model-path Qwen/Qwen3-8B"
KV_OK = ("fp8_e4m3", "bf16", "bfloat16", "auto")
PREFILL_MSG = "CuteDSL MLA only supports decoding for now"
SM_MSG = "CuteDSL MLA backend is only supported on Blackwell GPUs (SM100). Please use a different backend."
KV_MSG = "CuteDSL MLA backend only supports kv-cache-dtype of fp8_e4m3, bf16, or auto."
MLA_MSG = "cutedsl_mla backend can only be used with MLA models."
#: architectures whose model overrides replace the default KV-cache dtype (DeepSeek DSA models are
#: recognised by `effective.is_dsa`): `_deepseek_v4_kv_cache_dtype`, Kimi-K3's DCP override
KV_OVERRIDE_ARCHS = {"DeepseekV4ForCausalLM", "KimiK3ForConditionalGeneration"}
TS_SM_MSG = "tokenspeed_mla backend is only supported on Blackwell GPUs (SM100/SM12x)."


class CutedslMlaConstraints(Rule):
    code = "SGL308"
    name = "cutedsl-mla-constraints"
    severity = ERROR

    VALID = [
        Valid.sh(f"# sgllint: gpu=B200\n{DSV3} --attention-backend cutedsl_mla"),
        Valid.sh(f"# sgllint: gpu=B200\n{DSV3} --decode-attention-backend cutedsl_mla --prefill-attention-backend trtllm_mla "
                 "--kv-cache-dtype fp8_e4m3"),
        Valid.sh(f"{DSV3} --attention-backend cutedsl_mla --kv-cache-dtype bf16"),
        Valid.sh(f"# sgllint: gpu=H100\n{DSV3} --attention-backend fa3"),
        Valid.sh(f"# sgllint: gpu=RTXPRO6000\n{DSV3} --attention-backend tokenspeed_mla --kv-cache-dtype fp8_e4m3", sglang="0.5.19"),
        Valid.py(
            """
            # sgllint: gpu=B200
            import sglang as sgl
            llm = sgl.Engine(model_path="deepseek-ai/DeepSeek-V3", tp_size=8, decode_attention_backend="cutedsl_mla")
            """
        ),
        Valid.yaml(
            """
            # sgllint: gpu=B200
            containers:
              - name: sglang
                command: ["python3", "-m", "sglang.launch_server"]
                args: ["--model-path", "deepseek-ai/DeepSeek-V3", "--tp-size", "8", "--attention-backend", "cutedsl_mla"]
            """
        ),
    ]
    INVALID = [
        Invalid.sh(f"# sgllint: gpu=B200\n{DSV3} --prefill-attention-backend cutedsl_mla", at="cutedsl_mla",
                   message=PREFILL_MSG),
        Invalid.sh(f"{DSV3} --attention-backend trtllm_mla --prefill-attention-backend cutedsl_mla", at="cutedsl_mla",
                   message=PREFILL_MSG),
        Invalid.sh(f"# sgllint: gpu=H100\n{DSV3} --attention-backend cutedsl_mla", at="cutedsl_mla", message=SM_MSG),
        Invalid.sh(f"# sgllint: gpu=RTXPRO6000\n{DSV3} --decode-attention-backend cutedsl_mla", at="cutedsl_mla",
                   sglang="0.5.13"),
        Invalid.sh(f"# sgllint: gpu=H100\n{DSV3} --attention-backend tokenspeed_mla", at="tokenspeed_mla", sglang="0.5.23",
                   message=SM_MSG),
        Invalid.sh(f"# sgllint: gpu=H100\n{DSV3} --decode-attention-backend tokenspeed_mla --kv-cache-dtype fp8_e4m3",
                   at="tokenspeed_mla", sglang="0.5.19", message=TS_SM_MSG),
        Invalid.sh(f"# sgllint: gpu=B200\n{DSV3} --attention-backend tokenspeed_mla --kv-cache-dtype bf16", at="bf16",
                   sglang="0.5.19", message="tokenspeed_mla backend requires kv-cache-dtype=fp8_e4m3, got bf16."),
        Invalid.sh(f"# sgllint: gpu=B200\n{DSV3} --attention-backend tokenspeed_mla", at="tokenspeed_mla", sglang="0.5.22",
                   message="got auto."),
        Invalid.sh(f"# sgllint: gpu=B200\n{DSV3} --attention-backend cutedsl_mla --kv-cache-dtype fp8_e5m2", at="fp8_e5m2",
                   message=KV_MSG),
        Invalid.sh(f"# sgllint: gpu=B200\n{QWEN} --attention-backend cutedsl_mla", at="cutedsl_mla", message=MLA_MSG),
        Invalid.py(
            """
            # sgllint: gpu=H200
            import sglang as sgl
            llm = sgl.Engine(model_path="deepseek-ai/DeepSeek-V3", tp_size=8, attention_backend="cutedsl_mla")
            """,
            at='"cutedsl_mla"',
        ),
        Invalid.toml(
            """
            [tool.poe.tasks]
            serve = "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp-size 8 --prefill-attention-backend cutedsl_mla"
            """,
            at="cutedsl_mla",
        ),
    ]

    def check(self, launch):
        v = eff.version(launch)
        if launch.opaque or not eff.at_least(v, "0.5.12"):
            return
        b = eff.backends(launch)
        if not b.known:
            return
        device = eff.given(launch, "device")
        if device is eff.UNKNOWN or (isinstance(device, str) and not device.startswith("cuda")):
            return
        alias = eff.at_least(v, "0.5.23")
        if not alias and eff.at_least(v, "0.5.12") and b.any("tokenspeed_mla", ("attention", "decode")):
            yield from self._tokenspeed(launch, v)
            return

        def name(x, role):
            if alias and x == "tokenspeed_mla":
                return "trtllm_mla" if role == "prefill" else "cutedsl_mla"
            return x

        attention = name(b.attention, "attention")
        prefill = name(b.prefill_given, "prefill")
        decode = name(b.decode_given, "decode")
        if "cutedsl_mla" not in (attention, prefill, decode) or not eff.at_least(v, "0.5.13"):
            return
        only_alias = "cutedsl_mla" not in (b.attention, b.prefill_given, b.decode_given)

        def anchor():
            for field, val in (("decode_attention_backend", decode), ("attention_backend", attention),
                               ("prefill_attention_backend", prefill)):
                if val == "cutedsl_mla":
                    arg = launch.last(field)
                    return arg, arg.value
            return None, None

        if prefill == "cutedsl_mla":
            arg = launch.last("prefill_attention_backend")
            yield self._report(launch, arg, "cutedsl_mla is decode-only, but it is the prefill backend", PREFILL_MSG,
                               "use --attention-backend cutedsl_mla (SGLang then prefills with trtllm_mla) or "
                               "--decode-attention-backend cutedsl_mla with --prefill-attention-backend trtllm_mla")
            return
        arg, written = anchor()
        g = eff.gpu(launch)
        if g is not None and eff.gpu_fails(g, (10,)):
            yield self._report(launch, arg, f"{written} needs an SM10x GPU, but the target is {g.describe()}", SM_MSG,
                               "on Hopper use --attention-backend fa3 or flashmla; triton works everywhere",
                               related=eff.gpu_related(launch))
            return
        kv = eff.given(launch, "kv_cache_dtype")
        if not only_alias and isinstance(kv, str) and kv not in KV_OK:
            kv_arg = launch.last("kv_cache_dtype")
            yield self._report(launch, kv_arg, f"cutedsl_mla with --kv-cache-dtype {kv}", KV_MSG,
                               "use --kv-cache-dtype fp8_e4m3 (or bf16/auto) with cutedsl_mla",
                               related=[(arg.value_span or arg.span, written)])
            return
        decode_eff = decode if decode is not None else attention
        if decode_eff == "cutedsl_mla" and eff.is_mla(launch) is False:
            yield self._report(launch, arg, f"{launch.context.arch} is not an MLA model", MLA_MSG,
                               "cutedsl_mla runs only MLA models (DeepSeek-V2/V3/R1, Kimi-K2, ...); use trtllm_mha, fa3 or "
                               "flashinfer for this model", related=eff.model_related(launch), when="when it loads the model")

    def _tokenspeed(self, launch, v):
        arg = eff.backend_arg(launch, "tokenspeed_mla", ("decode", "attention"))
        g = eff.gpu(launch)
        if g is not None and eff.gpu_fails(g, (10, 11, 12)):
            yield self._report(launch, arg, f"tokenspeed_mla needs an SM10x/SM11x/SM12x GPU, but the target is {g.describe()}",
                               TS_SM_MSG, "on Hopper use --attention-backend fa3 or flashmla; triton works everywhere",
                               related=eff.gpu_related(launch))
            return
        kv = eff.given(launch, "kv_cache_dtype")
        if isinstance(kv, str) and kv != "fp8_e4m3":
            yield self._report(launch, launch.last("kv_cache_dtype"), f"tokenspeed_mla with --kv-cache-dtype {kv}",
                               f"tokenspeed_mla backend requires kv-cache-dtype=fp8_e4m3, got {kv}.",
                               "use --kv-cache-dtype fp8_e4m3 with tokenspeed_mla",
                               related=[(arg.value_span or arg.span, "tokenspeed_mla")])
            return
        arch = launch.context.arch
        if kv is None and arch and eff.is_dsa(launch) is False and arch not in KV_OVERRIDE_ARCHS:
            default = eff.default(launch, "kv_cache_dtype")
            if isinstance(default, str) and default != "fp8_e4m3":
                yield self._report(launch, arg, f"tokenspeed_mla without --kv-cache-dtype fp8_e4m3 ({arch} keeps the "
                                   f"default {default})",
                                   f"tokenspeed_mla backend requires kv-cache-dtype=fp8_e4m3, got {default}.",
                                   "add --kv-cache-dtype fp8_e4m3", related=eff.model_related(launch))

    def _report(self, launch, arg, what, msg, help, related=(), when="at start-up"):
        return self.diagnostic(
            arg.value_span or arg.span,
            f"{what}; SGLang {eff.version(launch)} stops {when}: \"{msg}\"",
            help=help,
            related=list(related),
            launch=launch,
        )
