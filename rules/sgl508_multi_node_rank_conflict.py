"""Ranks of one multi-node launch that cannot form one group.

## What it does
Reads the launches of one file together (the commands of one script, the
documents of one YAML file) and groups the multi-node ones that serve the
same `--model-path` and dial the same `--dist-init-addr` with `--nnodes` > 1
and a `--node-rank` written as a number. It reports a rank launched twice, a
rank outside `0 .. nnodes-1`, and ranks that disagree on `--nnodes`, at the
offending rank's flag with the other rank as a related location.

It also compares the `--dist-init-addr` of the ranks of one launch (same
model and `--nnodes`, every `--node-rank` distinct, so not two
deployments): a rank whose port differs from rank 0's, or whose host names
another machine (when neither side is a local or wildcard address such as
`127.0.0.1` or `0.0.0.0`, which rank 0 may use for itself), is reported at
its `--dist-init-addr`. Ranks and addresses
given as variables (`$NODE_RANK`, `$(LWS_WORKER_INDEX)`) are not judged, nor
are Markdown files (their blocks show alternatives).

## Why is this bad?
Every rank joins the same `torch.distributed` group at `--dist-init-addr`,
which waits for exactly `--nnodes` ranks numbered `0 .. nnodes-1`: a
duplicate or out-of-range rank, or a disagreeing world size, makes the
start-up hang until the distributed init times out (30 minutes by default)
or fail with a rank collision, on every node. A rank told another address
dials a store rank 0 never opens: the same hang, and the usual cause is a
leader IP or port edited in one node's command only.

## Example
```sh
python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp-size 16 --nnodes 2 --node-rank 0 --dist-init-addr 10.0.0.1:5000 &
python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp-size 16 --nnodes 2 --node-rank 0 --dist-init-addr 10.0.0.1:5000 &
```

## Use instead
```sh
python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp-size 16 --nnodes 2 --node-rank 0 --dist-init-addr 10.0.0.1:5000 &
python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp-size 16 --nnodes 2 --node-rank 1 --dist-init-addr 10.0.0.1:5000 &
```

## References
- `sglang/srt/server_args.py` (`nnodes`, `node_rank`, `dist_init_addr`, all releases);
  every rank initialises with `tcp://{dist_init_addr}`
  (`sglang/srt/model_executor/model_runner.py`, 0.4.0 line 205); and
  `sglang/srt/distributed/parallel_state.py` (`init_distributed_environment`: world size
  `tp × pp`, ranks `node_rank × per-node + i`).
"""

from sgllint.model.rule import ERROR, Invalid, Rule, Valid
from sgllint.semantics.deployment_groups import group_of, rank_problems

BASE = "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp-size 16 --dist-init-addr 10.0.0.1:5000"


class MultiNodeRankConflict(Rule):
    code = "SGL508"
    name = "multi-node-rank-conflict"
    severity = ERROR

    VALID = [
        Valid.sh(f"{BASE} --nnodes 2 --node-rank 0 &\n{BASE} --nnodes 2 --node-rank 1 &\n"),
        Valid.sh(f"{BASE} --nnodes 2 --node-rank $NODE_RANK\n"),
        # two deployments of the same model dialing different leaders
        Valid.sh(f"{BASE} --nnodes 2 --node-rank 0 &\n{BASE.replace('10.0.0.1', '10.0.0.9')} --nnodes 2 --node-rank 0 &\n"),
        # rank 0 may name itself by a local address
        Valid.sh(f"{BASE.replace('10.0.0.1', '0.0.0.0')} --nnodes 2 --node-rank 0 &\n{BASE} --nnodes 2 --node-rank 1 &\n"),
        Valid.sh(f"{BASE} --nnodes 2 --node-rank 0 &\n{BASE.replace('10.0.0.1', '$LEADER')} --nnodes 2 --node-rank 1 &\n"),
    ]
    INVALID = [
        Invalid.sh(f"{BASE} --nnodes 2 --node-rank 0 &\n{BASE} --nnodes 2 --node-rank 0 &\n", at=("--node-rank 0", 2), message="launched twice"),
        Invalid.sh(f"{BASE} --nnodes 2 --node-rank 0 &\n{BASE} --nnodes 2 --node-rank 2 &\n", at="--node-rank 2", message="outside 0..1"),
        Invalid.sh(f"{BASE} --nnodes 2 --node-rank 0 &\n{BASE} --nnodes 4 --node-rank 1 &\n", at="--nnodes 4", message="--nnodes 2"),
        # the leader's IP edited on one node only
        Invalid.sh(f"{BASE} --nnodes 2 --node-rank 0 &\n{BASE.replace('10.0.0.1', '10.0.0.2')} --nnodes 2 --node-rank 1 &\n",
                   at="--dist-init-addr 10.0.0.2:5000", message="host 10.0.0.2"),
        Invalid.sh(f"{BASE} --nnodes 2 --node-rank 0 &\n{BASE.replace(':5000', ':5001')} --nnodes 2 --node-rank 1 &\n",
                   at="--dist-init-addr 10.0.0.1:5001", message="port 5001"),
    ]

    def check_group(self, launches):
        for p in rank_problems(group_of(launches)):
            related = [(p.other_arg.span, "the other rank")] if p.other_arg is not None else []
            help_text = ("give every rank the --dist-init-addr of rank 0's machine" if p.arg.field == "dist_init_addr"
                         else "give each node of the launch its own rank in 0..nnodes-1 and the same --nnodes")
            yield self.diagnostic(p.arg.span, p.message, help=help_text, related=related, launch=p.launch)
