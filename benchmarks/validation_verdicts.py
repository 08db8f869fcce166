"""Every verdict of the derived-validation evaluator on the random
differential's recorded launches, as one JSON line per case, so a change to
the interpreter that must not change its answers (a speed-up) can be checked:
dump before, dump after, compare.

    python -m benchmarks.validation_verdicts --out DIR [--releases 0.5.23,0.4.10] [--limit N]
    python -m benchmarks.validation_verdicts --compare DIR_BEFORE DIR_AFTER

A verdict line holds the rejection (site, id, message, exception, why), the
possible rejections, the rewrites, what degraded, the unknown fields and the
notes, in the evaluator's order; argparse rejections and harness errors are
not the evaluator's and are skipped. ``--limit N`` dumps the first N evaluated
cases of each release only (a slow release's full dump takes hours).
"""

from __future__ import annotations

import argparse
import dataclasses
import gzip
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.oracle import random_agreement as ra  # noqa: E402


def verdict_record(verdict) -> dict:
    d = dataclasses.asdict(verdict)
    return json.loads(json.dumps(d, default=repr, sort_keys=True))


def dump(release: str, out: Path, limit: int | None = None) -> int:
    from sgllint.semantics.validation import evaluate

    fx = ra.load(release)
    n = 0
    with gzip.open(out / f"verdicts-{release}.jsonl.gz", "wt", encoding="utf-8") as f:
        for i, case in enumerate(fx["cases"]):
            if case["v"] == "harness-error" or case.get("stage") == "argparse":
                continue
            if limit is not None and n >= limit:
                break
            args = ra.resolved_args(release, ra.concrete_argv(case))
            try:
                rec = verdict_record(evaluate(ra.launch_facts(release, fx, case, args)))
            except Exception as e:  # noqa: BLE001 - a crash is a verdict to compare too
                rec = {"crash": f"{type(e).__name__}: {e}"}
            f.write(json.dumps({"case": i, **rec}, sort_keys=True) + "\n")
            n += 1
    return n


def _read(path: Path) -> dict[int, dict]:
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return {r["case"]: r for r in map(json.loads, f)}


def compare(before: Path, after: Path) -> int:
    bad = 0
    for b in sorted(before.glob("verdicts-*.jsonl.gz")):
        a = after / b.name
        if not a.exists():
            print(f"{b.name}: missing after")
            bad += 1
            continue
        before_v, after_v = _read(b), _read(a)
        diff = sorted(k for k in set(before_v) | set(after_v) if before_v.get(k) != after_v.get(k))
        print(f"{b.name}: {len(before_v)} cases, {len(diff)} differ" + (f" (first: {diff[:10]})" if diff else ""))
        bad += len(diff)
    return 1 if bad else 0


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path)
    ap.add_argument("--releases", default=",".join(ra.recorded_releases()))
    ap.add_argument("--limit", type=int, help="the first N evaluated cases per release only")
    ap.add_argument("--compare", nargs=2, type=Path, metavar=("BEFORE", "AFTER"))
    args = ap.parse_args(argv)
    if args.compare:
        return compare(*args.compare)
    if args.out is None:
        ap.error("--out or --compare")
    args.out.mkdir(parents=True, exist_ok=True)
    for rel in [r for r in args.releases.split(",") if r]:
        print(f"{rel}: {dump(rel, args.out, args.limit)} verdicts", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
