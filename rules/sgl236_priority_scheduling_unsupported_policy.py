"""`--enable-priority-scheduling` with a `--schedule-policy` other than `fcfs` or `lof`.

## What it does
Finds launches that enable priority scheduling while choosing a scheduling
policy (e.g. the default-looking `lpm`, `random`, `dfs-weight`) that priority
scheduling cannot combine with.

## Why is this bad?
The server stops at start-up with `AssertionError: To use priority
scheduling, schedule_policy must be 'fcfs' or 'lof'. 'lpm' is not supported.`

## Example
```sh
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --enable-priority-scheduling --schedule-policy lpm
```

## Use instead
```sh
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --enable-priority-scheduling --schedule-policy fcfs
```

## References
- `sglang/srt/server_args.py` `ServerArgs.check_server_args` (0.5.3-0.5.18)
  and `sglang/srt/arg_groups/validation_hook.py` `check_server_args`
  (0.5.19-0.5.23); the assert and its message are identical in every wheel
  0.5.3-0.5.23 (the default policy is `fcfs`).
"""

from sgllint.model.rule import ERROR, Invalid, Rule, Valid
from sgllint.semantics import effective as eff

QWEN = "python -m sglang.launch_server --model-path Qwen/Qwen3-8B"


class PrioritySchedulingUnsupportedPolicy(Rule):
    code = "SGL236"
    name = "priority-scheduling-unsupported-policy"
    severity = ERROR

    VALID = [
        Valid.sh(f"{QWEN} --enable-priority-scheduling"),
        Valid.sh(f"{QWEN} --enable-priority-scheduling --schedule-policy lof"),
        Valid.sh(f"{QWEN} --schedule-policy lpm"),
        Valid.py(
            """
            import sglang as sgl
            llm = sgl.Engine(model_path="Qwen/Qwen3-8B", enable_priority_scheduling=True, schedule_policy="fcfs")
            """
        ),
    ]
    INVALID = [
        Invalid.sh(f"{QWEN} --enable-priority-scheduling --schedule-policy lpm", at="lpm", message="'lpm' is not supported"),
        Invalid.sh(f"{QWEN} --schedule-policy random --enable-priority-scheduling", at="random", sglang="0.5.3"),
        Invalid.py(
            """
            import sglang as sgl
            llm = sgl.Engine(model_path="Qwen/Qwen3-8B", enable_priority_scheduling=True, schedule_policy="lpm")
            """,
            at='"lpm"',
        ),
    ]

    def check(self, launch):
        v = eff.version(launch)
        if not eff.at_least(v, "0.5.3") or not eff.has_field(launch, "enable_priority_scheduling"):
            return
        prio = launch.last("enable_priority_scheduling")
        policy = launch.last("schedule_policy")
        if prio is None or prio.value is not True or policy is None or not isinstance(policy.value, str):
            return
        if policy.value in ("fcfs", "lof"):
            return
        yield self.diagnostic(
            policy.value_span or policy.span,
            f"SGLang {v} stops at start-up: \"To use priority scheduling, schedule_policy must be 'fcfs' or 'lof'. "
            f"'{policy.value}' is not supported.\"",
            help="use --schedule-policy fcfs (or lof) with --enable-priority-scheduling, or drop priority scheduling",
            related=[(prio.flag_span, "priority scheduling is enabled here")],
            launch=launch,
        )
