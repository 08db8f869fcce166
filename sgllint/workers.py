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

import itertools
import multiprocessing
import os
from pathlib import Path
from typing import Iterable, Iterator, Optional

from sgllint.extract import detect_format

#: a worker pays off only with at least this many files to lint (the
#: environment variable exists for tests that must exercise the workers)
MIN_FILES_PER_WORKER = max(1, int(os.environ.get("SGLLINT_MIN_FILES_PER_WORKER", "200") or 200))
#: files handed to a worker at a time
CHUNK = 8


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

    if not explicit and detect_format(path) is None and Path(path).suffix:
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

    fmt = detect_format(path, _head(path))
    if fmt is None:
        return FileResult(path=path, skipped="not a supported format")
    try:
        if os.path.isdir(path):
            return FileResult(path=path, format=fmt, skipped="cannot read: Is a directory")
        with open(path, "rb") as f:
            data = f.read(MAX_FILE_BYTES + 1)
    except OSError as e:
        return FileResult(path=path, format=fmt, skipped=f"cannot read: {e.strerror or e}")
    if len(data) > MAX_FILE_BYTES:
        return FileResult(path=path, format=fmt, skipped=f"larger than {MAX_FILE_BYTES // 2**20} MiB")
    if b"\0" in data[:8192]:
        return FileResult(path=path, format=fmt, skipped="binary file")
    if not may_launch(fmt, data):
        return FileResult(path=path, format=fmt)  # cheaper than a cache lookup
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
        return (result.path, result.format, result.skipped, None, None, None)
    diags, sources = dump_diagnostics(result.diagnostics, result.path)
    return (result.path, result.format, result.skipped, diags, sources, result.diagnostics[0].span.source.text)


def _unpack(packed: Optional[tuple]):
    from sgllint.cache import load_diagnostics
    from sgllint.engine import FileResult
    from sgllint.model import Source

    if packed is None:
        return None
    path, fmt, skipped, diags, sources, text = packed
    result = FileResult(path=path, format=fmt, skipped=skipped)
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
    from sgllint.cache import Cache, options_key

    cache = Cache(cache_dir) if cache_dir is not None else None
    okey = options_key(options) if cache is not None else ""
    jobs = resolve_jobs(jobs)
    files = iter(files)
    head = list(itertools.islice(files, MIN_FILES_PER_WORKER * 2)) if jobs > 1 else []
    if jobs > 1 and len(head) > MIN_FILES_PER_WORKER:
        rest = list(itertools.islice(files, MIN_FILES_PER_WORKER * (jobs - 2)))
        jobs = min(jobs, 1 + (len(head) + len(rest)) // MIN_FILES_PER_WORKER)
        yield from _parallel(itertools.chain(head, rest, files), options, jobs, cache_dir, okey)
        return
    for path, explicit in itertools.chain(head, files):
        result = lint_one(path, explicit, options, cache, okey)
        if result is not None:
            yield result


def _parallel(files, options, jobs: int, cache_dir: Optional[str], okey: str) -> Iterator:
    methods = multiprocessing.get_all_start_methods()
    ctx = multiprocessing.get_context("fork" if "fork" in methods else None)
    with ctx.Pool(jobs, initializer=_init_worker, initargs=(options, cache_dir, okey)) as pool:
        for packed in pool.imap(_work, files, chunksize=CHUNK):
            result = _unpack(packed)
            if result is not None:
                yield result
