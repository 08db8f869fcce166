"""Result cache: a file's finished diagnostics, keyed by what decides them.

Key = sha256 of: the file's bytes, its path (per-file ignores and
diagnostics name it), the sgllint build (version plus the size and mtime of
every module, rule and catalog file, so an edit to sgllint invalidates
everything), the configuration and every option that changes results.
Results of files with launches also depend on files around them (a
``--config`` YAML, an ``sglang==`` pin, a model's ``config.json``, the
installed sglang); those are recorded as *dependencies* and re-checked on
every hit, so a changed neighbour is a miss.

Entries are JSON under ``.sgllint_cache/<build>/<k[:2]>/<k>.json``, written
to a temporary file and moved into place with `os.replace`, so concurrent
runs (pre-commit in two worktrees, the LSP and the CLI) never see half an
entry. The cache directory is the user's (``--cache-dir``, or
``.sgllint_cache`` in the current directory, which may be a stranger's
checkout): when a symbolic link among its components lies inside the
project of the current directory and leads out of it, the cache is not used
at all (`link_out_of_project`), and below it sgllint never follows a link
it did not make: a directory or entry that is a link, a FIFO or oversized is
a miss and is not written through. A diagnostic is stored with its spans as offsets and the texts of
files other than the linted one (a ``--config`` file) inline, so every
output format, the ``full`` code frame included, renders from a hit exactly
as from a cold run. Skipped files are never cached.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
from pathlib import Path
from typing import Any, Optional

from sgllint.model.diagnostic import Diagnostic, Edit, Fix, Related, Severity
from sgllint.model.facts import Source, Span

DEFAULT_DIR = ".sgllint_cache"
FORMAT = 2  # bump when the entry layout changes


@functools.lru_cache(maxsize=1)
def build_id() -> str:
    """sgllint's version and the identity of its code, rules and catalogs."""
    from sgllint import __version__

    root = Path(__file__).resolve().parents[1]  # the sgllint package
    h = hashlib.sha256(f"{FORMAT}:{__version__}".encode())
    # every package of sgllint (sgllint/ itself included), then the catalog data
    dirs = sorted(p.parent for p in root.rglob("__init__.py")) + [root / "catalog" / "data"]
    from sgllint.model.rule import builtin_rules_dir

    dirs.append(builtin_rules_dir())
    for d in dirs:
        try:
            names = sorted(os.listdir(d))
        except OSError:
            continue
        for name in names:
            if name.endswith((".py", ".json", ".toml")):
                try:
                    st = os.stat(d / name)
                except OSError:
                    continue
                h.update(f"{d.name}/{name}:{st.st_size}:{st.st_mtime_ns};".encode())
    return h.hexdigest()[:20]


def _rule_dir_stamps(dirs) -> list:
    """The user's rule folders' files (name, size, mtime): editing a rule
    invalidates the results it produced."""
    out = []
    for d in dirs:
        try:
            out += [(str(p), st.st_size, st.st_mtime_ns) for p in sorted(Path(d).glob("*.py")) for st in [p.stat()]]
        except OSError:
            out.append((str(d), None))
    return out


def options_key(options) -> str:
    """What of `engine.Options` changes results."""
    parts = [
        repr(options.config),
        repr(options.sglang_version),
        repr(options.gpu),
        repr(options.use_environment),
        repr(getattr(options, "noqa", True)),
        repr([f"{r.__module__}.{r.__qualname__}" for r in options.rules] if options.rules is not None else None),
        repr(_rule_dir_stamps(options.config.rule_dirs)),
    ]
    if options.use_environment:
        from sgllint.resolve.context import installed_version

        parts.append(repr(installed_version()))
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


#: the largest cache entry or stat shard read (an entry holds a file's
#: diagnostics and the referenced files' texts, each within max-file-size)
MAX_ENTRY_BYTES = 64 * 1024 * 1024


def link_out_of_project(directory: str | os.PathLike) -> Optional[str]:
    """Why ``directory`` may not hold the cache, or None: one of its
    components is a symbolic link inside the project of the current
    directory (`sgllint.resolve.project.find_root`) leading out of it. Links
    elsewhere (a home directory's ``~/.cache`` on another disk) are the
    user's own."""
    from sgllint.resolve.project import find_root

    try:
        cwd = os.path.realpath(os.getcwd())
        project = str(find_root(cwd))
        parts = Path(directory).parts
        current = os.sep if os.path.isabs(directory) else cwd
        for part in parts[1:] if os.path.isabs(directory) else parts:
            if part == "..":
                current = os.path.dirname(current)
                continue
            candidate = os.path.join(current, part)
            if os.path.islink(candidate):
                target = os.path.realpath(candidate)
                if _inside(candidate, project) and not _inside(target, project):
                    return f"{candidate} is a symbolic link out of the project ({target})"
                current = target
            else:
                current = candidate
    except (OSError, ValueError) as exc:
        return f"cannot check the cache directory: {exc}"
    return None


def _inside(path: str, directory: str) -> bool:
    return path == directory or path.startswith(directory.rstrip(os.sep) + os.sep)


class Cache:
    def __init__(self, directory: str | os.PathLike = DEFAULT_DIR):
        self.base = Path(directory)
        self.root = self.base / build_id()
        #: why the cache is not used (a link out of the project), or None
        self.refusal = link_out_of_project(directory)
        self._created = False
        self._real_base: Optional[str] = None
        self._clean_dirs: set[Path] = set()

    def read(self, path: Path) -> Optional[bytes]:
        """The bytes of a cache file, None when it is missing, reached
        through a link below the cache directory, not a regular file or
        larger than `MAX_ENTRY_BYTES`."""
        from sgllint.resolve.safe_read import NotRead, read_regular_file

        if self.refusal is not None or not self._unlinked(path.parent):
            return None
        try:
            return read_regular_file(str(path), MAX_ENTRY_BYTES)[0]
        except NotRead:
            return None

    def _unlinked(self, directory: Path) -> bool:
        """Whether ``directory`` (below the cache directory) is reached
        without following a link below the cache directory. A directory
        found clean is not resolved again in this run (a warm run reads
        thousands of entries from a few hundred directories)."""
        if directory in self._clean_dirs:
            return True
        if self._real_base is None:
            self._real_base = os.path.realpath(self.base)
        clean = os.path.realpath(directory) == os.path.join(self._real_base, os.path.relpath(directory, self.base))
        if clean:
            self._clean_dirs.add(directory)
        return clean

    def make_dirs(self, directory: Path) -> None:
        """Create ``directory`` below the cache directory, one level at a
        time, refusing (OSError) to go through a link."""
        if self.refusal is not None:
            raise OSError(self.refusal)
        os.makedirs(self.base, exist_ok=True)  # its links were checked (link_out_of_project)
        current = self.base
        for part in Path(os.path.relpath(directory, self.base)).parts:
            current = current / part
            try:
                os.mkdir(current)
            except FileExistsError:
                pass
            if os.path.islink(current) or not os.path.isdir(current):
                raise OSError(f"{current} is not a directory sgllint made")

    def key(self, path: str, data: bytes, okey: str) -> str:
        h = hashlib.sha256()
        h.update(okey.encode())
        h.update(b"\0")
        h.update(os.fsencode(path))
        h.update(b"\0")
        h.update(data)
        return h.hexdigest()

    def _file(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> Optional[dict]:
        data = self.read(self._file(key))
        try:
            entry = json.loads(data) if data is not None else None
        except ValueError:
            return None
        if not isinstance(entry, dict) or entry.get("v") != FORMAT or not deps_hold(entry.get("deps", [])):
            return None
        return entry

    def put(self, key: str, entry: dict) -> None:
        target = self._file(key)
        try:
            self.make_dirs(target.parent)
            if not self._created:
                _write_gitignore(self.root.parent)
                self._created = True
            _write_json_atomically(target, entry, ensure_ascii=False)
        except OSError:
            pass  # a read-only or full disk only costs speed


# ---------------------------------------------------------------------------
# Files the prefilter rejected, by their stat: a warm run neither reads them
# nor hashes them
# ---------------------------------------------------------------------------

#: a file changed less than this long ago may change again within the same
#: timestamp tick: it is not recorded (git's "racily clean" rule)
RACY_NS = 2_000_000_000


def stat_key(st) -> list:
    """What must be unchanged for a file to be the one recorded: device,
    inode, size, modification and change time (the change time moves on
    every write, whatever the modification time is set back to)."""
    return [st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns]


def index_entry(st, fmt: str) -> Optional[list]:
    """The `StatIndex` entry of a rejected file read with stat ``st``, or
    None while it is too fresh to trust its stat."""
    import time

    if time.time_ns() - max(st.st_mtime_ns, st.st_ctime_ns) < RACY_NS:
        return None
    return stat_key(st) + [fmt]


class StatIndex:
    """Per directory, the files the byte prefilter rejected (clean, nothing
    to parse), with their `stat_key` and format:
    ``<cache>/<build>/stat/<h[:2]>/<h>.json`` for the directory's absolute
    path ``h``. A warm run stats such a file and, when nothing changed,
    reports it clean without reading it; any change is a miss that reads,
    prefilters and, for a launch, goes through the content-hash cache as
    before. The verdict depends only on the bytes, the name and the sgllint
    build (the shards live under the build's directory), never on the
    configuration.

    A walk visits a directory's files together, so one shard is loaded
    (`lookup`) and one written (`record`, `flush`) at a time: memory does
    not grow with the tree. Shards are replaced atomically; concurrent
    runs at worst redo each other's work."""

    def __init__(self, cache: "Cache"):
        self.root = cache.root / "stat"
        self.cache = cache
        self._read_dir: Optional[str] = None
        self._read: dict = {}
        self._left: tuple[Optional[str], dict] = (None, {})  # the shard loaded before `_read`
        self._write_dir: Optional[str] = None
        self._write: dict = {}

    def _shard(self, directory: str) -> tuple[Path, str]:
        absolute = os.path.abspath(directory)
        h = hashlib.sha256(os.fsencode(absolute)).hexdigest()[:32]
        return self.root / h[:2] / f"{h}.json", absolute

    def _load(self, directory: str) -> dict:
        shard, absolute = self._shard(directory)
        raw = self.cache.read(shard)
        try:
            data = json.loads(raw) if raw is not None else None
        except ValueError:
            return {}
        if not isinstance(data, dict) or data.get("v") != FORMAT or data.get("dir") != absolute or not isinstance(data.get("files"), dict):
            return {}
        return data["files"]

    def lookup(self, path: str) -> Optional[list]:
        """The entry of ``path`` when its stat still matches, else None."""
        directory, name = os.path.split(path)
        if directory != self._read_dir:
            # the shard just left is kept: `flush` compares with it when the
            # walk's `record` follows it into this directory
            self._left = (self._read_dir, self._read)
            self._read_dir, self._read = directory, self._load(directory)
        entry = self._read.get(name)
        if not isinstance(entry, list) or len(entry) != 6:
            return None
        try:
            st = os.stat(path)
        except OSError:
            return None
        return entry if entry[:5] == stat_key(st) else None

    def record(self, path: str, result) -> None:
        """Note ``path``'s result (walk order); a directory's shard is
        written when the walk leaves it."""
        directory, name = os.path.split(path)
        if directory != self._write_dir:
            self.flush()
            self._write_dir, self._write = directory, {}
        entry = getattr(result, "index_entry", None) if result is not None else None
        if entry is not None:
            self._write[name] = entry

    def flush(self) -> None:
        directory, files = self._write_dir, self._write
        self._write_dir, self._write = None, {}
        if directory is None:
            return
        # the walk looked the directory up just before: its shard is in memory
        if directory == self._read_dir:
            recorded = self._read
        elif directory == self._left[0]:
            recorded = self._left[1]
        else:
            recorded = self._load(directory)
        if files == recorded:
            return
        shard, absolute = self._shard(directory)
        try:
            self.cache.make_dirs(shard.parent)
            _write_gitignore(self.root.parent.parent)
            _write_json_atomically(shard, {"v": FORMAT, "dir": absolute, "files": files}, ensure_ascii=True)
        except OSError:
            pass  # a read-only or full disk only costs speed


def _write_json_atomically(target: Path, obj, *, ensure_ascii: bool) -> None:
    """A concurrent run reads the old entry or the new one, never half of one.
    A string UTF-8 cannot hold (a lone surrogate: an undecodable byte of a
    file name) makes the entry ASCII, with JSON escapes that load back to
    the same string."""
    from sgllint.resolve.project import replace_atomically

    try:
        data = json.dumps(obj, ensure_ascii=ensure_ascii, separators=(",", ":")).encode("utf-8")
    except UnicodeEncodeError:
        data = json.dumps(obj, ensure_ascii=True, separators=(",", ":")).encode("ascii")
    replace_atomically(target, data, suffix=".json")


def _write_gitignore(directory: Path) -> None:
    """``.gitignore`` holding ``*``, unless something is there already (a
    link included: it is not written through)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(directory / ".gitignore", flags, 0o644)
    except OSError:
        return
    try:
        os.write(fd, b"# created by sgllint\n*\n")
    except OSError:
        pass
    finally:
        os.close(fd)


# ---------------------------------------------------------------------------
# Dependencies: files around a launch that decided its context
# ---------------------------------------------------------------------------


def _stat(path: str) -> Optional[list]:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_size, st.st_mtime_ns]


def dependencies(result) -> Optional[list]:
    """Checks that must still hold for ``result`` (a `engine.FileResult` with
    its launches) to be reused, or None when it must not be cached."""
    from sgllint.resolve import modelinfo
    from sgllint.resolve.context import project_pin

    deps: list = []
    if not result.launches:
        return deps
    path = result.path
    scope = result.launches[0].context.scope
    scope_repr = [scope.root, list(scope.allowed)] if scope is not None else None
    pin = project_pin(Path(path), scope)
    deps.append(["pin", path, _pin_repr(pin), _stat(str(pin[1])) if pin else None, scope_repr])
    external: set[str] = set()
    for launch in result.launches:
        site = launch.site
        for token in site.tokens:
            if token.span.path != path:
                external.add(token.span.path)
        ctx = launch.context
        if ctx.architecture is not None and ctx.architecture.source.read_from_model_files:
            external.add(str(ctx.architecture.detail))
            # its presence is a model trait (modelinfo.dspark_subfolder); absent stats as None
            external.add(str(Path(str(ctx.architecture.detail)).parent / "dspark" / "config.json"))
        if ctx.model is not None and isinstance(ctx.model.value, str) and not ctx.skip_model_checks:
            model = ctx.model.value
            base = str(Path(path).parent)
            local = modelinfo.local_config(model, Path(base), scope)
            hf = None if local else modelinfo.hf_cache_config(model, scope)
            deps.append(["model", model, base, str(local) if local else None, str(hf) if hf else None, scope_repr])
    for d in result.diagnostics:
        for span in _spans_of(d):
            if span.path != path:
                external.add(span.path)
    for p in sorted(external):
        deps.append(["file", p, _stat(p)])
    return deps


def _scope(scope_repr: Optional[list]):
    """The `sgllint.resolve.project.Scope` a dependency was recorded under."""
    from sgllint.resolve.project import Scope

    return None if scope_repr is None else Scope.of(scope_repr[0], tuple(scope_repr[1]))


def _pin_repr(pin) -> Optional[list]:
    return [pin[0], str(pin[1])] if pin else None


def deps_hold(deps: list) -> bool:
    from sgllint.resolve import modelinfo
    from sgllint.resolve.context import project_pin

    try:
        for dep in deps:
            kind = dep[0]
            if kind == "file":
                if _stat(dep[1]) != dep[2]:
                    return False
            elif kind == "pin":
                scope = _scope(dep[4])
                pin = project_pin(Path(dep[1]), scope)
                if _pin_repr(pin) != dep[2] or (_stat(str(pin[1])) if pin else None) != dep[3]:
                    return False
            elif kind == "model":
                _, model, base, local, hf, scope_repr = dep
                scope = _scope(scope_repr)
                now_local = modelinfo.local_config(model, Path(base), scope)
                now_hf = None if now_local else modelinfo.hf_cache_config(model, scope)
                if (str(now_local) if now_local else None) != local or (str(now_hf) if now_hf else None) != hf:
                    return False
            else:
                return False
    except Exception:
        return False
    return True


# ---------------------------------------------------------------------------
# Diagnostics <-> JSON
# ---------------------------------------------------------------------------


def _spans_of(d: Diagnostic):
    yield d.span
    for r in d.related:
        yield r.span
    if d.fix is not None:
        for e in d.fix.edits:
            yield e.span
    if d.launch_span is not None:
        yield d.launch_span


def _span(span: Optional[Span]) -> Optional[list]:
    return None if span is None else [span.path, span.start, span.end]


def dump_diagnostics(diagnostics: list[Diagnostic], main_path: str) -> tuple[list, dict]:
    """(diagnostics as JSON, texts of every source other than ``main_path``:
    a string, or a one-item list for a source not to echo)."""
    sources: dict[str, Any] = {}
    out = []
    for d in diagnostics:
        for span in _spans_of(d):
            if span.path != main_path and span.path not in sources:
                # a referenced file not to echo (Source.echo) keeps its mark
                sources[span.path] = span.source.text if span.source.echo else [span.source.text]
        out.append(
            {
                "code": d.code,
                "name": d.name,
                "severity": d.severity.value,
                "message": d.message,
                "span": _span(d.span),
                "related": [[_span(r.span), r.message] for r in d.related],
                "help": d.help,
                "fix": None
                if d.fix is None
                else {
                    "message": d.fix.message,
                    "applicability": d.fix.applicability,
                    "edits": [[_span(e.span), e.content] for e in d.fix.edits],
                },
                "url": d.url,
                "launch_span": _span(d.launch_span),
                "context": d.context,
            }
        )
    return out, sources


def load_diagnostics(items: list, main: Source, sources: dict[str, Any]) -> list[Diagnostic]:
    known: dict[str, Source] = {main.path: main}

    def span(s: Optional[list]) -> Optional[Span]:
        if s is None:
            return None
        path, start, end = s
        src = known.get(path)
        if src is None:
            text = sources.get(path, "")
            src = known[path] = Source(path, text) if isinstance(text, str) else Source(path, text[0], echo=False)
        return Span(src, start, end)

    out = []
    for it in items:
        fix: Any = it["fix"]
        if fix is not None:
            fix = Fix(fix["message"], tuple(Edit(span(s), c) for s, c in fix["edits"]), fix["applicability"])
        out.append(
            Diagnostic(
                code=it["code"],
                name=it["name"],
                severity=Severity(it["severity"]),
                message=it["message"],
                span=span(it["span"]),
                related=[Related(span(s), m) for s, m in it["related"]],
                help=it["help"],
                fix=fix,
                url=it["url"],
                launch_span=span(it["launch_span"]),
                context=it["context"],
            )
        )
    return out
