"""The engine: files -> extractor -> launch sites -> context and flag
resolution -> rules -> suppression -> sorted diagnostics.

Every integration (CLI, flake8, LSP) calls `lint_source` or `lint_paths`.
A rule that raises becomes one SGL999 diagnostic naming it; an extractor
that raises becomes SGL000; the run always continues.
"""

from __future__ import annotations

import fnmatch
import gc
import os
import re
import subprocess
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator, Optional

from sgllint import catalog as catalogs
from sgllint.config import Config
from sgllint.context import LaunchContext, pragmas, resolve_gpu, resolve_gpu_count, resolve_model, resolve_version
from sgllint.diagnostic import Diagnostic, Severity
from sgllint.extract import detect_format, extractor
from sgllint.extract.argv import resolve
from sgllint.model import FileFacts, Launch, ParseProblem, Source, Span
from sgllint.prefilter import may_launch
from sgllint.rule import INTERNAL_ERROR, Rule, builtin_rules
from sgllint.suppress import _NOQA_RE, Suppressions

#: the largest file read; anything bigger is skipped with a message
MAX_FILE_BYTES = 16 * 1024 * 1024
#: cheap byte test before any parse: a file without it holds no launch
#: (the per-format launch shapes of `sgllint.prefilter` come next)
PREFILTER = "sglang"
#: the young-generation garbage collection threshold while a file that may
#: launch is linted (CPython's default is 700)
GC_THRESHOLD = 50_000


@dataclass
class Options:
    config: Config = field(default_factory=Config)
    sglang_version: Optional[str] = None  # --sglang-version
    gpu: Optional[str] = None  # --gpu H100 / --sm 90
    use_environment: bool = True  # consult the installed sglang's version
    # honour ``# noqa`` comments; the flake8 plugin turns this off because
    # flake8 applies its own noqa (``# sgllint: ignore[...]`` still applies)
    noqa: bool = True
    rules: Optional[list[type[Rule]]] = None  # default: the built-in rules


@dataclass
class FileResult:
    path: str
    diagnostics: list[Diagnostic] = field(default_factory=list)
    launches: list[Launch] = field(default_factory=list)
    format: Optional[str] = None
    skipped: Optional[str] = None  # why the file was not linted
    # a file the prefilter rejected: its `cache.StatIndex` entry
    index_entry: Optional[list] = field(default=None, compare=False, repr=False)


class _RuleSet:
    """The enabled rules, instantiated once per configuration."""

    def __init__(self, options: Options):
        self.options = options
        classes = options.rules if options.rules is not None else builtin_rules()
        self.rules = [cls() for cls in classes]

    def for_path(self, path: str) -> list[Rule]:
        cfg = self.options.config
        return [r for r in self.rules if cfg.is_enabled(r.code, r.name, path)]


_RULESET_CACHE: dict[int, _RuleSet] = {}


def _ruleset(options: Options) -> _RuleSet:
    key = id(options)
    rs = _RULESET_CACHE.get(key)
    if rs is None or rs.options is not options:
        rs = _RuleSet(options)
        _RULESET_CACHE.clear()
        _RULESET_CACHE[key] = rs
    return rs


def decode(data: bytes) -> str:
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    return data.decode("utf-8", errors="replace")


def extract(source: Source, fmt: str) -> FileFacts:
    """Run the format's extractor; a crash becomes a parse problem."""
    try:
        return extractor(fmt)(source)
    except Exception as exc:  # the linter never dies on an input file
        facts = FileFacts(source=source, format=fmt)
        where = traceback.extract_tb(exc.__traceback__)[-1]
        facts.problems.append(
            ParseProblem(
                Span(source, 0, 0),
                f"the {fmt} extractor failed on this file ({type(exc).__name__}: {exc}, "
                f"at {Path(where.filename).name}:{where.lineno}); please report it",
            )
        )
        return facts


def resolve_launches(facts: FileFacts, options: Options) -> list[Launch]:
    file_pragmas = pragmas(facts)
    launches = []
    for site in facts.sites:
        version, requested = resolve_version(
            site,
            facts,
            options.sglang_version,
            options.config.sglang_version,
            file_pragmas,
            options.use_environment,
        )
        cat = catalogs.load(str(version.value))
        ctx = LaunchContext(version=version, catalog=cat, requested=requested)
        if any(isinstance(t.value, str) and t.value.startswith("--conf") for t in site.tokens):
            from sgllint.extract.sglang_config import merge_config  # YAML only when a launch names a config

            site = merge_config(site, cat, Path(facts.source.path).parent)
        args = resolve(site, cat)
        resolve_model(ctx, args, facts, file_pragmas, options.config.models)
        resolve_gpu(ctx, site, facts, options.gpu, options.config.gpu, file_pragmas)
        resolve_gpu_count(ctx, site, facts)
        launches.append(Launch(site=site, args=args, context=ctx))
    return launches


def _internal_error(rule: Rule, exc: BaseException, span: Span) -> Diagnostic:
    where = traceback.extract_tb(exc.__traceback__)[-1]
    return Diagnostic(
        code=INTERNAL_ERROR.code,
        name=INTERNAL_ERROR.name,
        severity=INTERNAL_ERROR.severity,
        message=f"rule {rule.code} ({rule.name}) failed: {type(exc).__name__}: {exc}",
        span=span,
        help=f"at {Path(where.filename).name}:{where.lineno}; the other rules still ran. Please report this.",
        url=INTERNAL_ERROR.url(),
    )


def run_rules(facts: FileFacts, launches: list[Launch], rules: list[Rule]) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    file_span = Span(facts.source, 0, 0)
    for rule in rules:
        try:
            out.extend(rule.check_file(facts))
        except Exception as exc:
            out.append(_internal_error(rule, exc, file_span))
        for launch in launches:
            try:
                for d in rule.check(launch):
                    if d.launch_span is None:
                        d.launch_span = launch.span
                    if d.context is None:
                        d.context = launch.context.as_dict()
                    out.append(d)
            except Exception as exc:
                out.append(_internal_error(rule, exc, launch.site.entry_span))
    return out


def finish(diagnostics: Iterable[Diagnostic], facts: FileFacts, config: Config, noqa: bool = True) -> list[Diagnostic]:
    """Apply suppressions and severity overrides, dedupe and sort. With
    ``noqa=False`` only ``sgllint: ignore`` comments suppress."""
    if not noqa:
        facts = FileFacts(source=facts.source, format=facts.format, comments=[(o, _NOQA_RE.sub("", t)) for o, t in facts.comments])
    kept = Suppressions.from_facts(facts).filter(diagnostics)
    seen = set()
    result = []
    for d in kept:
        d.severity = config.severity_for(d.code, d.name, d.severity)
        key = (d.code, d.span.path, d.span.start, d.span.end, d.message)
        if key in seen:
            continue
        seen.add(key)
        result.append(d)
    result.sort(key=Diagnostic.sort_key)
    return result


def lint_source(path: str, text: str, options: Optional[Options] = None, fmt: Optional[str] = None) -> FileResult:
    """Lint one file's text. ``fmt`` overrides detection by name."""
    options = options or Options()
    fmt = fmt or detect_format(path, text[:256])
    result = FileResult(path=path, format=fmt)
    if fmt is None:
        result.skipped = "not a supported format"
        return result
    if not may_launch(fmt, text):
        return result  # no launch shape: nothing to parse (sgllint/prefilter.py)
    # a file that may launch allocates a syntax tree or two of small objects
    # without cycles: the young-generation collections CPython would run
    # every 700 allocations cost 15% of the file's time
    threshold = gc.get_threshold()
    if not 0 < threshold[0] < GC_THRESHOLD:
        return _lint_launching(result, path, text, options, fmt)
    gc.set_threshold(GC_THRESHOLD, *threshold[1:])
    try:
        return _lint_launching(result, path, text, options, fmt)
    finally:
        gc.set_threshold(*threshold)


def _lint_launching(result: FileResult, path: str, text: str, options: Options, fmt: str) -> FileResult:
    source = Source(path, text)
    facts = extract(source, fmt)
    launches = resolve_launches(facts, options)
    rules = _ruleset(options).for_path(path)
    result.launches = launches
    result.diagnostics = finish(run_rules(facts, launches, rules), facts, options.config, options.noqa)
    return result


def lint_file(path: str, options: Optional[Options] = None, fmt: Optional[str] = None) -> FileResult:
    options = options or Options()
    # by name first: the head (one more open) only decides files without a suffix
    fmt = fmt or detect_format(path) or detect_format(path, _head(path))
    if fmt is None:
        return FileResult(path=path, skipped="not a supported format")
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_FILE_BYTES + 1)
    except OSError as e:
        return FileResult(path=path, format=fmt, skipped=f"cannot read: {e.strerror or e}")
    if len(data) > MAX_FILE_BYTES:
        return FileResult(path=path, format=fmt, skipped=f"larger than {MAX_FILE_BYTES // 2**20} MiB")
    if b"\0" in data[:8192]:
        return FileResult(path=path, format=fmt, skipped="binary file")
    if not may_launch(fmt, data):
        return FileResult(path=path, format=fmt)
    return lint_source(path, decode(data), options, fmt)


def _head(path: str) -> str:
    try:
        with open(path, "rb") as f:
            return f.read(256).decode("utf-8", errors="replace")
    except OSError:
        return ""


# ---------------------------------------------------------------------------
# Walking the tree
# ---------------------------------------------------------------------------


def _git_listing(directory: Path) -> Optional[set[str]]:
    """Files git would not ignore below ``directory`` (tracked and untracked),
    or None outside a work tree or without git."""
    try:
        proc = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", "."],
            cwd=directory,
            capture_output=True,
            timeout=60,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if proc.returncode != 0:
        return None
    names = proc.stdout.decode("utf-8", errors="surrogateescape").split("\0")
    return {os.path.normpath(os.path.join(directory, n)) for n in names if n}


def iter_files(paths: Iterable[str], config: Config) -> Iterator[tuple[str, bool]]:
    """(path, explicit) for every file to lint, in a deterministic order.
    Explicit file arguments are always linted; directories are walked,
    skipping excluded names, virtualenvs and what .gitignore ignores."""
    patterns = tuple(config.exclude) + tuple(config.extend_exclude)
    # below a directory that is not excluded only the new name can match an
    # exclude pattern (`Config.is_excluded` matches every part of the path),
    # unless a pattern names a path
    by_name = type(config).is_excluded is Config.is_excluded and not any("/" in pat for pat in patterns)

    # one regex for all patterns: what `fnmatch.fnmatchcase` matches with each
    name_match = re.compile("|".join(f"(?:{fnmatch.translate(pat)})" for pat in patterns) or r"(?!)").match

    def excluded(parent: Path, name: str, parent_checked: bool) -> bool:
        if by_name and parent_checked:
            return name_match(name) is not None
        return config.is_excluded(parent / name)

    for arg in paths:
        p = Path(arg)
        if p.is_dir():
            allowed = _git_listing(p)
            top = True
            for root, dirs, files in os.walk(p):
                rootp = Path(root)
                checked = not top  # the walk only enters directories that passed
                top = False
                dirs[:] = sorted(
                    d
                    for d in dirs
                    if not excluded(rootp, d, checked) and not (rootp / d / "pyvenv.cfg").exists()
                )
                prefix = str(rootp)
                for name in sorted(files):
                    if excluded(rootp, name, checked):
                        continue
                    # str(rootp / name), without a Path per file
                    fp = name if prefix == "." else (prefix + name if prefix.endswith("/") else prefix + "/" + name)
                    if allowed is not None and os.path.normpath(fp) not in allowed:
                        continue
                    if os.path.islink(fp) and not Path(fp).exists():
                        continue
                    yield fp, False
        else:
            yield arg, True


def lint_paths(
    paths: Iterable[str], options: Optional[Options] = None, jobs: Optional[int] = 1, cache_dir: Optional[str] = None
) -> Iterator[FileResult]:
    """Lint files and directory trees, streaming one result per file in walk
    order. ``jobs`` > 1 (or None: one per core) lints in worker processes
    when the tree is large enough; ``cache_dir`` reuses results of unchanged
    files (`sgllint.cache`). Results from workers or the cache carry
    diagnostics but no `launches`."""
    options = options or Options()
    if jobs != 1 or cache_dir is not None:
        from sgllint.workers import lint_many

        yield from lint_many(iter_files(paths, options.config), options, jobs, cache_dir)
        return
    for path, explicit in iter_files(paths, options.config):
        if not explicit and detect_format(path) is None and Path(path).suffix:
            continue  # a walk skips files of no supported format cheaply
        if not Path(path).exists():
            yield FileResult(path=path, skipped="no such file or directory")
            continue
        try:
            result = lint_file(path, options)
        except Exception as exc:  # pragma: no cover - defence in depth
            result = FileResult(path=path, skipped=f"internal error: {type(exc).__name__}: {exc}")
        if result.skipped and not explicit and result.skipped == "not a supported format":
            continue
        yield result


def severity_at_least(diags: Iterable[Diagnostic], level: Severity) -> bool:
    return any(d.severity.rank >= level.rank for d in diags)
