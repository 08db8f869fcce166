"""An attention backend the served model's architecture does not allow (Llama-4, GPT-OSS, OLMo-2, LFM2).

## What it does
When the model's architecture is known, checks the attention backends written
on the command line against SGLang's per-architecture rules of the target
release:

* Llama-4 (`Llama4ForConditionalGeneration`, `Llama4ForCausalLM`):
  `--attention-backend` must be one of `fa3`/`aiter` (0.5.1), `+triton`
  (0.5.2), `+trtllm_mha` (0.5.4), `+intel_xpu` (0.5.5), `+ascend` (0.5.10);
  not checked with `--device cpu` (0.5.4+).
* GPT-OSS (`GptOssForCausalLM`): the prefill and decode backends (from
  0.5.4; `--attention-backend` only before; a side left unset while the other
  is given stays `None`, as SGLang only auto-selects when none is given) must
  be one of
  `triton`/`trtllm_mha`/`fa3`, `+fa4` (0.5.4), `+ascend` (0.5.8), `+aiter`
  (0.5.10), `+intel_xpu` (0.5.11), `+intel_amx` (0.5.13).
* OLMo-2 (`Olmo2ForCausalLM`, 0.5.4+): `--attention-backend flashinfer` is
  refused.
* LFM2 (`Lfm2ForCausalLM` 0.5.9+, `Lfm2MoeForCausalLM` 0.5.17+):
  `--attention-backend triton` is refused.

An unknown architecture, or a backend SGLang picks itself, is not judged.

## Why is this bad?
The server stops at start-up with an `AssertionError`, e.g. `fa3, aiter,
triton, ascend, trtllm_mha or intel_xpu is required for Llama4 model but got
flashinfer`, `GptOssForCausalLM requires one of ['triton', 'trtllm_mha',
'fa3', ...] attention backend, but got the following backends`, `FlashInfer
backend can significantly degrade the performance of Olmo3 models.` or
`Lfm2ForCausalLM does not support triton attention backend, as the first
layer might not be an attention layer`.

## Example
```sh
python -m sglang.launch_server --model-path openai/gpt-oss-20b --attention-backend flashinfer
```

## Use instead
```sh
python -m sglang.launch_server --model-path openai/gpt-oss-20b --attention-backend triton
```

## References
- `sglang/srt/server_args.py` `ServerArgs._handle_model_specific_adjustments`
  (0.5.1–0.5.18) and `sglang/srt/arg_groups/model_hook.py` (0.5.19–0.5.23);
  the lists were read in every wheel 0.5.1–0.5.23 (0.5.4.post3, 0.5.5.post3,
  0.5.6.post2, 0.5.8.post1, 0.5.10.post1, 0.5.13.post1, 0.5.15.post1 for the
  post releases).
"""

from sgllint.model.rule import ERROR, Invalid, Rule, Valid
from sgllint.semantics import effective as eff

L = "python -m sglang.launch_server --model-path "
LLAMA4_ARCHS = ("Llama4ForConditionalGeneration", "Llama4ForCausalLM")

#: (since, allowed) per architecture family, newest last
LLAMA4 = (
    ("0.5.1", ("fa3", "aiter")),
    ("0.5.2", ("fa3", "aiter", "triton")),
    ("0.5.4", ("fa3", "aiter", "triton", "trtllm_mha")),
    ("0.5.5", ("fa3", "aiter", "triton", "trtllm_mha", "intel_xpu")),
    ("0.5.10", ("fa3", "aiter", "triton", "ascend", "trtllm_mha", "intel_xpu")),
)
GPT_OSS = (
    ("0.5.1", ("triton", "trtllm_mha", "fa3")),
    ("0.5.4", ("triton", "trtllm_mha", "fa3", "fa4")),
    ("0.5.8", ("triton", "trtllm_mha", "fa3", "fa4", "ascend")),
    ("0.5.10", ("triton", "trtllm_mha", "fa3", "fa4", "ascend", "aiter")),
    ("0.5.11", ("triton", "trtllm_mha", "fa3", "fa4", "ascend", "intel_xpu", "aiter")),
    ("0.5.13", ("triton", "trtllm_mha", "fa3", "fa4", "ascend", "intel_amx", "intel_xpu", "aiter")),
)


def _pick(table, v):
    found = None
    for since, allowed in table:
        if eff.at_least(v, since):
            found = allowed
    return found


def llama4_message(v, got):
    if not eff.at_least(v, "0.5.2"):
        return "fa3 or aiter is required for Llama4 model"
    if not eff.at_least(v, "0.5.4"):
        return "fa3, aiter, or triton is required for Llama4 model"
    if not eff.at_least(v, "0.5.5"):
        return "fa3, aiter, triton, or trtllm_mha is required for Llama4 model"
    if not eff.at_least(v, "0.5.10"):
        return f"fa3, aiter, triton, trtllm_mha or intel_xpu is required for Llama4 model but got {got}"
    return f"fa3, aiter, triton, ascend, trtllm_mha or intel_xpu is required for Llama4 model but got {got}"


class ModelAttentionBackendUnsupported(Rule):
    code = "SGL306"
    name = "model-attention-backend-unsupported"
    severity = ERROR

    VALID = [
        Valid.sh(f"{L}openai/gpt-oss-20b --attention-backend triton"),
        Valid.sh(f"{L}openai/gpt-oss-20b --prefill-attention-backend fa4 --decode-attention-backend trtllm_mha", sglang="0.5.8"),
        Valid.sh(f"{L}meta-llama/Llama-4-Scout-17B-16E-Instruct --tp-size 8 --attention-backend fa3"),
        Valid.sh(f"{L}meta-llama/Llama-4-Scout-17B-16E-Instruct --tp-size 8 --attention-backend flashinfer --device cpu"),
        Valid.sh(f"{L}allenai/OLMo-2-1124-7B-Instruct --attention-backend fa3"),
        Valid.sh(f"{L}allenai/OLMo-2-1124-7B-Instruct --attention-backend flashinfer", sglang="0.5.3"),
        Valid.sh(f"{L}LiquidAI/LFM2-1.2B --attention-backend flashinfer"),
        Valid.sh(f"{L}Qwen/Qwen3-8B --attention-backend flashinfer"),
        Valid.py(
            """
            import sglang as sgl
            llm = sgl.Engine(model_path="openai/gpt-oss-120b", tp_size=4, attention_backend="fa3")
            """
        ),
    ]
    INVALID = [
        Invalid.sh(f"{L}openai/gpt-oss-20b --attention-backend flashinfer", at="flashinfer",
                   message="GptOssForCausalLM requires one of"),
        Invalid.sh(f"{L}openai/gpt-oss-20b --prefill-attention-backend fa3 --decode-attention-backend flashinfer", at="flashinfer",
                   sglang="0.5.10"),
        Invalid.sh(f"{L}meta-llama/Llama-4-Scout-17B-16E-Instruct --tp-size 8 --attention-backend flashinfer", at="flashinfer",
                   message="is required for Llama4 model but got flashinfer"),
        Invalid.sh(f"{L}meta-llama/Llama-4-Scout-17B-16E-Instruct --tp-size 8 --attention-backend triton", at="triton",
                   sglang="0.5.1", message="fa3 or aiter is required for Llama4 model"),
        Invalid.sh(f"{L}allenai/OLMo-2-1124-7B-Instruct --attention-backend flashinfer", at="flashinfer",
                   message="degrade the performance of Olmo3 models"),
        Invalid.sh(f"{L}LiquidAI/LFM2-1.2B --attention-backend triton", at="triton", sglang="0.5.12",
                   message="Lfm2ForCausalLM does not support triton attention backend"),
        Invalid.sh(f"{L}openai/gpt-oss-20b --prefill-attention-backend fa3", at="fa3", message="- Decode: None"),
        Invalid.py(
            """
            import sglang as sgl
            llm = sgl.Engine(model_path="openai/gpt-oss-120b", tp_size=4, attention_backend="flashinfer")
            """,
            at='"flashinfer"',
        ),
        Invalid.yaml(
            """
            apiVersion: v1
            kind: Pod
            metadata:
              name: llama4
            spec:
              containers:
                - name: sglang
                  image: lmsysorg/sglang:v0.5.23
                  command: ["python3", "-m", "sglang.launch_server"]
                  args: ["--model-path", "meta-llama/Llama-4-Scout-17B-16E-Instruct", "--tp-size", "8", "--attention-backend", "flashinfer"]
            """,
            at='"flashinfer"',
        ),
    ]

    def check(self, launch):
        v = eff.version(launch)
        arch = launch.context.arch
        if not arch or not eff.at_least(v, "0.5.1") or launch.opaque:
            return
        b = eff.backends(launch)
        if not b.known:
            return
        device = eff.given(launch, "device")
        if device is eff.UNKNOWN:
            return
        found = None
        if arch == "GptOssForCausalLM":
            found = self._gpt_oss(launch, v, b)
        elif arch in LLAMA4_ARCHS or (not eff.at_least(v, "0.5.15") and "Llama4" in arch):
            if device == "cpu" and eff.at_least(v, "0.5.4"):
                return
            found = self._single(launch, b, lambda x: x not in _pick(LLAMA4, v), lambda x: llama4_message(v, x))
        elif arch == "Olmo2ForCausalLM" and eff.at_least(v, "0.5.4"):
            found = self._single(launch, b, lambda x: x == "flashinfer",
                                 lambda x: "FlashInfer backend can significantly degrade the performance of Olmo3 models.")
        elif (arch == "Lfm2ForCausalLM" and eff.at_least(v, "0.5.9")) or (arch == "Lfm2MoeForCausalLM" and eff.at_least(v, "0.5.17")):
            found = self._single(launch, b, lambda x: x == "triton",
                                 lambda x: f"{arch} does not support triton attention backend, as the first layer might not be an attention layer")
        if found is None:
            return
        arg, backend, msg, fix = found
        yield self.diagnostic(
            arg.value_span or arg.span,
            f"{arch} cannot run on the {backend} attention backend; SGLang {v} stops at start-up: \"{msg}\"",
            help=fix,
            related=eff.model_related(launch),
            launch=launch,
        )

    @staticmethod
    def _single(launch, b, bad, message):
        """Checks of ``attention_backend`` alone (Llama-4, OLMo-2, LFM2)."""
        if b.attention is None or (b.prefill_given is not None and b.prefill_given == b.decode_given):
            return None
        if not bad(b.attention):
            return None
        arg = launch.last("attention_backend")
        return arg, b.attention, message(b.attention), "choose an attention backend this model supports (e.g. fa3 on Hopper, triton elsewhere; flashinfer for LFM2)"

    @staticmethod
    def _gpt_oss(launch, v, b):
        allowed = _pick(GPT_OSS, v)
        if not eff.at_least(v, "0.5.4"):
            if b.attention is None or b.attention in allowed:
                return None
            msg = f"GptOssForCausalLM requires one of {list(allowed)} attention backend, but got '{b.attention}'"
            return launch.last("attention_backend"), b.attention, msg, f"use one of {', '.join(allowed)}"
        prefill, decode = b.prefill, b.decode
        if prefill is None and decode is None:
            return None  # auto-selected by SGLang
        # with only one side given, SGLang selects no default and the other side stays None
        for role, value in (("prefill", prefill), ("decode", decode)):
            if value in allowed:
                continue
            if value is None:
                field = "decode_attention_backend" if role == "prefill" else "prefill_attention_backend"
            else:
                field = "prefill_attention_backend" if (role == "prefill" and b.prefill_given) else (
                    "decode_attention_backend" if (role == "decode" and b.decode_given) else "attention_backend")
            msg = (f"GptOssForCausalLM requires one of {list(allowed)} attention backend, but got the following backends\\n"
                   f"- Prefill: {prefill}\\n- Decode: {decode}\\n")
            return launch.last(field), value, msg, f"use one of {', '.join(allowed)} for both prefill and decode"
        return None
