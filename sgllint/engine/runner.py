"""The runner: linting many files, serially, with the result cache and in
parallel worker processes, each file through the one-file pipeline
(`sgllint.engine.pipeline.lint_file`; the cache is the pipeline's
`ResultStore`, never a second pipeline).

`lint_paths` walks the paths; `lint_many` is what it runs when a cache or
more than one job is asked for. It stays a generator: files are read, linted and yielded
one at a time in the walk's order, whatever the number of workers
(answers wait for their turn in a bounded window), so memory holds the
diagnostics and a bounded window of in-flight files, never the tree. A
worker that dies (a native crash, the out-of-memory killer) costs the file
it was on an SGL999; the run goes on with a new worker (`_parallel`).

Workers are started only when the walk has more than `MIN_FILES_PER_WORKER`
files per extra worker: below that, process start-up costs more than it
saves. ``jobs=None`` means one per available core.
"""

from __future__ import annotations

import collections
import gc
import itertools
import os
from pathlib import Path
from typing import Iterable, Iterator, Optional

from sgllint.engine.pipeline import FileResult, Options, _ruleset, decode, internal_failure_result, lint_file, not_read_result
from sgllint.engine.walk import iter_files
from sgllint.formats.registry import format_by_name
from sgllint.resolve.project import forget

#: a worker pays off only with at least this many files to lint (the
#: environment variable exists for tests that must exercise the workers)
MIN_FILES_PER_WORKER = max(1, int(os.environ.get("SGLLINT_MIN_FILES_PER_WORKER", "200") or 200))
#: files handed to a worker at a time
CHUNK = 8
#: at most this many walked files are held while deciding on workers
LOOKAHEAD = 4096


_UNKNOWN = object()


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
# The walk, serially
# ---------------------------------------------------------------------------


def lint_paths(
    paths: Iterable[str], options: Optional[Options] = None, jobs: Optional[int] = 1, cache_dir: Optional[str] = None
) -> Iterator[FileResult]:
    """Lint files and directory trees, streaming one result per file in walk
    order. ``jobs`` > 1 (or None: one per core) lints in worker processes
    when the tree is large enough; ``cache_dir`` reuses results of unchanged
    files (`sgllint.engine.cache`). Results from workers or the cache carry
    diagnostics but no `launches`. A file sgllint fails on gets SGL999 and
    the walk goes on."""
    forget()  # roots and pins found by an earlier run in this process may be stale
    options = options or Options()
    if jobs != 1 or cache_dir is not None:
        yield from lint_many(iter_files(paths, options.config), options, jobs, cache_dir)
        return
    for path, explicit, refusal in iter_files(paths, options.config):
        result = lint_one(path, explicit, options, refusal=refusal)
        if result is not None:
            yield result


# ---------------------------------------------------------------------------
# One file, with the cache
# ---------------------------------------------------------------------------


def lint_one(path: str, explicit: bool, options, cache=None, okey: str = "", refusal=None):
    """The `pipeline.FileResult` of one walked file (None: not a file this walk
    reports), read once, looked up in and stored to ``cache``. ``refusal``:
    the walk's reason not to read it (a `safe_read.NotRead`). Whatever
    raises while linting it becomes SGL999 on it."""
    from sgllint.resolve.safe_read import NotReadReason

    named = format_by_name(path)
    if refusal is not None:
        # an unlistable directory or an unreadable ignore file always; a
        # file only when its name says it would have been linted
        if refusal.reason in (NotReadReason.DIRECTORY, NotReadReason.IGNORE_FILE) or named is not None:
            return not_read_result(path, named, refusal, options)
        return None
    if not explicit and named is None and Path(path).suffix:
        return None
    if not os.path.exists(path):
        return FileResult(path=path, skipped="no such file or directory")
    try:
        result = lint_file(path, options, named, None if cache is None else _CachedFile(cache, okey))
    except Exception as exc:  # one file never ends the run, nor passes unnoticed
        result = internal_failure_result(path, exc, named)
    if result.skipped and not explicit and result.skipped == "not a supported format":
        return None
    return result


class _CachedFile:
    """The result cache as the pipeline's `ResultStore`, for one file."""

    def __init__(self, cache, okey: str):
        self.cache = cache
        self.okey = okey
        self.key: Optional[str] = None

    def rejected(self, st, fmt: str) -> list:
        # cheaper than a cache lookup; the next run only stats it (StatIndex)
        from sgllint.engine import cache as cachemod

        return cachemod.index_entry(st, fmt)

    def lookup(self, path: str, data: bytes, fmt: str):
        self.key = self.cache.key(path, data, self.okey)
        return _cache_hit(self.cache, self.key, path, fmt, data)

    def store(self, path: str, data: bytes, fmt: str, result):
        from sgllint.engine import cache as cachemod

        if result.skipped:
            return result
        try:
            deps = cachemod.dependencies(result)
            if deps is not None:
                diags, sources = cachemod.dump_diagnostics(result.diagnostics, path)
                entry = {"v": cachemod.FORMAT, "format": fmt, "diagnostics": diags, "sources": sources, "deps": deps,
                         "requested": list(result.requested)}
                self.cache.put(self.key or self.cache.key(path, data, self.okey), entry)
        except Exception as exc:  # the findings stand; the failure is reported with them
            return internal_failure_result(path, exc, fmt, keep=result.diagnostics)
        return result


def _cache_hit(cache, key: str, path: str, fmt: str, data: bytes):
    """The cached result, or None: a damaged entry is a miss."""
    from sgllint.engine import cache as cachemod
    from sgllint.model.facts import Source

    try:
        entry = cache.get(key)
        if entry is None or entry.get("format") != fmt:
            return None
        result = FileResult(path=path, format=fmt, requested=tuple(entry.get("requested", ())))
        if entry["diagnostics"]:
            main = Source(path, decode(data))
            result.diagnostics = cachemod.load_diagnostics(entry["diagnostics"], main, entry.get("sources", {}))
        return result
    except Exception:
        return None


# ---------------------------------------------------------------------------
# Results across processes
# ---------------------------------------------------------------------------


def _pack(result) -> Optional[tuple]:
    from sgllint.engine.cache import dump_diagnostics

    if result is None:
        return None
    if not result.diagnostics:
        return (result.path, result.format, result.skipped, None, None, None, result.index_entry, result.requested)
    diags, sources = dump_diagnostics(result.diagnostics, result.path)
    text = result.diagnostics[0].span.source.text
    return (result.path, result.format, result.skipped, diags, sources, text, result.index_entry, result.requested)


def _unpack(packed: Optional[tuple]):
    from sgllint.engine.cache import load_diagnostics
    from sgllint.model.facts import Source

    if packed is None:
        return None
    path, fmt, skipped, diags, sources, text, entry, requested = packed
    result = FileResult(path=path, format=fmt, skipped=skipped, index_entry=entry, requested=requested)
    if diags:
        result.diagnostics = load_diagnostics(diags, Source(path, text), sources)
    return result


_STATE: dict = {}


def _init_worker(options, cache_dir: Optional[str], okey: str) -> None:
    from sgllint.engine.cache import Cache

    _STATE["options"] = options
    _STATE["cache"] = Cache(cache_dir) if cache_dir is not None else None
    _STATE["okey"] = okey


def _work(task: tuple) -> Optional[tuple]:
    path, explicit, refusal = task
    try:
        return _pack(lint_one(path, explicit, _STATE["options"], _STATE["cache"], _STATE["okey"], refusal))
    except Exception as exc:  # even packing the result: the parent reports it on the file
        return _pack(internal_failure_result(path, exc))


def lint_many(files: Iterable, options, jobs: Optional[int] = 1, cache_dir: Optional[str] = None) -> Iterator:
    """`pipeline.FileResult` for each `walk.Walked` (path, explicit, refusal), in order."""
    cache = index = None
    okey = ""
    if cache_dir is not None:  # hashing and the index's reader only for a run that caches
        from sgllint.engine.cache import Cache, StatIndex, options_key

        cache = Cache(cache_dir)
        okey = options_key(options)
        index = StatIndex(cache)
    limit = options.config.max_file_size
    jobs = resolve_jobs(jobs)
    files = iter(files)
    # look ahead for files left to lint (those the index does not know): a
    # worker pays off only with enough of them
    head: list = []
    misses = 0
    if jobs > 1:
        for item in files:
            known = _known(item, index, limit)
            head.append((item, known))
            misses += known is None
            if misses >= MIN_FILES_PER_WORKER * 2 or len(head) >= LOOKAHEAD:
                break
    try:
        if jobs > 1 and misses > MIN_FILES_PER_WORKER:
            rest = [(item, None) for item in itertools.islice(files, MIN_FILES_PER_WORKER * (jobs - 2))]
            jobs = min(jobs, 1 + (misses + len(rest)) // MIN_FILES_PER_WORKER)
            walk = itertools.chain(head, rest, ((item, _UNKNOWN) for item in files))
            if cache is None:  # a cache hit needs neither the rules nor libcst
                _preload(options, head)
            yield from _parallel(walk, options, jobs, cache_dir, okey, index)
            return
        walk = itertools.chain(head, ((item, _UNKNOWN) for item in files))
        for item, known in walk:
            if known is _UNKNOWN:
                known = _known(item, index, limit)
            path, explicit, refusal = item
            result = known if known is not None else lint_one(path, explicit, options, cache, okey, refusal)
            if index is not None:
                index.record(path, result)
            if result is not None:
                yield result
    finally:
        if index is not None:
            index.flush()


def _known(item, index, limit: int):
    """The result of a walked file the `StatIndex` knows unchanged (and
    within the size limit), else None."""
    path, explicit, refusal = item
    if index is None or explicit or refusal is not None:
        return None
    entry = index.lookup(path)
    if entry is None or entry[2] > limit:  # stat_key: dev, ino, size, ...
        return None
    return FileResult(path=path, format=entry[5], index_entry=entry)


def _preload(options, head) -> None:
    """Import and build before the workers fork what each would otherwise
    import and build for itself: the rules, and libcst and the Python
    extractor when the walk has Python or Markdown files."""
    try:
        _ruleset(options).preload()
        if any(format_by_name(item[0]) in ("python", "markdown") for item, _ in head):
            from sgllint.formats.python.parse import _import_libcst

            if _import_libcst() is not None:
                # imported for their side effect: loaded once here, before the fork, not per worker
                import sgllint.formats.python.flow  # noqa: F401
                import sgllint.formats.python.hydra  # noqa: F401
                import sgllint.formats.python.launches  # noqa: F401
    except Exception:  # a worker meets it again, where one file reports it
        pass


class WorkerDied(Exception):
    """A worker process ended while linting a file (a crash in a native
    library, the kernel's out-of-memory killer, a signal)."""


def _describe_exit(code: Optional[int]) -> str:
    if code is not None and code < 0:
        import signal

        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit status {code}"


def _serve(conn, options, cache_dir: Optional[str], okey: str) -> None:
    """A worker: lint each chunk of tasks received, answering file by file
    (so when it dies, the parent knows on which file)."""
    _init_worker(options, cache_dir, okey)
    try:
        while True:
            chunk = conn.recv()
            if chunk is None:
                return
            for seq, task in chunk:
                conn.send((seq, _work(task)))
    except (EOFError, OSError, KeyboardInterrupt):
        return  # the parent is gone or stopping us


class _Worker:
    def __init__(self, ctx, options, cache_dir: Optional[str], okey: str):
        self.conn, child = ctx.Pipe()
        # what the parent holds now is never garbage in a worker: frozen, the
        # workers' collections neither scan it nor copy its pages
        gc.freeze()
        try:
            self.process = ctx.Process(target=_serve, args=(child, options, cache_dir, okey), daemon=True)
            self.process.start()
        finally:
            gc.unfreeze()
        child.close()
        self.tasks: collections.deque = collections.deque()  # (seq, task) sent and not answered, in order

    def send(self, chunk: list) -> None:
        self.tasks.extend(chunk)
        try:
            self.conn.send(chunk)
        except OSError:
            pass  # it just died: the parent sees its sentinel

    def stop(self) -> None:
        try:
            self.conn.send(None)
        except (OSError, ValueError):
            pass
        self.process.join(timeout=5)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()
        self.conn.close()


def _parallel(files, options, jobs: int, cache_dir: Optional[str], okey: str, index=None) -> Iterator:
    """Lint in ``jobs`` worker processes, yielding results in walk order.

    Each worker answers file by file. A worker that dies (a native crash, an
    out-of-memory kill) costs only the file it was on: that file gets SGL999
    (`WorkerDied`), the files sent with it go to the other workers, and a
    new worker takes its place; the run goes on and exits 2."""
    # long on purpose: the worker pool's life cycle (start, dispatch, collect in walk order, replace a dead worker)
    # shares its state
    import multiprocessing  # only a run that starts workers pays for it
    from multiprocessing.connection import wait

    methods = multiprocessing.get_all_start_methods()
    ctx = multiprocessing.get_context("fork" if "fork" in methods else None)
    limit = options.config.max_file_size
    window = jobs * CHUNK * 8  # walked files held at most: the results awaiting their turn
    files = iter(files)
    order: collections.deque = collections.deque()  # [seq, path, result or None] in walk order
    todo: collections.deque = collections.deque()  # (seq, task) not sent yet
    done: dict = {}  # seq -> result, from the workers
    seqs = itertools.count()
    walked = False
    workers = [_Worker(ctx, options, cache_dir, okey) for _ in range(jobs)]
    try:
        while True:
            while not walked and len(order) < window:
                entry = next(files, None)
                if entry is None:
                    walked = True
                    break
                item, known = entry
                if known is _UNKNOWN:
                    known = _known(item, index, limit)
                seq = next(seqs)
                order.append((seq, item[0], known))
                if known is None:
                    todo.append((seq, tuple(item)))
            for i, w in enumerate(workers):
                if not w.tasks and todo:
                    if not w.process.is_alive():  # died between files: no file to blame
                        w.stop()
                        w = workers[i] = _Worker(ctx, options, cache_dir, okey)
                    w.send([todo.popleft() for _ in range(min(CHUNK, len(todo)))])
            while order and (order[0][2] is not None or order[0][0] in done):
                seq, path, known = order.popleft()
                result = known if known is not None else done.pop(seq)
                if index is not None:
                    index.record(path, result)
                if result is not None:
                    yield result
            if not order and walked:
                return
            busy = [w for w in workers if w.tasks]
            if not busy:
                continue
            ready = wait([w.conn for w in busy] + [w.process.sentinel for w in busy])
            for i, w in enumerate(workers):
                if w.conn not in ready and w.process.sentinel not in ready:
                    continue
                try:
                    while w.tasks and w.conn.poll():
                        _, packed = w.conn.recv()
                        seq, task = w.tasks.popleft()
                        done[seq] = _received(task[0], packed)
                except (EOFError, OSError):
                    pass  # it died: its answers so far are in
                if w.tasks and not w.process.is_alive():
                    from sgllint.engine.pipeline import internal_failure_result

                    seq, task = w.tasks.popleft()  # the file it was on
                    w.process.join()
                    died = WorkerDied(f"the worker process linting it died ({_describe_exit(w.process.exitcode)})")
                    done[seq] = internal_failure_result(task[0], died, format_by_name(task[0]))
                    todo.extendleft(reversed(w.tasks))  # the rest of its chunk, first in line
                    w.tasks.clear()
                    w.stop()
                    workers[i] = _Worker(ctx, options, cache_dir, okey)
    finally:
        for w in workers:
            if w.process.is_alive() and w.tasks:
                w.process.kill()
            w.stop()


def _received(path: str, packed):
    """A worker's answer as a result; one that cannot be unpacked is an
    SGL999 on its file."""
    try:
        return _unpack(packed)
    except Exception as exc:
        return internal_failure_result(path, exc)
