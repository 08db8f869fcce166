"""sgllint's verdicts against SGLang's own, on the oracle's recorded cases.

Each case in ``tests/data/oracle/deterministic-<release>.json`` was judged by
the release's real ``prepare_server_args`` (+ ``resolve_once``) on a faked
GPU (``deterministic_oracle.py``). Here the same launch is linted with every
rule, the GPU and architecture pinned by pragmas, and the verdicts compared:

* SGLang rejected  <=> sgllint reports at least one error;
* SGLang accepted with the radix cache switched off <=> SGL204 (when
  sgllint reports no error).

``python -m tests.oracle.agreement`` prints the agreement table that
``tests/oracle/AGREEMENT.md`` holds; ``tests/test_oracle_agreement.py`` fails
when a disagreement is not listed with its reason in ``ACCEPTED``.
"""

from __future__ import annotations

import json
import sys
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "oracle"
MODEL = "/models/oracle-model"

#: disagreements that are understood: (name, test(case, sgllint verdict, diagnostics), reason)
ACCEPTED = [
    (
        "runtime check",
        lambda case, mine, diags: case["verdict"] == "accepted"
        and mine == "rejected"
        and {d.code for d in diags if d.severity.value == "error"} <= RUNTIME_RULES,
        "SGLang accepts these arguments and fails later, when the model runner starts "
        "(sglang/srt/layers/attention/attention_registry.py asserts that fa3 needs SM90, or SM8x "
        "without MLA; the same assert in every release of the table); the oracle stops after "
        "argument resolution, sgllint reports the failure now.",
    ),
]
#: rules that report failures SGLang raises after argument resolution
RUNTIME_RULES = {"SGL304"}

#: model types the matrix uses that older releases cannot load: architecture ->
#: (first release whose code knows it, the SGLang file that introduced it)
ARCH_INTRODUCED = {
    "KimiK25ForConditionalGeneration": ("0.5.9", "sglang/srt/configs/kimi_k25.py"),
    "Glm4MoeLiteForCausalLM": ("0.5.8", "sglang/srt/models/glm4_moe_lite.py"),
}

#: harness errors (never SGLang verdicts) that are understood: (name, test(case), reason)
HARNESS_EXPLAINED = [
    (
        "architecture newer than the release",
        lambda case: case["arch"] in ARCH_INTRODUCED
        and _vkey(release_of(case)) < _vkey(ARCH_INTRODUCED[case["arch"]][0])
        and "get_config(" in (case.get("error") or "")
        and "does not recognize this architecture" in (case.get("error") or ""),
        "the release's own get_config (sglang/srt/utils/hf_transformers_utils.py) cannot load the "
        "model directory: neither the release nor its pinned transformers knows the model type "
        "(kimi_k25 first appears in 0.5.9, sglang/srt/configs/kimi_k25.py; glm4_moe_lite in 0.5.8, "
        "sglang/srt/models/glm4_moe_lite.py). The architecture postdates the release, so there is "
        "no SGLang verdict to compare with.",
    ),
]


def _vkey(v: str) -> tuple:
    return tuple(int(x) for x in v.split("."))


def cases():
    for path in sorted(DATA.glob("deterministic-*.json")):
        for case in json.loads(path.read_text()):
            yield case


def launch_text(case: dict) -> str:
    major, minor = case["sm"]
    argv = [MODEL if a.endswith("/" + case["arch"]) else a for a in case["argv"]]
    return (
        f"# sgllint: gpu=sm{major}{minor}\n"
        f"# sgllint: arch={case['arch']}\n"
        "python -m sglang.launch_server " + " ".join(argv) + "\n"
    )


def release_of(case: dict) -> str:
    return ".".join(case["release"].split(".")[:3])


def judge(case: dict):
    from sgllint.engine.pipeline import Options, lint_source

    result = lint_source("case.sh", launch_text(case), Options(sglang_version=release_of(case), use_environment=False))
    errors = [d for d in result.diagnostics if d.severity.value == "error"]
    radix = any(d.code == "SGL204" for d in result.diagnostics)
    return ("rejected" if errors else "accepted"), radix, result.diagnostics


def key(case: dict) -> tuple:
    return (release_of(case), case["gpu"], case["arch"], case["backend_arg"], case["deterministic"])


def compare():
    """(per-release counters, list of unexplained disagreements)."""
    table: dict[str, Counter] = defaultdict(Counter)
    problems = []
    for case in cases():
        rel = release_of(case)
        if case["verdict"] == "harness-error":
            table[rel]["harness errors (not SGLang verdicts)"] += 1
            why = next((name for name, test, _ in HARNESS_EXPLAINED if test(case)), None)
            if why is None:
                problems.append(f"{key(case)}: unexplained harness error: {case.get('error')}")
            else:
                table[rel]["harness: " + why] += 1
            continue
        table[rel]["cases"] += 1
        mine, radix, diags = judge(case)
        same = mine == case["verdict"]
        if same and mine == "accepted" and case["deterministic"]:
            same = radix == bool(case.get("radix_disabled"))
        if same:
            table[rel]["agree"] += 1
            continue
        k = key(case)
        reason = next((name for name, test, _ in ACCEPTED if test(case, mine, diags)), None)
        if reason is not None:
            table[rel]["accepted disagreements"] += 1
            table[rel]["accepted: " + reason] += 1
            continue
        table[rel]["disagree"] += 1
        problems.append(
            f"{k}: SGLang {case['verdict']}"
            f"{' (radix off)' if case.get('radix_disabled') else ''}: {case.get('error') or ''} | "
            f"sgllint {mine}: {[(d.code, d.severity.value) for d in diags]}"
        )
    return table, problems


def markdown(table) -> str:
    cols = ["cases", "agree", "disagree", "accepted disagreements", "harness errors (not SGLang verdicts)"]
    lines = [
        "# Agreement with SGLang's own verdicts (deterministic inference)",
        "",
        "Generated by `python -m tests.oracle.agreement` from `tests/data/oracle/`;",
        "checked by `tests/test_oracle_agreement.py`. A case agrees when SGLang",
        "rejects it and sgllint reports an error, or SGLang accepts it and sgllint",
        "reports none (and, for deterministic cases, SGL204 exactly when SGLang",
        "switched the radix cache off).",
        "",
        "| release | " + " | ".join(cols) + " |",
        "|---" * (len(cols) + 1) + "|",
    ]
    releases = sorted(table, key=_vkey)
    for rel in releases:
        lines.append(f"| {rel} | " + " | ".join(str(table[rel][c]) for c in cols) + " |")
    lines += ["", "Accepted disagreements, by reason:", ""]
    for name, _, why in ACCEPTED:
        counts = ", ".join(f"{rel}: {table[rel]['accepted: ' + name]}" for rel in releases)
        lines.append(f"- **{name}** ({counts}): {why}")
    lines += ["", "Harness errors, by reason (cases the harness could not put to SGLang; not counted as cases):", ""]
    for name, _, why in HARNESS_EXPLAINED:
        hits = [rel for rel in releases if table[rel]["harness: " + name]]
        counts = ", ".join(f"{rel}: {table[rel]['harness: ' + name]}" for rel in hits) or "none"
        archs = ", ".join(f"{a} (before {v})" for a, (v, _) in ARCH_INTRODUCED.items())
        lines.append(f"- **{name}** ({counts}; {archs}): {why}")
    lines += [
        "",
        "Releases not in the table have not been run through the oracle yet",
        "(`tests/oracle/README.md` says how; about 5-10 minutes per release).",
    ]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    t, p = compare()
    sys.stdout.write(markdown(t))
    if p:
        sys.stdout.write("\nDisagreements:\n" + "\n".join(p) + "\n")
