"""The one-file pipeline: a file -> extractor -> launch sites -> context and
flag resolution -> rules -> suppression -> sorted diagnostics.

Every integration (CLI, flake8, LSP) calls `lint_source`, `lint_file` or the
runner built on them (`sgllint.engine.runner.lint_paths`: the walk, worker
processes and the result cache), which wraps this pipeline and never copies it.
A rule that raises becomes one SGL999 diagnostic naming it; an extractor
that raises becomes SGL000; a launch whose resolution raises, or a file
whose linting raises, becomes SGL999 at the launch or the file; a file
that is not read (`sgllint.resolve.safe_read`, `sgllint.engine.walk`) becomes SGL002;
the run always continues.
"""

from __future__ import annotations

import gc
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Optional, Protocol

from sgllint.engine.config import Config
from sgllint.engine.prefilter import may_launch
from sgllint.formats.registry import detect_format, extractor
from sgllint.model.diagnostic import Diagnostic
from sgllint.model.facts import FileFacts, Launch, ParseProblem, Source, Span
from sgllint.model.rule import DEFAULT_TARGETS, FILE_NOT_READ, INTERNAL_ERROR, Rule, RuleEntry, builtin_index, load_rule_dirs
from sgllint.resolve.safe_read import NotRead, NotReadReason, read_head, read_regular_file

# Resolution (catalogs, contexts, wrappers) and suppression are imported by
# the functions that use them: a file the prefilter rejects (most files of a
# tree, and many a pre-commit run's only file) never pays for them.

#: the young-generation garbage collection threshold while a file that may
#: launch is linted (CPython's default is 700)
GC_THRESHOLD = 50_000
#: young collections between two of the middle generation meanwhile
#: (CPython's default is 10)
GC_MIDDLE_THRESHOLD = 100


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
    # the SGLang releases its launches asked for (kept through the cache and
    # workers, which drop `launches`): `sgllint.catalog.newer` says when one is newer
    requested: tuple[str, ...] = ()


class _RuleSet:
    """The rules of one configuration. A built-in rule is chosen by its
    index entry (`sgllint.model.rule.builtin_index`) and its module imported
    only when a file can trigger it: it is enabled there and implements a
    hook the file reaches (`check_file` always; `check` when a launch of one
    of its targets is there; `check_group` with two launches or more). Each
    rule is instantiated once, when first chosen."""

    def __init__(self, options: Options):
        self.options = options
        # (entry, class): the class when it is imported already, else None
        self.entries: list[tuple[RuleEntry, Optional[type[Rule]]]]
        if options.rules is not None:
            self.entries = [(RuleEntry.of(cls), cls) for cls in options.rules]
        else:
            self.entries = [(entry, None) for entry in builtin_index().values()]
            self.entries += [(RuleEntry.of(cls), cls) for cls in load_rule_dirs(options.config.rule_dirs)]
        self.instances: dict[int, Rule] = {}

    def _enabled(self, entry: RuleEntry, path: Optional[str]) -> bool:
        cfg = self.options.config
        chosen = self.options.rules is not None  # rules handed over (tests, a rule kit) run as given
        return (path is None or cfg.is_enabled(entry.code, entry.name, path)) and (
            chosen or entry.default_enabled or cfg.selects_explicitly(entry.code, entry.name))

    def _instance(self, i: int) -> Rule:
        rule = self.instances.get(i)
        if rule is None:
            entry, cls = self.entries[i]
            rule = self.instances[i] = (cls or entry.load())()
        return rule

    def for_file(self, path: str, launches: list[Launch]) -> list[Rule]:
        """The enabled rules ``path`` and its launches can trigger, in order."""
        group = len(launches) > 1
        return [self._instance(i) for i, (entry, _) in enumerate(self.entries)
                if (entry.checks_file or (group and entry.checks_group)
                    or (entry.checks_launch and any(entry.triggered_by(launch) for launch in launches)))
                and self._enabled(entry, path)]

    def preload(self) -> None:
        """Import and instantiate every rule some file may enable (before the
        workers fork, so that each does not do it for itself)."""
        for i, (entry, _) in enumerate(self.entries):
            if self._enabled(entry, None):
                self._instance(i)


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
    """Run the format's extractor (on each side of a merge conflict,
    `formats.conflicts`); a crash becomes a parse problem."""
    from sgllint.formats.conflicts import extract_sides

    try:
        return extract_sides(source, extractor(fmt), fmt) or extractor(fmt)(source)
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


def _unreferenced_candidate(site, root) -> bool:
    # imported here: config_refs needs the YAML config reader, which a launch
    # with nothing opaque (every shell, Python, Markdown launch) never does
    from sgllint.resolve.config_refs import unreferenced_candidate

    return unreferenced_candidate(site, root)


def resolve_launches(facts: FileFacts, options: Options, failures: Optional[list[Diagnostic]] = None) -> list[Launch]:
    """The file's launches, resolved. A launch whose resolution raises is
    left out and, with ``failures``, reported there as SGL999 (the other
    launches are still resolved)."""
    from sgllint.resolve.context import pragmas
    from sgllint.resolve.project import scope_for

    file_pragmas = pragmas(facts)
    launches = []
    # where the launches' references may be read (sgllint.resolve.project)
    scope = scope_for(facts.source.path, options.config) if facts.sites else None
    for site in facts.sites:
        if site.opaque and _unreferenced_candidate(site, scope.root):
            continue  # a config-shaped YAML file no launch of the project passes
        try:
            launches.append(_resolve_launch(site, facts, options, file_pragmas, scope))
        except Exception as exc:
            if failures is None:
                raise
            failures.append(internal_failure("launch", exc, site.entry_span, "the other launches and files were still checked"))
    return launches


def _parse_config(source: Source):
    """The YAML format's reading of an SGLang ``--config`` file, for
    resolution (`sgllint.model.config_file.ConfigParser`); imported only when
    a launch names a config file."""
    from sgllint.formats.yaml.sglang_config import entries_from_text

    return entries_from_text(source)


def _resolve_launch(site, facts: FileFacts, options: Options, file_pragmas, scope) -> Launch:
    from sgllint import catalog as catalogs
    from sgllint.resolve.argv import resolve
    from sgllint.resolve.context import LaunchContext, resolve_gpu, resolve_gpu_count, resolve_model, resolve_version
    from sgllint.resolve.launch import drop_refused, resolve_parsers

    version, requested = resolve_version(
        site,
        facts,
        options.sglang_version,
        options.config.sglang_version,
        file_pragmas,
        options.use_environment,
        scope,
    )
    cat = catalogs.load(str(version.value))
    ctx = LaunchContext(version=version, catalog=cat, requested=requested, scope=scope)
    # a wrapper's parser or the diffusion server's may judge the words first
    site, args = resolve_parsers(ctx, site, facts, file_pragmas, scope, _parse_config)
    if args is None:
        if any(isinstance(t.value, str) and t.value.startswith("--conf") for t in site.tokens):
            from sgllint.resolve.sglang_config import merge_config  # only when a launch names a config

            site = merge_config(site, cat, Path(facts.source.path).parent, scope, options.config.max_file_size, parse=_parse_config)
        site, args = drop_refused(site, resolve(site, cat))
    resolve_model(ctx, args, facts, file_pragmas, options.config.models, scope)
    resolve_gpu(ctx, site, facts, options.gpu, options.config.gpu, file_pragmas)
    resolve_gpu_count(ctx, site, facts)
    return Launch(site=site, args=args, context=ctx)


def internal_failure(what: str, exc: BaseException, span: Span, still: str) -> Diagnostic:
    """SGL999 at ``span``: sgllint failed on this ``what`` (a file, a launch)."""
    return _sgl999(f"sgllint failed on this {what}: {type(exc).__name__}: {exc}", exc, span, still)


def _sgl999(message: str, exc: BaseException, span: Span, still: str) -> Diagnostic:
    where = traceback.extract_tb(exc.__traceback__)[-1] if exc.__traceback__ else None
    at = f"at {Path(where.filename).name}:{where.lineno}; " if where else ""
    return Diagnostic(
        code=INTERNAL_ERROR.code,
        name=INTERNAL_ERROR.name,
        severity=INTERNAL_ERROR.severity,
        message=message,
        span=span,
        help=f"{at}{still}. Please report this.",
        url=INTERNAL_ERROR.url(),
    )


def internal_failure_result(path: str, exc: BaseException, fmt: Optional[str] = None, keep: Iterable[Diagnostic] = ()) -> FileResult:
    """A file sgllint failed on: its findings so far (``keep``) and SGL999."""
    failure = internal_failure("file", exc, Span(Source(path, _text_of(keep, path)), 0, 0), "every other file was still checked")
    return FileResult(path=path, format=fmt, diagnostics=sorted([*keep, failure], key=Diagnostic.sort_key))


def _text_of(diagnostics: Iterable[Diagnostic], path: str) -> str:
    for d in diagnostics:
        if d.span.source.path == path:
            return d.span.source.text
    return ""


def not_read_result(path: str, fmt: Optional[str], refusal: NotRead, options: Options) -> FileResult:
    """A path that was not read: SGL002 (unless deselected), or the old
    "no such file" skip for a file that vanished."""
    if refusal.reason is NotReadReason.MISSING:
        return FileResult(path=path, format=fmt, skipped="no such file or directory")
    result = FileResult(path=path, format=fmt)
    config = options.config
    if config.is_enabled(FILE_NOT_READ.code, FILE_NOT_READ.name, path):
        result.diagnostics.append(
            Diagnostic(
                code=FILE_NOT_READ.code,
                name=FILE_NOT_READ.name,
                severity=config.severity_for(FILE_NOT_READ.code, FILE_NOT_READ.name, FILE_NOT_READ.severity),
                message=refusal.message(),
                span=Span(Source(path, ""), 0, 0),
                help=_NOT_READ_HELP.get(refusal.reason, "nothing in it was checked"),
                url=FILE_NOT_READ.url(),
            )
        )
    return result


_NOT_READ_HELP = {
    NotReadReason.NOT_REGULAR: "only regular files are linted: reading this could block or never end",
    NotReadReason.TOO_LARGE: "raise max-file-size in [tool.sgllint] (or pass --max-file-size) to lint it",
    NotReadReason.OUTSIDE_ROOT: "links out of the linted directory are not followed; name the target on the command line to lint it",
    NotReadReason.IGNORE_FILE: "files it would have ignored are linted",
}


def _internal_error(rule: Rule, exc: BaseException, span: Span) -> Diagnostic:
    return _sgl999(f"rule {rule.code} ({rule.name}) failed: {type(exc).__name__}: {exc}", exc, span, "the other rules still ran")


def run_rules(facts: FileFacts, launches: list[Launch], rules: list[Rule]) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    file_span = Span(facts.source, 0, 0)
    # the launches each set of targets checks, chosen once per file and not
    # once per rule and launch (a hundred rules times thousands of launches);
    # a router-only or diffusion launch is not SGLang's server parser
    checked_by: dict[frozenset, list[Launch]] = {}
    for rule in rules:
        try:
            out.extend(rule.check_file(facts))
        except Exception as exc:
            out.append(_internal_error(rule, exc, file_span))
        targets = frozenset(getattr(rule, "targets", DEFAULT_TARGETS))
        checked = checked_by.get(targets)
        if checked is None:
            checked = checked_by[targets] = [launch for launch in launches if launch.context.target in targets]
        check = rule.check
        for launch in checked:
            context = None  # the launch's context as a dict: built once, shared (read-only) by its findings
            try:
                for d in check(launch):
                    if d.launch_span is None:
                        d.launch_span = launch.span
                    if d.context is None:
                        if context is None:
                            context = launch.context.as_dict()
                        d.context = context
                    out.append(d)
            except Exception as exc:
                out.append(_internal_error(rule, exc, launch.site.entry_span))
        if len(launches) > 1 and type(rule).check_group is not Rule.check_group:
            try:
                out.extend(rule.check_group(launches))  # a group's findings: their launch is set by the rule
            except Exception as exc:
                out.append(_internal_error(rule, exc, file_span))
    return out


def finish(diagnostics: Iterable[Diagnostic], facts: FileFacts, config: Config, noqa: bool = True) -> list[Diagnostic]:
    """Apply suppressions and severity overrides, dedupe and sort. With
    ``noqa=False`` only ``sgllint: ignore`` comments suppress."""
    diagnostics = list(diagnostics)
    if not diagnostics:
        return []  # nothing to suppress: the file's comments are not even parsed
    from sgllint.engine.suppress import _NOQA_RE, Suppressions

    if not noqa:
        facts = FileFacts(source=facts.source, format=facts.format, comments=[(o, _NOQA_RE.sub("", t)) for o, t in facts.comments])
    kept = [d for d in Suppressions.from_facts(facts).filter(diagnostics) if not config.ignores_sglang_check(d)]
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
        return result  # no launch shape: nothing to parse (sgllint/engine/prefilter.py)
    # a file that may launch allocates a syntax tree or two of small objects
    # without cycles, which live until its findings are made: the
    # young-generation collections CPython would run every 700 allocations
    # cost 15% of the file's time, and a middle-generation one every ten of
    # them rescans all of those objects (one such pass: 0.13 s of a 1.5 s file)
    threshold = gc.get_threshold()
    if not 0 < threshold[0] < GC_THRESHOLD:
        return _lint_launching(result, path, text, options, fmt)
    gc.set_threshold(GC_THRESHOLD, max(threshold[1], GC_MIDDLE_THRESHOLD), threshold[2])
    try:
        return _lint_launching(result, path, text, options, fmt)
    finally:
        gc.set_threshold(*threshold)


def _lint_launching(result: FileResult, path: str, text: str, options: Options, fmt: str) -> FileResult:
    source = Source(path, text)
    facts = extract(source, fmt)
    failures: list[Diagnostic] = []
    launches = resolve_launches(facts, options, failures)
    rules = _ruleset(options).for_file(path, launches)
    result.launches = launches
    result.requested = tuple(sorted({lc.context.requested for lc in launches if lc.context.requested}))
    result.diagnostics = finish([*failures, *run_rules(facts, launches, rules)], facts, options.config, options.noqa)
    return result


class ResultStore(Protocol):
    """Where `lint_file` may find and keep results of unchanged files (the
    runner's result cache): one per file."""

    def rejected(self, st, fmt: str) -> Optional[list]:
        """The index entry of a file the prefilter rejected (``st``: its stat)."""

    def lookup(self, path: str, data: bytes, fmt: str) -> Optional[FileResult]:
        """The stored result for these bytes, or None."""

    def store(self, path: str, data: bytes, fmt: str, result: FileResult) -> FileResult:
        """Keep ``result``; what to report (the result, or an SGL999 when keeping failed)."""


def lint_file(path: str, options: Optional[Options] = None, fmt: Optional[str] = None, store: Optional[ResultStore] = None) -> FileResult:
    """Lint one file: read it (confined, size-capped), prefilter its bytes,
    then `lint_source`; with ``store``, a stored result of the same bytes
    is used instead, and a new one is kept."""
    options = options or Options()
    # by name first: the head (one more open) only decides files without a suffix
    fmt = fmt or detect_format(path) or detect_format(path, _head(path))
    if fmt is None:
        return FileResult(path=path, skipped="not a supported format")
    read = read_linted(path, fmt, options)
    if isinstance(read, FileResult):
        return read
    data, st = read
    if not may_launch(fmt, data):
        return FileResult(path=path, format=fmt, index_entry=store.rejected(st, fmt) if store is not None else None)
    if store is None:
        return lint_source(path, decode(data), options, fmt)
    hit = store.lookup(path, data, fmt)
    if hit is not None:
        return hit
    return store.store(path, data, fmt, lint_source(path, decode(data), options, fmt))


def read_linted(path: str, fmt: str, options: Options):
    """(bytes, stat) of a file to lint, or the `FileResult` of one that is
    not read (SGL002) or not text."""
    try:
        data, st = read_regular_file(path, options.config.max_file_size)
    except NotRead as refusal:
        return not_read_result(path, fmt, refusal, options)
    if b"\0" in data[:8192]:
        return FileResult(path=path, format=fmt, skipped="binary file")
    return data, st


def _head(path: str) -> str:
    return read_head(path).decode("utf-8", errors="replace")
