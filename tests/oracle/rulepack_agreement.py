"""sgllint's rule pack against SGLang's own verdicts, per rule and release.

Inputs: ``tests/data/oracle/rulepack-cases.json`` (``rulepack_cases.py``: the
launches made from each rule-pack rule's examples) and
``tests/data/oracle/rulepack-<release>.json`` (``rulepack_oracle.py``: what
that release's real start-up validation said). Each judged case is linted
here with **every** rule, the release, GPU (``gpu=smXY``) and architecture
(``arch=``) pinned exactly as the oracle faked them; then, for every rule R
whose example produced the case:

* SGLang **rejected** and sgllint reports R as an error -> agree;
* SGLang rejected and sgllint reports another error (e.g. SGL101 when the
  release's argparse does not know a flag, or the rule whose failure SGLang
  raised first) -> agree, counted under "other rule";
* SGLang rejected and sgllint reports no error -> disagree (missed);
* SGLang **accepted** and sgllint reports no error -> agree;
* SGLang accepted and sgllint reports any error -> disagree (false alarm),
  unless a reason in ``ACCEPTED`` explains it.

Warnings and infos never count in that table (SGLang accepts those
launches). Harness errors of the oracle are counted separately and are never
verdicts.

Warning rules that say "SGLang silently overwrites the value you wrote"
(``REWRITES``: SGL241, SGL243-SGL246) are judged on their own accepted cases
by what SGLang **did**: the oracle records each accepted case's effective
values after resolution (``effective``), and the rule must warn exactly when
the explicit value in the argv differs from the effective one (warned,
rewritten -> agree; warned without a rewrite, or a rewrite without the
warning -> disagree, unless ``WARN_ACCEPTED`` gives the reason). The same is
checked on every accepted case of the other rules' examples ("other rules'
cases": a rewrite rule must stay silent where nothing is rewritten). Every other
warning-severity rule of the pack needs a reason in ``NOT_A_REWRITE``.

Rules SGLang raises for only after the arguments are resolved (kernel load,
model runner, a hang) are listed in ``OUTSIDE`` with the SGLang source line
and a public issue where users hit the failure.

``python -m tests.oracle.rulepack_agreement`` prints the table;
``--write`` also writes ``tests/oracle/RULEPACK_AGREEMENT.md``;
``tests/test_rulepack_agreement.py`` fails on an unexplained disagreement.
"""

from __future__ import annotations

import json
import shlex
import sys
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "oracle"
CASES = DATA / "rulepack-cases.json"
OUT_MD = ROOT / "tests" / "oracle" / "RULEPACK_AGREEMENT.md"
MODELS = "/models"

#: rules whose failure SGLang raises only after argument resolution: (why, citation)
OUTSIDE: dict[str, tuple[str, str]] = {
    "SGL400": (
        "not a hand-written rule: it reports what the release's derived start-up validation (generated from the wheel) "
        "definitely rejects, so it is judged against the real SGLang by the random differential, not by rule-pack "
        "examples (issue 17)",
        "tests/oracle/random_agreement.py over tests/data/oracle/random/ (2,000 recorded SGLang verdicts per release)",
    ),
    "SGL401": (
        "not a hand-written rule: it reports the definite rewrites of the release's derived start-up code, judged "
        "against SGLang's recorded final values by the random differential (issue 17)",
        "tests/oracle/random_agreement.py over tests/data/oracle/random/ (rewritten fields per launch)",
    ),
    # issue 19: the deployment around the launch. The oracle runs each case's ServerArgs on its own (no
    # manifest, no peers, no model weights), so none of these failures can happen in it.
    "SGL501": (
        "not an SGLang check: the pod or container gives /dev/shm less room than NCCL's shared-memory transport "
        "needs, and the first all-reduce dies of a bus error at run time; the manifest is outside the oracle",
        "SGLang's `docker run --shm-size 32g` install instructions; Docker `--shm-size` default 64m; Kubernetes "
        "`emptyDir.medium: Memory` (references in rules/sgl501_shared_memory_too_small.py)",
    ),
    "SGL502": (
        "not an SGLang check: a token written in plain text in a manifest is a leak, not a start-up failure",
        "Hugging Face user access tokens; Kubernetes Secrets as environment variables (rules/sgl502_plain_text_secret.py)",
    ),
    "SGL503": (
        "not an SGLang check: the kubelet probes a port the server does not serve and restarts a healthy pod",
        "`port: int = 30000` in `sglang/srt/server_args.py` (every release); `/health` in "
        "`sglang/srt/entrypoints/http_server.py` (0.5.23 :721-722)",
    ),
    "SGL504": (
        "not an SGLang check: the kubelet kills a server that is still loading the model (probe window shorter "
        "than the load)",
        "Kubernetes probe defaults (initialDelaySeconds 0, periodSeconds 10, failureThreshold 3); `/health` is served "
        "only after `_wait_and_warmup` (`sglang/srt/entrypoints/http_server.py`, 0.5.23 :721)",
    ),
    "SGL505": (
        "not an SGLang check: a model cache on a pod-lifetime volume is downloaded again on every rollout",
        "`download_weights_from_hf` (`sglang/srt/model_loader/weight_utils.py`, 0.5.23 :621); Kubernetes emptyDir "
        "lifetime",
    ),
    "SGL506": (
        "a property of a group of launches: each PD server starts on its own and SGLang validates it alone; the pair "
        "fails when the KV cache is transferred (bootstrap hang or unreadable pages)",
        "`sglang/srt/disaggregation/prefill.py`, `decode.py`, `utils.py` (`TransferBackend`), releases 0.4.6+",
    ),
    "SGL507": (
        "a property of a group of launches: the router's target URL names a port no server of the file serves; each "
        "server starts, the router's requests fail",
        "`sglang_router/launch_router.py` (`--prefill`, `--decode`, `--worker-urls`); `port: int = 30000` in "
        "`sglang/srt/server_args.py`",
    ),
    "SGL508": (
        "a property of a group of launches: ranks and world size of the nodes disagree; torch.distributed waits for "
        "peers that never arrive (a hang after ServerArgs, not an exception in it)",
        "`init_distributed_environment` in `sglang/srt/distributed/parallel_state.py` (world size tp x pp, "
        "rank node_rank x per-node + i)",
    ),
    "SGL509": (
        "raised while the model is built (a model file's assertion on its head counts), after ServerArgs, with the "
        "model's config.json; the oracle resolves arguments without loading a model",
        "`assert self.total_num_heads % tp_size == 0` in `sglang/srt/models/llama.py` (0.5.23 :183) and the files "
        "listed per release in sgllint/catalog/data/head_split.json",
    ),
    "SGL510": (
        "raised by ModelConfig from the model's config.json when the model is loaded; the oracle resolves arguments "
        "without a model",
        "`_derive_context_length` in `sglang/srt/configs/model_config.py` (0.5.23 :1303/:1314; 0.4.0 :72/:79)",
    ),
    "SGL511": (
        "raised while the KV pool is sized after the weights are loaded on the GPU; the oracle has neither",
        "\"Not enough memory. Please try to increase --mem-fraction-static.\" in "
        "`sglang/srt/model_executor/pool_configurator.py` (0.5.23 :96; `model_runner.py` :517 in 0.4.0)",
    ),
    "SGL512": (
        "not an SGLang check: the kubelet probes a path the HTTP server does not route (404) and restarts a healthy "
        "pod or keeps it out of its Service; the manifest is outside the oracle",
        "the GET routes of `sglang/srt/entrypoints/*.py` per release (sgllint/catalog/data/http_routes.json, "
        "generated by sgllint/catalog/_gen_http_routes.py; 0.5.23 `http_server.py` :721-722 `/health`, "
        "`/health_generate`)",
    ),
    "SGL513": (
        "not an SGLang check: a Service forwards to a port the server does not listen on; the server starts and "
        "serves, requests through the Service are refused; the manifest is outside the oracle",
        "`port: int = 30000` in `sglang/srt/server_args.py` (every release); Kubernetes Service `targetPort` "
        "(defaults to `port`, a name resolves among the pod's container ports)",
    ),
    "SGL211": (
        "no start-up check. Without `--dist-init-addr` each node's model runner initialises torch.distributed on "
        "`tcp://127.0.0.1:<port>` and waits for peers that never arrive (a hang, not an exception); only with attention "
        "DP does `PortArgs.init_new` touch the address, and the oracle runs `PortArgs.init_new`. SGL211 is a warning, "
        "so its cases count here only for the absence of errors.",
        "`sglang/srt/model_executor/model_runner.py` 0.5.4.post3 :606-608 (`dist_init_method = "
        "f\"tcp://127.0.0.1:{self.dist_port}\"` when `dist_init_addr` is unset), the same fallback quoted in "
        "sgl-project/sglang#15392; `sglang/srt/server_args.py` `PortArgs.init_new` (0.5.23 :819-825)",
    ),
    "SGL301": (
        "SGLang never compares the parallelism with the visible GPUs before it spawns the schedulers; a scheduler "
        "fails binding a device id that does not exist (`CUDA error: invalid device ordinal`). The oracle fakes 8 "
        "GPUs, and sgllint's GPU count comes from the manifest (CUDA_VISIBLE_DEVICES, GPU limits), which the case "
        "launches do not carry, so SGL301 never fires on them.",
        "`sglang/srt/entrypoints/engine.py` (one scheduler per GPU, `gpu_id = base_gpu_id + ...`) and "
        "`managers/data_parallel_controller.py`; users hit it in sgl-project/sglang#3470 (2 nodes, `--tp 16`) and "
        "sgl-project/sglang#9451 (`--tp 16 --pp 2` on an 8-GPU pod)",
    ),
    "SGL308": (
        "SGLang resolves the arguments of `cutedsl_mla` with a model that does not use MLA (e.g. Qwen3) without "
        "complaint; `create_cutedsl_mla_backend` refuses it when the model runner builds the attention backend "
        "(`ValueError: cutedsl_mla backend can only be used with MLA models.`), after argument resolution, so the "
        "oracle accepts that launch (listed under 'model-load check' below). SGL308's argument-time checks (prefill "
        "role, SM10x, KV-cache dtype, `tokenspeed_mla`) are judged by the oracle as usual.",
        "`sglang/srt/layers/attention/attention_registry.py` `create_cutedsl_mla_backend` (0.5.13.post1 :77-80, "
        "0.5.19 :107-110, 0.5.23 :118-121: `if not runner.use_mla_backend: raise ValueError(...)`); the backend and "
        "its start-up checks came with sgl-project/sglang#24737 (\"Support Flashinfer Cute-DSL MLA attention\")",
    ),
    "SGL304": (
        "fa3 on an unsupported SM (SM8x with an MLA model, SM10x and later) is asserted when the model runner creates "
        "the attention backend, after argument resolution: SGLang accepts these launches in the oracle, and the "
        "disagreement is listed under 'runtime check' below.",
        "`sglang/srt/layers/attention/attention_registry.py` `create_flashattention_v3_backend` (0.5.4.post3 :125-131, "
        "0.5.23 :239-244: `FlashAttention v3 Backend requires SM>=80 and SM<=90`); the vision path's "
        "`The 'fa3' backend is not supported on Blackwell GPUs` is sgl-project/sglang#12360 (Qwen3-VL on B200)",
    ),
}

#: rules whose errors SGLang raises after argument resolution (the oracle accepts those launches)
RUNTIME_RULES = {"SGL304", "SGL301"}


def _msg(rec: dict) -> str:
    return rec.get("error") or ""


#: understood disagreements: (name, test(case, oracle record, sgllint error codes), reason)
ACCEPTED: list[tuple[str, object, str]] = [
    (
        "runtime check",
        lambda case, rec, errors: rec["verdict"] == "accepted" and errors and set(errors) <= RUNTIME_RULES,
        "SGLang accepts the arguments and fails later, when the model runner builds the attention backend "
        "(SGL304, see 'Outside the oracle'); sgllint reports that failure now.",
    ),
    (
        "model-load check",
        lambda case, rec, errors: rec["verdict"] == "accepted" and errors == ["SGL308"] and all(
            "can only be used with MLA models" in d.message for d in lint(case) if d.code == "SGL308"),
        "SGLang accepts `cutedsl_mla` with a non-MLA model while resolving the arguments and fails when the model "
        "runner creates the attention backend (SGL308, see 'Outside the oracle'); sgllint reports that failure now.",
    ),
]


def _attention_dp_on(eff: dict) -> bool | None:
    """Attention DP as the server runs it: ``attn_dp_size > 1`` where the
    release has the split width (0.5.22+), else ``enable_dp_attention`` with
    ``dp_size > 1`` (0.5.2-0.5.21 reset the flag when ``dp_size == 1``)."""
    if eff.get("attn_dp_size") is not None:
        return eff["attn_dp_size"] > 1
    if "enable_dp_attention" not in eff:
        return None
    return bool(eff["enable_dp_attention"]) and (eff.get("dp_size") or 1) > 1


#: warning rules whose claim is "SGLang overwrites your explicit value":
#: rule -> (argv flag, effective field, effective value as the flag means it).
#: The flag's explicit value is the last one in the argv (``--flag v``,
#: ``--flag=v``; a bare flag is True); "rewritten" = explicit value given and
#: not equal to the effective value (compared as the effective value's type).
REWRITES: dict[str, tuple[str, str, object]] = {
    "SGL241": ("--page-size", "page_size", None),
    "SGL243": ("--chunked-prefill-size", "chunked_prefill_size", None),
    "SGL244": ("--sampling-backend", "sampling_backend", None),
    "SGL245": ("--enable-mixed-chunk", "enable_mixed_chunk", None),
    "SGL246": ("--enable-dp-attention", "attention DP on", _attention_dp_on),
}

#: warning-severity rules of the pack that do not claim a rewrite: rule -> why
NOT_A_REWRITE: dict[str, str] = {
    "SGL211": "warns about a multi-node launch without `--dist-init-addr` (a hang at start-up, see 'Outside the "
              "oracle'); SGLang overwrites no value, so there is nothing to observe after resolution.",
    "SGL259": "warns that `SGLANG_ENABLE_DETERMINISTIC_INFERENCE=1` without the flag does nothing: SGLang writes the "
              "variable from the flag, no server argument changes, so the oracle (which observes arguments) has "
              "nothing to compare.",
    "SGL260": "warns about a prefill/decode/draft attention backend that SGLang accepts unchecked under deterministic "
              "inference; SGLang overwrites no value, so there is nothing to observe after resolution.",
}


def explicit_value(argv: list[str], flag: str):
    """The last value of ``flag`` in ``argv`` (True for a bare flag), or None."""
    out = None
    for i, w in enumerate(argv):
        if w == flag:
            nxt = argv[i + 1] if i + 1 < len(argv) else None
            out = True if nxt is None or nxt.startswith("--") else nxt
        elif w.startswith(flag + "="):
            out = w.split("=", 1)[1]
    return out


def _same(explicit, effective) -> bool:
    if isinstance(effective, bool) or explicit is True:
        if isinstance(explicit, str):
            explicit = explicit.lower() in ("1", "true", "yes")
        return bool(explicit) == bool(effective)
    if isinstance(effective, int):
        try:
            return int(explicit) == effective
        except ValueError:
            return False
    if isinstance(effective, float):
        try:
            return float(explicit) == effective
        except ValueError:
            return False
    return effective is not None and str(explicit) == str(effective)


def rewrite_observed(rule: str, case: dict, rec: dict) -> tuple[object, object, bool] | None:
    """(explicit, effective, rewritten) for a REWRITES rule on an accepted
    case; None when the oracle did not record the effective field."""
    flag, field, derive = REWRITES[rule]
    eff = rec.get("effective")
    if eff is None:
        return None
    explicit = explicit_value(case["argv"], flag)
    if derive is not None:
        value = derive(eff)
    elif field in eff:
        value = eff[field]
    else:
        return None
    if value is None and derive is not None:
        return None
    return explicit, value, explicit is not None and not _same(explicit, value)


#: understood warning disagreements: (name, test(rule, case, rec, warned, rewritten), reason)
WARN_ACCEPTED: list[tuple[str, object, str]] = [
    (
        "explicit attention-DP width 1",
        lambda rule, case, rec, warned, rewritten: rule == "SGL246" and rewritten and not warned and (
            explicit_value(case["argv"], "--dp-size") == "1" or explicit_value(case["argv"], "--attn-dp-size") == "1"),
        "`--enable-dp-attention --dp-size 1` writes attention DP over one group; SGLang resets `enable_dp_attention` "
        "(0.5.10.post1 `server_args.py` :2634-2636 `if self.dp_size == 1: self.enable_dp_attention = False`; 0.5.23 "
        "`arg_groups/parallel_hook.py` :50-60 keeps `attn_dp_size` 1), but one group is the same partition as none "
        "(`layers/dp_attention.py` `compute_dp_attention_world_info`, 0.5.10.post1 :240-241: `attn_tp_size = tp_size "
        "// attn_dp_size`), so the server runs what the launch writes and SGL246 by design reports only the width "
        "left at its default.",
    ),
]


def release_key(rel: str) -> tuple:
    return tuple(int(x) for x in rel.split("."))


def load_cases() -> dict:
    return json.loads(CASES.read_text())


def load_results() -> dict[str, dict[str, dict]]:
    """release -> case id -> oracle record."""
    out: dict[str, dict[str, dict]] = {}
    for path in sorted(DATA.glob("rulepack-*.json")):
        if path.name == CASES.name:
            continue
        data = json.loads(path.read_text())
        for rec in data["results"]:
            out.setdefault(rec["release"], {})[rec["id"]] = rec
    return out


def launch_text(case: dict) -> str:
    major, minor = case["sm"]
    subst = {"{MODEL}": f"{MODELS}/{case['model']}", "{DRAFT}": f"{MODELS}/draft/{case.get('draft_arch', '')}"}
    argv = []
    for a in case["argv"]:
        for k, v in subst.items():
            a = a.replace(k, v)
        argv.append(a)
    return (
        f"# sgllint: gpu=sm{major}{minor}\n"
        f"# sgllint: arch={case['arch']}\n"
        "python -m sglang.launch_server " + shlex.join(argv) + "\n"
    )


_OPTIONS = {}


def lint(case: dict):
    from sgllint.engine.config import Config
    from sgllint.engine.pipeline import Options, lint_source

    opts = _OPTIONS.get(case["release"])
    if opts is None:
        opts = _OPTIONS[case["release"]] = Options(config=Config(), sglang_version=case["release"], use_environment=False)
    diags = lint_source("case.sh", launch_text(case), opts).diagnostics
    return diags


def compare():
    """(table[(rule, release)] -> Counter, problems, details)."""
    cases = load_cases()
    results = load_results()
    table: dict[tuple[str, str], Counter] = defaultdict(Counter)
    problems: list[str] = []
    explained: list[str] = []
    warn_table: dict[tuple[str, str], Counter] = defaultdict(Counter)
    warn_problems: list[str] = []
    warn_explained: list[str] = []
    for case in cases["cases"]:
        rec = results.get(case["release"], {}).get(case["id"])
        rules = sorted({o["rule"] for o in case["origins"]})
        if rec is None:
            for r in rules:
                table[(r, case["release"])]["not run"] += 1
            continue
        if rec["verdict"] == "harness-error":
            for r in rules:
                table[(r, case["release"])]["harness errors"] += 1
            continue
        diags = lint(case)
        errors = sorted({d.code for d in diags if d.severity.value == "error"})
        sglang = rec["verdict"]
        if sglang == "accepted":
            _compare_warnings(case, rec, rules, diags, warn_table, warn_problems, warn_explained)
        for r in rules:
            row = table[(r, case["release"])]
            row["cases"] += 1
            row[sglang] += 1
            if sglang == "rejected" and r in errors:
                row["agree"] += 1
                row["agree: rule fired"] += 1
            elif sglang == "rejected" and errors:
                row["agree"] += 1
                row["agree: other rule"] += 1
            elif sglang == "accepted" and not errors:
                row["agree"] += 1
            else:
                reason = next((name for name, test, _ in ACCEPTED if test(case, rec, errors)), None)
                line = (f"{r} {case['release']} {case['id']} [{', '.join(sorted({o['example'] + '/' + o['kind'] for o in case['origins'] if o['rule'] == r}))}] "
                        f"{case['gpu']} {case['arch']} `{' '.join(case['argv'][2:])}`: SGLang {sglang}"
                        f"{' (' + (rec.get('error_class') or '') + ': ' + (rec.get('error') or '')[:160] + ' @ ' + str(rec.get('raised_at')) + ')' if sglang == 'rejected' else ''}"
                        f" | sgllint errors {errors or 'none'}")
                _record(row, reason, line, explained, problems)
    problems += warn_problems
    explained += warn_explained
    COMPARED["warnings"] = (warn_table, warn_problems, warn_explained)
    return cases, table, problems, explained


#: the last compare()'s warning table, problems and explained lines
COMPARED: dict[str, tuple] = {}


def _record(row, reason, line: str, explained: list, problems: list) -> None:
    """A disagreement: explained when an accepted reason matches, else a problem."""
    if reason is not None:
        row["accepted-with-reason"] += 1
        explained.append(f"[{reason}] " + line)
    else:
        row["disagree"] += 1
        problems.append(line)


def _compare_warnings(case, rec, rules, diags, table, problems, explained) -> None:
    for r in REWRITES:
        # own cases per release; every other accepted case once more, as a cross-check
        row = table[(r, case["release"])] if r in rules else table[(r, "other rules' cases")]
        seen = rewrite_observed(r, case, rec)
        if seen is None:
            row["no effective value"] += 1
            continue
        explicit, value, rewritten = seen
        warned = any(d.code == r for d in diags)
        row["cases"] += 1
        row["warned"] += warned
        row["rewritten"] += rewritten
        if warned == rewritten:
            row["agree"] += 1
            continue
        flag, field, _ = REWRITES[r]
        origin = sorted({o['example'] + '/' + o['kind'] for o in case['origins'] if o['rule'] == r}) or \
            sorted({o['example'] + '/' + o['kind'] for o in case['origins']})
        line = (f"{r} (warning) {case['release']} {case['id']} [{', '.join(origin)}] "
                f"{case['gpu']} {case['arch']} `{' '.join(case['argv'][2:])}`: {flag} {explicit!r} -> effective "
                f"{field} {value!r} ({'rewritten' if rewritten else 'kept'}) | sgllint {'warns' if warned else 'silent'}")
        reason = next((name for name, test, _ in WARN_ACCEPTED if test(r, case, rec, warned, rewritten)), None)
        _record(row, reason, line, explained, problems)


def markdown(cases: dict, table, problems: list[str], explained: list[str]) -> str:
    releases = sorted(cases["releases"], key=release_key)
    rules = cases["rules"]
    lines = [
        "# The rule pack against SGLang's own verdicts",
        "",
        "Generated by `python -m tests.oracle.rulepack_agreement --write` from",
        "`tests/data/oracle/rulepack-cases.json` (the launches of every rule-pack rule's",
        "VALID/INVALID examples, plus each INVALID launch with its flagged argument removed)",
        "and `tests/data/oracle/rulepack-<release>.json` (each release's real",
        "`prepare_server_args` → `resolve_once` → `check_server_args` → `PortArgs.init_new`",
        "on a faked GPU); checked by `tests/test_rulepack_agreement.py`. How to rerun:",
        "`tests/oracle/README.md`, section \"Oracle: rule pack\".",
        "",
        "A case counts for each rule whose example produced it. It agrees when SGLang",
        "rejects it and sgllint reports an error (`fired`: this rule; `other`: another",
        "rule, e.g. SGL101 for a flag the release does not have), or SGLang accepts it",
        "and sgllint reports no error at all. Warnings never count here; the warning",
        "rules that claim a silent rewrite are judged in \"Warnings: rewrite observed\".",
        "",
        "| rule | release | cases | SGLang rejected | agree | fired | other | disagree | accepted-with-reason | harness errors |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    totals = Counter()
    for code in sorted(rules):
        for rel in releases:
            row = table.get((code, rel), Counter())
            if not row:
                continue
            totals.update(row)
            lines.append(
                f"| {code} | {rel} | {row['cases']} | {row['rejected']} | {row['agree']} | {row['agree: rule fired']} | "
                f"{row['agree: other rule']} | {row['disagree']} | {row['accepted-with-reason']} | {row['harness errors']}"
                + (f" (+{row['not run']} not run)" if row["not run"] else "") + " |"
            )
    lines.append(
        f"| **all** | | {totals['cases']} | {totals['rejected']} | {totals['agree']} | {totals['agree: rule fired']} | "
        f"{totals['agree: other rule']} | {totals['disagree']} | {totals['accepted-with-reason']} | {totals['harness errors']} |"
    )
    warn_table, _, _ = COMPARED.get("warnings", ({}, [], []))
    lines += [
        "",
        "## Warnings: rewrite observed",
        "",
        "Warning rules that say SGLang silently overwrites an explicit value, judged on",
        "their own cases that SGLang accepted by what it did: the oracle records the",
        "effective values after resolution, and the rule agrees when it warns exactly",
        "when the explicit value in the argv (`flag`) differs from the effective one",
        "(`field`). `rewritten`: cases where SGLang changed the value; `warned`: cases",
        "where the rule warned. The row \"other rules' cases\" checks the same on every",
        "accepted case of the other rules' examples (all releases).",
        "",
        "| rule | flag → effective field | release | cases | warned | rewritten | agree | disagree | accepted-with-reason |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    wtot = Counter()
    for code in sorted(REWRITES):
        flag, field, _ = REWRITES[code]
        for rel in releases + ["other rules' cases"]:
            row = warn_table.get((code, rel), Counter())
            if not row:
                continue
            if rel in releases:
                wtot.update(row)
            lines.append(
                f"| {code} | `{flag}` → `{field}` | {rel} | {row['cases']} | {row['warned']} | {row['rewritten']} | "
                f"{row['agree']} | {row['disagree']} | {row['accepted-with-reason']}"
                + (f" (+{row['no effective value']} without effective value)" if row["no effective value"] else "")
                + " |"
            )
    lines.append(f"| **all (own cases)** | | | {wtot['cases']} | {wtot['warned']} | {wtot['rewritten']} | {wtot['agree']} | "
                 f"{wtot['disagree']} | {wtot['accepted-with-reason']} |")
    lines += ["", "Warning rules that claim no rewrite:", ""]
    for code, why in sorted(NOT_A_REWRITE.items()):
        lines.append(f"- **{code}** ({rules.get(code, {}).get('name', '?')}): {why}")
    lines += ["", "## Outside the oracle", "",
              "Failures SGLang hits only after argument resolution; their cases above still",
              "check that nothing else fires.", ""]
    for code, (why, cite) in sorted(OUTSIDE.items()):
        lines.append(f"- **{code}** ({rules.get(code, {}).get('name', '?')}): {why} Source: {cite}.")
    lines += ["", "## Accepted disagreements", ""]
    if not ACCEPTED:
        lines.append("None.")
    for name, _, why in ACCEPTED:
        lines.append(f"- **{name}**: {why}")
    for name, _, why in WARN_ACCEPTED:
        lines.append(f"- **{name}** (warning): {why}")
    for e in explained:
        lines.append(f"  - {e}")
    if problems:
        lines += ["", "## Unexplained disagreements", ""] + [f"- {p}" for p in problems]
    if cases.get("skipped"):
        lines += ["", "## Examples not run", "",
                  "Launches that cannot be run as written (a `$VAR` or `\"$@\"` argument):", ""]
        seen = sorted({(s["rule"], s["example"], s["why"]) for s in cases["skipped"]})
        for rule, ex, why in seen:
            lines.append(f"- {ex}: {why}")
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    cases, table, problems, explained = compare()
    md = markdown(cases, table, problems, explained)
    if "--write" in argv:
        OUT_MD.write_text(md)
    sys.stdout.write(md)
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main(sys.argv[1:]))
