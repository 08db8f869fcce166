"""`--speculative-eagle-topk` or `--speculative-num-draft-tokens` without `--speculative-num-steps`.

## What it does
For the EAGLE family (`EAGLE`, `EAGLE3`, `NEXTN`, and `STANDALONE` from
0.5.2), flags a launch that sets `--speculative-eagle-topk` or
`--speculative-num-draft-tokens` but leaves `--speculative-num-steps` unset
(from 0.5.14, unless `--speculative-adaptive` is on).

## Why is this bad?
SGLang only picks the three values itself when none of them is given; a
partial set trips a bare `assert speculative_eagle_topk is None and
speculative_num_draft_tokens is None` at start-up — an `AssertionError`
with no message (reported in the wild as gpustack/gpustack#3392).

## Example
```sh
python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct --speculative-algorithm EAGLE --speculative-draft-model-path jamesliu1/sglang-EAGLE-Llama-3.1-Instruct-8B --speculative-eagle-topk 4
```

## Use instead
```sh
python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct --speculative-algorithm EAGLE --speculative-draft-model-path jamesliu1/sglang-EAGLE-Llama-3.1-Instruct-8B --speculative-num-steps 3 --speculative-eagle-topk 4 --speculative-num-draft-tokens 8
```

## References
- `sglang/srt/server_args.py` `ServerArgs.__post_init__` /
  `_handle_speculative_decoding` (0.4.4–0.5.12),
  `sglang/srt/arg_groups/speculative_hook.py` (0.5.13+; `speculative_adaptive`
  exemption from 0.5.14; `_handle_eagle_family` in 0.5.23).
"""

from sgllint import parallel as par
from sgllint.rule import ERROR, Invalid, Rule, Valid

L = ("python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct --speculative-algorithm EAGLE "
     "--speculative-draft-model-path jamesliu1/sglang-EAGLE-Llama-3.1-Instruct-8B")
FAMILY = ("EAGLE", "EAGLE3", "NEXTN", "STANDALONE")


class SpeculativeTopkWithoutNumSteps(Rule):
    code = "SGL214"
    name = "speculative-topk-without-num-steps"
    severity = ERROR

    VALID = [
        Valid.sh(L),
        Valid.sh(f"{L} --speculative-num-steps 3 --speculative-eagle-topk 4 --speculative-num-draft-tokens 8"),
        Valid.sh(f"{L} --speculative-eagle-topk 4 --speculative-adaptive"),
        Valid.sh(f'{L} --speculative-eagle-topk 4 "$@"'),
        Valid.py(
            """
            import sglang as sgl
            llm = sgl.Engine(model_path="meta-llama/Llama-3.1-8B-Instruct", speculative_algorithm="EAGLE",
                             speculative_draft_model_path="jamesliu1/sglang-EAGLE-Llama-3.1-Instruct-8B",
                             speculative_num_steps=3, speculative_eagle_topk=1, speculative_num_draft_tokens=4)
            """
        ),
    ]
    INVALID = [
        Invalid.sh(f"{L} --speculative-eagle-topk 4", at="4", message="speculative_eagle_topk is None"),
        Invalid.sh(f"{L} --speculative-num-draft-tokens 16", at="16", sglang="0.5.4"),
        Invalid.sh(f"{L} --speculative-eagle-topk 2 --speculative-adaptive", at=("2", 1), sglang="0.5.12", message="--speculative-num-steps"),
        Invalid.py(
            """
            import sglang as sgl
            llm = sgl.Engine(model_path="meta-llama/Llama-3.1-8B-Instruct", speculative_algorithm="EAGLE",
                             speculative_draft_model_path="jamesliu1/sglang-EAGLE-Llama-3.1-Instruct-8B",
                             speculative_eagle_topk=8)
            """,
            at=("8", 3),
        ),
    ]

    def check(self, launch):
        if not par.at_least(launch, "0.4.4") or launch.opaque:
            return
        spec = par.speculative(launch)
        if spec is None or spec.name not in FAMILY:
            return
        if spec.name == "STANDALONE" and not par.at_least(launch, "0.5.2"):
            return
        if launch.last("speculative_num_steps") is not None:
            return
        if par.at_least(launch, "0.5.14"):
            adaptive, _ = par.flag_value(launch, "speculative_adaptive")
            if adaptive is not False:
                return
        draft, _ = par.str_value(launch, "speculative_draft_model_path")
        model, _ = par.str_value(launch, "model_path")
        names = " ".join(v.lower() for v in (draft, model) if isinstance(v, str))
        if "gemma" in names or "iquest" in names or (launch.context.arch or "").startswith("IQuestQ1"):
            return  # Gemma4 drafts become FROZEN_KV_MTP; IQuest Q1 fills the steps itself
        given = [a for a in (launch.last("speculative_eagle_topk"), launch.last("speculative_num_draft_tokens")) if a is not None]
        given = [a for a in given if a.value is not None]
        if not given:
            return
        arg = given[0]
        yield self.diagnostic(
            par.value_span(arg),
            f"SGLang {launch.context.catalog.version} stops with a bare AssertionError "
            "(`assert speculative_eagle_topk is None and speculative_num_draft_tokens is None`): "
            f"{arg.spelling} is set but {par.flag_of(launch, 'speculative_num_steps')} is not",
            help="set --speculative-num-steps as well (or none of the three, to let SGLang choose them)",
            related=[(spec.arg.span, f"{spec.name} speculative decoding")] + [(a.span, "also set") for a in given[1:]],
            launch=launch,
        )
