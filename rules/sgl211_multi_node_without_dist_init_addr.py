"""A multi-node launch (`--nnodes` > 1) without `--dist-init-addr`.

## What it does
Flags `--nnodes N` (N > 1) when the launch never says where the nodes meet
(`--dist-init-addr HOST:PORT`). Launches whose arguments may be incomplete
(`"$@"`, a splatted dict) are not reported.

## Why is this bad?
SGLang has no start-up check for it. Without a rendezvous address every node
initialises `torch.distributed` on its own `127.0.0.1` port and waits for peers
that never arrive: the job hangs until a timeout, with all GPUs allocated.
With attention DP, `PortArgs.init_new` instead crashes parsing the missing
address.

## Example
```sh
python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp-size 16 --nnodes 2 --node-rank 0
```

## Use instead
```sh
python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp-size 16 --nnodes 2 --node-rank 0 --dist-init-addr 10.0.0.1:5000
```

## References
- `sglang/srt/server_args.py` `PortArgs.init_new` (`dist_init_addr` is
  None → local port; attention DP parses it) and `ServerArgs.dist_init_addr`,
  all releases; `sglang/srt/entrypoints/engine.py` (multi-node launch).
"""

from sgllint.model.rule import WARNING, Invalid, Rule, Valid
from sgllint.semantics import parallel as par

L = "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp-size 16"


class MultiNodeWithoutDistInitAddr(Rule):
    code = "SGL211"
    name = "multi-node-without-dist-init-addr"
    severity = WARNING

    VALID = [
        Valid.sh(f"{L} --nnodes 2 --node-rank 0 --dist-init-addr 10.0.0.1:5000"),
        Valid.sh(f"{L} --nnodes 2 --node-rank 0 --dist-init-addr $MASTER_ADDR:5000"),
        Valid.sh(f"{L} --nnodes 1"),
        Valid.sh(f'{L} --nnodes 2 "$@"'),
        Valid.py(
            """
            import sglang as sgl
            llm = sgl.Engine(model_path="deepseek-ai/DeepSeek-V3", tp_size=16, nnodes=2, node_rank=0, dist_init_addr="10.0.0.1:5000")
            """
        ),
    ]
    INVALID = [
        Invalid.sh(f"{L} --nnodes 2 --node-rank 0", at="--nnodes 2", message="--dist-init-addr"),
        Invalid.sh(f"{L} --nnodes 2 --node-rank 1", at="--nnodes 2", sglang="0.4.10"),
        Invalid.py(
            """
            import sglang as sgl
            llm = sgl.Engine(model_path="deepseek-ai/DeepSeek-V3", tp_size=16, nnodes=2, node_rank=0)
            """,
            at="nnodes=2",
        ),
    ]

    def check(self, launch):
        if launch.opaque:
            return
        nnodes, arg = par.int_value(launch, "nnodes")
        if arg is None or not par.known(nnodes) or nnodes <= 1:
            return
        if launch.last("dist_init_addr") is not None:
            return
        yield self.diagnostic(
            arg.span,
            f"{par.written(launch, arg, 'nnodes', nnodes)} without {par.flag_of(launch, 'dist_init_addr')}: "
            "each node waits on its own local address and the job hangs at start-up",
            help="add --dist-init-addr HOST:PORT (the same address of node 0 on every node)",
            launch=launch,
        )
