"""Upgrade preview: what changes for these configs when the SGLang release
they run moves from one version to another. Diagnostics that appear, that
disappear, and defaults that change under launches that do not set them."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Iterable, Optional

from sgllint import catalog as catalogs
from sgllint.engine.pipeline import FileResult
from sgllint.model.diagnostic import Diagnostic
from sgllint.output.concise import line as concise_line
from sgllint.output.text import visible


@dataclass
class DefaultChange:
    path: str
    line: int
    column: int
    flag: str
    old: object
    new: object


@dataclass
class UpgradeReport:
    old_version: str
    new_version: str
    appear: list[Diagnostic] = field(default_factory=list)
    disappear: list[Diagnostic] = field(default_factory=list)
    defaults: list[DefaultChange] = field(default_factory=list)


def _key(d: Diagnostic):
    return (d.path, d.code, d.span.start, d.span.end)


def compare(old: Iterable[FileResult], new: Iterable[FileResult], old_version: str, new_version: Optional[str]) -> UpgradeReport:
    old = list(old)
    new = list(new)
    old_diags = {_key(d): d for r in old for d in r.diagnostics}
    new_diags = {_key(d): d for r in new for d in r.diagnostics}
    shown_new = new_version or ", ".join(
        sorted({l.context.catalog.version for r in new for l in r.launches}, key=catalogs.version_key)
    )
    report = UpgradeReport(old_version=old_version, new_version=shown_new or catalogs.latest())
    report.appear = sorted((d for k, d in new_diags.items() if k not in old_diags), key=Diagnostic.sort_key)
    report.disappear = sorted((d for k, d in old_diags.items() if k not in new_diags), key=Diagnostic.sort_key)
    old_cat = catalogs.load(catalogs.resolve_version(old_version))
    for r in new:
        for launch in r.launches:
            new_cat = launch.context.catalog
            explicit = {a.field for a in launch.args}
            line, col = launch.span.start_line_col()
            for opt in new_cat.options:
                if opt.field is None or opt.field in explicit or opt.deprecated is not None:
                    continue
                before = old_cat.option_for_field(opt.field)
                if before is None or before.default == opt.default:
                    continue
                report.defaults.append(DefaultChange(r.path, line, col, opt.name, before.default, opt.default))
    return report


def render_text(report: UpgradeReport) -> str:
    """Text for a terminal: what comes from the tree (paths, values) is
    shown through `visible`, as in every text format."""
    out = [visible(f"Upgrade preview: SGLang {report.old_version} -> {report.new_version}")]
    out.append(f"\nNew diagnostics ({len(report.appear)}):")
    out += [f"  + {concise_line(d)}" for d in report.appear] or ["  (none)"]
    out.append(f"\nDiagnostics that go away ({len(report.disappear)}):")
    out += [f"  - {concise_line(d)}" for d in report.disappear] or ["  (none)"]
    out.append(f"\nDefaults that change under launches that do not set them ({len(report.defaults)}):")
    out += [visible(f"  ~ {c.path}:{c.line}:{c.column}: {c.flag}: {c.old!r} -> {c.new!r}") for c in report.defaults] or ["  (none)"]
    return "\n".join(out) + "\n"


def render_json(report: UpgradeReport) -> str:
    from sgllint.output.json import as_dict

    return (
        json.dumps(
            {
                "from": report.old_version,
                "to": report.new_version,
                "appear": [as_dict(d) for d in report.appear],
                "disappear": [as_dict(d) for d in report.disappear],
                "defaults_changed": [c.__dict__ for c in report.defaults],
            },
            indent=2,
            default=str,
        )
        + "\n"
    )
