"""An explicit `--sampling-backend` that deterministic inference silently replaces with `pytorch`.

## What it does
When deterministic inference is on (`--enable-deterministic-inference`, or
from 0.5.5 `--rl-on-policy-target`, which implies it) and `--sampling-backend`
is given as anything but `pytorch` — and, from 0.5.13, anything but `ascend`,
which SGLang leaves alone — reports that the server samples with `pytorch`
instead. Launches SGLang rejects for their attention backend (SGL201–SGL203)
are left to those rules.

## Why is this bad?
Nothing fails: SGLang logs `Sampling backend is set to pytorch for
deterministic inference.` and overwrites the value, so the sampling kernels
in the launch (e.g. FlashInfer's top-k/top-p sampling) are not the ones the
server runs, and benchmarks or configs comparing sampling backends measure the
same thing twice.

## Example
```sh
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --enable-deterministic-inference --attention-backend triton --sampling-backend flashinfer
```

## Use instead
```sh
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --enable-deterministic-inference --attention-backend triton --sampling-backend pytorch
```

## References
- `sglang/srt/server_args.py` `ServerArgs._handle_deterministic_inference`
  (0.5.3–0.5.12 unconditional `self.sampling_backend = "pytorch"`;
  0.5.13–0.5.17 `if self.sampling_backend != "ascend"`) and
  `sglang/srt/arg_groups/overrides.py` `_deterministic_sampling_backend`
  (0.5.18–0.5.23, run from `attention_hook.handle_deterministic_inference`
  from 0.5.19). `--rl-on-policy-target` sets `enable_deterministic_inference`
  first (0.5.5+). Read in the wheels 0.5.3, 0.5.4.post3, 0.5.5.post3, 0.5.12,
  0.5.13.post1, 0.5.18, 0.5.19, 0.5.23.
"""

from sgllint.model.rule import WARNING, Invalid, Rule, Valid
from sgllint.semantics import deterministic as det
from sgllint.semantics import effective as eff

QWEN = "python -m sglang.launch_server --model-path Qwen/Qwen3-8B --enable-deterministic-inference --attention-backend triton"
MSG = "Sampling backend is set to pytorch for deterministic inference."


class DeterministicSamplingBackendOverridden(Rule):
    code = "SGL244"
    name = "deterministic-sampling-backend-overridden"
    severity = WARNING

    VALID = [
        Valid.sh(f"{QWEN} --sampling-backend pytorch"),
        Valid.sh(f"{QWEN}"),
        Valid.sh("python -m sglang.launch_server --model-path Qwen/Qwen3-8B --sampling-backend flashinfer"),
        Valid.sh(f"{QWEN} --sampling-backend $BACKEND"),
        Valid.py(
            """
            import sglang as sgl
            llm = sgl.Engine(model_path="Qwen/Qwen3-8B", enable_deterministic_inference=True, attention_backend="triton",
                             sampling_backend="pytorch")
            """
        ),
        Valid.yaml(
            """
            services:
              sglang:
                image: lmsysorg/sglang:v0.5.23
                command: >-
                  python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --sampling-backend flashinfer
            """
        ),
    ]
    INVALID = [
        Invalid.sh(f"{QWEN} --sampling-backend flashinfer", at="flashinfer", message=MSG),
        Invalid.sh(f"{QWEN} --sampling-backend flashinfer", at="flashinfer", sglang="0.5.3"),
        Invalid.sh("python -m sglang.launch_server --model-path Qwen/Qwen3-8B --rl-on-policy-target fsdp "
                   "--attention-backend triton --sampling-backend flashinfer", at="flashinfer", sglang="0.5.10",
                   message="--rl-on-policy-target"),
        Invalid.py(
            """
            import sglang as sgl
            llm = sgl.Engine(model_path="Qwen/Qwen3-8B", enable_deterministic_inference=True, attention_backend="triton",
                             sampling_backend="flashinfer")
            """,
            at='"flashinfer"',
        ),
        Invalid.yaml(
            """
            services:
              sglang:
                image: lmsysorg/sglang:v0.5.23
                command: >-
                  python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --enable-deterministic-inference
                  --attention-backend triton --sampling-backend flashinfer
            """,
            at="flashinfer",
        ),
    ]

    def check(self, launch):
        v = eff.version(launch)
        if not eff.at_least(v, "0.5.3") or launch.opaque:
            return
        arg = launch.last("sampling_backend")
        if arg is None or not arg.known or not isinstance(arg.value, str):
            return
        backend = arg.value
        if backend == "pytorch" or (backend == "ascend" and eff.at_least(v, "0.5.13")):
            return
        a = det.analyse(launch)
        if a is None:
            return
        if any(x.rejected for x in a.verdicts):
            return  # SGL201-SGL203: the launch does not start
        how = a.enabled_how
        yield self.diagnostic(
            arg.value_span or arg.span,
            f"--sampling-backend {backend} is overridden: with deterministic inference ({how}) SGLang {v} samples with "
            f"pytorch (\"{MSG}\")",
            help="write --sampling-backend pytorch (or drop the flag) so the launch says what runs",
            related=[(a.enabled_by.span, f"deterministic inference is enabled here ({how})")],
            launch=launch,
        )
