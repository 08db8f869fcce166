"""Deterministic inference on a backend that makes SGLang switch off the radix cache.

## What it does
When deterministic inference is on and SGLang accepts the effective attention
backend, checks it against the release's
`RADIX_SUPPORTED_DETERMINISTIC_ATTENTION_BACKEND` (`fa3`, `triton`; plus
`ascend` from 0.5.13 and `fa4` from 0.5.16). Outside that list SGLang
silently sets `--disable-radix-cache`. The implicit backend counts: on
Blackwell the deterministic fallback for non-DeepSeek models is
`flashinfer`. With no GPU pinned it reports only when every plausible GPU
ends up without the radix cache.

## Why is this bad?
Prefix caching is gone without an error — only a log line (`Currently radix
cache is not compatible with flashinfer attention backend for deterministic
inference. It will be supported in the future.`) — so shared prompt prefixes
are recomputed on every request. With `--enable-hierarchical-cache` the launch
then fails at start-up, because the hierarchical cache needs the radix cache.

## Example
```sh
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --enable-deterministic-inference --attention-backend flashinfer
```

## Use instead
```sh
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --enable-deterministic-inference --attention-backend triton
```

## References
- `sglang/srt/server_args.py` `ServerArgs._handle_deterministic_inference`
  (0.5.4.post3–0.5.18) and `sglang/srt/arg_groups/attention_hook.py`
  `handle_deterministic_inference` (0.5.19+); the list is the catalog's
  `deterministic.radix_backends` (0.5.3 has no such switch).
"""

from sgllint.model.rule import WARNING, Invalid, Rule, Valid
from sgllint.semantics import deterministic as det

QWEN = "python -m sglang.launch_server --model-path Qwen/Qwen3-8B --enable-deterministic-inference"


class DeterministicRadixCacheDisabled(Rule):
    code = "SGL204"
    name = "deterministic-radix-cache-disabled"
    severity = WARNING
    needs_args = frozenset({'enable_deterministic_inference', 'rl_on_policy_target'})  # deterministic.analyse: off unless one of them turns it on

    VALID = [
        Valid.sh(f"{QWEN} --attention-backend triton"),
        Valid.sh(f"# sgllint: gpu=H100\n{QWEN}"),
        Valid.sh(f"{QWEN}"),
        Valid.sh(f"{QWEN} --attention-backend flashinfer", sglang="0.5.3"),
        Valid.sh("python -m sglang.launch_server --model-path Qwen/Qwen3-8B --attention-backend flashinfer"),
        Valid.py(
            """
            import sglang as sgl
            llm = sgl.Engine(model_path="Qwen/Qwen3-8B", enable_deterministic_inference=True, attention_backend="fa3")
            """
        ),
        Valid.yaml(
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
                  args:
                    - --model-path
                    - Qwen/Qwen3-8B
                    - --enable-deterministic-inference
                    - --attention-backend
                    - triton
            """
        ),
        Valid.toml(
            """
            [tool.poe.tasks]
            serve = "python -m sglang.launch_server --model-path Qwen/Qwen3-8B --enable-deterministic-inference --attention-backend triton"
            """
        ),
    ]
    INVALID = [
        Invalid.sh(f"{QWEN} --attention-backend flashinfer", at="flashinfer", message="radix cache",
                   fix_to='triton', unsafe=True),
        Invalid.sh(f"# sgllint: gpu=B200\n{QWEN}", at="python -m sglang.launch_server", message="fallback",
                   fix='# sgllint: gpu=B200\npython -m sglang.launch_server --model-path Qwen/Qwen3-8B --enable-deterministic-inference --attention-backend triton', unsafe=True),
        Invalid.sh(f"{QWEN} --attention-backend flashinfer --enable-hierarchical-cache", at="flashinfer",
                   message="--enable-hierarchical-cache",
            fix_to='triton',
            unsafe=True),
        Invalid.py(
            """
            import sglang as sgl
            llm = sgl.Engine(model_path="Qwen/Qwen3-8B", enable_deterministic_inference=True, attention_backend="flashinfer")
            """,
            at='"flashinfer"',
            fix_to='"triton"',
            unsafe=True,
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
                  args:
                    - --model-path
                    - Qwen/Qwen3-8B
                    - --enable-deterministic-inference
                    - --attention-backend
                    - flashinfer
            """,
            at="flashinfer",
            fix_to='triton',
            unsafe=True,
        ),
        Invalid.toml(
            """
            [tool.poe.tasks]
            serve = "python -m sglang.launch_server --model-path Qwen/Qwen3-8B --enable-deterministic-inference --attention-backend flashinfer"
            """,
            at="flashinfer",
            fix_to='triton',
            unsafe=True,
        ),
    ]

    def check(self, launch):
        a = det.analyse(launch)
        if a is None or not a.verdicts:
            return
        if any(v.rejected or v.unknown or v.radix_disabled is not True for v in a.verdicts):
            return
        first = a.verdicts[0]
        catalog = a.catalog
        radix = a.facts.get("radix_backends") or []
        sglang_msg = det.render(a.facts["messages"].get("radix_disabled", ""), first.backend, catalog.lists)
        backends = sorted({v.backend for v in a.verdicts})
        where = f" on {a.launch.context.gpu_target.describe()}" if a.pinned else ""
        message = (
            f"SGLang {catalog.version} silently disables the radix cache (prefix caching) for deterministic inference "
            f"with attention backend '{', '.join(backends)}'{where}: \"{sglang_msg}\""
        )
        related = a.related()
        hier = launch.last("enable_hierarchical_cache")
        if hier is not None and hier.value is True:
            message += "; --enable-hierarchical-cache then fails at start-up because it needs the radix cache"
            related.append((hier.span, "needs the radix cache"))
        else:
            message += "; --enable-hierarchical-cache would then fail at start-up"
        notes = [first.note + "."] if first.note else []
        fix_backend = a.fix_backend(a.launch.context.gpu_target)
        help_text = " ".join(notes + [
            f"to keep prefix caching use a backend in {det.py_list(radix)}: --attention-backend {fix_backend}"
            + (" (or fa4 on Blackwell)" if "fa4" in radix and fix_backend != "fa4" else "")
        ])
        yield self.diagnostic(
            a.primary_span() if first.how != "prefill-decode" else (launch.last("prefill_attention_backend").value_span),
            message,
            help=help_text,
            related=related,
            fix=a.fix(a.launch.context.gpu_target, f"use --attention-backend {fix_backend}"),
            launch=launch,
        )
