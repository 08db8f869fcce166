"""`--enable-mixed-chunk` that SGLang silently switches off because of the speculative algorithm.

## What it does
When `--enable-mixed-chunk` is given together with a speculative algorithm
whose handler turns it off, reports that mixed chunked prefill will not run.
Up to 0.5.18 every algorithm does so (EAGLE, EAGLE3, NEXTN, STANDALONE,
NGRAM, DFLASH, FROZEN_KV_MTP, DSPARK); from 0.5.19 EAGLE, EAGLE3 (and NEXTN,
an EAGLE alias), DFLASH and DSPARK keep it
(`SpeculativeAlgorithm.supports_mixed_chunk()`), while STANDALONE, NGRAM,
FROZEN_KV_MTP and UNO still switch it off. Launches SGLang rejects anyway
(STANDALONE / NGRAM with attention DP, pipeline parallelism) are left to
SGL215 / SGL212.

## Why is this bad?
Nothing fails: SGLang sets `enable_mixed_chunk = False` before its own check
(`enable_mixed_chunk is required for speculative decoding` up to 0.5.18,
`enable_mixed_chunk is not supported with speculative_algorithm=X` from
0.5.19) can trip, logging `Mixed chunked prefill is disabled because of using
eagle speculative decoding.` (0.5.19+: `Mixed chunked prefill is disabled:
STANDALONE speculative decoding does not support it.`) — and for NGRAM
nothing at all. Decode batches are not mixed with prefill chunks, so the
latency behaviour the flag was added for does not happen.

## Example
```sh
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --speculative-algorithm NGRAM --enable-mixed-chunk
```

## Use instead
```sh
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --speculative-algorithm NGRAM
```

## References
- `sglang/srt/server_args.py` `ServerArgs._handle_speculative_decoding`
  (0.5.1–0.5.12: `if self.enable_mixed_chunk: self.enable_mixed_chunk =
  False` in the EAGLE/EAGLE3/STANDALONE, DFLASH (0.5.11+) and FROZEN_KV_MTP
  (0.5.12+) branches; unconditional in the NGRAM branch, 0.5.3+) and
  `sglang/srt/arg_groups/speculative_hook.py` (`_handle_eagle_family`,
  `_handle_dflash`, `_handle_dspark`, `_handle_frozen_kv_mtp`, `_handle_ngram`,
  `_handle_uno`; 0.5.13–0.5.23). From 0.5.19 `_handle_eagle_family` only
  disables it when `not algo.supports_mixed_chunk()`
  (`sglang/srt/speculative/spec_info.py`: EAGLE, EAGLE3, DFLASH, DSPARK).
  Read in the wheels 0.5.1, 0.5.3, 0.5.4.post3, 0.5.11, 0.5.12, 0.5.13.post1–
  0.5.23.
"""

from sgllint.model.rule import WARNING, Invalid, Rule, Valid
from sgllint.semantics import effective as eff
from sgllint.semantics import parallel as par

QWEN = "python -m sglang.launch_server --model-path Qwen/Qwen3-8B"
LLAMA = ("python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct --speculative-algorithm EAGLE "
         "--speculative-draft-model-path jamesliu1/sglang-EAGLE-Llama-3.1-Instruct-8B --speculative-num-steps 3 "
         "--speculative-eagle-topk 1 --speculative-num-draft-tokens 4")

#: algorithms that keep mixed chunk from 0.5.19 (SpeculativeAlgorithm.supports_mixed_chunk; NEXTN aliases EAGLE)
KEEPS_MIXED_CHUNK = ("EAGLE", "EAGLE3", "NEXTN", "DFLASH", "DSPARK")


def sglang_message(v, name):
    """SGLang's log line for the rewrite, None when there is none."""
    if name == "NGRAM":
        return None
    if name == "UNO":
        return "Mixed chunked prefill is disabled for UNO speculative decoding."
    if name == "FROZEN_KV_MTP":
        return "Mixed chunked prefill is disabled because of using Frozen-KV MTP speculative decoding."
    if eff.at_least(v, "0.5.19"):
        return f"Mixed chunked prefill is disabled: {name} speculative decoding does not support it."
    if name == "DFLASH":
        return "Mixed chunked prefill is disabled because of using dflash speculative decoding."
    if name == "DSPARK":
        return "Mixed chunked prefill is disabled because of using dspark speculative decoding."
    return "Mixed chunked prefill is disabled because of using eagle speculative decoding."


class MixedChunkDisabledBySpeculative(Rule):
    code = "SGL245"
    name = "mixed-chunk-disabled-by-speculative"
    severity = WARNING

    VALID = [
        Valid.sh(f"{QWEN} --speculative-algorithm NGRAM"),
        Valid.sh(f"{QWEN} --enable-mixed-chunk"),
        Valid.sh(f"{LLAMA} --enable-mixed-chunk"),
        Valid.sh(f"{LLAMA}", sglang="0.5.18"),
        Valid.sh(f"{QWEN} --speculative-algorithm $ALGO --enable-mixed-chunk"),
        Valid.py(
            """
            import sglang as sgl
            llm = sgl.Engine(model_path="Qwen/Qwen3-8B", speculative_algorithm="NGRAM")
            """
        ),
        Valid.toml(
            """
            [tool.poe.tasks]
            serve = "python -m sglang.launch_server --model-path Qwen/Qwen3-8B --enable-mixed-chunk"
            """
        ),
    ]
    INVALID = [
        Invalid.sh(f"{QWEN} --speculative-algorithm NGRAM --enable-mixed-chunk", at="--enable-mixed-chunk",
                   message="without a log line"),
        Invalid.sh(f"{LLAMA} --enable-mixed-chunk", at="--enable-mixed-chunk", sglang="0.5.18",
                   message="because of using eagle speculative decoding"),
        Invalid.sh(f"{QWEN} --speculative-algorithm NGRAM --enable-mixed-chunk", at="--enable-mixed-chunk", sglang="0.5.4"),
        Invalid.py(
            """
            import sglang as sgl
            llm = sgl.Engine(model_path="Qwen/Qwen3-8B", speculative_algorithm="NGRAM", enable_mixed_chunk=True)
            """,
            at="enable_mixed_chunk",
        ),
        Invalid.toml(
            """
            [tool.poe.tasks]
            serve = "python -m sglang.launch_server --model-path Qwen/Qwen3-8B --speculative-algorithm NGRAM --enable-mixed-chunk"
            """,
            at="--enable-mixed-chunk",
        ),
    ]

    def check(self, launch):
        v = eff.version(launch)
        if not eff.at_least(v, "0.5.1") or launch.opaque:
            return
        arg = launch.last("enable_mixed_chunk")
        if arg is None or arg.value is not True:
            return
        spec = par.speculative(launch)
        if spec is None:
            return
        name = spec.name.upper()
        if eff.at_least(v, "0.5.19") and name in KEEPS_MIXED_CHUNK:
            return
        pp, _ = par.int_value(launch, "pp_size", 1)
        if not par.known(pp) or pp > 1:
            return  # SGL212
        if name in ("STANDALONE", "NGRAM"):
            dp = par.data_parallel(launch)
            if dp is None or dp.attention_dp:
                return  # SGL215
        msg = sglang_message(v, name)
        said = f"(\"{msg}\")" if msg else "without a log line"
        if eff.at_least(v, "0.5.19"):
            kept = " (EAGLE, EAGLE3, DFLASH and DSPARK keep it)"
        elif name in KEEPS_MIXED_CHUNK:
            kept = f" in SGLang {v} (0.5.19+ keeps it for {spec.raw})"
        else:
            kept = ""
        yield self.diagnostic(
            arg.flag_span,
            f"--enable-mixed-chunk is overridden: SGLang {v} switches mixed chunked prefill off for {spec.raw} "
            f"speculative decoding {said}",
            help=f"drop --enable-mixed-chunk: it has no effect with --speculative-algorithm {spec.raw}{kept}",
            related=[(spec.arg.value_span or spec.arg.span, f"speculative algorithm {spec.raw}")],
            launch=launch,
        )
