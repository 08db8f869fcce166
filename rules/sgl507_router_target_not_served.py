"""A router URL on a local port that no server of the same script listens on.

## What it does
Reads the launches of one file together and matches each
`sglang_router.launch_router` URL (`--prefill URL [BOOTSTRAP_PORT]`,
`--decode URL`, `--worker-urls URL...`) on a local host (`127.0.0.1`,
`localhost`, `0.0.0.0`) with the HTTP ports of the file's SGLang servers
(`--port`, else the release's default 30000). A URL on a port no server
listens on — or a `--prefill` URL whose server is a decode server, and the
reverse — is reported at the URL. URLs to other hosts (a Service name,
another machine) and files where a server's port is not known statically
are not judged. Markdown files are not grouped.

## Why is this bad?
The router starts and accepts requests, then fails every one of them with
connection refused (or, for a swapped prefill/decode, a bootstrap that never
completes): the mistake shows only under traffic. The usual cause is a
`--port` changed on the server and not in the router's list.

## Example
```sh
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --disaggregation-mode prefill --port 30000 &
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --disaggregation-mode decode --port 30001 --base-gpu-id 1 &
python -m sglang_router.launch_router --pd-disaggregation --prefill http://127.0.0.1:30000 --decode http://127.0.0.1:30002
```

## Use instead
```sh
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --disaggregation-mode prefill --port 30000 &
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --disaggregation-mode decode --port 30001 --base-gpu-id 1 &
python -m sglang_router.launch_router --pd-disaggregation --prefill http://127.0.0.1:30000 --decode http://127.0.0.1:30001
```

## References
- `sglang_router/launch_router.py` (`--prefill URL [BOOTSTRAP_PORT]`, `--decode URL`, `--worker-urls`).
- SGLang `--port` default: `sglang/srt/server_args.py` `port: int = 30000` (every release, from the catalog).
"""

from sgllint.model.rule import ERROR, Invalid, Rule, Valid
from sgllint.semantics.deployment_groups import dangling_router_targets, group_of

PREFILL = "python -m sglang.launch_server --model-path Qwen/Qwen3-8B --disaggregation-mode prefill --port 30000 &"
DECODE = "python -m sglang.launch_server --model-path Qwen/Qwen3-8B --disaggregation-mode decode --port 30001 --base-gpu-id 1 &"
ROUTER = "python -m sglang_router.launch_router --pd-disaggregation"


class RouterTargetNotServed(Rule):
    code = "SGL507"
    name = "router-target-not-served"
    severity = ERROR
    targets = frozenset({"sglang", "router"})

    VALID = [
        Valid.sh(f"{PREFILL}\n{DECODE}\n{ROUTER} --prefill http://127.0.0.1:30000 8998 --decode http://127.0.0.1:30001 --port 8000\n"),
        Valid.sh("python -m sglang.launch_server --model-path Qwen/Qwen3-8B &\n"
                 "python -m sglang.launch_server --model-path Qwen/Qwen3-8B --port 30001 --base-gpu-id 1 &\n"
                 "python -m sglang_router.launch_router --worker-urls http://localhost:30000 http://localhost:30001\n"),
        # another machine: not judged
        Valid.sh(f"{PREFILL}\n{ROUTER} --prefill http://10.0.0.2:30000 --decode http://10.0.0.3:30001\n"),
        Valid.sh(f"python -m sglang.launch_server --model-path Qwen/Qwen3-8B --port $PORT &\n{ROUTER} --worker-urls http://127.0.0.1:30000\n"),
    ]
    INVALID = [
        Invalid.sh(f"{PREFILL}\n{DECODE}\n{ROUTER} --prefill http://127.0.0.1:30000 --decode http://127.0.0.1:30002\n",
                   at="http://127.0.0.1:30002", message="port 30002"),
        Invalid.sh(f"{PREFILL}\n{DECODE}\n{ROUTER} --prefill http://127.0.0.1:30001 --decode http://127.0.0.1:30001\n",
                   at="http://127.0.0.1:30001", message="decode server"),
        Invalid.sh("python -m sglang.launch_server --model-path Qwen/Qwen3-8B --port 8080 &\n"
                   "python -m sglang_router.launch_router --worker-urls http://127.0.0.1:30000\n", at="http://127.0.0.1:30000"),
    ]

    def check_group(self, launches):
        for d in dangling_router_targets(group_of(launches)):
            t = d.target
            ports = sorted({port for port, _ in d.served})
            if any(port == t.port for port, _ in d.served):
                modes = sorted({str(s.value("disaggregation_mode")) for _, s in d.served})
                message = f"the router's {t.role} {t.url} is served by a {'/'.join(modes)} server, not a {t.role[2:]} server"
                related = [(s.last("port").span if s.last("port") else s.site.entry_span, "the server on that port") for _, s in d.served]
            else:
                message = f"the router's {t.role} {t.url} points at port {t.port}, which no server of this file listens on (they listen on {', '.join(map(str, ports))})"
                related = [(s.last("port").span if s.last("port") else s.site.entry_span, f"a server on port {port}") for port, s in d.served]
            yield self.diagnostic(t.span, message, help="point the router at a port a server listens on (its --port)", related=related, launch=d.router)
