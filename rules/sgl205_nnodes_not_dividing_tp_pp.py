"""`--tp-size` × `--pp-size` is not a multiple of `--nnodes`.

## What it does
Checks that the GPUs of one model copy (`--tp-size` × `--pp-size`) split
evenly over `--nnodes` machines. Elastic-EP joiners (`--elastic-ep-join-mode
scale`) are exempt, as in SGLang.

## Why is this bad?
`check_server_args` asserts it before any process starts:
`AssertionError: tp_size must be divisible by number of nodes`. On a
multi-node job every node fails the same way after the image pull.

## Example
```sh
python -m sglang.launch_server --model-path Qwen/Qwen2.5-72B-Instruct --tp-size 6 --nnodes 4 --node-rank 0 --dist-init-addr 10.0.0.1:5000
```

## Use instead
```sh
python -m sglang.launch_server --model-path Qwen/Qwen2.5-72B-Instruct --tp-size 8 --nnodes 4 --node-rank 0 --dist-init-addr 10.0.0.1:5000
```

## References
- `sglang/srt/server_args.py` `ServerArgs.check_server_args` (0.4.0–0.5.18)
  and `sglang/srt/arg_groups/validation_hook.py` `check_server_args`
  (0.5.19+; `ep_join_mode != "scale"` exemption since the flag exists, 0.5.18+).
"""

from sgllint.model.rule import ERROR, Invalid, Rule, Valid
from sgllint.semantics import parallel as par

L = "python -m sglang.launch_server --model-path Qwen/Qwen2.5-72B-Instruct"
ADDR = "--node-rank 0 --dist-init-addr 10.0.0.1:5000"


class NnodesNotDividingTpPp(Rule):
    code = "SGL205"
    name = "nnodes-not-dividing-tp-pp"
    severity = ERROR
    #: the derived SGLang checks this rule reports (SGL400 drops them): "tp_size must be divisible by number of
    #: nodes" in 0.4.0-0.4.5, 0.4.6-0.5.15, 0.5.16-0.5.18, 0.5.19-0.5.23 (sgllint/catalog/data/validation)
    sglang_checks = ("adb2ce03266", "a7250129bf9", "a72b5f9bd21", "a058129756e")

    VALID = [
        Valid.sh(f"{L} --tp-size 8 --nnodes 2 {ADDR}"),
        Valid.sh(f"{L} --tp-size 2 --pp-size 2 --nnodes 4 {ADDR}"),
        Valid.sh(f"{L} --tp-size $TP --nnodes 2 {ADDR}"),
        Valid.sh(f"{L} --tp-size 4"),
        Valid.py(
            """
            import sglang as sgl
            llm = sgl.Engine(model_path="Qwen/Qwen2.5-72B-Instruct", tp_size=16, nnodes=2, node_rank=0, dist_init_addr="10.0.0.1:5000")
            """
        ),
    ]
    INVALID = [
        Invalid.sh(f"{L} --tp-size 6 --nnodes 4 {ADDR}", at="4", message="tp_size must be divisible by number of nodes"),
        Invalid.sh(f"{L} --tp-size 3 --pp-size 1 --nnodes 2 {ADDR}", at=("2", 3), sglang="0.4.10", message="3"),
        Invalid.py(
            """
            import sglang as sgl
            llm = sgl.Engine(model_path="Qwen/Qwen2.5-72B-Instruct", tp_size=4, nnodes=3, node_rank=0, dist_init_addr="10.0.0.1:5000")
            """,
            at="3",
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
                  args: ["--model-path", "Qwen/Qwen2.5-72B-Instruct", "--tp-size", "2", "--nnodes", "4", "--node-rank", "0", "--dist-init-addr", "10.0.0.1:5000"]
            """,
            at='"4"',
        ),
    ]

    def check(self, launch):
        tp, tp_arg = par.int_value(launch, "tp_size")
        pp, pp_arg = par.int_value(launch, "pp_size")
        nnodes, nn_arg = par.int_value(launch, "nnodes")
        if not par.known(tp, pp, nnodes) or nn_arg is None or nnodes < 1 or tp < 1 or pp < 1:
            return
        join, join_arg = par.str_value(launch, "ep_join_mode")
        if join_arg is not None and (not par.known(join) or join == "scale"):
            return
        if (tp * pp) % nnodes == 0:
            return
        product = f"{par.written(launch, tp_arg, 'tp_size', tp)}"
        if pp != 1:
            product += f" × {par.written(launch, pp_arg, 'pp_size', pp)} = {tp * pp}"
        related = [(a.span, "one model copy spans these GPUs") for a in (tp_arg, pp_arg) if a is not None]
        yield self.diagnostic(
            par.value_span(nn_arg),
            f"SGLang {launch.context.catalog.version} rejects this at start-up: 'tp_size must be divisible by number of nodes' "
            f"({product} is not a multiple of {par.written(launch, nn_arg, 'nnodes', nnodes)})",
            help="make tp_size × pp_size a multiple of the node count, or change the node count",
            related=related,
            launch=launch,
        )
