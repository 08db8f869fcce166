"""``sgllint sglang-coverage``: how much of a release's start-up validation
sgllint can decide (issue 17, item 4).

Starts from the generator's site inventory (``sgllint.catalog.validation``:
every rejection site reachable from start-up with its class a/b/c/d and the
facts its condition reads) and says, per site, whether the evaluator
(``sgllint.semantics.validation``) can decide it from a launch:

* a site reached only after the model starts loading (``reach`` late) is at
  most a *possible* rejection: not decidable before the GPU;
* an internal invariant (class d) is not a property of the launch;
* a site whose condition reads a runtime fact the launch's facts do not
  carry (installed packages, files, ports, processes) stays Unknown;
* everything else reads the launch's arguments, the release's defaults, the
  model's config.json, the GPU (vendor, SM, count, memory) or the
  environment variables the launch sets: the facts ``LaunchFacts`` carries.

When the evaluator exposes its own answer (``decidable(site) -> (bool, why)``)
that answer is used instead. Without the evaluator the report is the
inventory alone, and says so.
"""

from __future__ import annotations

import json
from typing import Optional

#: runtime fact families a LaunchFacts does not carry (env vars it does)
UNCARRIED = {
    "runtime:packages": "reads which Python packages are installed",
    "runtime:files": "reads files on the serving machine",
    "runtime:ports": "reads which ports are free",
    "runtime:processes": "reads running processes",
}


def _evaluator():
    try:
        from sgllint.semantics import validation
    except ImportError:
        return None
    return validation


def site_decidable(site: dict, evaluator=None) -> tuple[bool, str]:
    """(decidable, why not) for one site of the inventory."""
    own = getattr(evaluator, "decidable", None) if evaluator is not None else None
    if own is not None:
        return own(site)
    if site.get("reach", "startup") == "late":
        return False, "runs after the model starts loading (possible at most)"
    if site["class"] == "d":
        return False, "internal invariant, not a property of the launch"
    for fact in site.get("facts", ()):
        if fact in UNCARRIED:
            return False, UNCARRIED[fact]
        if fact.startswith("runtime:") and fact != "runtime:env":
            return False, f"reads a runtime fact ({fact})"
    return True, ""


def report(version: str) -> Optional[dict]:
    """The coverage report of base release ``version``, or None without data."""
    from sgllint.catalog import validation as data

    rel = data.load(version)
    if rel is None:
        return None
    evaluator = _evaluator()
    out = {"sglang_version": version, "evaluator": evaluator is not None, "classes": []}
    out["method"] = ("the evaluator's own answer" if getattr(evaluator, "decidable", None) is not None else
                     "the facts each site's condition reads, against the facts a launch carries (LaunchFacts)")
    if evaluator is None:
        out["note"] = ("the evaluator (sgllint.semantics.validation) is not installed: "
                       "decidability is judged from the inventory's facts alone")
    for row in rel.coverage_table():
        sites = [s for s in rel.sites if s["class"] == row["class"]]
        decided, undecided = [], []
        for s in sites:
            ok, why = site_decidable(s, evaluator)
            (decided if ok else undecided).append((s, why))
        reasons: dict[str, int] = {}
        for _s, why in undecided:
            reasons[why] = reasons.get(why, 0) + 1
        out["classes"].append({
            "class": row["class"], "meaning": row["meaning"], "sites": row["sites"],
            "startup": row["startup"], "late": row["late"], "decidable": len(decided),
            "undecidable": len(undecided),
            "undecidable_reasons": dict(sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0]))),
            "undecidable_sites": [{"id": s["id"], "file": s["file"], "line": s["line"], "why": why}
                                  for s, why in undecided],
        })
    ab = [c for c in out["classes"] if c["class"] in ("a", "b")]
    total = sum(c["sites"] for c in ab)
    out["args_model_gpu"] = {"sites": total, "decidable": sum(c["decidable"] for c in ab),
                             "percent": round(100.0 * sum(c["decidable"] for c in ab) / total, 1) if total else 0.0}
    return out


def render_text(rep: dict, full: bool = False) -> str:
    lines = [f"SGLang {rep['sglang_version']}: start-up rejection sites (decidable judged by {rep['method']})"]
    if rep.get("note"):
        lines.append(f"note: {rep['note']}")
    for c in rep["classes"]:
        lines.append(f"  {c['class']}  {c['meaning']}: {c['sites']} sites ({c['startup']} at start-up, "
                     f"{c['late']} late), {c['decidable']} decidable, {c['undecidable']} not")
        for why, n in c["undecidable_reasons"].items():
            lines.append(f"       {n:4d} not decidable: {why}")
        if full:
            for s in c["undecidable_sites"]:
                lines.append(f"         {s['id']}  {s['file']}:{s['line']}  {s['why']}")
    amg = rep["args_model_gpu"]
    lines.append(f"args + model/GPU (a, b): {amg['decidable']} of {amg['sites']} decidable ({amg['percent']}%)")
    return "\n".join(lines)


def main(version_arg: Optional[str], output_format: str, full: bool = False) -> int:
    import sys

    from sgllint import catalog
    from sgllint.catalog import validation as data

    have = data.available()
    if not have:
        print("sgllint: no derived SGLang validation data is installed", file=sys.stderr)
        return 2
    if version_arg is None:
        version = have[-1]
    else:
        try:
            version = catalog.resolve_version(version_arg)
        except catalog.UnknownVersion:
            print(f"sgllint: unknown SGLang version {version_arg!r}", file=sys.stderr)
            return 2
    rep = report(version)
    if rep is None:
        newest = have[-1]
        if data.version_key(version) > data.version_key(newest):
            rep = report(newest)
            rep["note"] = (rep.get("note", "") + "; " if rep.get("note") else "") + \
                f"no derived validation for {version}: showing the newest, {newest}"
        else:
            print(f"sgllint: no derived validation for SGLang {version}", file=sys.stderr)
            return 2
    if output_format == "json":
        print(json.dumps(rep, indent=2))
    else:
        print(render_text(rep, full))
    return 0
