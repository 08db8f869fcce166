"""An explicit `--chunked-prefill-size` that SGLang silently divides by the attention-DP width.

## What it does
When attention data parallelism is on — up to 0.5.21 `--enable-dp-attention`
with `--dp-size N` (N > 1), from 0.5.22 `--attn-dp-size N` (or the deprecated
spelling, which SGLang translates to it) — and `--chunked-prefill-size` is
given as a positive number, reports that the server runs with
`chunked_prefill_size // N` instead, and says which value that is. Only judged
for a known text model (`*ForCausalLM`, not `--is-embedding`, not
`--enable-mis`), which SGLang does not switch to `-1` first, and not for
`--disaggregation-mode decode` servers (they do not prefill). A result that
is not a multiple of the page size (a start-up error) is not reported here.

## Why is this bad?
Nothing fails: SGLang logs `DP attention is enabled. chunked prefill size is
adjusted from 16384 to 2048.` (up to 0.5.15: `DP attention is enabled. The
chunked prefill size is adjusted to 2048 to avoid MoE kernel issues.`) and
each attention-DP rank prefills chunks of `X // N` tokens, so the value in the
launch is not the one the scheduler uses: chunk sizes tuned on a non-DP
launch become N times smaller, and time-to-first-token for long prompts
grows accordingly.

## Example
```sh
python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp-size 8 --attn-dp-size 8 --chunked-prefill-size 4096
```

## Use instead
Leave the chunk size to SGLang (its per-GPU-memory default, divided the same
way), or keep a deliberate global value — e.g. `--chunked-prefill-size 32768`
for 4096 tokens per rank — with `# sgllint: ignore[SGL243]`:
```sh
python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp-size 8 --attn-dp-size 8
```

## References
- `sglang/srt/server_args.py` `ServerArgs._handle_data_parallelism`
  (0.5.2–0.5.18; inline in `__post_init__` in 0.5.1):
  `self.chunked_prefill_size = self.chunked_prefill_size // self.dp_size`;
  `sglang/srt/arg_groups/parallel_hook.py` `handle_data_parallelism`
  (0.5.19–0.5.21 `// cfg.dp_size`, 0.5.22–0.5.23 `// cfg.attn_dp_size`).
  The "adjusted from X to Y" wording is 0.5.16+. The model-specific `-1`
  overrides (`model_hook.py`, `attention_hook.py` `--enable-mis`) run before
  it. Read in the wheels 0.5.1, 0.5.4.post3, 0.5.10.post1, 0.5.15.post1,
  0.5.16, 0.5.18, 0.5.19, 0.5.21, 0.5.22, 0.5.23.
"""

from sgllint.model.rule import WARNING, Invalid, Rule, Valid
from sgllint.semantics import effective as eff
from sgllint.semantics import parallel as par

DSV3 = "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp-size 8"


def sglang_message(v, before, after):
    if eff.at_least(v, "0.5.16"):
        return f"DP attention is enabled. chunked prefill size is adjusted from {before} to {after}."
    return f"DP attention is enabled. The chunked prefill size is adjusted to {after} to avoid MoE kernel issues."


class ChunkedPrefillDividedByAttentionDp(Rule):
    code = "SGL243"
    name = "chunked-prefill-divided-by-attention-dp"
    severity = WARNING

    VALID = [
        Valid.sh(f"{DSV3} --attn-dp-size 8"),
        Valid.sh(f"{DSV3} --chunked-prefill-size 8192"),
        Valid.sh(f"{DSV3} --attn-dp-size 8 --chunked-prefill-size -1"),
        Valid.sh(f"{DSV3} --attn-dp-size 8 --chunked-prefill-size $CHUNK"),
        Valid.sh(f"{DSV3} --enable-dp-attention --dp-size 8", sglang="0.5.21"),
        Valid.sh(f"{DSV3} --dp-size 2 --chunked-prefill-size 8192", sglang="0.5.21"),
        Valid.py(
            """
            import sglang as sgl
            llm = sgl.Engine(model_path="deepseek-ai/DeepSeek-V3", tp_size=8, attn_dp_size=8)
            """
        ),
        Valid.toml(
            """
            [tool.poe.tasks]
            serve = "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp-size 8 --chunked-prefill-size 16384"
            """
        ),
    ]
    INVALID = [
        Invalid.sh(f"{DSV3} --attn-dp-size 8 --chunked-prefill-size 4096", at="4096",
                   message="adjusted from 4096 to 512"),
        Invalid.sh(f"{DSV3} --enable-dp-attention --dp-size 4 --chunked-prefill-size 16384", at="16384", sglang="0.5.21",
                   message="runs with 4096"),
        Invalid.sh(f"{DSV3} --enable-dp-attention --dp-size 8 --chunked-prefill-size 8192", at="8192", sglang="0.5.10",
                   message="to avoid MoE kernel issues"),
        Invalid.py(
            """
            import sglang as sgl
            llm = sgl.Engine(model_path="deepseek-ai/DeepSeek-V3", tp_size=8, attn_dp_size=4, chunked_prefill_size=16384)
            """,
            at="16384",
        ),
        Invalid.yaml(
            """
            apiVersion: v1
            kind: Pod
            metadata:
              name: sglang
            spec:
              containers:
                - name: sglang
                  image: lmsysorg/sglang:v0.5.23
                  command: ["python3", "-m", "sglang.launch_server"]
                  args: ["--model-path", "deepseek-ai/DeepSeek-V3", "--tp-size", "8", "--attn-dp-size", "8", "--chunked-prefill-size", "8192"]
            """,
            at='"8192"',
        ),
        Invalid.toml(
            """
            [tool.poe.tasks]
            serve = "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp-size 8 --attn-dp-size 2 --chunked-prefill-size 8192"
            """,
            at="8192",
        ),
    ]

    @staticmethod
    def _text_model(launch) -> bool:
        arch = launch.context.arch or ""
        if not arch.endswith("ForCausalLM") or arch.startswith("HrmText"):
            return False
        for field in ("is_embedding", "enable_mis", "enable_multi_item_scoring"):
            if eff.has_field(launch, field) and eff.flag_true(launch, field) is not False:
                return False
        return True

    def check(self, launch):
        v = eff.version(launch)
        if not eff.at_least(v, "0.5.1") or launch.opaque:
            return
        arg = launch.last("chunked_prefill_size")
        if arg is None or not arg.known or isinstance(arg.value, bool) or not isinstance(arg.value, int) or arg.value <= 0:
            return
        chunk = arg.value
        dp = par.data_parallel(launch)
        if dp is None or not dp.attention_dp:
            return
        mode = eff.value(launch, "disaggregation_mode")
        if mode is eff.UNKNOWN or mode == "decode":
            return
        if not self._text_model(launch):
            return
        n = dp.attn_dp
        after = chunk // n
        res = eff.page_candidates(launch)
        if res is None:
            return
        cands = res[0]
        if after <= 0 or not all(after % c == 0 for c in cands):
            return  # SGLang stops at start-up (chunked_prefill_size % page_size), not a silent rewrite
        width = "--attn-dp-size" if dp.split_era and launch.last("attn_dp_size") is not None else "--dp-size"
        related = []
        if dp.attn_arg is not None:
            related.append((dp.attn_arg.value_span or dp.attn_arg.span, f"attention DP over {n} groups"))
        if dp.dp_arg is not None and dp.dp_arg is not dp.attn_arg:
            related.append((dp.dp_arg.value_span or dp.dp_arg.span, f"{width} {n}"))
        yield self.diagnostic(
            arg.value_span or arg.span,
            f"--chunked-prefill-size {chunk} is overridden: with attention DP over {n} groups SGLang {v} divides it and "
            f"runs with {after} tokens per chunk (\"{sglang_message(v, chunk, after)}\")",
            help=f"each attention-DP rank prefills chunks of {after} tokens; for {chunk} tokens per rank write "
                 f"--chunked-prefill-size {chunk * n} (or drop the flag); keep a deliberate global value with "
                 "`# sgllint: ignore[SGL243]`",
            related=related,
            launch=launch,
        )
