"""`--grpc-port` equal to the HTTP `--port` (default 30000).

## What it does
Finds launches whose gRPC port is the same as the HTTP port, outside the
`--grpc-mode` / `--smg-grpc-mode` modes (where the gRPC server replaces the
HTTP one). The HTTP port defaults to 30000.

## Why is this bad?
The server stops at start-up with `ValueError: --grpc-port (30000) must
differ from --port (30000)`.

## Example
```sh
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --grpc-port 30000
```

## Use instead
```sh
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --grpc-port 30001
```

## References
- `sglang/srt/server_args.py` `ServerArgs.check_server_args` (0.5.16-0.5.18)
  and `sglang/srt/arg_groups/validation_hook.py` `check_server_args`
  (0.5.19-0.5.23), releases 0.5.16+ (the `--grpc-port` flag). 0.5.11-0.5.15
  compare the `SGLANG_GRPC_PORT` environment variable instead, under
  `--enable-grpc`; not judged.
"""

from sgllint.model.rule import ERROR, Invalid, Rule, Valid
from sgllint.semantics import effective as eff

QWEN = "python -m sglang.launch_server --model-path Qwen/Qwen3-8B"


class GrpcPortEqualsPort(Rule):
    code = "SGL238"
    name = "grpc-port-equals-port"
    severity = ERROR

    VALID = [
        Valid.sh(f"{QWEN} --grpc-port 30001"),
        Valid.sh(f"{QWEN} --port 8000 --grpc-port 30000"),
        Valid.sh(f"{QWEN} --smg-grpc-mode --grpc-port 30000"),
        Valid.sh(f"{QWEN} --port $PORT --grpc-port 30000"),
        Valid.py(
            """
            import sglang as sgl
            llm = sgl.Engine(model_path="Qwen/Qwen3-8B", port=8000, grpc_port=8001)
            """
        ),
    ]
    INVALID = [
        Invalid.sh(f"{QWEN} --grpc-port 30000", at="30000", message="--grpc-port (30000) must differ from --port (30000)"),
        Invalid.sh(f"{QWEN} --port 8000 --grpc-port 8000", at=("8000", 2), sglang="0.5.16"),
        Invalid.py(
            """
            import sglang as sgl
            llm = sgl.Engine(model_path="Qwen/Qwen3-8B", port=8000, grpc_port=8000)
            """,
            at=("8000", 2),
        ),
    ]

    def check(self, launch):
        v = eff.version(launch)
        if not eff.at_least(v, "0.5.16") or not eff.has_field(launch, "grpc_port"):
            return
        g = launch.last("grpc_port")
        if g is None or not g.known or not isinstance(g.value, int):
            return
        port = eff.int_value(launch, "port")
        if port is eff.UNKNOWN or port != g.value:
            return
        for mode in ("grpc_mode", "smg_grpc_mode"):
            if eff.has_field(launch, mode):
                m = eff.flag_true(launch, mode)
                if m is eff.UNKNOWN or m:
                    return
        p = launch.last("port")
        yield self.diagnostic(
            g.value_span or g.span,
            f"SGLang {v} stops at start-up: \"--grpc-port ({g.value}) must differ from --port ({port})\""
            + ("" if p else " (30000 is the default --port)"),
            help=f"use another gRPC port, e.g. --grpc-port {g.value + 1}",
            related=[(p.span, "HTTP port")] if p else [],
            launch=launch,
        )
