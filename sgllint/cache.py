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
entry. A diagnostic is stored with its spans as offsets and the texts of
files other than the linted one (a ``--config`` file) inline, so every
output format, the ``full`` code frame included, renders from a hit exactly
as from a cold run. Skipped files are never cached.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any, Optional

from sgllint.diagnostic import Diagnostic, Edit, Fix, Related, Severity
from sgllint.model import Source, Span

DEFAULT_DIR = ".sgllint_cache"
FORMAT = 1  # bump when the entry layout changes


@functools.lru_cache(maxsize=1)
def build_id() -> str:
    """sgllint's version and the identity of its code, rules and catalogs."""
    from sgllint import __version__

    root = Path(__file__).resolve().parent
    h = hashlib.sha256(f"{FORMAT}:{__version__}".encode())
    dirs = [root, root / "extract", root / "output", root / "catalog", root / "catalog" / "data"]
    rules = root / "rules"
    if not rules.is_dir():
        rules = root.parent / "rules"
    dirs.append(rules)
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


def options_key(options) -> str:
    """What of `engine.Options` changes results."""
    parts = [
        repr(options.config),
        repr(options.sglang_version),
        repr(options.gpu),
        repr(options.use_environment),
        repr(getattr(options, "noqa", True)),
        repr([f"{r.__module__}.{r.__qualname__}" for r in options.rules] if options.rules is not None else None),
    ]
    if options.use_environment:
        from sgllint.context import installed_version

        parts.append(repr(installed_version()))
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


class Cache:
    def __init__(self, directory: str | os.PathLike = DEFAULT_DIR):
        self.root = Path(directory) / build_id()
        self._created = False

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
        try:
            with open(self._file(key), "rb") as f:
                entry = json.loads(f.read())
        except (OSError, ValueError):
            return None
        if not isinstance(entry, dict) or entry.get("v") != FORMAT or not deps_hold(entry.get("deps", [])):
            return None
        return entry

    def put(self, key: str, entry: dict) -> None:
        target = self._file(key)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
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
        self._write_dir: Optional[str] = None
        self._write: dict = {}

    def _shard(self, directory: str) -> tuple[Path, str]:
        absolute = os.path.abspath(directory)
        h = hashlib.sha256(os.fsencode(absolute)).hexdigest()[:32]
        return self.root / h[:2] / f"{h}.json", absolute

    def _load(self, directory: str) -> dict:
        shard, absolute = self._shard(directory)
        try:
            with open(shard, "rb") as f:
                data = json.loads(f.read())
        except (OSError, ValueError):
            return {}
        if not isinstance(data, dict) or data.get("v") != FORMAT or data.get("dir") != absolute or not isinstance(data.get("files"), dict):
            return {}
        return data["files"]

    def lookup(self, path: str) -> Optional[list]:
        """The entry of ``path`` when its stat still matches, else None."""
        directory, name = os.path.split(path)
        if directory != self._read_dir:
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
        if directory is None or files == self._load(directory):
            return
        shard, absolute = self._shard(directory)
        try:
            shard.parent.mkdir(parents=True, exist_ok=True)
            _write_gitignore(self.root.parent.parent)
            _write_json_atomically(shard, {"v": FORMAT, "dir": absolute, "files": files}, ensure_ascii=True)
        except OSError:
            pass  # a read-only or full disk only costs speed


def _write_json_atomically(target: Path, obj, *, ensure_ascii: bool) -> None:
    """Write to a temporary file beside ``target``, then rename: a concurrent
    run reads the old entry or the new one, never half of one."""
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".tmp-", suffix=".json")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(obj, f, ensure_ascii=ensure_ascii, separators=(",", ":"))
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _write_gitignore(directory: Path) -> None:
    marker = directory / ".gitignore"
    if not marker.exists():
        try:
            marker.write_text("# created by sgllint\n*\n", encoding="utf-8")
        except OSError:
            pass


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
    from sgllint import modelinfo
    from sgllint.context import project_pin

    deps: list = []
    if not result.launches:
        return deps
    path = result.path
    pin = project_pin(Path(path))
    deps.append(["pin", path, _pin_repr(pin), _stat(str(pin[1])) if pin else None])
    external: set[str] = set()
    for launch in result.launches:
        site = launch.site
        for token in site.tokens:
            if token.span.path != path:
                external.add(token.span.path)
        ctx = launch.context
        if ctx.architecture is not None and ctx.architecture.source in ("local config.json", "Hugging Face cache"):
            external.add(str(ctx.architecture.detail))
            # its presence is a model trait (modelinfo.dspark_subfolder); absent stats as None
            external.add(str(Path(str(ctx.architecture.detail)).parent / "dspark" / "config.json"))
        if ctx.model is not None and isinstance(ctx.model.value, str) and not ctx.skip_model_checks:
            model = ctx.model.value
            base = str(Path(path).parent)
            local = modelinfo.local_config(model, Path(base))
            hf = None if local else modelinfo.hf_cache_config(model)
            deps.append(["model", model, base, str(local) if local else None, str(hf) if hf else None])
    for d in result.diagnostics:
        for span in _spans_of(d):
            if span.path != path:
                external.add(span.path)
    for p in sorted(external):
        deps.append(["file", p, _stat(p)])
    return deps


def _pin_repr(pin) -> Optional[list]:
    return [pin[0], str(pin[1])] if pin else None


def deps_hold(deps: list) -> bool:
    from sgllint import modelinfo
    from sgllint.context import project_pin

    try:
        for dep in deps:
            kind = dep[0]
            if kind == "file":
                if _stat(dep[1]) != dep[2]:
                    return False
            elif kind == "pin":
                pin = project_pin(Path(dep[1]))
                if _pin_repr(pin) != dep[2] or (_stat(str(pin[1])) if pin else None) != dep[3]:
                    return False
            elif kind == "model":
                _, model, base, local, hf = dep
                now_local = modelinfo.local_config(model, Path(base))
                now_hf = None if now_local else modelinfo.hf_cache_config(model)
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
    """(diagnostics as JSON, texts of every source other than ``main_path``)."""
    sources: dict[str, str] = {}
    out = []
    for d in diagnostics:
        for span in _spans_of(d):
            if span.path != main_path and span.path not in sources:
                sources[span.path] = span.source.text
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


def load_diagnostics(items: list, main: Source, sources: dict[str, str]) -> list[Diagnostic]:
    known: dict[str, Source] = {main.path: main}

    def span(s: Optional[list]) -> Optional[Span]:
        if s is None:
            return None
        path, start, end = s
        src = known.get(path)
        if src is None:
            src = known[path] = Source(path, sources.get(path, ""))
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
