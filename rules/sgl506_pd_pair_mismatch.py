"""A decode server that no prefill server of the same deployment can hand its KV cache to.

## What it does
Reads the launches of one file together — the documents of one YAML file
(a prefill and a decode Deployment, LeaderWorkerSet or RoleBasedGroup role,
compose services), the commands of one script — and pairs each
`--disaggregation-mode decode` server with the file's
`--disaggregation-mode prefill` servers. A decode is reported when no
prefill shares, in this order, its `--model-path`, its `--page-size`, its
`--kv-cache-dtype` or its `--disaggregation-transfer-backend` (the value
written, else the release's default; `--page-size` and `--kv-cache-dtype`,
which SGLang resolves per model and backend at start-up, only when both
sides write them). It points at the decode's
differing flag (or at its `--disaggregation-mode` when the decode leaves the
value at its default), with the prefill's value as a related location.
Markdown files are not grouped: their code blocks show alternatives.

## Why is this bad?
In prefill/decode disaggregation the prefill server computes the KV cache
and the transfer engine writes its pages straight into the decode server's
KV pool: both sides must describe the same buffers. A different model
produces meaningless (or wrongly shaped) KV, a different page size or
KV-cache dtype scrambles every transferred page, and two transfer backends
(mooncake vs nixl) never connect — requests hang at the bootstrap or return
garbage, long after both servers started cleanly.

## Example
```sh
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --disaggregation-mode prefill --port 30000 --page-size 32 &
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --disaggregation-mode decode --port 30001 --base-gpu-id 1 --page-size 64 &
```

## Use instead
```sh
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --disaggregation-mode prefill --port 30000 --page-size 32 &
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --disaggregation-mode decode --port 30001 --base-gpu-id 1 --page-size 32 &
```

## References
- `sglang/srt/disaggregation/prefill.py` / `decode.py` (KV pages sent by index into the peer's
  pool) and `sglang/srt/disaggregation/utils.py` (`TransferBackend`), releases 0.4.6+.
- Defaults per release, read from the catalog: `--page-size` (`page_size: Optional[int] = None`,
  `server_args.py:270` in 0.5.4, resolved to 1 unless a backend forces another), `--kv-cache-dtype auto`
  (`server_args.py:249` in 0.5.4), `--disaggregation-transfer-backend mooncake` (`server_args.py:530` in 0.5.4).
- SGLang PD disaggregation guide: https://docs.sglang.ai/advanced_features/pd_disaggregation.html
"""

from sgllint.model.rule import ERROR, Invalid, Rule, Valid
from sgllint.semantics.deployment_groups import group_of, pd_mismatches

PREFILL = "python -m sglang.launch_server --model-path Qwen/Qwen3-8B --disaggregation-mode prefill --port 30000"
DECODE = "python -m sglang.launch_server --model-path Qwen/Qwen3-8B --disaggregation-mode decode --port 30001 --base-gpu-id 1"

K8S = """
apiVersion: apps/v1
kind: Deployment
metadata:
  name: prefill
spec:
  template:
    spec:
      containers:
        - name: sglang
          image: lmsysorg/sglang:v0.5.23
          command: ["python3", "-m", "sglang.launch_server", "--model-path", "deepseek-ai/DeepSeek-V3", "--disaggregation-mode", "prefill",
                    "--tp-size", "8", "--disaggregation-transfer-backend", "nixl"%s]
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: decode
spec:
  template:
    spec:
      containers:
        - name: sglang
          image: lmsysorg/sglang:v0.5.23
          command: ["python3", "-m", "sglang.launch_server", "--model-path", "deepseek-ai/DeepSeek-V3", "--disaggregation-mode", "decode",
                    "--tp-size", "8"%s]
"""


class PdPairMismatch(Rule):
    code = "SGL506"
    name = "pd-pair-mismatch"
    severity = ERROR

    VALID = [
        Valid.sh(f"{PREFILL} &\n{DECODE} &\n"),
        Valid.sh(f"{PREFILL} --kv-cache-dtype fp8_e4m3 &\n{DECODE} --kv-cache-dtype fp8_e4m3 &\n"),
        Valid.yaml(K8S % ("", ', "--disaggregation-transfer-backend", "nixl"')),
        # two models, each with its own pair
        Valid.sh(f"{PREFILL} &\n{DECODE} &\n"
                 "python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct --disaggregation-mode prefill --port 30010 --page-size 16 &\n"
                 "python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct --disaggregation-mode decode --port 30011 --page-size 16 &\n"),
        # a page size left to SGLang (a backend may force it) is not compared
        Valid.sh(f"{PREFILL} --page-size 64 &\n{DECODE} &\n"),
        # a value not known statically is not compared
        Valid.sh(f"{PREFILL} --page-size 32 &\n{DECODE} --page-size $PAGE &\n"),
    ]
    INVALID = [
        Invalid.sh(f"{PREFILL} --page-size 32 &\n{DECODE} --page-size 64 &\n", at="--page-size 64", message="--page-size 64"),
        Invalid.sh(f"{PREFILL} &\n{DECODE.replace('Qwen/Qwen3-8B', 'Qwen/Qwen3-32B')} &\n", at="--model-path Qwen/Qwen3-32B", message="Qwen/Qwen3-8B"),
        Invalid.sh(f"{PREFILL} --kv-cache-dtype fp8_e4m3 &\n{DECODE} --kv-cache-dtype bf16 &\n", at="--kv-cache-dtype bf16", message="kv-cache-dtype"),
        Invalid.yaml(K8S % ("", ""), at='"--disaggregation-mode", "decode"', message="mooncake"),
    ]

    def check_group(self, launches):
        for m in pd_mismatches(group_of(launches)):
            flag = m.decode.context.catalog.flag_for_field(m.field)
            decode_span = (m.decode_arg.span if m.decode_arg is not None else m.decode.last("disaggregation_mode").span)
            prefill_span = m.prefill_arg.span if m.prefill_arg is not None else m.prefill.last("disaggregation_mode").span
            given = "" if m.decode_arg is not None else " (its default)"
            prefill_given = "" if m.prefill_arg is not None else " (its default)"
            yield self.diagnostic(
                decode_span,
                f"this decode server uses {flag} {m.decode_value}{given} but the prefill server uses {flag} {m.prefill_value}{prefill_given}: "
                "the KV cache it receives cannot be read",
                help=f"give both servers the same {flag}",
                related=[(prefill_span, f"the prefill server's {flag}")],
                launch=m.decode,
            )
