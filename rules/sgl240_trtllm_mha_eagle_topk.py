"""EAGLE speculative decoding with `--speculative-eagle-topk` > 1 on the `trtllm_mha` attention backend.

## What it does
Finds EAGLE / EAGLE3 / NEXTN (and from 0.5.2 STANDALONE) launches that set
`--speculative-eagle-topk` above 1 while an attention backend is
`trtllm_mha`: up to 0.5.14 any of `--attention-backend`,
`--prefill-attention-backend`, `--decode-attention-backend`; from 0.5.15 the
effective prefill or decode backend (the split flag, else
`--attention-backend`). The draft backend
(`--speculative-draft-attention-backend`) is not part of the check.

## Why is this bad?
The server stops at start-up with `ValueError: trtllm_mha backend only
supports topk = 1 for speculative decoding.`

## Example
```sh
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --attention-backend trtllm_mha --speculative-algorithm EAGLE3 --speculative-draft-model-path org/qwen3-8b-eagle3 --speculative-num-steps 3 --speculative-eagle-topk 4 --speculative-num-draft-tokens 8
```

## Use instead
```sh
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --attention-backend trtllm_mha --speculative-algorithm EAGLE3 --speculative-draft-model-path org/qwen3-8b-eagle3 --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4
```

## References
- `sglang/srt/server_args.py` `ServerArgs._handle_speculative_decoding`
  (0.5.1-0.5.18) and `sglang/srt/arg_groups/speculative_hook.py`
  `_handle_eagle_family` (0.5.13-0.5.23); verified in every wheel
  0.5.1-0.5.23. STANDALONE takes the same path from 0.5.2
  (`speculative_algorithm in ("EAGLE", "EAGLE3", "STANDALONE")`, 0.5.2-0.5.13;
  `is_eagle() or is_standalone()` in `speculative/spec_info.py`, 0.5.14-0.5.23).
  From 0.5.15 the check reads `attention_backends_of(resolved_view(...))`
  (`arg_groups/model_override_base.py`: prefill and decode, falling back to
  the base backend; no draft backend), e.g. 0.5.23 `speculative_hook.py:1176`.
  The implicit SM100 default `trtllm_mha` is not judged.
"""

from sgllint.model.rule import ERROR, Invalid, Rule, Valid
from sgllint.semantics import effective as eff

SPEC = ("python -m sglang.launch_server --model-path Qwen/Qwen3-8B --speculative-algorithm EAGLE3 "
        "--speculative-draft-model-path org/qwen3-8b-eagle3 --speculative-num-steps 3")
EAGLE_FAMILY = {"EAGLE", "EAGLE3", "NEXTN"}
#: STANDALONE runs the same checks from 0.5.2
STANDALONE_FROM = "0.5.2"
#: from 0.5.15 the check reads the effective (prefill, decode) backends only
EFFECTIVE_FROM = "0.5.15"


class TrtllmMhaEagleTopk(Rule):
    code = "SGL240"
    name = "trtllm-mha-eagle-topk"
    severity = ERROR
    #: the derived SGLang checks this rule reports (SGL400 drops them): the trtllm_mha top-k site of
    #: 0.5.1, 0.5.2, 0.5.3-0.5.12, 0.5.13-0.5.14, 0.5.15-0.5.18, 0.5.19-0.5.23 (sgllint/catalog/data/validation)
    sglang_checks = ("r9a97714aed", "rb68003a85a", "re184c6eba8", "r59bd676e26", "rd1d4ddeee9", "r4e383892e4")

    VALID = [
        Valid.sh(f"# sgllint: gpu=B200\n{SPEC} --attention-backend trtllm_mha --speculative-eagle-topk 1 --speculative-num-draft-tokens 4"),
        # the draft backend is not part of the check (0.5.23 `attention_backends_of`: prefill, decode)
        Valid.sh(f"# sgllint: gpu=B200\n{SPEC} --speculative-draft-attention-backend trtllm_mha --speculative-eagle-topk 4 "
                 "--speculative-num-draft-tokens 8", sglang="0.5.23"),
        # 0.5.15+: both split backends given, the base backend is not read
        Valid.sh(f"# sgllint: gpu=B200\n{SPEC} --attention-backend trtllm_mha --prefill-attention-backend flashinfer "
                 "--decode-attention-backend flashinfer --speculative-eagle-topk 4 --speculative-num-draft-tokens 8", sglang="0.5.19"),
        Valid.sh("# sgllint: gpu=B200\npython -m sglang.launch_server --model-path Qwen/Qwen3-8B --speculative-algorithm STANDALONE "
                 "--speculative-draft-model-path Qwen/Qwen3-0.6B --speculative-num-steps 3 --attention-backend trtllm_mha "
                 "--speculative-eagle-topk 1 --speculative-num-draft-tokens 4", sglang="0.5.10"),
        Valid.sh(f"# sgllint: gpu=B200\n{SPEC} --attention-backend flashinfer --speculative-eagle-topk 4 --speculative-num-draft-tokens 8"),
        Valid.sh("# sgllint: gpu=B200\npython -m sglang.launch_server --model-path Qwen/Qwen3-8B --attention-backend trtllm_mha"),
        Valid.py(
            """
            # sgllint: gpu=B200
            import sglang as sgl
            llm = sgl.Engine(model_path="Qwen/Qwen3-8B", attention_backend="trtllm_mha", speculative_algorithm="EAGLE3",
                             speculative_draft_model_path="org/qwen3-8b-eagle3", speculative_num_steps=3,
                             speculative_eagle_topk=1, speculative_num_draft_tokens=4)
            """
        ),
    ]
    INVALID = [
        Invalid.sh("# sgllint: gpu=B200\npython -m sglang.launch_server --model-path Qwen/Qwen3-8B --speculative-algorithm STANDALONE "
                   "--speculative-draft-model-path Qwen/Qwen3-0.6B --speculative-num-steps 3 --attention-backend trtllm_mha "
                   "--speculative-eagle-topk 4 --speculative-num-draft-tokens 8", at="4", sglang="0.5.23"),
        Invalid.sh(f"# sgllint: gpu=B200\n{SPEC} --attention-backend trtllm_mha --speculative-eagle-topk 4 --speculative-num-draft-tokens 8",
                   at="4", message="only supports topk = 1"),
        Invalid.sh(f"# sgllint: gpu=B200\n{SPEC} --decode-attention-backend trtllm_mha --speculative-eagle-topk 5 --speculative-num-draft-tokens 8",
                   at="5", sglang="0.5.10"),
        Invalid.py(
            """
            # sgllint: gpu=B200
            import sglang as sgl
            llm = sgl.Engine(model_path="Qwen/Qwen3-8B", attention_backend="trtllm_mha", speculative_algorithm="EAGLE3",
                             speculative_draft_model_path="org/qwen3-8b-eagle3", speculative_num_steps=3,
                             speculative_eagle_topk=4, speculative_num_draft_tokens=8)
            """,
            at="4",
        ),
    ]

    def check(self, launch):
        v = eff.version(launch)
        if not eff.at_least(v, "0.5.1"):
            return
        algo = eff.given(launch, "speculative_algorithm")
        if not isinstance(algo, str):
            return
        if eff.at_least(v, "0.5.12"):
            algo = algo.upper()
        if algo not in EAGLE_FAMILY and not (algo == "STANDALONE" and eff.at_least(v, STANDALONE_FROM)):
            return
        topk_arg = launch.last("speculative_eagle_topk")
        if topk_arg is None or not isinstance(topk_arg.value, int) or isinstance(topk_arg.value, bool) or topk_arg.value <= 1:
            return
        b = eff.backends(launch)
        if eff.at_least(v, EFFECTIVE_FROM):
            roles = ("prefill", "decode", "attention")
            if "trtllm_mha" not in (b.prefill, b.decode):
                return
        else:
            roles = ("attention", "prefill", "decode")
            if not b.any("trtllm_mha", roles):
                return
        barg = eff.backend_arg(launch, "trtllm_mha", roles)
        yield self.diagnostic(
            topk_arg.value_span or topk_arg.span,
            f"--speculative-eagle-topk {topk_arg.value} with the trtllm_mha attention backend; SGLang {v} stops at start-up: "
            "\"trtllm_mha backend only supports topk = 1 for speculative decoding.\"",
            help="use --speculative-eagle-topk 1 (with --speculative-num-draft-tokens = num-steps + 1), "
                 "or another attention backend (flashinfer, fa3, triton) for topk > 1",
            related=[(barg.value_span or barg.span, "trtllm_mha")] if barg else [],
            launch=launch,
        )
