"""The command line's argument parser (``sgllint check``, ``rule``, ``rules``,
``lsp``, ``clean``, ``version``): option names, types and help. Split from
`sgllint.hosts.cli`, which runs the commands."""

from __future__ import annotations

import argparse
import re
from typing import Optional

from sgllint import __version__


def _csv(value: str) -> tuple[str, ...]:
    return tuple(v.strip() for v in value.split(",") if v.strip())


def _count(value: str) -> int:
    try:
        n = int(value)
    except ValueError:
        n = -1
    if n < 0:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 0, got {value!r}")
    return n


def _output_spec(value: str) -> tuple[str, str]:
    from sgllint.output import FORMATS

    fmt, sep, path = value.partition(":")
    if not sep or not path or fmt not in FORMATS:
        raise argparse.ArgumentTypeError(f"expected FORMAT:PATH with FORMAT one of {', '.join(FORMATS)}, got {value!r}")
    return fmt, path


def per_file_ignore(value: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    # named as argparse shows it in an error ("invalid per_file_ignore value");
    # the configuration's reader is imported only when the option is given
    from sgllint.engine.selection import per_file_ignore as parse

    return parse(value)


def _size(value: str) -> int:
    from sgllint.engine.config import ConfigError, parse_size

    try:
        return parse_size(value, "the size")
    except ConfigError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


class _Parser(argparse.ArgumentParser):
    """argparse with did-you-mean for a mistyped option (``--output-fromat``)."""

    def error(self, message: str):
        if message.startswith("unrecognized arguments:"):
            from sgllint.resolve.didyoumean import closest_option

            # every subcommand's options, as the full parser has them
            known = [s for p in _all_parsers(build_parser()) for a in p._actions for s in a.option_strings]
            for word in message.split(":", 1)[1].split():
                guess = closest_option(word, known) if word.startswith("-") else None
                if guess:
                    message += f"\n  {word}: did you mean '{guess}'?"
        choice = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)", message)
        if choice:  # a subcommand or a format: sgllint chek, --output-format jsn
            from sgllint.resolve.suggest import closest

            options = re.findall(r"'?([\w.-]+)'?", choice.group(2))
            guess = closest(choice.group(1), options, cutoff=0.6)
            if guess:
                message += f"\n  did you mean '{guess}'?"
        super().error(message)


def _all_parsers(parser: argparse.ArgumentParser) -> list:
    found = [parser]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                found += _all_parsers(sub)
    return found


#: the subcommands, in the order `sgllint --help` lists them
COMMANDS = ("check", "rule", "rules", "lsp", "clean", "sglang-coverage", "explain", "version")


def build_parser(command: Optional[str] = None) -> argparse.ArgumentParser:
    """The parser; with ``command`` (the first word of an argv that starts
    with a subcommand), only that subcommand's parser is built: the others
    would never be consulted, and building each (argparse looks up its
    translations) is a visible share of a one-file run."""
    # long on purpose: the option table of the commands, one add_argument per option
    from sgllint.output import FORMATS

    parser = _Parser(
        prog="sgllint",
        description="Static linter for SGLang launch configurations.",
        allow_abbrev=False,
    )
    parser.add_argument("--version", action="version", version=f"sgllint {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    def wanted(name: str) -> bool:
        return command not in COMMANDS or name == command

    if wanted("check"):
        check = sub.add_parser("check", help="lint files and directories", allow_abbrev=False)
        check.add_argument("paths", nargs="*", default=["."], metavar="PATH", help="files or directories (default: .); - reads stdin")
        check.add_argument("--output-format", choices=list(FORMATS), default=None, help="default: full")
        check.add_argument("--output", dest="outputs", action="append", type=_output_spec, default=[], metavar="FORMAT:PATH",
                           help="also write the diagnostics in FORMAT to PATH (repeatable: --output sarif:report.sarif --output junit:junit.xml)")
        check.add_argument("--exclude", type=_csv, default=None, metavar="PATTERNS",
                           help="names or globs to skip while walking (replaces exclude in the configuration)")
        check.add_argument("--extend-exclude", type=_csv, default=None, metavar="PATTERNS", help="names or globs to skip in addition")
        check.add_argument("--per-file-ignores", type=per_file_ignore, action="append", default=[], metavar="GLOB:CODE",
                           help="ignore CODE in files matching GLOB (repeatable; 'scripts/*:SGL101,SGL109'); replaces the configured table")
        check.add_argument("--extend-per-file-ignores", type=per_file_ignore, action="append", default=[], metavar="GLOB:CODE",
                           help="like --per-file-ignores, in addition to the configured table")
        check.add_argument("--force-exclude", action="store_true",
                           help="apply the exclusions (exclude, extend-exclude, .gitignore) to paths given explicitly too, and "
                                "skip explicit files in unsupported formats silently: for pre-commit and editors")
        check.add_argument("--write-baseline", default=None, metavar="FILE",
                           help="record the current findings in FILE (a baseline) and exit 0")
        check.add_argument("--baseline", default=None, metavar="FILE",
                           help="report only findings that are not in the baseline FILE")
        check.add_argument("--show-stale-baseline", action="store_true",
                           help="with --baseline: list the baseline entries no finding matches any more")
        check.add_argument("--add-noqa", action="store_true",
                           help="add a '# noqa: CODE' comment (each format's syntax) for every current finding, then exit")
        check.add_argument("--show-settings", action="store_true",
                           help="print the settings for the first path and where each came from, then exit")
        check.add_argument("--show-files", action="store_true", help="print the files that would be linted, then exit")
        check.add_argument("--fix", action="store_true", help="apply safe fixes to the files")
        check.add_argument("--fix-only", action="store_true", help="apply fixes and report nothing else (exit 0 unless --exit-non-zero-on-fix)")
        check.add_argument("--show-fixes", action="store_true", help="with --fix / --fix-only: list what the fixes removed, per file and code")
        check.add_argument("--exit-non-zero-on-fix", action="store_true", help="exit 1 when --fix changed a file, even if no finding remains")
        check.add_argument("-q", "--quiet", action="store_true", help="print the findings and nothing else (no summary, warnings or notices)")
        check.add_argument("-s", "--silent", action="store_true", help="print nothing; the exit code still says whether findings remain")
        check.add_argument("-v", "--verbose", action="store_true", help="also say which configuration applies where and how long the run took")
        check.add_argument("--unsafe-fixes", action="store_true", help="with --fix or --diff: apply unsafe fixes too")
        check.add_argument("--diff", action="store_true", help="print the fixes as a unified diff instead of writing them")
        check.add_argument("--fail-on", choices=["error", "warning", "info"], default=None, help="lowest severity that fails the run (default: warning)")
        check.add_argument("--exit-zero", action="store_true", help="exit 0 even when diagnostics remain")
        check.add_argument("--select", type=_csv, default=None, help="codes, prefixes or names to enable (replaces the configured set)")
        check.add_argument("--extend-select", type=_csv, default=None, help="codes, prefixes or names to enable in addition")
        check.add_argument("--ignore", type=_csv, default=None, help="codes, prefixes or names to disable")
        check.add_argument("--max-diagnostics", type=_count, default=None, metavar="N",
                           help="text formats (full, concise, github) show N findings per file, then how many more (default: 200; 0: all)")
        check.add_argument("--statistics", action="store_true", help="print the number of diagnostics per code")
        check.add_argument("--sglang-version", default=None, metavar="X.Y.Z", help="judge every launch against this SGLang release")
        check.add_argument("--gpu", default=None, metavar="NAME", help="the GPU every launch runs on unless pinned closer (H100, B200, MI300X, ...)")
        check.add_argument("--sm", type=int, default=None, metavar="NN", help="the GPU's SM version instead of a name (90, 100, 120)")
        check.add_argument("--config", dest="config_file", action="append", default=[], metavar="FILE|KEY=VALUE",
                           help="use this config file instead of discovering one, or override one setting with a TOML "
                                "'key = value' pair (repeatable: --config 'sglang-version = \"0.5.4\"')")
        check.add_argument("--isolated", action="store_true", help="ignore all configuration files")
        check.add_argument("--stdin-filename", default=None, metavar="PATH", help="the path to report (and detect the format by) for -")
        check.add_argument("--compare-to", default=None, metavar="X.Y.Z", help="upgrade preview: what changes for these configs from release X.Y.Z to the target")
        check.add_argument("--show-context", action="store_true", help="print each launch's context (SGLang version, ...) and where it came from")
        check.add_argument("--no-environment", action="store_true", help="do not consult the installed sglang's version")
        check.add_argument("--jobs", "-j", type=int, default=None, metavar="N", help="worker processes for large trees (default: one per core; 1: none)")
        check.add_argument("--no-cache", action="store_true", help="neither read nor write the result cache")
        check.add_argument("--cache-dir", default=None, metavar="DIR", help="where the result cache lives (default: .sgllint_cache)")
        check.add_argument("--allow-outside", dest="allow_outside", action="append", default=[], metavar="PATH",
                           help="also read files launches reference in PATH, outside the project (repeatable)")
        check.add_argument("--rule-dir", dest="rule_dirs", action="append", default=[], metavar="DIR",
                           help="also load the rules in DIR (sgl*.py files, like rules/; runs their code; repeatable)")
        check.add_argument("--project-root", default=None, metavar="DIR",
                           help="the project root references may be read in and fixes written to (default: the nearest "
                                "directory with .git, .sgllint.toml, sgllint.toml or [tool.sgllint], else the path given)")
        check.add_argument("--max-file-size", type=_size, default=None, metavar="SIZE",
                           help="skip (SGL002) files larger than this (default: 2 MiB, or max-file-size in the configuration)")

    if wanted("rule"):
        rule = sub.add_parser("rule", help="show a rule's documentation (the section of docs/rules.md)")
        rule.add_argument("code", metavar="CODE|NAME", nargs="?")
        rule.add_argument("--all", action="store_true", help="every rule")
        rule.add_argument("--output-format", choices=["text", "json"], default="text", help="text (Markdown, default) or json")

    if wanted("rules"):
        rules = sub.add_parser("rules", help="list all rules")
        rules.add_argument("--markdown", action="store_true", help="render the README table")

    if wanted("lsp"):
        sub.add_parser("lsp", help="run the language server over stdio (needs the 'lsp' extra)")
    if wanted("clean"):
        clean = sub.add_parser("clean", help="remove the result cache (.sgllint_cache)")
        clean.add_argument("--cache-dir", default=None, metavar="DIR", help="the cache to remove (default: .sgllint_cache)")
    if wanted("sglang-coverage"):
        cov = sub.add_parser("sglang-coverage", help="how many of a release's start-up rejection sites sgllint can decide")
        cov.add_argument("--sglang-version", default=None, metavar="X.Y.Z", help="the release (default: the newest with data)")
        cov.add_argument("--output-format", choices=["text", "json"], default="text")
        cov.add_argument("--sites", action="store_true", help="text: also list each undecidable site")
    if wanted("explain"):
        explain = sub.add_parser("explain", help="what SGLang will run a launch with: effective values, facts, unknown outcomes")
        explain.add_argument("target", metavar="FILE[:LINE]")
        explain.add_argument("--sglang-version", default=None, metavar="X.Y.Z")
        explain.add_argument("--gpu", default=None, metavar="NAME")
        explain.add_argument("--output-format", choices=["text", "json"], default="text")
        explain.add_argument("--all-defaults", action="store_true", help="text: list the arguments left at their default too")
    if wanted("version"):
        version = sub.add_parser("version", help="print sgllint's version")
        version.add_argument("--output-format", choices=["text", "json"], default="text")
    return parser
