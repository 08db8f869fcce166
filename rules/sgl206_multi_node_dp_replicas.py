"""Data-parallel replicas (`--dp-size` > 1) on a multi-node launch.

## What it does
Flags `--dp-size N` (N > 1) together with `--nnodes M` (M ≠ 1) when the
replicas are plain data-parallel copies of the model: up to 0.5.21 without
`--enable-dp-attention`; from 0.5.22 whenever `dp_size` still counts replicas
after SGLang's translation of the deprecated `--enable-dp-attention`.

## Why is this bad?
`check_server_args` asserts it at start-up. Up to 0.5.21: `AssertionError:
multi-node data parallel is not supported unless dp attention!`; from 0.5.22:
`AssertionError: multi-node data-parallel replicas are not supported; use
attention DP (--attn-dp-size) across nodes`.

## Example
```sh
python -m sglang.launch_server --model-path Qwen/Qwen2.5-72B-Instruct --tp-size 8 --dp-size 2 --nnodes 2 --node-rank 0 --dist-init-addr 10.0.0.1:5000
```

## Use instead
```sh
python -m sglang.launch_server --model-path Qwen/Qwen2.5-72B-Instruct --tp-size 8 --nnodes 2 --node-rank 0 --dist-init-addr 10.0.0.1:5000
```

## References
- `sglang/srt/server_args.py` `ServerArgs.check_server_args` (0.4.1–0.5.18),
  `sglang/srt/arg_groups/validation_hook.py` `check_server_args` (0.5.19+;
  message and condition changed in 0.5.22, when `--attn-dp-size` replaced
  `--enable-dp-attention`), `parallel_hook.handle_deprecated_dp_attention` (0.5.22+).
"""

from sgllint.model.rule import ERROR, Invalid, Rule, Valid
from sgllint.semantics import parallel as par

L = "python -m sglang.launch_server --model-path Qwen/Qwen2.5-72B-Instruct --tp-size 8"
ADDR = "--nnodes 2 --node-rank 0 --dist-init-addr 10.0.0.1:5000"
OLD = "multi-node data parallel is not supported unless dp attention!"
NEW = "multi-node data-parallel replicas are not supported; use attention DP (--attn-dp-size) across nodes"


class MultiNodeDpReplicas(Rule):
    code = "SGL206"
    name = "multi-node-dp-replicas"
    severity = ERROR

    VALID = [
        Valid.sh(f"{L} --dp-size 2"),
        Valid.sh(f"{L} --attn-dp-size 8 {ADDR}"),
        Valid.sh(f"{L} --dp-size 8 --enable-dp-attention {ADDR}", sglang="0.5.21"),
        Valid.sh(f"{L} --dp-size $DP {ADDR}"),
        Valid.py(
            """
            import sglang as sgl
            llm = sgl.Engine(model_path="Qwen/Qwen2.5-72B-Instruct", tp_size=8, attn_dp_size=4, nnodes=2, node_rank=0, dist_init_addr="10.0.0.1:5000")
            """
        ),
    ]
    INVALID = [
        Invalid.sh(f"{L} --dp-size 4 {ADDR}", at="4", message=NEW),
        Invalid.sh(f"{L} --dp-size 4 {ADDR}", at="4", sglang="0.5.21", message=OLD),
        Invalid.sh(f"{L} --dp-size 4 {ADDR}", at="4", sglang="0.4.10", message=OLD),
        Invalid.py(
            """
            import sglang as sgl
            llm = sgl.Engine(model_path="Qwen/Qwen2.5-72B-Instruct", tp_size=8, dp_size=4, nnodes=2, node_rank=0, dist_init_addr="10.0.0.1:5000")
            """,
            at="4",
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
                  image: lmsysorg/sglang:v0.5.18
                  command: ["python3", "-m", "sglang.launch_server"]
                  args: ["--model-path", "Qwen/Qwen2.5-72B-Instruct", "--tp-size", "8", "--dp-size", "4", "--nnodes", "2", "--node-rank", "0", "--dist-init-addr", "10.0.0.1:5000"]
            """,
            at='"4"',
            message=OLD,
        ),
    ]

    def check(self, launch):
        if not par.at_least(launch, "0.4.1"):
            return
        nnodes, nn_arg = par.int_value(launch, "nnodes")
        dp = par.data_parallel(launch)
        if not par.known(nnodes) or nnodes == 1 or nn_arg is None or dp is None or dp.dp_arg is None:
            return
        if dp.split_era:
            if dp.replicas <= 1 or dp.attention_dp:  # both at once: SGL208
                return
            message = NEW
        else:
            enabled, _ = par.flag_value(launch, "enable_dp_attention")
            if dp.dp_size <= 1 or enabled:
                return
            message = OLD
        yield self.diagnostic(
            par.value_span(dp.dp_arg),
            f"SGLang {launch.context.catalog.version} rejects this at start-up: '{message}' "
            f"({par.written(launch, dp.dp_arg, 'dp_size', dp.dp_size)} replicas with {par.written(launch, nn_arg, 'nnodes', nnodes)})",
            help=(
                "use attention data parallelism across the nodes (--attn-dp-size N) instead of replicas, or run one launch per replica"
                if dp.split_era
                else "add --enable-dp-attention (attention data parallelism works across nodes), or run one launch per replica"
            ),
            related=[(nn_arg.span, "spread over several nodes here")],
            launch=launch,
        )
