"""sgllint against flake8, ruff and grep on the same trees, in one run.

    python benchmarks/corpus.py /tmp/sgl-corpus          # once: build the trees
    python benchmarks/run.py /tmp/sgl-corpus [--repeat 3] [--skip-flake8] [--json out.json]

For each tree (``sglang/``: the real package, Python only; ``synthetic/``:
the generated monorepo) it times, as whole processes, in this order per
repetition: ``grep -rl sglang`` (the I/O floor), ``ruff check --no-cache``
and ``flake8`` (default plugins, default jobs) on the tree's Python files,
``sgllint check --no-cache`` (cold) and ``sgllint check`` on a cache filled
by the previous run (warm). Medians over the repetitions; ratios are taken
between figures of the same run, so they compare across machines and
loads. Peak RSS is the sgllint parent process's (``wait4``).

Then, in process: the per-file cost of files with and without a launch,
the latency of re-linting a 500-line launcher per edit (what the LSP does on
didChange) against a whole ``sgllint check`` of that file, and start-up:
``sgllint check`` of one file without a launch against ``python -c pass``.
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
import time
from pathlib import Path
from typing import Optional

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
ENV = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
SGLLINT = [sys.executable, "-m", "sgllint", "check", "--isolated", "--no-environment", "--exit-zero", "--output-format", "concise"]


def timed(cmd: list[str], cwd=None, env=None) -> tuple[float, int, int]:
    """(wall seconds, peak RSS KiB of the process, exit code)."""
    t = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=cwd, env=env or ENV)
    _, status, usage = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    return time.perf_counter() - t, usage.ru_maxrss, p.returncode


def python_files_of(tree: Path) -> list[str]:
    return [str(p) for p in sorted(tree.rglob("*.py"))]


def bench_tree(tree: Path, repeat: int, flake8: bool, jobs: str, baseline: Optional[Path] = None) -> dict:
    cache = Path(tempfile.mkdtemp(prefix="sgllint-bench-cache-"))
    runs: dict[str, list] = {k: [] for k in ("grep", "ruff", "flake8", "cold", "warm", "cold_rss", "warm_rss", "base_cold", "base_warm", "load")}
    sg = SGLLINT + (["--jobs", jobs] if jobs else [])
    base_env = {**os.environ, "PYTHONPATH": str(baseline)} if baseline else None
    try:
        for i in range(repeat):
            runs["load"].append(os.getloadavg()[0])
            if baseline:  # the same command on an older checkout, same run (run from
                # inside it: `python -m` puts the working directory first on sys.path)
                at = str(baseline)
                runs["base_cold"].append(timed(sg + ["--no-cache", str(tree.resolve())], cwd=at, env=base_env)[0])
                shutil.rmtree(cache, ignore_errors=True)
                timed(sg + ["--cache-dir", str(cache), str(tree.resolve())], cwd=at, env=base_env)
                runs["base_warm"].append(timed(sg + ["--cache-dir", str(cache), str(tree.resolve())], cwd=at, env=base_env)[0])
            runs["grep"].append(timed(["grep", "-rl", "sglang", str(tree)])[0])
            if shutil.which("ruff"):
                runs["ruff"].append(timed(["ruff", "check", "--no-cache", "--exit-zero", "--quiet", "--isolated", str(tree)])[0])
            if flake8 and (i == 0 or repeat <= 3):
                runs["flake8"].append(timed([sys.executable, "-m", "flake8", "--exit-zero", "--isolated", str(tree)])[0])
            wall, rss, _ = timed(sg + ["--no-cache", str(tree)])
            runs["cold"].append(wall)
            runs["cold_rss"].append(rss)
            shutil.rmtree(cache, ignore_errors=True)
            timed(sg + ["--cache-dir", str(cache), str(tree)])  # fill
            wall, rss, _ = timed(sg + ["--cache-dir", str(cache), str(tree)])
            runs["warm"].append(wall)
            runs["warm_rss"].append(rss)
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    runs["load"].append(os.getloadavg()[0])
    med = {k: (statistics.median(v) if v else None) for k, v in runs.items()}
    py = python_files_of(tree)
    med["python_files"] = len(py)
    med["python_lines"] = sum(Path(p).read_bytes().count(b"\n") for p in py)
    med["files"] = sum(1 for p in tree.rglob("*") if p.is_file())
    med["runs"] = runs
    return med


def per_file_costs(tree: Path, limit: int = 60) -> dict:
    """Median in-process ms per file with a launch and per file without."""
    from sgllint.engine.pipeline import Options, lint_file

    options = Options(use_environment=False)
    with_launch, without = [], []
    for p in sorted(tree.rglob("*")):
        if not p.is_file() or p.suffix not in (".py", ".sh", ".yaml", ".toml", ".md"):
            continue
        t = time.perf_counter()
        r = lint_file(str(p), options)
        dt = (time.perf_counter() - t) * 1000
        (with_launch if r.launches else without).append(dt)
        if len(with_launch) >= limit and len(without) >= limit * 10:
            break
    return {
        "launch_files": len(with_launch),
        "ms_per_launch_file": statistics.median(with_launch) if with_launch else None,
        "ms_per_other_file": statistics.median(without) if without else None,
    }


LAUNCHER_500 = """#!/usr/bin/env bash
# a 500-line launcher: setup, then one launch per model
set -euo pipefail
"""


def _launcher_500() -> str:
    lines = LAUNCHER_500.splitlines()
    i = 0
    while len(lines) < 490:
        lines += [f'echo "step {i}"', f"export STEP_{i}=/data/{i}", f'if [ -d "$STEP_{i}" ]; then ls "$STEP_{i}"; fi']
        i += 1
    lines += [
        "python3 -m sglang.launch_server \\",
        "  --model-path Qwen/Qwen2.5-7B-Instruct \\",
        "  --tp-size 2 \\",
        "  --enable_metrics \\",
        "  --attention-backend flashinfer \\",
        "  --port 30000",
    ]
    return "\n".join(lines[:500]) + "\n"


def edit_latency(edits: int = 50) -> dict:
    """engine.lint_source per edit of a 500-line launcher (the LSP's work on
    didChange), against `sgllint check` of the same file as a process."""
    from sgllint.engine.pipeline import Options, lint_source

    text = _launcher_500()
    options = Options(use_environment=False)
    lint_source("serve.sh", text, options)  # warm: imports, catalog, tree-sitter
    times = []
    for i in range(edits):
        edited = text.replace("--tp-size 2", f"--tp-size {i % 8 + 1}")
        t = time.perf_counter()
        lint_source("serve.sh", edited, options)
        times.append((time.perf_counter() - t) * 1000)
    with tempfile.TemporaryDirectory() as tmp:
        f = Path(tmp) / "serve.sh"
        f.write_text(text)
        check = [timed(SGLLINT + ["--no-cache", str(f)])[0] * 1000 for _ in range(5)]
    lsp = "measured through engine.lint_source (what `sgllint lsp` runs per didChange)"
    try:
        import pygls  # noqa: F401
    except ImportError:
        lsp += "; the stdio round trip is pending: pygls is not installed here"
    return {"edits": edits, "ms_per_edit": statistics.median(times), "ms_check_process": statistics.median(check), "note": lsp}


def _lsp_send(proc, msg: dict) -> None:
    body = json.dumps(msg).encode()
    proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    proc.stdin.flush()


def _lsp_read(proc) -> dict:
    length = 0
    while True:
        line = proc.stdout.readline()
        if not line:
            raise EOFError("the language server exited")
        if line in (b"\r\n", b"\n"):
            break
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    return json.loads(proc.stdout.read(length))


def lsp_latency(edits: int = 50) -> Optional[dict]:
    """didChange -> publishDiagnostics through `sgllint lsp` over stdio
    (includes the server's debounce), median over ``edits`` edits."""
    try:
        import pygls  # noqa: F401

        from sgllint.hosts.lsp.server import DEBOUNCE_SECONDS
    except ImportError:
        return None
    text = _launcher_500()
    with tempfile.TemporaryDirectory() as tmp:
        uri = Path(tmp, "serve.sh").as_uri()
        Path(tmp, "serve.sh").write_text(text)
        proc = subprocess.Popen([sys.executable, "-m", "sgllint", "lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=tmp, env=ENV)
        try:
            _lsp_send(proc, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"processId": None, "rootUri": Path(tmp).as_uri(), "capabilities": {}}})
            while _lsp_read(proc).get("id") != 1:
                pass
            _lsp_send(proc, {"jsonrpc": "2.0", "method": "initialized", "params": {}})

            def wait_publish(version):
                while True:
                    m = _lsp_read(proc)
                    if m.get("method") == "textDocument/publishDiagnostics" and m["params"].get("version") == version:
                        return m

            _lsp_send(proc, {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {"uri": uri, "languageId": "shellscript", "version": 0, "text": text}}})
            wait_publish(0)
            times = []
            for i in range(1, edits + 1):
                edited = text.replace("--tp-size 2", f"--tp-size {i % 8 + 1}")
                t = time.perf_counter()
                _lsp_send(proc, {"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {"textDocument": {"uri": uri, "version": i}, "contentChanges": [{"text": edited}]}})
                wait_publish(i)
                times.append((time.perf_counter() - t) * 1000)
            _lsp_send(proc, {"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
            _lsp_send(proc, {"jsonrpc": "2.0", "method": "exit"})
        finally:
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
    med = statistics.median(times)
    return {"edits": edits, "ms_did_change_to_publish": med, "debounce_ms": DEBOUNCE_SECONDS * 1000, "ms_minus_debounce": med - DEBOUNCE_SECONDS * 1000}


def startup(repeat: int = 10) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        f = Path(tmp) / "plain.py"
        f.write_text("import json\nprint(json.dumps({'a': 1}))\n")
        py = [timed([sys.executable, "-c", "pass"])[0] * 1000 for _ in range(repeat)]
        sg = [timed(SGLLINT + ["--no-cache", str(f)], cwd=tmp)[0] * 1000 for _ in range(repeat)]
    return {"python_c_pass_ms": statistics.median(py), "sgllint_one_file_ms": statistics.median(sg)}


def _fmt(x, unit="s") -> str:
    if x is None:
        return "n/a"
    return f"{x:.2f} {unit}" if unit == "s" else f"{x:.0f} {unit}"


def report(results: dict) -> str:
    out = ["| tree | files (.py / lines) | grep -rl | ruff | flake8 | sgllint cold | sgllint warm | cold/flake8 | cold/ruff | warm/cold | peak RSS cold / warm |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for name, r in results["trees"].items():
        ratio = lambda a, b: f"{r[a] / r[b]:.2f}x" if r.get(a) and r.get(b) else "n/a"  # noqa: E731
        out.append(
            f"| {name} | {r['files']} ({r['python_files']} / {r['python_lines']:,}) | {_fmt(r['grep'])} | {_fmt(r['ruff'])} | {_fmt(r['flake8'])} | "
            f"{_fmt(r['cold'])} | {_fmt(r['warm'])} | {ratio('cold', 'flake8')} | {ratio('cold', 'ruff')} | {ratio('warm', 'cold')} | "
            f"{r['cold_rss'] / 1024:.0f} / {r['warm_rss'] / 1024:.0f} MiB |"
        )
    for name, r in results["trees"].items():
        rs = r["runs"]
        out.append(
            f"{name} per repetition (s): ruff {' / '.join(f'{x:.2f}' for x in rs['ruff'])}; flake8 {' / '.join(f'{x:.1f}' for x in rs['flake8'])}; "
            f"cold {' / '.join(f'{x:.2f}' for x in rs['cold'])}; warm {' / '.join(f'{x:.2f}' for x in rs['warm'])}; "
            f"cold/ruff {' / '.join(f'{c / f:.2f}x' for c, f in zip(rs['cold'], rs['ruff']))}; load average {' / '.join(f'{x:.1f}' for x in rs['load'])}"
        )
        if rs.get("base_cold"):
            out.append(
                f"{name} before (--baseline, same run): cold {' / '.join(f'{x:.2f}' for x in rs['base_cold'])} s, "
                f"warm {' / '.join(f'{x:.2f}' for x in rs['base_warm'])} s; median cold/ruff {r['base_cold'] / r['ruff']:.2f}x, warm/cold {r['base_warm'] / r['base_cold']:.2f}x"
            )
    c = results.get("per_file")
    if c:
        out.append("")
        out.append(f"Per file (in process, median): with a launch {c['ms_per_launch_file']:.1f} ms ({c['launch_files']} files), without {c['ms_per_other_file']:.3f} ms.")
    e = results.get("edit")
    if e:
        out.append(f"Edit latency, 500-line launcher: {e['ms_per_edit']:.1f} ms per edit (median of {e['edits']}) vs `sgllint check` of the file {e['ms_check_process']:.0f} ms ({e['note']}).")
    lsp = results.get("lsp")
    if lsp:
        out.append(
            f"LSP over stdio, 500-line launcher: didChange -> publishDiagnostics {lsp['ms_did_change_to_publish']:.0f} ms median of {lsp['edits']} edits, "
            f"of which {lsp['debounce_ms']:.0f} ms is the server's debounce ({lsp['ms_minus_debounce']:.0f} ms of work)."
        )
    s = results.get("startup")
    if s:
        out.append(f"Start-up: `sgllint check` of one file without a launch {s['sgllint_one_file_ms']:.0f} ms vs `python -c pass` {s['python_c_pass_ms']:.0f} ms ({s['sgllint_one_file_ms'] / s['python_c_pass_ms']:.1f}x).")
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="sgllint vs flake8 / ruff / grep")
    ap.add_argument("corpus", type=Path, help="the directory benchmarks/corpus.py wrote")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--skip-flake8", action="store_true")
    ap.add_argument("--jobs", default="", help="sgllint --jobs (default: its auto)")
    ap.add_argument("--trees", default="sglang,synthetic")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--baseline", type=Path, help="a checkout of an older sgllint: time it too (before/after in one run)")
    args = ap.parse_args(argv)
    results: dict = {"trees": {}, "python": sys.version.split()[0], "cores": os.cpu_count(), "load_at_start": os.getloadavg()}
    for name in args.trees.split(","):
        tree = args.corpus / name
        if tree.is_dir():
            results["trees"][name] = bench_tree(tree, args.repeat, not args.skip_flake8, args.jobs, args.baseline)
            print(name, {k: v for k, v in results["trees"][name].items() if k != "runs"}, flush=True)
    syn = args.corpus / "synthetic"
    if syn.is_dir():
        results["per_file"] = per_file_costs(syn)
    results["edit"] = edit_latency()
    results["lsp"] = lsp_latency()
    results["startup"] = startup()
    print()
    print(report(results))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
