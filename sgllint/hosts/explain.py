"""``sgllint explain FILE[:LINE]``: what SGLang will run a launch with
(issue 17, item 6).

For each launch in FILE (or the one at LINE): the effective value of every
argument -- given by the user (with the token), the release's default, or
rewritten by SGLang's start-up code (where, and why) -- the model and GPU facts
the evaluation used with where each came from, the first definite rejection,
and the outcomes that stayed Unknown (possible rejections with what was not
known). `hover_lines(launch, field)` is the same for one argument (LSP hover).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Optional

from sgllint.semantics import launch_validation as lv
from sgllint.semantics import model_fit


def _show(value) -> str:
    return repr(value) if isinstance(value, str) else json.dumps(value) if isinstance(value, (list, dict)) else str(value)


def _where(span) -> str:
    line, col = span.start_line_col()
    return f"{span.path}:{line}:{col}"


def _fields(launch) -> dict:
    """Every ServerArgs field of the release with its default."""
    cat = launch.context.catalog
    out = {name: info.default for name, info in cat.fields.items()}
    for o in cat.options:
        if o.dest and o.dest != "help" and o.dest not in out:
            out[o.dest] = o.default
    return out


def effective(launch) -> list[dict]:
    """One row per argument: field, flag, value, how (given/default/rewritten) and where."""
    ev = lv.evaluated(launch)
    v = ev.verdict
    rewrites = {r.field: r for r in (v.rewrites if v is not None else [])}
    cat = launch.context.catalog
    rows = []
    for name, default in _fields(launch).items():
        arg = launch.last(name)
        row = {"field": name, "flag": cat.flag_for_field(name)}
        if arg is not None:
            row.update(value=arg.value if arg.known else None, how="given", token=arg.span.text, at=_where(arg.span))
            if not arg.known:
                row["how"] = "given (not known statically)"
            r = rewrites.get(name)
            if r is not None:
                row.update(value=r.final_value, how="rewritten", user_value=r.user_value,
                           by=f"{r.file}:{r.line}" if r.file else "SGLang's start-up code", why=r.reason)
        else:
            row.update(value=default, how="default")
        rows.append(row)
    order = {"rewritten": 0, "given": 1, "given (not known statically)": 1, "default": 2}
    pos = {a.field: a.flag_span.start for a in launch.args}
    rows.sort(key=lambda r: (order[r["how"]], pos.get(r["field"], 0)))
    return rows


def facts_used(launch) -> dict:
    ev = lv.evaluated(launch)
    ctx = launch.context
    out = {"sglang_version": f"{ctx.catalog.version} ({ctx.version.describe()})"}
    out["model_config"] = ev.provenance.get("model_config") or (
        f"not read (architecture {ctx.architecture.describe()}): model facts are Unknown" if ctx.architecture is not None
        else "not known: model facts are Unknown")
    if ev.provenance.get("model_files"):
        out["model_files"] = ev.provenance["model_files"]
    out["model_facts"] = model_fit.describe_model_facts(launch)
    out["gpu"] = ev.provenance.get("gpu") or "not pinned: GPU facts are Unknown"
    out["gpu_count"] = ev.provenance.get("gpu_count") or "not known"
    env = {k[4:]: w for k, w in ev.provenance.items() if k.startswith("env:")}
    if env:
        out["environment"] = env
    return out


def report(launch) -> dict:
    ev = lv.evaluated(launch)
    v = ev.verdict
    line = launch.span.start_line_col()[0]
    out = {"path": launch.source.path, "line": line, "entry": launch.entry, "arguments": effective(launch),
           "facts": facts_used(launch)}
    if v is None:
        out["evaluated"] = False
        out["not_evaluated"] = ev.skipped
        return out
    out["evaluated"] = True
    if v.rejection is not None:
        h = v.rejection
        out["rejection"] = {"id": h.id, "site": f"{h.file}:{h.line}", "message": h.message}
    out["unknown"] = [{"id": h.id, "site": f"{h.file}:{h.line}", "message": h.message, "why": h.why}
                      for h in v.possible]
    if v.degraded:
        out["degraded"] = v.degraded
    return out


def render(rep: dict, all_defaults: bool = False) -> str:
    lines = [f"{rep['path']}:{rep['line']}  {rep['entry']}"]
    for k, val in rep["facts"].items():
        if isinstance(val, dict):
            for name, w in val.items():
                lines.append(f"  env {name}: {w}")
        else:
            lines.append(f"  {k.replace('_', ' ')}: {val}")
    lines.append("  arguments SGLang runs with:")
    hidden = 0
    for r in rep["arguments"]:
        if r["how"] == "default" and not all_defaults:
            hidden += 1
            continue
        text = f"    {r['flag']} = {_show(r['value'])}  [{r['how']}"
        if r["how"] == "rewritten":
            text += f" from your {_show(r['user_value'])} by {r['by']}: {r['why']}"
        elif r["how"].startswith("given"):
            text += f": {r['token']!r} at {r['at']}"
        lines.append(text + "]")
    if hidden:
        lines.append(f"    ... and {hidden} defaults (--all-defaults lists them)")
    if not rep["evaluated"]:
        lines.append(f"  not evaluated: {rep['not_evaluated']}")
        return "\n".join(lines)
    rej = rep.get("rejection")
    lines.append(f"  rejection: {rej['id']} at {rej['site']}: {rej['message']}" if rej else "  rejection: none definite")
    if rep.get("degraded"):
        lines.append(f"  evaluation stopped early (nothing definite after): {rep['degraded']}")
    if rep["unknown"]:
        lines.append(f"  unknown outcomes ({len(rep['unknown'])}):")
        for u in rep["unknown"]:
            lines.append(f"    {u['id']} at {u['site']}: {u['message'].splitlines()[0] if u['message'] else ''} ({u['why']})")
    return "\n".join(lines)


def hover_lines(launch, field: str) -> list[str]:
    """The effective value of one argument, for the LSP hover."""
    for r in effective(launch):
        if r["field"] == field:
            text = f"SGLang {launch.context.catalog.version} runs with {r['flag']} = {_show(r['value'])} ({r['how']}"
            if r["how"] == "rewritten":
                text += f" from {_show(r['user_value'])} by {r['by']}: {r['why']}"
            return [text + ")"]
    return []


def select(launches, line: Optional[int]):
    if line is None:
        return list(launches)
    hit = [la for la in launches if la.span.start_line_col()[0] <= line <= la.span.end_line_col()[0]]
    return hit


def main(target: str, sglang_version: Optional[str], gpu: Optional[str], output_format: str,
         all_defaults: bool = False) -> int:
    from sgllint.engine.config import discover
    from sgllint.engine.pipeline import Options, lint_source

    path, line = target, None
    head, sep, tail = target.rpartition(":")
    if sep and tail.isdigit() and head:
        path, line = head, int(tail)
    p = Path(path)
    if not p.is_file():
        print(f"sgllint: {path}: no such file", file=sys.stderr)
        return 2
    config = discover(p.resolve().parent, {})
    opts = Options(config=config, sglang_version=sglang_version or config.sglang_version, gpu=gpu or config.gpu, rules=[])
    res = lint_source(str(p), p.read_text(encoding="utf-8", errors="replace"), opts)
    launches = select(res.launches, line)
    if not launches:
        where = f" at line {line}" if line is not None else ""
        print(f"sgllint: no SGLang launch in {path}{where}", file=sys.stderr)
        return 1
    reps = [report(la) for la in launches]
    if output_format == "json":
        print(json.dumps(reps, indent=2, default=repr))
    else:
        print("\n\n".join(render(r, all_defaults) for r in reps))
    return 0
