"""A launch SGLang's own start-up validation rejects, found by running the release's derived checks.

## What it does
Runs the target release's start-up validation (derived from the release's
own code by `sgllint/catalog/_gen_validation.py`, evaluated with three-valued
logic by `sgllint.semantics.validation`) on the launch: its arguments, the
release's defaults, the model's `config.json` when the project has it, the
pinned GPU and the environment variables the launch sets. When a rejection
is *definitely* reached, reports SGLang's own message with the launch's
values, each argument and fact the failing condition read (as related
locations), and the check's `file:line` in that release. A check whose
outcome depends on something not known (an unpinned GPU, an unread model
config, the serving machine's files) is never reported: `sgllint explain`
lists those.

Each check has a stable id (the same check keeps it across releases):
`# noqa: SGL400[<id>]` silences one check on that launch, and
`ignore-sglang-checks = ["<id>", ...]` in `[tool.sgllint]` silences it
everywhere. A curated rule that covers the same site (its `sglang_checks`)
wins, and the derived diagnostic is dropped. The rule is silent until the
evaluator is installed and declares itself ready for every lint
(`SGLLINT_DERIVED_VALIDATION=1` runs it before that).

## Why is this bad?
SGLang raises at start-up, usually after the container has been scheduled
and the GPUs allocated: `python -m sglang.launch_server` exits with the
traceback of the check, and the deployment crash-loops.

## Example
```sh
# sgllint: gpu=H100 sglang=0.5.23
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --disaggregation-mode prefill --disaggregation-transfer-backend fake
```

## Use instead
```sh
# sgllint: gpu=H100 sglang=0.5.23
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp-size 2
```

## References
- the rejection sites of each release, derived from its wheel:
  `sgllint/catalog/data/validation/sglang-<version>.json.gz` (`sgllint sglang-coverage`)
- `sglang/srt/server_args.py` `ServerArgs.__post_init__` / `check_server_args`
  and (0.5.19+) `sglang/srt/arg_groups/*_hook.py`, every release 0.4.0–0.5.23
"""

from sgllint.model.rule import ERROR, Invalid, Rule, Valid
from sgllint.semantics import launch_validation as lv

QWEN = "python -m sglang.launch_server --model-path Qwen/Qwen3-8B"


def _show(value) -> str:
    if value is True:
        return "set"
    return repr(value) if isinstance(value, str) else str(value)


class SglangRejectsLaunch(Rule):
    code = "SGL400"
    name = "sglang-rejects-launch"
    severity = ERROR
    #: its examples need the evaluator (tests/test_rules.py skips them while it is missing)
    needs_evaluator = True

    VALID = [
        Valid.sh(f"# sgllint: gpu=H100\n{QWEN} --tp-size 2", sglang="0.5.23"),
        Valid.sh(f"{QWEN} --disaggregation-mode prefill --disaggregation-transfer-backend $BACKEND", sglang="0.5.23"),
    ]
    INVALID = [
        Invalid.sh(f"# sgllint: gpu=H100\n{QWEN} --disaggregation-mode prefill --disaggregation-transfer-backend fake",
                   at="fake", sglang="0.5.23", message="Prefill server does not support 'fake'"),
    ]

    def check(self, launch):
        ev = lv.evaluated(launch)
        v = ev.verdict
        if v is None or v.rejection is None:
            return
        hit = v.rejection
        if hit.id in lv.covered_checks():
            return  # a curated rule reports this site
        version = launch.context.catalog.version
        fields = lv.condition_fields(launch, hit)
        args = lv.user_set_in_order(launch, fields)
        cat = launch.context.catalog
        related = []
        for a in args:
            related.append((lv.value_span(a), f"{a.spelling} = {_show(a.value)} (read by the check)"))
        reads = [f"{a.spelling} = {_show(a.value)}" for a in args]
        given = {a.field for a in args}
        for f in fields:
            if f not in given and f in cat.fields:
                reads.append(f"{cat.flag_for_field(f)} = {_show(cat.fields[f].default)} (default)")
        facts = lv.condition_facts(launch, hit)
        ctx = launch.context
        if any(f.startswith("gpu:") for f in facts) and ctx.gpu is not None:
            reads.append(f"GPU {ctx.gpu_target.describe()} ({ctx.gpu.source})")
            if ctx.gpu.span is not None:
                related.append((ctx.gpu.span, f"the GPU: {ctx.gpu_target.describe()}"))
        if any(f.startswith("model:") for f in facts) and ev.provenance.get("model_config"):
            reads.append(f"the model's config.json ({ev.provenance['model_config']})")
            m = launch.last("model_path")
            if m is not None and m.value_span is not None:
                related.append((m.value_span, "the model whose config.json the check read"))
        primary = lv.value_span(args[-1]) if args else launch.site.entry_span
        where = f"sglang/{hit.file.split('sglang/', 1)[-1]}:{hit.line}"
        because = f"because {', '.join(reads)}; " if reads else ""
        d = self.diagnostic(
            primary,
            f"SGLang {version} rejects this launch at start-up: {hit.message.strip()}",
            help=f"{because}check {hit.id} at {where} (SGLang {version}); silence this check with '# noqa: SGL400[{hit.id}]'",
            related=related,
            launch=launch,
        )
        d.context = {**ctx.as_dict(), "sglang_check": hit.id, "sglang_site": where}
        yield d
