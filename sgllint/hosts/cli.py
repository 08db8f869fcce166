"""Command line: ``sgllint check``, ``sgllint rule``, ``sgllint rules``.

Exit codes: 0 clean; 1 when a diagnostic at or above ``--fail-on`` remains;
2 for usage, configuration or internal errors.
"""

from __future__ import annotations

import gc
import os
import sys
from pathlib import Path
from typing import Optional, Sequence

from sgllint import __version__
from sgllint.hosts.cli_args import build_parser

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


def main(argv: Optional[Sequence[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(argv[0] if argv else None)  # only the subcommand's own parser
    args = parser.parse_args(argv)
    try:
        if args.command == "check":
            return _check(args)
        if args.command == "rule":
            return _rule(args, parser)
        if args.command == "rules":
            return _rules(args.markdown)
        if args.command == "lsp":
            return _lsp()
        if args.command == "clean":
            return _clean(args)
        if args.command == "version":
            return _version(args)
        if args.command == "explain":
            from sgllint.hosts import explain as explain_cmd

            return explain_cmd.main(args.target, args.sglang_version, args.gpu, args.output_format, args.all_defaults)
        if args.command == "sglang-coverage":
            from sgllint.hosts import coverage

            return coverage.main(args.sglang_version, args.output_format, args.sites)
    except BrokenPipeError:  # `sgllint check | head`
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_CLEAN
    parser.print_help(sys.stderr)  # no command: a usage error
    return EXIT_ERROR


# ---------------------------------------------------------------------------


def _config_args(args) -> tuple[Optional[Path], dict]:
    """--config values: one configuration FILE and any number of ruff-style
    inline ``KEY=VALUE`` TOML overrides."""
    from sgllint.engine.config import ConfigError, parse_override

    files, overrides = [], {}
    for value in args.config_file:
        if "=" in value and not os.path.isfile(value):
            for key, item in parse_override(value).items():
                if isinstance(item, dict) and isinstance(overrides.get(key), dict):
                    item = {**overrides[key], **item}
                overrides[key] = item
        else:
            files.append(Path(value))
    if len(files) > 1:
        raise ConfigError("--config: give at most one configuration file (and any number of KEY=VALUE overrides)")
    if files and not files[0].is_file():
        raise ConfigError(f"--config: {files[0]}: no such configuration file")
    return (files[0] if files else None), overrides


def _config_for(args, start: Path):
    from sgllint.engine.config import Config, checked_selectors, discover, load_config_file, parse_table

    path, overrides = _config_args(args)
    if args.isolated:
        return checked_selectors(parse_table(overrides, None).with_overrides(root=Path.cwd())) if overrides else Config(root=Path.cwd())
    if path is not None:
        return load_config_file(path, overrides)
    return discover(start, overrides)


def _confined(args, cfg, start: Path):
    """``cfg`` with the project root of the path argument ``start`` and the
    ``--allow-outside`` paths (`sgllint.resolve.project`)."""
    from sgllint.resolve.project import find_root

    root = Path(args.project_root).resolve() if args.project_root else find_root(start)
    allowed = tuple(Path(os.path.abspath(os.path.expanduser(a))) for a in args.allow_outside)
    pfi = tuple(p for group in args.per_file_ignores for p in group) or None
    extend_pfi = tuple(p for group in args.extend_per_file_ignores for p in group)
    rule_dirs = tuple(Path(os.path.abspath(os.path.expanduser(d))) for d in getattr(args, "rule_dirs", ()))
    return cfg.with_overrides(
        project_root=root,
        allow_outside=cfg.allow_outside + allowed,
        rule_dirs=cfg.rule_dirs + rule_dirs if rule_dirs else None,
        exclude=args.exclude,
        extend_exclude=cfg.extend_exclude + args.extend_exclude if args.extend_exclude else None,
        per_file_ignores=(pfi if pfi is not None else cfg.per_file_ignores) + extend_pfi,
    )


def _check(args) -> int:
    from sgllint.output.text import visible

    missing = [p for p in args.paths if p != "-" and not os.path.lexists(p)]
    for p in missing:  # a typo in a CI path must not pass forever
        print(f"sgllint: error: {visible(p)}: no such file or directory", file=sys.stderr)
    args.paths = [p for p in args.paths if p not in missing]
    if missing and not args.paths:
        return EXIT_ERROR
    try:
        code = _check_paths(args)
    finally:
        gc.unfreeze()  # _check_paths froze the run's results
    return EXIT_ERROR if missing else code


#: options whose output replaces the report with text of their own
TEXT_MODES = ("diff", "show_settings", "show_files")


def _known_release(version: str) -> bool:
    """Whether ``--sglang-version`` names a release with a catalog (else say so)."""
    from sgllint.catalog import UnknownVersion, resolve_version, versions

    try:
        resolve_version(version)
    except UnknownVersion:
        print(
            f"sgllint: error: no catalog for SGLang {version!r}; supported releases: {versions()[0]} to {versions()[-1]}",
            file=sys.stderr,
        )
        return False
    return True


def _group_paths(args) -> dict:
    """The path arguments grouped by the configuration that applies to each
    (raises `ConfigError`, also for a user rule folder that does not load,
    and for a command-line selector that names no rule: built in or of the
    rule folders loaded, `--rule-dir` or a named configuration's)."""
    from sgllint.engine.config import user_rules, validate_selectors

    groups: dict = {}
    loaded: dict = {}
    warned: set = set()
    for p in args.paths:
        start = Path(args.stdin_filename or ".") if p == "-" else Path(p)
        if not start.exists() and p != "-":
            start = Path(".")
        cfg = _config_for(args, start if start.is_dir() else start.parent)
        _warn_refused(cfg, warned)
        cfg = _confined(args, cfg, start)
        loaded.update((r.code, r) for r in user_rules(cfg))
        if args.force_exclude and p != "-":
            from sgllint.engine.selection import force_excluded

            if force_excluded(p, cfg):
                continue
        groups.setdefault(cfg, []).append(p)
    rules = list(loaded.values())
    for key in ("select", "extend_select", "ignore"):
        if getattr(args, key):
            validate_selectors(getattr(args, key), "--" + key.replace("_", "-"), "command line", rules)
    for group in args.per_file_ignores + args.extend_per_file_ignores:
        for _, codes in group:
            validate_selectors(codes, "--per-file-ignores", "command line", rules)
    return groups


def _warn_refused(cfg, warned: set) -> None:
    """Say, once per file, that a discovered configuration's `allow-outside`
    or `rule-dirs` was not honoured (`sgllint.engine.config.discover`)."""
    from sgllint.output.text import visible

    if cfg.refused_allow_outside and cfg.path not in warned:
        warned.add(cfg.path)
        print(
            f"sgllint: warning: {visible(str(cfg.path))}: 'allow-outside' is not honoured in a configuration"
            " found in the linted tree (it would let the tree widen what sgllint reads); pass"
            " --allow-outside PATH or --config FILE",
            file=sys.stderr,
        )
    if cfg.refused_rule_dirs and ("rule-dirs", cfg.path) not in warned:
        warned.add(("rule-dirs", cfg.path))
        print(
            f"sgllint: warning: {visible(str(cfg.path))}: 'rule-dirs' is not honoured in a configuration"
            " found in the linted tree (loading rules runs their code); pass --rule-dir DIR or --config FILE",
            file=sys.stderr,
        )


def _write_report(args, groups, results, diagnostics, fixes_shown: str) -> Optional[int]:
    """Print the report (and write the extra ``--output`` files): findings,
    notices, skipped files, statistics, fixes and the summary. Returns an
    exit code only when it cannot finish (an ``--output`` file not written)."""
    # long on purpose: the report's sections in the order ruff prints them
    from sgllint.output import renderer, summary
    from sgllint.output.text import visible

    out = sys.stdout
    fmt = args.output_format or "full"
    if args.show_context:
        for r in results:
            for launch in r.launches:
                line, col = launch.span.start_line_col()
                facts = "; ".join(launch.context.lines())
                # JSON and the other machine formats carry it as "context": their document stays valid
                print(visible(f"{r.path}:{line}:{col}: {launch.entry}: {facts}"), file=out if fmt in ("full", "concise") else sys.stderr)
    limit = _max_diagnostics(args, groups)
    from sgllint.catalog.newer import notices, requested_versions
    from sgllint.output import carries, statistics

    asked = [args.sglang_version] if args.sglang_version else [cfg.sglang_version for cfg in groups]
    roots = {str(cfg.project_root) for cfg in groups if cfg.project_root is not None}
    run = {
        "notices": notices(requested_versions(results, asked)),
        "root": roots.pop() if len(roots) == 1 else None,
    }
    from sgllint.output.colour import enabled

    quiet = args.quiet or args.silent
    color = enabled(out) and fmt in statistics.TEXT_FORMATS
    if args.statistics and fmt in statistics.JSON_FORMATS:
        text = statistics.render(fmt, diagnostics)  # ruff: the counts replace the findings
    else:
        text = renderer(fmt, limit, color=color, **run)(diagnostics)
    if not (carries(fmt, "notices") and not args.statistics) and not quiet:
        for notice in run["notices"]:
            print(f"sgllint: {notice}", file=sys.stderr)
    if text and not args.silent:
        out.write(text)
    for extra_fmt, extra_path in args.outputs:
        try:
            Path(extra_path).parent.mkdir(parents=True, exist_ok=True)
            Path(extra_path).write_text(renderer(extra_fmt, limit, **run)(diagnostics), encoding="utf-8")
        except OSError as e:
            print(f"sgllint: error: cannot write {extra_path}: {e.strerror or e}", file=sys.stderr)
            return EXIT_ERROR
    for r in results if not quiet else ():
        if r.skipped and r.skipped != "not a supported format":
            print(f"sgllint: warning: skipped {visible(r.path)}: {visible(r.skipped)}", file=sys.stderr)
        elif r.skipped and not args.force_exclude:  # a tool passed every changed file
            print(f"sgllint: warning: skipped {visible(r.path)}: not a shell script or other supported launch format", file=sys.stderr)
    text_out = out if fmt in statistics.TEXT_FORMATS else sys.stderr  # never inside a machine document
    if args.statistics and fmt not in statistics.JSON_FORMATS and not args.silent:
        text_out.write(statistics.render_text(diagnostics))
    if fixes_shown and not quiet:
        text_out.write(fixes_shown)
    if fmt == "full" and not quiet:  # concise stays one finding per line, for grep and problem matchers
        out.write(summary.summary(diagnostics, args.unsafe_fixes, color))
    if args.verbose and not args.silent:
        _verbose(args, groups, results)
    return None


def _check_paths(args) -> int:
    # ~80 lines on purpose: the steps of `sgllint check` in ruff's order (validate, group by
    # configuration, lint, fix, baseline, report, exit code), each a call or an early return;
    # the work is in the helpers above (_group_paths, _fix, _baseline, _write_report).
    import time

    args.started = time.monotonic()
    args.fix = args.fix or args.fix_only
    fmt = args.output_format or "full"
    mode = next((m for m in TEXT_MODES if getattr(args, m)), None)
    if mode and fmt not in ("full", "concise") or args.compare_to and fmt not in ("full", "concise", "json"):
        flag = "--" + (mode or "compare_to").replace("_", "-")
        print(f"sgllint: error: {flag} prints text of its own; it cannot be combined with --output-format {fmt}", file=sys.stderr)
        return EXIT_ERROR
    from sgllint.engine.config import ConfigError
    from sgllint.model.diagnostic import Severity

    try:
        if args.sglang_version and not _known_release(args.sglang_version):
            return EXIT_ERROR
        groups = _group_paths(args)
    except ConfigError as e:
        print(f"sgllint: error: {e}", file=sys.stderr)
        return EXIT_ERROR

    if args.show_settings or args.show_files:
        return _show(args, groups) if groups else EXIT_CLEAN
    if args.compare_to:
        from sgllint.catalog import UnknownVersion, resolve_version

        try:
            resolve_version(args.compare_to)
        except UnknownVersion:
            print(f"sgllint: error: no catalog for SGLang {args.compare_to!r}", file=sys.stderr)
            return EXIT_ERROR
        return _compare(args, groups)

    options_of: dict = {}
    results = _lint_groups(args, groups, args.sglang_version, options_of)
    # the results live until the report is written: frozen, the collections
    # that building the report triggers do not scan them again and again
    # (40,000 findings: a third of the run); `_check` thaws them
    gc.freeze()
    if args.add_noqa:
        return _add_noqa(args, results, options_of)
    initial = [d for r in results for d in r.diagnostics]
    args.fixed_count = 0
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
    _echo_linted_files(results, diagnostics)
    from sgllint.output import summary

    fixes_shown = summary.fixed(initial, diagnostics) if args.show_fixes and args.fix else ""
    if args.fix_only:  # ruff: the fixes, and nothing about what remains
        if fixes_shown and not args.silent:
            sys.stdout.write(fixes_shown)
        if _failed(diagnostics):
            return EXIT_ERROR
        return EXIT_FINDINGS if args.exit_non_zero_on_fix and args.fixed_count else EXIT_CLEAN
    if args.write_baseline or args.baseline:
        code, diagnostics = _baseline(args, groups, diagnostics)
        if code is not None:
            return code
    code = _write_report(args, groups, results, diagnostics, fixes_shown)
    if code is not None:
        return code
    if _failed(diagnostics):  # whatever --exit-zero says: sgllint itself failed
        return EXIT_ERROR
    if args.exit_non_zero_on_fix and args.fixed_count:
        return EXIT_FINDINGS
    if args.exit_zero:
        return EXIT_CLEAN
    level = fail_on or Severity.WARNING
    return EXIT_FINDINGS if any(d.severity.rank >= level.rank for d in diagnostics) else EXIT_CLEAN


def _verbose(args, groups, results) -> None:
    """-v: which configuration applies to which paths, and the run's size
    and time, on stderr."""
    import time

    for cfg, paths in groups.items():
        where = str(cfg.path) if cfg.path else "defaults (no configuration file)"
        print(f"sgllint: {', '.join(paths)}: configuration {where}; project root {cfg.project_root}", file=sys.stderr)
    checked = sum(1 for r in results if not r.skipped)
    took = time.monotonic() - args.started
    print(f"sgllint: checked {checked} file{'s' if checked != 1 else ''} with launches or findings in {took:.2f}s", file=sys.stderr)


def _max_diagnostics(args, groups) -> int:
    """--max-diagnostics, else the configured cap; when paths come under
    several configurations, the one that shows most (0 shows all)."""
    if args.max_diagnostics is not None:
        return args.max_diagnostics
    from sgllint.engine.config import DEFAULT_MAX_DIAGNOSTICS

    limits = [cfg.max_diagnostics for cfg in groups]
    return 0 if 0 in limits else max(limits, default=DEFAULT_MAX_DIAGNOSTICS)


def _failed(diagnostics) -> bool:
    """Whether sgllint failed on a file or launch (SGL999): exit code 2."""
    from sgllint.model.rule import INTERNAL_ERROR

    return any(d.code == INTERNAL_ERROR.code for d in diagnostics)


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


def _echo_linted_files(results, diagnostics) -> None:
    """A file read only because a launch references it is not echoed
    (`Source.echo`), unless this run lints it too."""
    linted = {os.path.realpath(r.path) for r in results if not r.skipped}
    for d in diagnostics:
        spans = [d.span, d.launch_span, *(r.span for r in d.related), *(e.span for e in (d.fix.edits if d.fix else ()))]
        for span in spans:
            if span is not None and not span.source.echo and os.path.realpath(span.source.path) in linted:
                span.source.echo = True


def _fix(args, results, options_of):
    """--fix / --diff: fix in passes. --fix writes the files and returns the
    results after fixing for the normal report (exit code None); --diff
    prints the diff and returns its exit code (1 when something would
    change)."""
    from sgllint.engine.fixes import run_fixes, write_edits
    from sgllint.engine.pipeline import lint_source
    from sgllint.resolve.project import write_refusal

    def relint(path, text, fmt):
        return lint_source(path, text, options_of[path], fmt)

    roots = {options.config.project_root for options in options_of.values()}

    def refusal(path):
        return write_refusal(path, roots)

    run, final = run_fixes(results, relint, unsafe=args.unsafe_fixes, write=None if args.diff else write_edits, refuse=refusal)
    for path, reason in sorted(run.refused.items()):
        print(f"sgllint: warning: not fixed {path}: {reason}", file=sys.stderr)
    noun = "diagnostic" if run.fixed == 1 else "diagnostics"
    if args.diff:
        sys.stdout.write(run.diff())
        print(f"Would fix {run.fixed} {noun}", file=sys.stderr)
        if _failed(d for r in final for d in r.diagnostics):
            return EXIT_ERROR, final
        return (EXIT_FINDINGS if run.changed() and not args.exit_zero else EXIT_CLEAN), final
    args.fixed_count = run.fixed
    if not (args.quiet or args.silent):
        print(f"Fixed {run.fixed} {noun}", file=sys.stderr)
    if run.dropped:
        print(f"sgllint: warning: {run.dropped} fix(es) not applied: the file would no longer parse", file=sys.stderr)
    return None, final


def _baseline(args, groups, diagnostics):
    """--write-baseline (exit code 0, or 2) / --baseline (None: go on with
    the new findings)."""
    from sgllint.hosts import baseline
    from sgllint.output.text import visible

    roots = {str(cfg.project_root) for cfg in groups if cfg.project_root is not None}
    root = roots.pop() if len(roots) == 1 else None
    if args.write_baseline:
        try:
            n = baseline.write(args.write_baseline, diagnostics, root)
        except OSError as e:
            print(f"sgllint: error: cannot write {args.write_baseline}: {e.strerror or e}", file=sys.stderr)
            return EXIT_ERROR, diagnostics
        print(f"Wrote {n} finding{'s' if n != 1 else ''} to the baseline {args.write_baseline}", file=sys.stderr)
        return EXIT_CLEAN, diagnostics
    try:
        applied = baseline.apply(baseline.load(args.baseline), diagnostics, root)
    except baseline.BaselineError as e:
        print(f"sgllint: error: {e}", file=sys.stderr)
        return EXIT_ERROR, diagnostics
    if applied.stale:
        n = len(applied.stale)
        if args.show_stale_baseline:
            for e in applied.stale:
                print(f"sgllint: stale baseline entry: {visible(str(e.get('path')))}: {e.get('code')} {visible(str(e.get('message')))}", file=sys.stderr)
        else:
            what = f"{n} baseline entries no longer match" if n != 1 else "1 baseline entry no longer matches"
            print(f"sgllint: {what} a finding (--show-stale-baseline lists them)", file=sys.stderr)
    return None, applied.new


def _add_noqa(args, results, options_of) -> int:
    """--add-noqa: ruff's "Added N noqa directives."; 1 when a finding
    could not be silenced by a comment (it is listed), else 0."""
    from sgllint.engine.pipeline import lint_source
    from sgllint.engine.fixes import write_edits
    from sgllint.hosts.noqa_add import add_noqa
    from sgllint.output import renderer
    from sgllint.resolve.project import write_refusal

    if "-" in args.paths:
        print("sgllint: error: --add-noqa cannot write stdin", file=sys.stderr)
        return EXIT_ERROR
    roots = {options.config.project_root for options in options_of.values()}
    run = add_noqa(
        results,
        lambda path, text, fmt: lint_source(path, text, options_of[path], fmt).diagnostics,
        lambda path: write_refusal(path, roots),
        write_edits,
    )
    for path, reason in sorted(run.refused.items()):
        print(f"sgllint: warning: not changed {path}: {reason}", file=sys.stderr)
    noun = "directive" if run.added == 1 else "directives"
    print(f"Added {run.added} noqa {noun}.", file=sys.stderr)
    if run.left:
        print(f"sgllint: warning: {len(run.left)} finding(s) could not be silenced with a comment:", file=sys.stderr)
        sys.stderr.write(renderer("concise")(_unique(run.left)))
        return EXIT_ERROR if _failed(run.left) else EXIT_FINDINGS
    return EXIT_CLEAN


def _clean(args) -> int:
    from sgllint.engine.cache import DEFAULT_DIR
    from sgllint.hosts.settings import clean

    try:
        said = clean(args.cache_dir or DEFAULT_DIR)
    except OSError as e:
        print(f"sgllint: error: {e}", file=sys.stderr)
        return EXIT_ERROR
    print(said or f"No cache at {args.cache_dir or DEFAULT_DIR}", file=sys.stderr)
    return EXIT_CLEAN


def _version(args) -> int:
    import json
    import platform

    if args.output_format == "json":
        print(json.dumps({"version": __version__, "python": platform.python_version()}))
    else:
        print(f"sgllint {__version__}")
    return EXIT_CLEAN


def _show(args, groups) -> int:
    """--show-settings / --show-files."""
    from sgllint.engine.config import resolved_table
    from sgllint.hosts.settings import KEY_OF, files_to_lint, show_settings

    if args.show_files:
        for cfg, paths in groups.items():
            for path in files_to_lint([p for p in paths if p != "-"], _effective(args, cfg)):
                print(path)
        return EXIT_CLEAN
    cfg, paths = next(iter(groups.items()))
    final = _effective(args, cfg)
    _, overrides = _config_args(args)
    sources = resolved_table(cfg.path, overrides)[1] if cfg.path else {k: "command line (--config)" for k in overrides}
    cli = {key: "--" + key for key in KEY_OF.values() if getattr(args, key.replace("-", "_"), None) not in (None, [], ())}
    if args.sglang_version:
        cli["sglang-version"] = "--sglang-version"
        final = final.with_overrides(sglang_version=args.sglang_version)
    if args.gpu or args.sm:
        cli["gpu"] = "--gpu" if args.gpu else "--sm"
        final = final.with_overrides(gpu=args.gpu or f"sm{args.sm}")
    sys.stdout.write(show_settings(paths[0], final, sources, cli))
    return EXIT_CLEAN


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
    from sgllint.hosts.lsp.server import serve

    serve()
    return EXIT_CLEAN


def _effective(args, cfg):
    """``cfg`` with the command line's rule and size options applied."""
    from sgllint.model.diagnostic import Severity

    return cfg.with_overrides(
        select=args.select,
        ignore=(cfg.ignore + args.ignore) if args.ignore else None,
        extend_select=args.extend_select,
        fail_on=Severity.parse(args.fail_on) if args.fail_on else None,
        max_file_size=args.max_file_size,
        max_diagnostics=args.max_diagnostics,
    )


def _lint_groups(args, groups, version, options_of=None):
    from sgllint.engine.pipeline import Options, lint_source
    from sgllint.engine.runner import lint_paths

    results = []
    for cfg, paths in groups.items():
        cfg = _effective(args, cfg)
        gpu = args.gpu or (f"sm{args.sm}" if args.sm else None)
        options = Options(config=cfg, sglang_version=version, gpu=gpu, use_environment=not args.no_environment)
        for p in paths:
            if p == "-":
                text = sys.stdin.buffer.read().decode("utf-8", errors="replace")
                found = [lint_source(args.stdin_filename or "-", text, options)]
            else:
                found = [r for r in lint_paths([p], options, **_fast(args)) if r.diagnostics or r.launches or r.skipped or r.requested]
            results.extend(found)
            if options_of is not None:
                options_of.update((r.path, options) for r in found)
    return results


def _fast(args) -> dict:
    """Workers and the result cache, unless an option needs every launch
    (--show-context, --compare-to, --fix, --diff)."""
    if any(getattr(args, k, None) for k in ("show_context", "compare_to", "fix", "diff", "add_noqa")):
        return {}
    if args.no_cache:
        return {"jobs": args.jobs, "cache_dir": None}
    from sgllint.engine.cache import DEFAULT_DIR

    return {"jobs": args.jobs, "cache_dir": args.cache_dir or DEFAULT_DIR}


def _compare(args, groups) -> int:
    from sgllint.hosts.upgrade import compare, render_json, render_text

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


def _rule(args, parser) -> int:
    import json

    from sgllint.hosts.docs import rule_page, rules_json
    from sgllint.model.rule import all_codes, find_rule

    if args.all == bool(args.code):
        parser.error("`sgllint rule` takes a CODE or --all")
    if args.all:
        if args.output_format == "json":
            sys.stdout.write(json.dumps(rules_json(), indent=2) + "\n")
        else:
            sys.stdout.write("\n".join(rule_page(r) for r in all_codes().values()))
        return EXIT_CLEAN
    rule = find_rule(args.code)
    if rule is None:
        from sgllint.resolve.didyoumean import closest_selector

        codes = all_codes()
        guess = closest_selector(args.code, codes, [r.name for r in codes.values()])
        hint = f"did you mean '{guess}'? " if guess else ""
        print(f"sgllint: error: no rule {args.code!r}; {hint}`sgllint rule --all` lists them", file=sys.stderr)
        return EXIT_ERROR
    if args.output_format == "json":
        sys.stdout.write(json.dumps(next(r for r in rules_json() if r["code"] == rule.code), indent=2) + "\n")
    else:
        sys.stdout.write(rule_page(rule))
    return EXIT_CLEAN


def _rules(markdown: bool) -> int:
    from sgllint.hosts.docs import rules_table, rules_text

    sys.stdout.write(rules_table() if markdown else rules_text())
    return EXIT_CLEAN


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
