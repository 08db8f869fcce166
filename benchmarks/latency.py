"""Latency a person feels (issue 21): every row of the issue's table in one run.

    python benchmarks/latency.py [--tree DIR] [--runs 10] [--tree-runs 3]

Each figure is a ratio against a reference measured in the same run, in
alternation with it, so a loaded machine slows both sides alike:

- one file (shell, Kubernetes YAML, Python, Markdown from ``examples/``):
  ``sgllint check --no-cache FILE`` against ``python -c pass``, medians of
  ``--runs`` alternating pairs; target <= 3x;
- LSP, edit -> diagnostics: ``didChange`` to the ``publishDiagnostics`` it
  causes, median of ``--runs`` edits; target <= 100 ms, debounce included;
- LSP, open -> first diagnostics, the server's start included (from
  spawning ``sgllint lsp`` to the first ``publishDiagnostics``), median of
  ``--runs`` starts; target <= 1 s;
- the unpacked sglang 0.5.23 wheel, ``sgllint check --no-cache`` against
  ``ruff check --no-cache``, medians of ``--tree-runs``; target <= 0.5x;
- the same tree with a warm cache against the cold run; target <= 0.1x;
- peak RSS of ``sgllint check --no-cache -j1`` on 500 and 2,000 files of
  that tree (``os.wait4``); target <= 100 MiB at both sizes.

Prints the table (with the core count and the load average) and exits 1 when
a target is missed, 2 when the benchmark itself cannot run. When ``--tree``
is missing, the sglang wheel is downloaded with ``pip download --no-deps``
into ``--download-dir`` and unpacked there. Speed is never asserted in the
unit tests: it lives here.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from pathlib import Path
from typing import Optional

ROOT = Path(__file__).resolve().parents[1]
SGLANG_VERSION = "0.5.23"
DEFAULT_TREE = Path(os.environ.get("SGLLINT_WHEEL_CACHE") or ROOT / ".bench-wheels", "src", SGLANG_VERSION)  # downloaded when missing
ONE_FILES = {
    "shell": ROOT / "examples" / "serve_qwen.sh",
    "K8s YAML": ROOT / "examples" / "k8s" / "deepseek-deterministic.yaml",
    "Python": ROOT / "examples" / "rl_rollout.py",
    "Markdown": ROOT / "examples" / "README.md",
}
SGLLINT = [sys.executable, "-m", "sgllint"]
MIB = 1024 * 1024
# An installed wheel has its bytecode compiled by pip; an editable checkout gets
# it on the first run, unless PYTHONDONTWRITEBYTECODE forbids it (then every run
# compiles every module, which is not what a user's run pays).
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


# ---------------------------------------------------------------------------
# processes
# ---------------------------------------------------------------------------


def run(argv: list[str], cwd: Optional[Path] = None) -> tuple[float, int]:
    """Wall time in seconds and peak RSS in bytes of one process."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=cwd, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    if proc.stderr:
        proc.stderr.close()
    if proc.returncode not in (0, 1):  # 1: findings (sgllint, ruff)
        raise SystemExit(f"latency.py: {' '.join(map(str, argv))} exited {proc.returncode}:\n{err[-2000:]}")
    return wall, usage.ru_maxrss * 1024  # KiB on Linux


def median(xs: list[float]) -> float:
    return statistics.median(xs)


# ---------------------------------------------------------------------------
# the sglang tree
# ---------------------------------------------------------------------------


def ensure_tree(tree: Optional[Path], download_dir: Path) -> Path:
    if tree is not None and tree.is_dir():
        return tree
    if tree is None and DEFAULT_TREE.is_dir():
        return DEFAULT_TREE
    target = download_dir / SGLANG_VERSION
    if (target / "sglang").is_dir():
        return target
    download_dir.mkdir(parents=True, exist_ok=True)
    print(f"downloading the sglang {SGLANG_VERSION} wheel into {download_dir} ...", file=sys.stderr)
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:",
         f"sglang=={SGLANG_VERSION}", "-d", str(download_dir)],
        check=True,
    )
    wheels = sorted(download_dir.glob(f"sglang-{SGLANG_VERSION}-*.whl"))
    if not wheels:
        raise SystemExit(f"latency.py: pip left no sglang-{SGLANG_VERSION} wheel in {download_dir}")
    tmp = Path(tempfile.mkdtemp(dir=download_dir))
    with zipfile.ZipFile(wheels[0]) as z:
        z.extractall(tmp)
    tmp.rename(target)
    return target


def subset(tree: Path, n: int, into: Path) -> Path:
    """A copy of `n` files of `tree`, spread evenly over its sorted file list."""
    files = sorted(p for p in tree.rglob("*") if p.is_file() and not p.is_symlink())
    if len(files) < n:
        raise SystemExit(f"latency.py: {tree} has {len(files)} files, fewer than {n}")
    step = len(files) / n
    dest = into / f"tree{n}"
    for i in range(n):
        src = files[int(i * step)]
        out = dest / src.relative_to(tree)
        out.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, out)
    return dest


# ---------------------------------------------------------------------------
# a minimal LSP client over stdio
# ---------------------------------------------------------------------------


class Client:
    def __init__(self, cwd: Path):
        self.t_spawn = time.perf_counter()
        self.proc = subprocess.Popen(SGLLINT + ["lsp"], cwd=cwd, env=ENV, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL)
        self.lock = threading.Condition()
        self.published: list[tuple[float, dict]] = []  # (arrival, params)
        self.replies: dict[int, dict] = {}
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        out = self.proc.stdout
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    with self.lock:
                        self.lock.notify_all()
                    return
                line = line.strip()
                if not line:
                    break
                k, _, v = line.partition(b":")
                if k.strip().lower() == b"content-length":
                    length = int(v)
            msg = json.loads(out.read(length))
            now = time.perf_counter()
            with self.lock:
                if msg.get("method") == "textDocument/publishDiagnostics":
                    self.published.append((now, msg["params"]))
                elif "id" in msg and "method" not in msg:
                    self.replies[msg["id"]] = msg
                self.lock.notify_all()

    def send(self, msg: dict) -> None:
        body = json.dumps({"jsonrpc": "2.0", **msg}).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def request(self, method: str, params: dict, timeout: float = 60) -> dict:
        self.next_id += 1
        rid = self.next_id
        self.send({"id": rid, "method": method, "params": params})
        with self.lock:
            if not self.lock.wait_for(lambda: rid in self.replies, timeout):
                raise SystemExit(f"latency.py: no reply to {method} in {timeout} s")
            return self.replies.pop(rid)

    def notify(self, method: str, params: dict) -> None:
        self.send({"method": method, "params": params})

    def wait_publish(self, uri: str, after: int, timeout: float = 60) -> float:
        """Arrival time of the first publish for `uri` beyond the first `after` publishes."""
        with self.lock:
            def seen():
                return [t for t, p in self.published[after:] if p.get("uri") == uri]
            if not self.lock.wait_for(lambda: bool(seen()), timeout):
                raise SystemExit(f"latency.py: no diagnostics for {uri} in {timeout} s")
            return seen()[0]

    def open(self, root: Path, path: Path, text: str, language: str) -> float:
        """initialize, initialized, didOpen: seconds from spawn to the first diagnostics."""
        self.request("initialize", {"processId": os.getpid(), "rootUri": root.as_uri(), "capabilities": {}})
        self.notify("initialized", {})
        n = len(self.published)
        self.notify("textDocument/didOpen", {"textDocument": {"uri": path.as_uri(), "languageId": language,
                                                             "version": 1, "text": text}})
        return self.wait_publish(path.as_uri(), n) - self.t_spawn

    def close(self) -> None:
        try:
            self.request("shutdown", {}, timeout=10)
            self.notify("exit", {})
            self.proc.stdin.close()
            self.proc.wait(timeout=10)
        except Exception:
            self.proc.kill()
            self.proc.wait()


def lsp_rows(runs: int, scratch: Path) -> tuple[list[float], list[float]]:
    """(open -> first diagnostics per start, edit -> diagnostics per edit) in seconds."""
    root = scratch / "lsp"
    root.mkdir()
    (root / ".git").mkdir()  # a workspace root the server trusts
    src = ONE_FILES["shell"].read_text()
    path = root / "serve.sh"
    path.write_text(src)
    starts = []
    for _ in range(runs):
        c = Client(root)
        try:
            starts.append(c.open(root, path, src, "shellscript"))
        finally:
            c.close()
    edits = []
    c = Client(root)
    try:
        c.open(root, path, src, "shellscript")
        lines = src.splitlines(keepends=True)
        end_line = len(lines)
        for i in range(runs):
            # type one character at the end of the file, then wait for its diagnostics
            n = len(c.published)
            t0 = time.perf_counter()
            c.notify("textDocument/didChange", {
                "textDocument": {"uri": path.as_uri(), "version": i + 2},
                "contentChanges": [{"range": {"start": {"line": end_line, "character": i},
                                              "end": {"line": end_line, "character": i}}, "text": "#"}],
            })
            edits.append(c.wait_publish(path.as_uri(), n) - t0)
            time.sleep(0.2)  # a person's pause between keystrokes
    finally:
        c.close()
    return starts, edits


# ---------------------------------------------------------------------------
# the table
# ---------------------------------------------------------------------------


def main(argv: Optional[list[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tree", type=Path, default=None, help=f"unpacked sglang {SGLANG_VERSION} wheel "
                    f"(default {DEFAULT_TREE} if present, else downloaded)")
    ap.add_argument("--download-dir", type=Path, default=Path.home() / ".cache" / "sgllint-bench")
    ap.add_argument("--runs", type=int, default=10, help="alternating runs of the one-file and LSP rows (>= 10)")
    ap.add_argument("--tree-runs", type=int, default=3, help="alternating runs of the tree rows (>= 3)")
    ap.add_argument("--only", default="", help="comma list of row groups: file,lsp,tree,memory (default all)")
    args = ap.parse_args(argv)
    if args.runs < 10 or args.tree_runs < 3:
        ap.error("the issue asks for >= 10 one-file runs and >= 3 tree runs")
    only = set(filter(None, args.only.split(","))) or {"file", "lsp", "tree", "memory"}
    ruff = shutil.which("ruff") or str(Path(sys.executable).with_name("ruff"))
    if "tree" in only and not Path(ruff).exists():
        print("latency.py: ruff is the reference for the tree rows: pip install ruff", file=sys.stderr)
        return 2

    rows: list[tuple[str, str, str, str, bool]] = []  # what, measured, reference, target, met
    load0 = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="sgllint-latency-") as tmp:
        scratch = Path(tmp)
        for f in ONE_FILES.values():  # compile the bytecode every format needs, outside the timings
            run(SGLLINT + ["check", "--no-cache", str(f)], cwd=scratch)
        if "file" in only:
            for kind, f in ONE_FILES.items():
                ours, ref = [], []
                for _ in range(args.runs):
                    ref.append(run([sys.executable, "-c", "pass"], cwd=scratch)[0])
                    ours.append(run(SGLLINT + ["check", "--no-cache", str(f)], cwd=scratch)[0])
                r = median(ours) / median(ref)
                rows.append((f"`sgllint check --no-cache FILE` ({kind})", f"{median(ours) * 1000:.0f} ms = {r:.1f}x",
                             f"`python -c pass`: {median(ref) * 1000:.0f} ms", "<= 3x", r <= 3))
        if "lsp" in only:
            starts, edits = lsp_rows(args.runs, scratch)
            e, s = median(edits), median(starts)
            rows.append(("LSP: edit -> diagnostics", f"{e * 1000:.0f} ms (max {max(edits) * 1000:.0f})", "-",
                         "<= 100 ms", e <= 0.100))
            rows.append(("LSP: open first file -> first diagnostics (start included)",
                         f"{s * 1000:.0f} ms (max {max(starts) * 1000:.0f})", "-", "<= 1 s", s <= 1.0))
        if "tree" in only or "memory" in only:
            tree = ensure_tree(args.tree, args.download_dir)
        if "tree" in only:
            cache = scratch / "cache"
            run(SGLLINT + ["check", "--cache-dir", str(cache), str(tree)], cwd=scratch)  # fill the cache
            cold, warm, ref = [], [], []
            for _ in range(args.tree_runs):
                ref.append(run([ruff, "check", "--no-cache", str(tree)], cwd=scratch)[0])
                cold.append(run(SGLLINT + ["check", "--no-cache", str(tree)], cwd=scratch)[0])
                warm.append(run(SGLLINT + ["check", "--cache-dir", str(cache), str(tree)], cwd=scratch)[0])
            rc, rw = median(cold) / median(ref), median(warm) / median(cold)
            rows.append((f"sglang {SGLANG_VERSION} tree, cold (`--no-cache`)", f"{median(cold):.2f} s = {rc:.2f}x ruff",
                         f"`ruff check --no-cache`: {median(ref):.2f} s", "<= 0.5x ruff", rc <= 0.5))
            rows.append(("same tree, warm cache", f"{median(warm):.2f} s = {rw:.2f}x cold", "cold run above",
                         "<= 0.1x cold", rw <= 0.1))
        if "memory" in only:
            peaks = {}
            for n in (500, 2000):
                t = subset(tree, n, scratch)
                peaks[n] = max(run(SGLLINT + ["check", "--no-cache", "-j1", str(t)], cwd=scratch)[1]
                               for _ in range(args.tree_runs))
            worst = max(peaks.values())
            rows.append(("memory, `--no-cache -j1`, 500 -> 2,000 files",
                         f"{peaks[500] / MIB:.0f} -> {peaks[2000] / MIB:.0f} MiB", "-", "<= 100 MiB at any size",
                         worst <= 100 * MIB))
    load1 = os.getloadavg()

    print(f"sgllint latency (issue 21): {os.cpu_count()} cores, load average {load0[0]:.1f} at the start, "
          f"{load1[0]:.1f} at the end; Python {sys.version.split()[0]}")
    print()
    print("| what | measured | reference in the same run | target | |")
    print("|---|---|---|---|---|")
    for what, got, ref, target, met in rows:
        print(f"| {what} | {got} | {ref} | **{target}** | {'met' if met else 'MISSED'} |")
    missed = [r for r in rows if not r[4]]
    print()
    print(f"{len(rows) - len(missed)} of {len(rows)} targets met")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
