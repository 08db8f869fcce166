"""`--enable-hierarchical-cache` (or `--enable-lmcache`) together with `--disable-radix-cache`.

## What it does
Finds launches that turn on the hierarchical KV cache while switching off the
radix (prefix) cache it is built on, and, from 0.5.2, LMCache together with
the hierarchical cache or without the radix cache.

## Why is this bad?
The server exits at start-up with `ValueError: The arguments
enable-hierarchical-cache and disable-radix-cache are mutually exclusive and
cannot be used at the same time. Please use only one of them.` (LMCache:
`--enable-lmcache and --enable-hierarchical-cache are mutually exclusive`,
`--enable-lmcache requires radix cache to be enabled`).

## Example
```sh
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --enable-hierarchical-cache --disable-radix-cache
```

## Use instead
```sh
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --enable-hierarchical-cache
```

## References
- `sglang/srt/server_args.py` `ServerArgs._handle_cache_compatibility` /
  `__post_init__` (0.5.1-0.5.18) and `sglang/srt/arg_groups/kv_cache_hook.py`
  (0.5.19-0.5.23): the hierarchical/radix check, releases 0.5.1+ (absent in
  0.4.10); the LMCache checks where the release has `--enable-lmcache` and the
  check (verified in 0.5.23's `kv_cache_hook.py`). The radix cache switched
  off *implicitly* (deterministic inference) is SGL204's finding.
"""

from sgllint.model.rule import ERROR, Invalid, Rule, Valid
from sgllint.semantics import effective as eff

QWEN = "python -m sglang.launch_server --model-path Qwen/Qwen3-8B"
MSG = ("The arguments enable-hierarchical-cache and disable-radix-cache are mutually exclusive "
       "and cannot be used at the same time. Please use only one of them.")


class HierarchicalCacheWithoutRadixCache(Rule):
    code = "SGL230"
    name = "hierarchical-cache-without-radix-cache"
    severity = ERROR

    VALID = [
        Valid.sh(f"{QWEN} --enable-hierarchical-cache"),
        Valid.sh(f"{QWEN} --disable-radix-cache"),
        Valid.sh(f"{QWEN} --enable-hierarchical-cache --disable-radix-cache", sglang="0.4.10"),
        Valid.sh(f"{QWEN} --enable-hierarchical-cache --disable-radix-cache=$X"),
        Valid.py(
            """
            import sglang as sgl
            llm = sgl.Engine(model_path="Qwen/Qwen3-8B", enable_hierarchical_cache=True, disable_radix_cache=False)
            """
        ),
    ]
    INVALID = [
        Invalid.sh(f"{QWEN} --enable-hierarchical-cache --disable-radix-cache", at="--disable-radix-cache",
                   message="mutually exclusive"),
        Invalid.sh(f"{QWEN} --disable-radix-cache --enable-hierarchical-cache", at="--disable-radix-cache", sglang="0.5.4"),
        Invalid.py(
            """
            import sglang as sgl
            llm = sgl.Engine(model_path="Qwen/Qwen3-8B", enable_hierarchical_cache=True, disable_radix_cache=True)
            """,
            at="disable_radix_cache",
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
                  args: ["--model-path", "Qwen/Qwen3-8B", "--enable-hierarchical-cache", "--disable-radix-cache"]
            """,
            at='"--disable-radix-cache"',
        ),
    ]

    def check(self, launch):
        v = eff.version(launch)
        if not eff.at_least(v, "0.5.1"):
            return
        hier = eff.flag_true(launch, "enable_hierarchical_cache")
        radix_off = eff.flag_true(launch, "disable_radix_cache")
        lmcache = eff.flag_true(launch, "enable_lmcache") if eff.has_field(launch, "enable_lmcache") else False
        if hier and radix_off and launch.last("disable_radix_cache") is not None:
            yield self.diagnostic(
                eff.flag_span(launch, "disable_radix_cache"),
                f"SGLang {v} refuses --enable-hierarchical-cache with --disable-radix-cache at start-up: \"{MSG}\"",
                help="the hierarchical cache extends the radix cache to host memory: drop --disable-radix-cache "
                     "(or drop --enable-hierarchical-cache)",
                related=[(eff.flag_span(launch, "enable_hierarchical_cache"), "the hierarchical cache needs the radix cache")],
                launch=launch,
            )
            return
        if lmcache and eff.at_least(v, "0.5.23"):
            if hier and launch.last("enable_hierarchical_cache") is not None:
                yield self.diagnostic(
                    eff.flag_span(launch, "enable_hierarchical_cache"),
                    f"SGLang {v} refuses LMCache with the hierarchical cache at start-up: "
                    "\"--enable-lmcache and --enable-hierarchical-cache are mutually exclusive\"",
                    help="use one KV offloading layer: drop --enable-hierarchical-cache or --enable-lmcache",
                    related=[(eff.flag_span(launch, "enable_lmcache"), "LMCache is enabled here")],
                    launch=launch,
                )
            elif radix_off and launch.last("disable_radix_cache") is not None:
                yield self.diagnostic(
                    eff.flag_span(launch, "disable_radix_cache"),
                    f"SGLang {v} refuses LMCache without the radix cache at start-up: "
                    "\"--enable-lmcache requires radix cache to be enabled\"",
                    help="drop --disable-radix-cache",
                    related=[(eff.flag_span(launch, "enable_lmcache"), "LMCache is enabled here")],
                    launch=launch,
                )
