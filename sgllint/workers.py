"""Linting many files: the result cache and parallel worker processes.

`lint_many` is what `engine.lint_paths` runs when a cache or more than one
job is asked for. It stays a generator: files are read, linted and yielded
one at a time in the walk's order, whatever the number of workers
(``Pool.imap`` returns results in submission order), so memory holds the
diagnostics and a bounded window of in-flight files, never the tree.

Workers are started only when the walk has more than `MIN_FILES_PER_WORKER`
files per extra worker: below that, process start-up costs more than it
saves. ``jobs=None`` means one per available core.
"""

from __future__ import annotations

import gc
import itertools
import multiprocessing
import os
import queue
from pathlib import Path
from typing import Iterable, Iterator, Optional

from sgllint.extract import detect_format

#: a worker pays off only with at least this many files to lint (the
#: environment variable exists for tests that must exercise the workers)
MIN_FILES_PER_WORKER = max(1, int(os.environ.get("SGLLINT_MIN_FILES_PER_WORKER", "200") or 200))
#: files handed to a worker at a time
CHUNK = 8
#: at most this many walked files are held while deciding on workers
LOOKAHEAD = 4096


_UNKNOWN = object()
_FORMAT_OF_SUFFIX: dict = {}


def format_by_name(path: str):
    """`detect_format(path)` (by name only), remembered per suffix when the
    suffix alone decides it: a walk asks for every file, and `PurePath`
    costs more than the rest of a prefilter-rejected file."""
    from sgllint.extract import _SUFFIXES, EXTRACTORS

    name = os.path.basename(path)
    i = name.rfind(".")
    suffix = name[i:] if 0 < i < len(name) - 1 else ""  # PurePath.suffix
    if suffix:
        fmt = _FORMAT_OF_SUFFIX.get(suffix, _UNKNOWN)
        if fmt is not _UNKNOWN:
            return fmt
        probe = detect_format("x" + suffix)
        if probe is not None and probe in EXTRACTORS and _SUFFIXES.get(suffix.lower()) == probe:
            _FORMAT_OF_SUFFIX[suffix] = probe
            return probe
    return detect_format(path)


def available_cores() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def resolve_jobs(jobs: Optional[int]) -> int:
    """``--jobs``: None or 0 = auto (one per core), else bounded by the cores."""
    cores = available_cores()
    if not jobs or jobs < 1:
        return cores
    return min(jobs, cores)


# ---------------------------------------------------------------------------
# One file, with the cache
# ---------------------------------------------------------------------------


def lint_one(path: str, explicit: bool, options, cache=None, okey: str = ""):
    """The `engine.FileResult` of one walked file (None: not a file this walk
    lints), read once, looked up in and stored to ``cache``."""
    from sgllint.engine import FileResult, lint_file

    if not explicit and format_by_name(path) is None and Path(path).suffix:
        return None
    if not os.path.exists(path):
        return FileResult(path=path, skipped="no such file or directory")
    try:
        if cache is None:
            result = lint_file(path, options)
        else:
            result = _cached(path, options, cache, okey)
    except Exception as exc:  # defence in depth: one file never ends the run
        result = FileResult(path=path, skipped=f"internal error: {type(exc).__name__}: {exc}")
    if result.skipped and not explicit and result.skipped == "not a supported format":
        return None
    return result


def _cached(path: str, options, cache, okey: str):
    from sgllint import cache as cachemod
    from sgllint.engine import MAX_FILE_BYTES, FileResult, _head, decode, lint_source
    from sgllint.model import Source
    from sgllint.prefilter import may_launch

    fmt = format_by_name(path) or detect_format(path, _head(path))  # the head only without a suffix
    if fmt is None:
        return FileResult(path=path, skipped="not a supported format")
    try:
        if os.path.isdir(path):
            return FileResult(path=path, format=fmt, skipped="cannot read: Is a directory")
        with open(path, "rb") as f:
            st = os.fstat(f.fileno())
            data = f.read(MAX_FILE_BYTES + 1)
    except OSError as e:
        return FileResult(path=path, format=fmt, skipped=f"cannot read: {e.strerror or e}")
    if len(data) > MAX_FILE_BYTES:
        return FileResult(path=path, format=fmt, skipped=f"larger than {MAX_FILE_BYTES // 2**20} MiB")
    if b"\0" in data[:8192]:
        return FileResult(path=path, format=fmt, skipped="binary file")
    if not may_launch(fmt, data):
        # cheaper than a cache lookup; the next run only stats it (StatIndex)
        return FileResult(path=path, format=fmt, index_entry=cachemod.index_entry(st, fmt))
    key = cache.key(path, data, okey)
    entry = cache.get(key)
    if entry is not None and entry.get("format") == fmt:
        result = FileResult(path=path, format=fmt)
        if entry["diagnostics"]:
            main = Source(path, decode(data))
            result.diagnostics = cachemod.load_diagnostics(entry["diagnostics"], main, entry.get("sources", {}))
        return result
    result = lint_source(path, decode(data), options, fmt)
    if not result.skipped:
        deps = cachemod.dependencies(result)
        if deps is not None:
            diags, sources = cachemod.dump_diagnostics(result.diagnostics, path)
            cache.put(key, {"v": cachemod.FORMAT, "format": fmt, "diagnostics": diags, "sources": sources, "deps": deps})
    return result


# ---------------------------------------------------------------------------
# Results across processes
# ---------------------------------------------------------------------------


def _pack(result) -> Optional[tuple]:
    from sgllint.cache import dump_diagnostics

    if result is None:
        return None
    if not result.diagnostics:
        return (result.path, result.format, result.skipped, None, None, None, result.index_entry)
    diags, sources = dump_diagnostics(result.diagnostics, result.path)
    return (result.path, result.format, result.skipped, diags, sources, result.diagnostics[0].span.source.text, result.index_entry)


def _unpack(packed: Optional[tuple]):
    from sgllint.cache import load_diagnostics
    from sgllint.engine import FileResult
    from sgllint.model import Source

    if packed is None:
        return None
    path, fmt, skipped, diags, sources, text, entry = packed
    result = FileResult(path=path, format=fmt, skipped=skipped, index_entry=entry)
    if diags:
        result.diagnostics = load_diagnostics(diags, Source(path, text), sources)
    return result


_STATE: dict = {}


def _init_worker(options, cache_dir: Optional[str], okey: str) -> None:
    from sgllint.cache import Cache

    _STATE["options"] = options
    _STATE["cache"] = Cache(cache_dir) if cache_dir is not None else None
    _STATE["okey"] = okey


def _work(task: tuple[str, bool]) -> Optional[tuple]:
    path, explicit = task
    return _pack(lint_one(path, explicit, _STATE["options"], _STATE["cache"], _STATE["okey"]))


def lint_many(files: Iterable[tuple[str, bool]], options, jobs: Optional[int] = 1, cache_dir: Optional[str] = None) -> Iterator:
    """`engine.FileResult` for each (path, explicit), in order."""
    from sgllint.cache import Cache, StatIndex, options_key

    cache = Cache(cache_dir) if cache_dir is not None else None
    okey = options_key(options) if cache is not None else ""
    index = StatIndex(cache) if cache is not None else None
    jobs = resolve_jobs(jobs)
    files = iter(files)
    # look ahead for files left to lint (those the index does not know): a
    # worker pays off only with enough of them
    head: list = []
    misses = 0
    if jobs > 1:
        for path, explicit in files:
            known = _known(path, explicit, index)
            head.append((path, explicit, known))
            misses += known is None
            if misses >= MIN_FILES_PER_WORKER * 2 or len(head) >= LOOKAHEAD:
                break
    try:
        if jobs > 1 and misses > MIN_FILES_PER_WORKER:
            rest = [(path, explicit, None) for path, explicit in itertools.islice(files, MIN_FILES_PER_WORKER * (jobs - 2))]
            jobs = min(jobs, 1 + (misses + len(rest)) // MIN_FILES_PER_WORKER)
            walk = itertools.chain(head, rest, ((path, explicit, _UNKNOWN) for path, explicit in files))
            if cache is None:  # a cache hit needs neither the rules nor libcst
                _preload(options, head)
            yield from _parallel(walk, options, jobs, cache_dir, okey, index)
            return
        walk = itertools.chain(head, ((path, explicit, _UNKNOWN) for path, explicit in files))
        for path, explicit, known in walk:
            if known is _UNKNOWN:
                known = _known(path, explicit, index)
            result = known if known is not None else lint_one(path, explicit, options, cache, okey)
            if index is not None:
                index.record(path, result)
            if result is not None:
                yield result
    finally:
        if index is not None:
            index.flush()


def _known(path: str, explicit: bool, index):
    """The result of a walked file the `StatIndex` knows unchanged, else None."""
    if index is None or explicit:
        return None
    entry = index.lookup(path)
    if entry is None:
        return None
    from sgllint.engine import FileResult

    return FileResult(path=path, format=entry[5], index_entry=entry)


def _preload(options, head) -> None:
    """Import and build before the workers fork what each would otherwise
    import and build for itself: the rules, and libcst and the Python
    extractor when the walk has Python or Markdown files."""
    try:
        from sgllint.engine import _ruleset

        _ruleset(options)
        if any(format_by_name(path) in ("python", "markdown") for path, _, _ in head):
            from sgllint.extract.python import _import_libcst

            if _import_libcst() is not None:
                import sgllint.extract._py_flow
                import sgllint.extract._py_hydra
                import sgllint.extract._py_launches
    except Exception:  # a worker meets it again, where one file reports it
        pass


def _parallel(files, options, jobs: int, cache_dir: Optional[str], okey: str, index=None) -> Iterator:
    methods = multiprocessing.get_all_start_methods()
    ctx = multiprocessing.get_context("fork" if "fork" in methods else None)
    # the pool's feeder thread walks and answers what the index knows; the
    # rest goes to the workers. ``order`` keeps walk order: a result known
    # at once, or "the next one from the workers".
    order: queue.Queue = queue.Queue()

    def feed():
        try:
            for path, explicit, known in files:
                if known is _UNKNOWN:
                    known = _known(path, explicit, index)
                if known is not None:
                    order.put((0, path, known))
                else:
                    order.put((1, path, None))
                    yield path, explicit
        except BaseException as exc:  # surfaces in the consuming thread
            order.put((3, None, exc))
        finally:
            order.put((2, None, None))

    # what the parent holds now is never garbage in a worker: frozen, the
    # workers' collections neither scan it nor copy its pages
    gc.freeze()
    try:
        pool = ctx.Pool(jobs, initializer=_init_worker, initargs=(options, cache_dir, okey))
    finally:
        gc.unfreeze()
    with pool:
        results = pool.imap(_work, feed(), chunksize=CHUNK)
        while True:
            kind, path, value = order.get()
            if kind == 2:
                break
            if kind == 3:
                raise value
            result = value if kind == 0 else _unpack(next(results))
            if index is not None:
                index.record(path, result)
            if result is not None:
                yield result
