"""Command line: ``sgllint check``, ``sgllint rule``, ``sgllint rules``.

Exit codes: 0 clean; 1 when a diagnostic at or above ``--fail-on`` remains;
2 for usage, configuration or internal errors.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import Counter
from pathlib import Path
from typing import Optional, Sequence

from sgllint import __version__

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


def _csv(value: str) -> tuple[str, ...]:
    return tuple(v.strip() for v in value.split(",") if v.strip())


def _output_spec(value: str) -> tuple[str, str]:
    from sgllint.output import FORMATS

    fmt, sep, path = value.partition(":")
    if not sep or not path or fmt not in FORMATS:
        raise argparse.ArgumentTypeError(f"expected FORMAT:PATH with FORMAT one of {', '.join(FORMATS)}, got {value!r}")
    return fmt, path


def build_parser() -> argparse.ArgumentParser:
    from sgllint.output import FORMATS

    parser = argparse.ArgumentParser(
        prog="sgllint",
        description="Static linter for SGLang launch configurations.",
        allow_abbrev=False,
    )
    parser.add_argument("--version", action="version", version=f"sgllint {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    check = sub.add_parser("check", help="lint files and directories", allow_abbrev=False)
    check.add_argument("paths", nargs="*", default=["."], metavar="PATH", help="files or directories (default: .); - reads stdin")
    check.add_argument("--output-format", choices=list(FORMATS), default=None, help="default: full")
    check.add_argument("--output", dest="outputs", action="append", type=_output_spec, default=[], metavar="FORMAT:PATH",
                       help="also write the diagnostics in FORMAT to PATH (repeatable: --output sarif:report.sarif --output junit:junit.xml)")
    check.add_argument("--fix", action="store_true", help="apply safe fixes to the files")
    check.add_argument("--unsafe-fixes", action="store_true", help="with --fix or --diff: apply unsafe fixes too")
    check.add_argument("--diff", action="store_true", help="print the fixes as a unified diff instead of writing them")
    check.add_argument("--fail-on", choices=["error", "warning", "info"], default=None, help="lowest severity that fails the run (default: warning)")
    check.add_argument("--exit-zero", action="store_true", help="exit 0 even when diagnostics remain")
    check.add_argument("--select", type=_csv, default=None, help="codes, prefixes or names to enable (replaces the configured set)")
    check.add_argument("--extend-select", type=_csv, default=None, help="codes, prefixes or names to enable in addition")
    check.add_argument("--ignore", type=_csv, default=None, help="codes, prefixes or names to disable")
    check.add_argument("--statistics", action="store_true", help="print the number of diagnostics per code")
    check.add_argument("--sglang-version", default=None, metavar="X.Y.Z", help="judge every launch against this SGLang release")
    check.add_argument("--gpu", default=None, metavar="NAME", help="the GPU every launch runs on unless pinned closer (H100, B200, MI300X, ...)")
    check.add_argument("--sm", type=int, default=None, metavar="NN", help="the GPU's SM version instead of a name (90, 100, 120)")
    check.add_argument("--config", dest="config_file", default=None, metavar="FILE", help="use this config file instead of discovering one")
    check.add_argument("--isolated", action="store_true", help="ignore all configuration files")
    check.add_argument("--stdin-filename", default=None, metavar="PATH", help="the path to report (and detect the format by) for -")
    check.add_argument("--compare-to", default=None, metavar="X.Y.Z", help="upgrade preview: what changes for these configs from release X.Y.Z to the target")
    check.add_argument("--show-context", action="store_true", help="print each launch's context (SGLang version, ...) and where it came from")
    check.add_argument("--no-environment", action="store_true", help="do not consult the installed sglang's version")
    check.add_argument("--jobs", "-j", type=int, default=None, metavar="N", help="worker processes for large trees (default: one per core; 1: none)")
    check.add_argument("--no-cache", action="store_true", help="neither read nor write the result cache")
    check.add_argument("--cache-dir", default=None, metavar="DIR", help="where the result cache lives (default: .sgllint_cache)")

    rule = sub.add_parser("rule", help="show a rule's documentation")
    rule.add_argument("code", metavar="CODE|NAME")

    rules = sub.add_parser("rules", help="list all rules")
    rules.add_argument("--markdown", action="store_true", help="render the README table")

    sub.add_parser("lsp", help="run the language server over stdio (needs the 'lsp' extra)")
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.command == "check":
            return _check(args)
        if args.command == "rule":
            return _rule(args.code)
        if args.command == "rules":
            return _rules(args.markdown)
        if args.command == "lsp":
            return _lsp()
    except BrokenPipeError:  # `sgllint check | head`
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_CLEAN
    parser.print_help()
    return EXIT_ERROR


# ---------------------------------------------------------------------------


def _config_for(args, start: Path):
    from sgllint.config import Config, discover, load_config_file

    if args.isolated:
        return Config(root=Path.cwd())
    if args.config_file:
        return load_config_file(Path(args.config_file))
    return discover(start)


def _check(args) -> int:
    from sgllint.catalog import UnknownVersion, resolve_version, versions
    from sgllint.config import ConfigError, validate_selectors
    from sgllint.diagnostic import Severity
    from sgllint.output import renderer

    try:
        if args.sglang_version:
            try:
                resolve_version(args.sglang_version)
            except UnknownVersion:
                print(
                    f"sgllint: error: no catalog for SGLang {args.sglang_version!r}; "
                    f"supported releases: {versions()[0]} to {versions()[-1]}",
                    file=sys.stderr,
                )
                return EXIT_ERROR
        for key in ("select", "extend_select", "ignore"):
            if getattr(args, key):
                validate_selectors(getattr(args, key), "--" + key.replace("_", "-"), "command line")
        groups: dict = {}
        for p in args.paths:
            start = Path(args.stdin_filename or ".") if p == "-" else Path(p)
            if not start.exists() and p != "-":
                start = Path(".")
            cfg = _config_for(args, start if start.is_dir() else start.parent)
            groups.setdefault(cfg, []).append(p)
    except ConfigError as e:
        print(f"sgllint: error: {e}", file=sys.stderr)
        return EXIT_ERROR

    if args.compare_to:
        try:
            resolve_version(args.compare_to)
        except UnknownVersion:
            print(f"sgllint: error: no catalog for SGLang {args.compare_to!r}", file=sys.stderr)
            return EXIT_ERROR
        return _compare(args, groups)

    options_of: dict = {}
    results = _lint_groups(args, groups, args.sglang_version, options_of)
    if args.fix or args.diff:
        if "-" in args.paths and not args.diff:
            print("sgllint: error: --fix cannot write stdin; use --diff", file=sys.stderr)
            return EXIT_ERROR
        code, results = _fix(args, results, options_of)
        if code is not None:
            return code
    if args.fail_on:
        fail_on = Severity.parse(args.fail_on)
    else:
        fail_on = min((cfg.fail_on for cfg in groups), key=lambda s: s.rank, default=Severity.WARNING)

    diagnostics = _unique(d for r in results for d in r.diagnostics)
    out = sys.stdout
    fmt = args.output_format or "full"
    if args.show_context:
        for r in results:
            for launch in r.launches:
                line, col = launch.span.start_line_col()
                facts = "; ".join(launch.context.lines())
                print(f"{r.path}:{line}:{col}: {launch.entry}: {facts}", file=out)
    text = renderer(fmt)(diagnostics)
    if text:
        out.write(text)
    for extra_fmt, extra_path in args.outputs:
        try:
            Path(extra_path).parent.mkdir(parents=True, exist_ok=True)
            Path(extra_path).write_text(renderer(extra_fmt)(diagnostics), encoding="utf-8")
        except OSError as e:
            print(f"sgllint: error: cannot write {extra_path}: {e.strerror or e}", file=sys.stderr)
            return EXIT_ERROR
    for r in results:
        if r.skipped and r.skipped != "not a supported format":
            print(f"sgllint: warning: skipped {r.path}: {r.skipped}", file=sys.stderr)
        elif r.skipped:
            print(f"sgllint: warning: skipped {r.path}: not a shell script or other supported launch format", file=sys.stderr)
    if args.statistics:
        counts = Counter((d.code, d.name) for d in diagnostics)
        for (code, name), n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
            print(f"{n:5d}\t{code}\t[{name}]", file=out)
    if fmt == "full" and diagnostics:
        n = len(diagnostics)
        print(f"Found {n} diagnostic{'s' if n != 1 else ''} in {len({d.path for d in diagnostics})} file(s).", file=out)
    if any(d.code == "SGL999" for d in diagnostics) and not args.exit_zero:
        return EXIT_ERROR
    if args.exit_zero:
        return EXIT_CLEAN
    level = fail_on or Severity.WARNING
    return EXIT_FINDINGS if any(d.severity.rank >= level.rank for d in diagnostics) else EXIT_CLEAN


def _unique(diagnostics):
    """Sorted, each finding once: a --config file's findings are reached both
    through the launch that merges it and by linting the file itself."""
    seen = set()
    out = []
    for d in sorted(diagnostics, key=lambda d: d.sort_key()):
        key = (d.code, d.path, d.span.start, d.span.end, d.message)
        if key not in seen:
            seen.add(key)
            out.append(d)
    return out


def _fix(args, results, options_of):
    """--fix / --diff: fix in passes. --fix writes the files and returns the
    results after fixing for the normal report (exit code None); --diff
    prints the diff and returns its exit code (1 when something would
    change)."""
    from sgllint.engine import lint_source
    from sgllint.fixes import run_fixes

    def relint(path, text, fmt):
        return lint_source(path, text, options_of[path], fmt)

    def write(path, text):
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.write(text)

    run, final = run_fixes(results, relint, unsafe=args.unsafe_fixes, write=None if args.diff else write)
    noun = "diagnostic" if run.fixed == 1 else "diagnostics"
    if args.diff:
        sys.stdout.write(run.diff())
        print(f"Would fix {run.fixed} {noun}", file=sys.stderr)
        return (EXIT_FINDINGS if run.changed() and not args.exit_zero else EXIT_CLEAN), final
    print(f"Fixed {run.fixed} {noun}", file=sys.stderr)
    if run.dropped:
        print(f"sgllint: warning: {run.dropped} fix(es) not applied: the file would no longer parse", file=sys.stderr)
    return None, final


def _lsp() -> int:
    try:
        import lsprotocol  # noqa: F401
        import pygls  # noqa: F401
    except ImportError:
        print(
            "sgllint: error: `sgllint lsp` needs pygls 2.x and lsprotocol: pip install 'sgllint[lsp]'",
            file=sys.stderr,
        )
        return EXIT_ERROR
    from sgllint.lsp import serve

    serve()
    return EXIT_CLEAN


def _lint_groups(args, groups, version, options_of=None):
    from sgllint.diagnostic import Severity
    from sgllint.engine import Options, lint_paths, lint_source

    results = []
    for cfg, paths in groups.items():
        cfg = cfg.with_overrides(
            select=args.select,
            ignore=(cfg.ignore + args.ignore) if args.ignore else None,
            extend_select=args.extend_select,
            fail_on=Severity.parse(args.fail_on) if args.fail_on else None,
        )
        gpu = args.gpu or (f"sm{args.sm}" if args.sm else None)
        options = Options(config=cfg, sglang_version=version, gpu=gpu, use_environment=not args.no_environment)
        for p in paths:
            if p == "-":
                text = sys.stdin.buffer.read().decode("utf-8", errors="replace")
                found = [lint_source(args.stdin_filename or "-", text, options)]
            else:
                found = [r for r in lint_paths([p], options, **_fast(args)) if r.diagnostics or r.launches or r.skipped]
            results.extend(found)
            if options_of is not None:
                options_of.update((r.path, options) for r in found)
    return results


def _fast(args) -> dict:
    """Workers and the result cache, unless an option needs every launch
    (--show-context, --compare-to, --fix, --diff)."""
    if any(getattr(args, k, None) for k in ("show_context", "compare_to", "fix", "diff")):
        return {}
    from sgllint.cache import DEFAULT_DIR

    return {"jobs": args.jobs, "cache_dir": None if args.no_cache else (args.cache_dir or DEFAULT_DIR)}


def _compare(args, groups) -> int:
    from sgllint.upgrade import compare, render_json, render_text

    if "-" in args.paths:
        print("sgllint: error: --compare-to cannot read stdin", file=sys.stderr)
        return EXIT_ERROR
    old = _lint_groups(args, groups, args.compare_to)
    new = _lint_groups(args, groups, args.sglang_version)
    report = compare(old, new, args.compare_to, args.sglang_version)
    sys.stdout.write(render_json(report) if args.output_format == "json" else render_text(report))
    if args.exit_zero:
        return EXIT_CLEAN
    return EXIT_FINDINGS if any(d.severity.rank >= 1 for d in report.appear) else EXIT_CLEAN


def _rule(code: str) -> int:
    from sgllint.docs import rule_page
    from sgllint.rule import find_rule

    rule = find_rule(code)
    if rule is None:
        print(f"sgllint: error: no rule {code!r}; `sgllint rules` lists them", file=sys.stderr)
        return EXIT_ERROR
    sys.stdout.write(rule_page(rule))
    return EXIT_CLEAN


def _rules(markdown: bool) -> int:
    from sgllint.docs import rules_table, rules_text

    sys.stdout.write(rules_table() if markdown else rules_text())
    return EXIT_CLEAN


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
