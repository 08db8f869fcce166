"""Cost of the derived-validation evaluator per launch (issue 17: <= 20 ms
median), over the random differential's recorded launches.

    python -m benchmarks.validation_eval [--releases 0.5.23,0.5.4] [--n 200]

Per release: the one-time lazy load (the release's IR read and compiled on its
first launch), then the median and p90 of ``evaluate`` over the first ``n``
recorded launches (argparse rejections excluded: the evaluator never sees
them), printed against a reference measured in the same run on the same
launches -- the catalog's argparse emulation (``resolve_argv``), the work
sgllint already does per launch -- so the figure reads the same on a slow or
a fast machine.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.oracle import random_agreement as ra  # noqa: E402

TARGET_MS = 20.0


def _ms(xs: list[float]) -> tuple[float, float]:
    xs = sorted(xs)
    return statistics.median(xs) * 1000, xs[int(len(xs) * 0.9)] * 1000


def bench(release: str, n: int) -> dict:
    from sgllint.semantics.validation import evaluate

    fx = ra.load(release)
    cases = [c for c in fx["cases"] if c["v"] != "harness-error" and c.get("stage") != "argparse"][:n]
    ref, facts = [], []
    for c in cases:
        t = time.perf_counter()
        args = ra.resolved_args(release, ra.concrete_argv(c))
        ref.append(time.perf_counter() - t)
        facts.append(ra.launch_facts(release, fx, c, args))
    t = time.perf_counter()
    first = evaluate(facts[0])
    load = time.perf_counter() - t
    times = []
    for f in facts:
        t = time.perf_counter()
        evaluate(f)
        times.append(time.perf_counter() - t)
    med, p90 = _ms(times)
    rmed, _ = _ms(ref)
    return {"release": release, "n": len(facts), "load_s": load, "median_ms": med, "p90_ms": p90,
            "ref_median_ms": rmed, "degraded_first": first.degraded}


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--releases", default=",".join(ra.recorded_releases()))
    ap.add_argument("--n", type=int, default=200)
    args = ap.parse_args(argv)
    for rel in [r for r in args.releases.split(",") if r]:
        r = bench(rel, args.n)
        verdict = "ok" if r["median_ms"] <= TARGET_MS else f"over the {TARGET_MS:.0f} ms target"
        print(f"{rel}: {r['n']} launches; lazy load {r['load_s']:.2f} s; evaluate median {r['median_ms']:.1f} ms "
              f"(p90 {r['p90_ms']:.1f} ms) = {r['median_ms'] / max(r['ref_median_ms'], 1e-6):.1f} x the argv "
              f"emulation's {r['ref_median_ms']:.2f} ms; {verdict}"
              + (f"; no derived data: {r['degraded_first']}" if r["degraded_first"] and "no derived" in
                 r["degraded_first"] else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
