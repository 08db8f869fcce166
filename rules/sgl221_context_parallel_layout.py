"""`--attn-cp-size` / `--moe-dp-size` that do not fit the tensor-parallel group.

## What it does
From 0.5.9, replays SGLang's context-parallel layout asserts on the values
written: with `--attn-cp-size` > 1, `--tp-size` must be divisible by it and by
`dp_size * attn_cp_size` (`attn_dp_size * attn_cp_size` from 0.5.22), and in
0.5.9 `--pp-size` must be 1; with `--moe-dp-size` > 1, `--tp-size` must be
divisible by it, `ep_size * moe_dp_size` must not exceed (and with EP, must
equal) `--tp-size`, and `--pp-size` must be 1; from 0.5.11 an
`--attn-cp-size` different from `--moe-dp-size` needs `--moe-dp-size 1`.
The expert-parallel checks are skipped when an all-to-all MoE backend (which
rewrites `ep_size` to `tp_size`) is set, and DeepSeek-V4 (which picks its
own CP size) is not judged.

## Why is this bad?
The server stops at start-up with a bare assertion, e.g. `AssertionError:
tp_size must be divisible by attn_cp_size`, `tp_size must be divisible by
dp_size * attn_cp_size`, `ep_size * moe_dp_size must be equal to tp_size` or
`PP is not supported with context parallelism` (also raised for MoE data
parallelism).

## Example
```sh
python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp-size 8 --attn-cp-size 3
```

## Use instead
```sh
python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp-size 8 --attn-cp-size 4
```

## References
- `sglang/srt/server_args.py` `ServerArgs._handle_context_parallelism`
  (0.5.9–0.5.18) and `sglang/srt/arg_groups/parallel_hook.py`
  (0.5.19–0.5.23; `attn_dp_size * attn_cp_size` from 0.5.22); verified in the
  wheels 0.5.9, 0.5.10.post1, 0.5.11, 0.5.12, 0.5.13.post1, 0.5.15.post1,
  0.5.17, 0.5.19, 0.5.21, 0.5.22, 0.5.23.
"""

from sgllint.model.rule import ERROR, Invalid, Rule, Valid
from sgllint.semantics import effective as eff
from sgllint.semantics import parallel as par

DSV3 = "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3"


class ContextParallelLayout(Rule):
    code = "SGL221"
    name = "context-parallel-layout"
    severity = ERROR

    VALID = [
        Valid.sh(f"{DSV3} --tp-size 8 --attn-cp-size 4"),
        Valid.sh(f"{DSV3} --tp-size 8 --attn-cp-size 2 --moe-dp-size 2"),
        Valid.sh(f"{DSV3} --tp-size 8 --attn-cp-size 2 --moe-dp-size 2 --ep-size 4"),
        Valid.sh(f"{DSV3} --tp-size 8 --attn-cp-size 2 --attn-dp-size 4"),
        Valid.sh(f"{DSV3} --tp-size 8 --attn-cp-size 2 --pp-size 2", sglang="0.5.10"),
        Valid.sh(f"{DSV3} --tp-size $TP --attn-cp-size 3"),
        Valid.py(
            """
            import sglang as sgl
            llm = sgl.Engine(model_path="deepseek-ai/DeepSeek-V3", tp_size=8, attn_cp_size=2)
            """
        ),
    ]
    INVALID = [
        Invalid.sh(f"{DSV3} --tp-size 8 --attn-cp-size 3", at="--attn-cp-size 3", message="tp_size must be divisible by attn_cp_size"),
        Invalid.sh(f"{DSV3} --tp-size 8 --attn-cp-size 4 --attn-dp-size 4", at="--attn-cp-size 4",
                   message="attn_dp_size * attn_cp_size"),
        Invalid.sh(f"{DSV3} --tp-size 8 --attn-cp-size 2 --pp-size 2", at="--pp-size 2", sglang="0.5.9",
                   message="PP is not supported with context parallelism"),
        Invalid.sh(f"{DSV3} --tp-size 8 --attn-cp-size 2 --moe-dp-size 2 --ep-size 2", at="--ep-size 2",
                   message="ep_size * moe_dp_size must be equal to tp_size"),
        Invalid.sh(f"{DSV3} --tp-size 8 --attn-cp-size 4 --moe-dp-size 2", at="--moe-dp-size 2", sglang="0.5.12",
                   message="only supported when moe_dp_size == 1"),
        Invalid.py(
            """
            import sglang as sgl
            llm = sgl.Engine(model_path="deepseek-ai/DeepSeek-V3", tp_size=8, attn_cp_size=3)
            """,
            at="attn_cp_size=3",
        ),
        Invalid.yaml(
            """
            services:
              sglang:
                image: lmsysorg/sglang:v0.5.21
                command: python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp-size 8 --attn-cp-size 4 --dp-size 4 --enable-dp-attention
            """,
            at="--attn-cp-size 4",
            sglang="0.5.21",
            message="dp_size * attn_cp_size",
        ),
    ]

    def check(self, launch):
        v = eff.version(launch)
        if not eff.at_least(v, "0.5.9") or launch.opaque or not par.has_field(launch, "attn_cp_size"):
            return
        if "DeepseekV4" in (launch.context.arch or ""):
            return
        tp, tp_arg = par.int_value(launch, "tp_size", 1)
        pp, pp_arg = par.int_value(launch, "pp_size", 1)
        cp, cp_arg = par.int_value(launch, "attn_cp_size", 1)
        mdp, mdp_arg = par.int_value(launch, "moe_dp_size", 1)
        if not par.known(tp, pp, cp, mdp) or tp < 1:
            return
        found = self._first_failure(launch, v, tp, pp, cp, mdp, cp_arg, mdp_arg, pp_arg)
        if found is None:
            return
        msg, arg, related, fix = found
        if tp_arg is not None:
            related.append((tp_arg.span, f"tp_size {tp}"))
        yield self.diagnostic(
            arg.span,
            f"SGLang {v} stops at start-up: \"{msg}\" (AssertionError)",
            help=fix,
            related=related,
            launch=launch,
        )

    def _first_failure(self, launch, v, tp, pp, cp, mdp, cp_arg, mdp_arg, pp_arg):
        if cp > 1 and cp_arg is not None:
            if tp % cp:
                return ("tp_size must be divisible by attn_cp_size", cp_arg, [],
                        f"use an --attn-cp-size that divides --tp-size {tp}")
            if eff.at_least(v, "0.5.22"):
                adp, adp_arg = par.int_value(launch, "attn_dp_size", 1)
                dp = par.data_parallel(launch)
                if not par.known(adp) or dp is None:
                    return None
                d, name = dp.attn_dp, "attn_dp_size"
                d_arg = dp.attn_arg
            else:
                d, d_arg = par.int_value(launch, "dp_size", 1)
                name = "dp_size"
                if not par.known(d):
                    return None
            if tp % (d * cp):
                return (f"tp_size must be divisible by {name} * attn_cp_size", cp_arg,
                        [(d_arg.span, f"{name} {d}")] if d_arg is not None else [],
                        f"make --tp-size a multiple of {name} * attn_cp_size ({d} * {cp} = {d * cp})")
            if not eff.at_least(v, "0.5.10") and pp != 1 and pp_arg is not None:
                return ("PP is not supported with context parallelism", pp_arg, [(cp_arg.span, "context parallelism")],
                        "drop --pp-size or --attn-cp-size")
        if mdp > 1 and mdp_arg is not None:
            if tp % mdp:
                return ("tp_size must be divisible by moe_dp_size", mdp_arg, [],
                        f"use a --moe-dp-size that divides --tp-size {tp}")
            ep, ep_arg = self._ep(launch)
            if par.known(ep) and ep is not None and ep * mdp > tp:
                return ("ep_size * moe_dp_size must be less than or equal to tp_size", ep_arg or mdp_arg,
                        [(mdp_arg.span, f"moe_dp_size {mdp}")], f"choose ep_size * moe_dp_size <= {tp}")
            if pp != 1 and pp_arg is not None:
                return ("PP is not supported with context parallelism", pp_arg, [(mdp_arg.span, "MoE data parallelism")],
                        "drop --pp-size or --moe-dp-size")
            if par.known(ep) and ep is not None and ep > 1 and ep * mdp != tp:
                return ("ep_size * moe_dp_size must be equal to tp_size", ep_arg or mdp_arg,
                        [(mdp_arg.span, f"moe_dp_size {mdp}")], f"use --ep-size {tp // mdp} (ep_size * moe_dp_size = tp_size {tp})")
        if eff.at_least(v, "0.5.11") and cp != mdp and mdp != 1 and mdp_arg is not None:
            return ("attn_cp_size != moe_dp_size is only supported when moe_dp_size == 1", mdp_arg,
                    [(cp_arg.span, f"attn_cp_size {cp}")] if cp_arg is not None else [],
                    f"use --moe-dp-size {cp} (equal to --attn-cp-size) or 1")
        return None

    @staticmethod
    def _ep(launch):
        """(ep_size, arg) as the CP check sees it (ep_size `UNKNOWN` when not
        known); (None, None) when an all-to-all backend or a deprecated EP
        switch may rewrite it."""
        a2a = eff.given(launch, "moe_a2a_backend")
        if a2a is eff.UNKNOWN or (a2a is not None and a2a != "none"):
            return None, None
        for switch in ("enable_ep_moe", "enable_deepep_moe", "enable_elastic_expert_backup"):
            if par.has_field(launch, switch) and eff.given(launch, switch) not in (None, False):
                return None, None
        ep, ep_arg = par.int_value(launch, "ep_size", 1)
        return ep, ep_arg
