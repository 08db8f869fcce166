"""sgllint's derived start-up validation against SGLang's own verdicts on the
random launches (issue 17, "the random differential").

Each case of ``tests/data/oracle/random/random-<release>.json.gz`` was run
through the release's real start-up path by ``random_oracle.py``. Here the same
launch becomes ``LaunchFacts`` -- the argv resolved into ``user_args`` by the
catalog's argparse emulation (``sgllint.resolve.argv.resolve_argv``), the model's
``config.json`` and the faked GPU from the case, no SGLang environment variable
set -- and ``sgllint.semantics.validation.evaluate`` judges it. Outcomes:

* SGLang accepted: ``agree`` when sgllint has no definite rejection, else a
  **false error**; each definite rewrite sgllint reports must be one SGLang made
  (field and final value), else a **false rewrite**; a rewrite SGLang made that
  sgllint does not report is a *missed rewrite* (counted, allowed);
* SGLang rejected after argparse: **same site** when sgllint's definite
  rejection names the file:line of the innermost ``sglang`` frame that raised;
  else *other site*, *possible only* (the site is among sgllint's possible
  rejections: a fact was unknown) or *missed*;
* SGLang's argparse rejected: not the evaluator's job (the flag rules' one);
  checked against the argv emulation: a problem on some argument, or an
  unknown/ambiguous option, is *flagged*;
* harness errors are never verdicts: counted, not compared.

Acceptance (issue 17): 0 false errors, 0 false rewrites, >= 95% of SGLang's
rejections (after argparse) at the same site; every other disagreement class
is listed with its cause in ``CAUSES`` and in the published table
``tests/oracle/RANDOM_AGREEMENT.md`` -- never filtered from the sample.

``python -m tests.oracle.random_agreement`` prints the figures per release;
``--write`` regenerates ``RANDOM_AGREEMENT.md``.
"""

from __future__ import annotations

import gzip
import json
import sys
from collections import Counter, defaultdict
from functools import lru_cache
from pathlib import Path

from tests.oracle.random_launches import MODEL_DIR_FILES

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "oracle" / "random"
TABLE = Path(__file__).resolve().parent / "RANDOM_AGREEMENT.md"
#: the releases the issue asks for, newest first
RELEASES = ("0.5.23", "0.5.19", "0.5.15", "0.5.10", "0.5.4", "0.4.10")
MIN_CASES = 2000
SAME_SITE_TARGET = 0.95
#: where the placeholders of a recorded argv point in LaunchFacts (the
#: evaluator reads the model's config from the facts, never from a path)
PLACEHOLDER_ROOT = "/models"


def _possible_hit(case: dict, verdict):
    """sgllint's possible rejection at the site where SGLang raised."""
    at = case.get("at")
    return next((h for h in (verdict.possible if verdict is not None else []) if hits_site(h, at)), None)


def _implicit(release, case, outcome, verdict) -> bool:
    h = _possible_hit(case, verdict) if outcome == "possible only" else None
    return h is not None and h.why.startswith("an implicit")


def _unknown_fact(release, case, outcome, verdict) -> bool:
    h = _possible_hit(case, verdict) if outcome == "possible only" else None
    return h is not None and ("unknown condition" in h.why or "assert on an unknown" in h.why
                              or "after an unknown branch" in h.why or "one of two paths" in h.why)


#: fields 0.4.x parses under another argparse dest (``--tp-size`` -> tensor_parallel_size ...;
#: ``ServerArgs.from_cli_args`` copies them back)
_RENAMED_DESTS = {"tp_size", "pp_size", "dp_size", "ep_size"}


def _unrecorded_rewrite(release, case, outcome, verdict) -> bool:
    if outcome != "false rewrite" or verdict is None or not release.startswith("0.4."):
        return False
    recorded = case.get("rw", {})
    wrong = [r for r in verdict.rewrites
             if not (r.field in recorded and _same_value(r.final_value, recorded[r.field][1]))]
    return bool(wrong) and all(r.field in _RENAMED_DESTS and r.field not in recorded for r in wrong)


def _final_unknown(release, case, outcome, verdict) -> bool:
    if outcome != "missed rewrite" or verdict is None:
        return False
    mine = {r.field for r in verdict.rewrites}
    missed = [f for f in case.get("rw", {}) if f not in mine]
    return bool(missed) and all(f in verdict.unknown_fields for f in missed)


def _earlier_possible(release, case, outcome, verdict) -> bool:
    return outcome == "other site" and _possible_hit(case, verdict) is not None


def _degraded(release, case, outcome, verdict) -> bool:
    return outcome in ("missed", "possible only", "missed rewrite") and verdict is not None \
        and verdict.degraded is not None


#: disagreement classes that are understood: (name, test(release, case, outcome, verdict), cause).
#: A class is added here only with its cause; what no test matches stays UNEXPLAINED (a problem).
CAUSES: list[tuple[str, object, str]] = [
    ("implicit exception", _implicit,
     "SGLang failed in an operation (a TypeError on None, a division by zero), not in its own "
     "raise/assert/sys.exit. The evaluator reports an operation failing inside the interpreter as a possible "
     "rejection only: it is as likely a gap of the environment model as SGLang's failure, and a false error is "
     "never acceptable (the standard JSON parser on a concrete text is the one exception: its failure is "
     "SGLang's)."),
    ("unknown fact", _unknown_fact,
     "The failing condition reads a fact the evaluator does not know: a model attribute config.json does not "
     "list (transformers' config class defaults it), a quantization method's own hook (outside the derived "
     "start-up code), an installed package or a file. The site is reported as possible (sgllint explain), "
     "never as an error."),
    ("rewrite the oracle cannot see", _unrecorded_rewrite,
     "0.4.x parses --tp-size/--pp-size/--dp-size/--ep-size into tensor_parallel_size/... which ServerArgs "
     "does not have; random_oracle.rewrites() compares argparse dests with the record, so SGLang's own "
     "rewrites of these fields (e.g. 0.4.10 server_args.py:287/489 `self.ep_size = self.tp_size` with "
     "--enable-ep-moe) are never recorded. sgllint's rewrite is SGLang's; the fixture lacks it."),
    ("final value unknown", _final_unknown,
     "SGLang rewrote the field to a value that depends on a fact the evaluator does not know, so sgllint "
     "does not claim a definite rewrite (Verdict.unknown_fields); missed rewrites are allowed."),
    ("an earlier check was only possible", _earlier_possible,
     "SGLang failed first at a check whose condition reads a fact the evaluator does not know (sgllint lists "
     "that site as possible); sgllint's definite error is a later check the same launch also fails, which "
     "SGLang would report once the first problem is fixed."),
    ("evaluation degraded", _degraded,
     "The interpreter stopped following the start-up path before this site (Verdict.degraded names where: "
     "the per-launch call budget, a construct it does not model under an unknown condition); nothing after "
     "that point is reported as definite."),
]


# --------------------------------------------------------------------------
# Fixtures
# --------------------------------------------------------------------------


def fixture_path(release: str) -> Path:
    return DATA / f"random-{release}.json.gz"


@lru_cache(maxsize=None)
def load(release: str) -> dict:
    with gzip.open(fixture_path(release), "rt", encoding="utf-8") as f:
        return json.load(f)


def recorded_releases() -> list[str]:
    return [r for r in RELEASES if fixture_path(r).exists()]


def evaluator_import_error() -> str | None:
    """Why ``sgllint.semantics.validation`` cannot be used, or None."""
    try:
        from sgllint.semantics.validation import GpuFacts, LaunchFacts, evaluate  # noqa: F401
    except ImportError as e:
        return f"sgllint.semantics.validation does not import ({e}); the evaluator is not there yet"
    return None


# --------------------------------------------------------------------------
# A recorded case -> LaunchFacts
# --------------------------------------------------------------------------


def concrete_argv(case: dict) -> list[str]:
    """The case's argv with its placeholders as paths under PLACEHOLDER_ROOT."""
    subst = {"{MODEL}": f"{PLACEHOLDER_ROOT}/{case['model']}", "{LORA}": f"{PLACEHOLDER_ROOT}/lora-adapter",
             "{DRAFT_EAGLE}": f"{PLACEHOLDER_ROOT}/draft-eagle", "{DRAFT_EAGLE3}": f"{PLACEHOLDER_ROOT}/draft-eagle3",
             "{DRAFT_SMALL}": f"{PLACEHOLDER_ROOT}/draft-small"}
    out = []
    for word in case["argv"]:
        for k, v in subst.items():
            word = word.replace(k, v)
        out.append(word)
    return out


def resolved_args(release: str, argv: list[str]):
    """The catalog's argparse emulation on ``argv`` (as a ``python -m
    sglang.launch_server`` command line): the list of ``Arg``."""
    from sgllint import catalog as catalogs
    from sgllint.model.facts import LaunchSite, Source, Span, Token
    from sgllint.resolve.argv import resolve_argv

    text = " ".join(argv)
    src = Source("random-launch.sh", text)
    tokens, pos = [], 0
    for word in argv:
        tokens.append(Token(word, Span(src, pos, pos + len(word))))
        pos += len(word) + 1
    whole = Span(src, 0, len(text))
    site = LaunchSite(src, whole, "python -m sglang.launch_server", whole, "argv", tokens=tokens)
    return resolve_argv(site, catalogs.load(release))


def argparse_problem(args) -> str | None:
    """What the argv emulation finds wrong (what argparse rejects), or None."""
    for a in args:
        if a.problem or a.resolution.names_no_option or a.extra:
            return f"{a.spelling}: {a.problem or a.resolution or 'stray tokens'}"
    return None


#: torch.version.cuda in the oracle's runs, by the torch it ran (fixture "env"):
#: the CPU build 2.13.0 has none and random_oracle.fake_gpu() sets "12.9"; the
#: 2.14.1 wheel on disk is the cu130 build (its torch/version.py: cuda = '13.0')
ORACLE_TORCH_CUDA = {"2.13.0": "12.9", "2.14.1": "13.0"}


def _oracle_cuda(fixture: dict, gpu: dict) -> str | None:
    if gpu.get("vendor") != "nvidia":
        return None
    return gpu.get("cuda") or ORACLE_TORCH_CUDA.get((fixture.get("env") or {}).get("torch", ""))


def launch_facts(release: str, fixture: dict, case: dict, args):
    from sgllint.semantics.validation import GpuFacts, LaunchFacts

    gpu = fixture["gpus"][case["gpu"]]
    cap = gpu["capability"]
    user_args = {a.field: a.value for a in args if a.field and not a.problem}
    return LaunchFacts(
        release=release,
        user_args=user_args,
        entry="cli",
        model_config=fixture["models"][case["model"]],
        gpu=GpuFacts(vendor=gpu["vendor"], sm=cap[0] * 10 + cap[1] if gpu["vendor"] == "nvidia" else None,
                     name=gpu["name"], count=case["count"], memory_gib=gpu["memory_mib"] / 1024,
                     arch=gpu.get("gcn_arch") or None,
                     cuda=_oracle_cuda(fixture, gpu)),
        env=dict(fixture.get("environment") or {}),
        model_files=frozenset(MODEL_DIR_FILES),
    )


# --------------------------------------------------------------------------
# Comparing
# --------------------------------------------------------------------------


def site_key(path_line: str | None) -> str | None:
    """``sglang/srt/x.py:12`` from any path that has a ``sglang/`` component."""
    if not path_line:
        return None
    p = path_line.replace("\\", "/")
    i = p.rfind("sglang/")
    return p[i:] if i >= 0 else p


def hits_site(hit, at: str | None) -> bool:
    """Whether sgllint's site ``hit`` is where SGLang raised (``at``,
    file:line). CPython reports a multi-line statement at one of its lines, so
    any line of ``hit.line``..``hit.end_line`` (when the evaluator gives it) counts."""
    if not at or ":" not in at:
        return False
    file, line = at.rsplit(":", 1)
    if site_key(f"{hit.file}:0").rsplit(":", 1)[0] != site_key(f"{file}:0").rsplit(":", 1)[0]:
        return False
    end = max(getattr(hit, "end_line", 0) or 0, hit.line)
    return hit.line <= int(line) <= end


def _same_value(mine, theirs) -> bool:
    try:
        return json.loads(json.dumps(mine, default=repr)) == theirs
    except (TypeError, ValueError):
        return False


def judge_case(release: str, fixture: dict, case: dict) -> tuple[str, list[str], object]:
    """``(outcome, rewrite outcomes, verdict)`` for one recorded case."""
    from sgllint.semantics.validation import evaluate

    args = resolved_args(release, concrete_argv(case))
    if case["v"] == "harness-error":
        return "harness error", [], None
    if case["v"] == "rejected" and case.get("stage") == "argparse":
        return ("argparse: flagged" if argparse_problem(args) else "argparse: not flagged"), [], None
    verdict = evaluate(launch_facts(release, fixture, case, args))
    if case["v"] == "accepted":
        outcome = "false error" if verdict.rejection is not None else "agree: accepted"
        recorded = case.get("rw", {})
        rw_out = []
        for r in verdict.rewrites:
            ok = r.field in recorded and _same_value(r.final_value, recorded[r.field][1])
            rw_out.append("rewrite: agree" if ok else "false rewrite")
        mine = {r.field for r in verdict.rewrites}
        rw_out += ["missed rewrite"] * len(set(recorded) - mine)
        return outcome, rw_out, verdict
    if verdict.rejection is not None:
        same = hits_site(verdict.rejection, case.get("at"))
        return ("agree: same site" if same else "other site"), [], verdict
    if any(hits_site(h, case.get("at")) for h in verdict.possible):
        return "possible only", [], verdict
    return "missed", [], verdict


def _cause(release: str, case: dict, outcome: str, verdict) -> str | None:
    return next((name for name, test, _ in CAUSES if test(release, case, outcome, verdict)), None)


def describe(release: str, index: int, case: dict, outcome: str, cause: str | None, verdict) -> str:
    """One disagreement, for a person reading it (``--show``)."""
    lines = [f"--- {release} #{index} {outcome} [{cause or 'UNEXPLAINED'}] model={case['model']} gpu={case['gpu']} "
             f"x{case['count']}",
             "    argv: " + " ".join(case["argv"]),
             f"    SGLang: {case['v']} at {case.get('at')}: {str(case.get('msg', case.get('err', '')))[:300]}"]
    if case.get("rw"):
        lines.append(f"    SGLang rewrites: {case['rw']}")
    if verdict is not None:
        r = verdict.rejection
        if r is not None:
            lines.append(f"    sgllint: error at {r.file}:{r.line}: {r.message[:300]}")
        for h in verdict.possible[:4]:
            lines.append(f"    sgllint possible: {h.file}:{h.line} ({h.why[:200]})")
        for w in verdict.rewrites:
            lines.append(f"    sgllint rewrite: {w.field} {w.user_value!r} -> {w.final_value!r} at {w.file}:{w.line}")
        if verdict.degraded:
            lines.append(f"    degraded: {verdict.degraded}")
        for n in verdict.notes[:4]:
            lines.append(f"    note: {n[:300]}")
    return "\n".join(lines)


def compare(releases: list[str] | None = None, limit: int | None = None,
            show: set[str] | None = None) -> tuple[dict, list[str]]:
    """Per release: counters of outcomes and disagreement classes; plus the
    problems (acceptance failures, unexplained classes). ``limit``: only the
    first N cases (a quick look while developing; the published table is
    always the whole sample); ``show``: print each case whose outcome is in it."""
    table: dict[str, dict] = {}
    problems: list[str] = []
    for rel in releases or recorded_releases():
        fx = load(rel)
        counts: Counter = Counter()
        classes: dict[tuple, int] = defaultdict(int)
        for i, case in enumerate(fx["cases"][:limit]):
            outcome, rw_out, verdict = judge_case(rel, fx, case)
            counts[outcome] += 1
            counts.update(rw_out)
            for o in [outcome, *rw_out]:
                if o.startswith(("agree", "rewrite: agree", "argparse: flagged", "harness error")):
                    continue
                cause = _cause(rel, case, o, verdict)
                classes[(o, site_key(case.get("at")) or "-", cause or "UNEXPLAINED")] += 1
                if show is not None and (o in show or (cause or "UNEXPLAINED") in show):
                    print(describe(rel, i, case, o, cause, verdict))
        rejected = sum(counts[k] for k in ("agree: same site", "other site", "possible only", "missed"))
        same = counts["agree: same site"] / rejected if rejected else 1.0
        table[rel] = {"cases": len(fx["cases"][:limit]), "counts": counts, "classes": dict(classes), "rejected": rejected,
                      "same_site": same}
        if counts["false error"]:
            problems.append(f"{rel}: {counts['false error']} false errors")
        if counts["false rewrite"]:
            problems.append(f"{rel}: {counts['false rewrite']} false rewrites")
        if same < SAME_SITE_TARGET:
            problems.append(f"{rel}: {same:.1%} of SGLang's rejections at the same site (< 95%)")
        for (o, site, cause), n in sorted(classes.items()):
            if cause == "UNEXPLAINED":
                problems.append(f"{rel}: {n} x {o} at {site}: no cause in random_agreement.CAUSES")
    return table, problems


# --------------------------------------------------------------------------
# Oracle-side figures (no evaluator needed) and the published table
# --------------------------------------------------------------------------


def oracle_figures(release: str) -> dict:
    fx = load(release)
    c: Counter = Counter()
    for case in fx["cases"]:
        c[case["v"]] += 1
        if case["v"] == "rejected":
            c["rejected at argparse" if case.get("stage") == "argparse" else "rejected after argparse"] += 1
        if case.get("rw"):
            c["accepted with rewrites"] += 1
    harness = Counter(case["err"].split(":")[0][:80] for case in fx["cases"] if case["v"] == "harness-error")
    return {"wheel": fx["wheel"], "seed": fx["seed"], "generator_version": fx["generator_version"],
            "env": fx["env"], "seconds": fx.get("seconds"), "size": fixture_path(release).stat().st_size,
            "counts": c, "harness": harness, "cases": len(fx["cases"])}


def markdown(table: dict | None, reason: str | None) -> str:
    lines = ["# Random differential: sgllint's derived validation vs SGLang (generated)", "",
             "Generated by `python -m tests.oracle.random_agreement --write` from "
             "`tests/data/oracle/random/*.json.gz` (made by `tests/oracle/run_random_oracle.sh`; "
             "see tests/oracle/README.md, \"Oracle: random differential\"). Do not edit.", "",
             "## SGLang's verdicts", "",
             "| release (wheel) | seed / generator | cases | accepted | with rewrites | rejected (after argparse) "
             "| rejected by argparse | harness errors | oracle run | fixture |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for rel in recorded_releases():
        f = oracle_figures(rel)
        c = f["counts"]
        lines.append(f"| {rel} ({f['wheel']}) | {f['seed']} / v{f['generator_version']} | {f['cases']} | "
                     f"{c['accepted']} | {c['accepted with rewrites']} | {c['rejected after argparse']} | "
                     f"{c['rejected at argparse']} | {c['harness-error']} | {f['seconds']} s | "
                     f"{f['size'] // 1024} KiB |")
    harness_rows = [(rel, why, n) for rel in recorded_releases() for why, n in oracle_figures(rel)["harness"].items()]
    if harness_rows:
        lines += ["", "Harness errors (never SGLang verdicts), by cause:", ""]
        lines += [f"* {rel}: {n} x `{why}`" for rel, why, n in harness_rows]
    lines += ["", "## sgllint against SGLang", ""]
    if table is None:
        lines += [f"Not compared: {reason}.", ""]
        return "\n".join(lines)
    lines += ["| release | compared | agree (accepted) | false errors | rejections at the same site | other site "
              "| possible only | missed | rewrites agree | false rewrites | missed rewrites | argparse flagged |",
              "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for rel, row in table.items():
        c = row["counts"]
        lines.append(f"| {rel} | {row['cases'] - c['harness error']} | {c['agree: accepted']} | {c['false error']} | "
                     f"{c['agree: same site']} / {row['rejected']} ({row['same_site']:.1%}) | {c['other site']} | "
                     f"{c['possible only']} | {c['missed']} | {c['rewrite: agree']} | {c['false rewrite']} | "
                     f"{c['missed rewrite']} | {c['argparse: flagged']} / "
                     f"{c['argparse: flagged'] + c['argparse: not flagged']} |")
    omitted = [rel for rel in recorded_releases() if rel not in table]
    if omitted:
        lines += ["", f"Not compared in this write: {', '.join(omitted)} (written with `--release`; "
                  "`--write` alone compares every recorded release)."]
    lines += ["", "## Disagreement classes", "", "| release | outcome | SGLang site | cases | cause |",
              "| --- | --- | --- | --- | --- |"]
    causes = {name: why for name, _, why in CAUSES}
    for rel, row in table.items():
        for (o, site, cause), n in sorted(row["classes"].items(), key=lambda kv: (-kv[1], kv[0])):
            lines.append(f"| {rel} | {o} | `{site}` | {n} | {causes.get(cause, cause)} |")
    return "\n".join(lines) + "\n"


def _options(argv: list[str]):
    import argparse

    ap = argparse.ArgumentParser(prog="python -m tests.oracle.random_agreement",
                                 description="sgllint's derived validation vs SGLang's recorded verdicts.")
    ap.add_argument("--write", action="store_true", help="regenerate RANDOM_AGREEMENT.md (every release, every case)")
    ap.add_argument("--release", action="append", choices=RELEASES, help="measure only this release (repeatable)")
    ap.add_argument("--limit", type=int, help="only the first N cases of each release (not with --write)")
    ap.add_argument("--show", action="append", metavar="OUTCOME",
                    help="print each case with this outcome or cause (e.g. 'false error', 'missed', UNEXPLAINED)")
    opts = ap.parse_args(argv)
    if opts.write and opts.limit:
        ap.error("--write publishes whole samples: no --limit (--release writes only those releases, "
                 "and the table says which were not compared)")
    return opts


def main(argv: list[str]) -> int:
    opts = _options(argv)
    reason = evaluator_import_error()
    table = None
    problems: list[str] = []
    releases = [r for r in recorded_releases() if not opts.release or r in opts.release]
    if reason is None:
        table, problems = compare(releases, opts.limit, set(opts.show) if opts.show else None)
    if opts.write:
        TABLE.write_text(markdown(table, reason))
    for rel in releases:
        f = oracle_figures(rel)
        c = f["counts"]
        print(f"{rel} ({f['wheel']}, seed {f['seed']}, generator v{f['generator_version']}): {f['cases']} cases, "
              f"accepted {c['accepted']} (with rewrites {c['accepted with rewrites']}), rejected "
              f"{c['rejected after argparse']} + argparse {c['rejected at argparse']}, harness errors "
              f"{c['harness-error']}; oracle {f['seconds']} s; fixture {f['size']} bytes")
        if table is not None and rel in table:
            row = table[rel]
            k = row["counts"]
            print(f"    sgllint: false errors {k['false error']}, same site {k['agree: same site']}/{row['rejected']} "
                  f"({row['same_site']:.1%}), false rewrites {k['false rewrite']}, missed rewrites "
                  f"{k['missed rewrite']}")
    if reason:
        print(f"sgllint not compared: {reason}")
    for p in problems[:40]:
        print("PROBLEM:", p)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
