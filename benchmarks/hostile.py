"""sgllint on the worst inputs an attacker can write (issue 15).

    python benchmarks/hostile.py [--sizes 100K,1M,2M] [--only NAME,...] [--json out.json]

Each hostile input (deep nesting, an unclosed ``<!--`` storm, a ``{{``
storm, a long ``# syntax=`` line, thousands of distinct unknown flags,
random bytes after a launch, ...) is generated at each size in a temporary
directory and linted by a whole ``sgllint check --no-cache --output-format
concise`` process. In the same run, as references: ``python -c pass`` (the
interpreter's start) and sgllint on a *benign* file of the same format and
size (ordinary launches and prose). Figures are the child's CPU time
(user + system, from ``wait4``: a loaded machine stretches wall time, not
CPU time) and its peak RSS, with the modules' bytecode written once before
(an installed wheel has it; ``PYTHONDONTWRITEBYTECODE`` would make every
run compile every module).

The run fails (exit 1) when any input breaks the issue's target or grows
faster than linearly:

* an input of at most 1 MB taking more than 2 s of CPU time or more than
  300 MiB of peak RSS (the target in issue 15: "any input <= 1 MB in
  <= 2 s and <= 300 MiB"); larger inputs are judged on growth only;
* from the middle size to the largest, CPU time above start-up growing more
  than 1.5x as fast as the size (doubling the size: above 3x). Linear work
  doubles, quadratic work quadruples; 3x sits between them with room for
  noise. Growth is measured above sgllint's own start-up (its CPU time on
  an empty file), which does not grow with the input; inputs whose largest
  run costs under 0.3 s above start-up are not judged (noise).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent
# An installed wheel has its bytecode compiled by pip; a checkout gets it on
# the first run, unless PYTHONDONTWRITEBYTECODE forbids it: then every run
# compiles every module, which is not what a user's run pays (as in latency.py)
ENV = {**{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
       "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
SGLLINT = [sys.executable, "-m", "sgllint", "check", "--no-cache", "--isolated", "--no-environment",
           "--sglang-version", "0.5.23", "--output-format", "concise"]
LAUNCH = "python -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct"
#: every input holds a launch, so it passes the cheap launch prefilter and is parsed
PY_LAUNCH = f'subprocess.run("{LAUNCH} --tp 2".split())\n'
MD_LAUNCH = f"\n```bash\n{LAUNCH} --tp 2\n```\n"
TARGET_CPU = 2.0  # seconds, inputs <= 1 MB
TARGET_RSS = 300 * 2**20  # bytes
GROWTH = 1.5  # allowed CPU growth per unit of size growth (x2 size -> x3 CPU)
JUDGE_FLOOR = 0.3  # seconds above start-up: below this, growth is noise


def _fill(head: str, unit: str, size: int, tail: str = "") -> str:
    """``head`` + ``unit`` repeated + ``tail``, ``size`` bytes (UTF-8) in all."""
    room = size - len((head + tail).encode())
    n = max(0, room // max(1, len(unit.encode())))
    text = head + unit * n + tail
    return text + "#" * max(0, size - len(text.encode())) if not tail else text


def _random_soup(seed: int) -> Callable[[int], bytes]:
    def make(size: int) -> bytes:
        rng = random.Random(seed)
        head = (LAUNCH + " ").encode()
        return head + rng.randbytes(max(0, size - len(head)))

    return make


def _flag_soup(size: int) -> str:
    """One shell line of distinct unknown flags with values (8,000 in ~170 KB)."""
    head = LAUNCH
    parts, total, i = [head], len(head), 0
    while total < size - 40:
        word = f" --zq{i}-unknown-{i % 97}-x 1"
        parts.append(word)
        total += len(word)
        i += 1
    return "".join(parts) + "\n"


# name -> (file name, generator of `size` bytes or characters)
HOSTILE: dict[str, tuple[str, Callable[[int], object]]] = {
    "python: 2,000 nested brackets": ("deep.py", lambda n: _fill(
        "import subprocess\nsubprocess.run(" + "[" * 2000 + "]" * 2000 + ")\n", "x = 1  # padding\n", n,
        f'subprocess.run("{LAUNCH} --tp 2".split())\n')),
    "python: long unary chain": ("unary.py", lambda n: _fill("import subprocess\nx = ", "-", n, "1\n" + PY_LAUNCH)),
    "python: long 'and' chain": ("ands.py", lambda n: _fill("import subprocess\nx = 1", " and 1", n, "\n" + PY_LAUNCH)),
    "python: escaped quotes": ("quotes.py", lambda n: _fill("import subprocess\nx = ' ", "\\' ", n, "'\n" + PY_LAUNCH)),
    "python: random bytes": ("random.py", _random_soup(1)),
    "markdown: unclosed <!-- storm": ("comments.md", lambda n: _fill("", "<!--", n, MD_LAUNCH)),
    "markdown: unclosed {/* storm": ("comments.mdx", lambda n: _fill("", "{/*", n, MD_LAUNCH)),
    "markdown: {{ storm in a bash block": ("templates.md", lambda n: _fill("```bash\n" + LAUNCH + " ", "{{", n, "\n```\n")),
    "markdown: pragmas before a long block": ("pragmas.md", lambda n: "".join(
        f"<!-- noqa: SGL{i} -->\n" for i in range(n // 44)) + "```bash\n" + f"{LAUNCH}\n" * (n // 150) + "```\n"),
    "markdown: random bytes": ("random.md", _random_soup(2)),
    "yaml: {{ storm": ("templates.yaml", lambda n: _fill("command: " + LAUNCH + " ", "{{", n, "\n")),
    "yaml: ${a:- storm": ("defaults.yaml", lambda n: _fill('command: "' + LAUNCH + " ", "${a:-", n, '"\n')),
    "yaml: random bytes": ("random.yaml", _random_soup(3)),
    "dockerfile: long # syntax= line": ("Dockerfile", lambda n: _fill("# syntax=x", " ", n, f"y\nFROM a\nCMD {LAUNCH}\n")),
    "dockerfile: random bytes": ("random.dockerfile", _random_soup(4)),
    "toml: {{ storm": ("pyproject.toml", lambda n: _fill('[tool.poe.tasks]\nserve = "' + LAUNCH + " ", "{{", n, '"\n')),
    "toml: random bytes": ("random.toml", _random_soup(5)),
    "shell: distinct unknown flags": ("flags.sh", _flag_soup),
    "shell: {{ storm": ("templates.sh", lambda n: _fill(LAUNCH + " ", "{{", n, "\n")),
    "shell: random bytes": ("random.sh", _random_soup(6)),
}

# format -> (file name, benign text of `size`): ordinary launches and prose
BENIGN: dict[str, tuple[str, Callable[[int], str]]] = {
    "python": ("benign.py", lambda n: _fill("import subprocess\n", (
        "\n\ndef serve():\n    \"\"\"Start the server.\"\"\"\n"
        f"    subprocess.run(\"{LAUNCH} --tp 2 --port 30000\".split())\n"), n)),
    "markdown": ("benign.md", lambda n: _fill("# Serving\n", (
        "Some prose about serving a model, with `inline code`.\n\n"
        f"```bash\n{LAUNCH} --tp 2 --port 30000\n```\n\n"), n)),
    "yaml": ("benign.yaml", lambda n: _fill("services:\n", (
        "  s{i}:\n    image: lmsysorg/sglang:v0.5.2\n"
        f"    command: {LAUNCH} --tp 2 --port 30000\n").replace("{i}", "x"), n)),
    "dockerfile": ("benign.dockerfile", lambda n: _fill("FROM lmsysorg/sglang:v0.5.2\n", "# a comment line about the image\nRUN echo step\n", n,
                                                        f"CMD {LAUNCH} --tp 2\n")),
    "toml": ("benign.toml", lambda n: _fill("[tool.poe.tasks]\n", "".join(
        f'serve{i} = "{LAUNCH} --tp 2"\n' for i in range(1)).replace("serve0", "serve"), n)),
    "shell": ("benign.sh", lambda n: _fill("#!/bin/sh\n", f"{LAUNCH} --tp 2 --port 30000\n", n)),
}


def _format_of(name: str) -> str:
    return name.split(":", 1)[0]


def _run(argv: list[str], cwd: Path) -> tuple[float, int, int]:
    """(CPU seconds, peak RSS bytes, exit code) of one child process."""
    proc = subprocess.Popen(argv, cwd=cwd, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024, proc.returncode


def _lint(directory: Path, file_name: str, content) -> tuple[float, int, int]:
    path = directory / file_name
    (path.write_bytes if isinstance(content, bytes) else lambda t: path.write_text(t, encoding="utf-8"))(content)
    try:
        return _run(SGLLINT + [file_name], directory)
    finally:
        path.unlink()


def _size(text: str) -> int:
    text = text.strip().upper()
    scale = {"K": 1000, "M": 1000_000}.get(text[-1:], 1)
    return int(float(text.rstrip("KM")) * scale)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="100K,1M,2M")
    parser.add_argument("--only", default="", help="comma-separated substrings of input names")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    sizes = sorted(_size(s) for s in args.sizes.split(","))
    names = [n for n in HOSTILE if not args.only or any(o.strip() in n for o in args.only.split(","))]
    failures: list[str] = []
    rows = []
    with tempfile.TemporaryDirectory(prefix="sgllint-hostile-") as tmp:
        work = Path(tmp)
        for fmt in BENIGN:  # not measured: writes the bytecode of what each format imports (see ENV)
            _lint(work, BENIGN[fmt][0], BENIGN[fmt][1](1000))
        python_cpu, python_rss, _ = _run([sys.executable, "-c", "pass"], work)
        start_cpu, start_rss, _ = _lint(work, "empty.sh", "")
        print(f"python -c pass: {python_cpu:.3f} s CPU, {python_rss / 2**20:.0f} MiB;  "
              f"sgllint on an empty file: {start_cpu:.3f} s CPU, {start_rss / 2**20:.0f} MiB")
        benign: dict[tuple[str, int], float] = {}
        for fmt in sorted({_format_of(n) for n in names}):
            file_name, make = BENIGN[fmt]
            for size in sizes:
                benign[fmt, size] = _lint(work, file_name, make(size))[0]
        header = f"{'input':42} {'size':>6} {'CPU s':>7} {'MiB':>5} {'x python':>8} {'x benign':>8} {'exit':>4}"
        print(header)
        print("-" * len(header))
        for name in names:
            file_name, make = HOSTILE[name]
            cpus = {}
            for size in sizes:
                cpu, rss, code = _lint(work, file_name, make(size))
                cpus[size] = cpu
                ref = benign[_format_of(name), size]
                rows.append({"input": name, "size": size, "cpu": cpu, "rss": rss, "exit": code,
                             "python": python_cpu, "benign": ref, "startup": start_cpu})
                print(f"{name:42} {_label(size):>6} {cpu:7.2f} {rss / 2**20:5.0f} {cpu / python_cpu:8.1f} "
                      f"{cpu / ref if ref else float('nan'):8.2f} {code:4}")
                if code not in (0, 1):
                    failures.append(f"{name} at {_label(size)}: exit code {code}")
                if size <= 1000_000 and cpu > TARGET_CPU:
                    failures.append(f"{name} at {_label(size)}: {cpu:.2f} s CPU > {TARGET_CPU} s")
                if size <= 1000_000 and rss > TARGET_RSS:
                    failures.append(f"{name} at {_label(size)}: {rss / 2**20:.0f} MiB > {TARGET_RSS / 2**20:.0f} MiB")
            if len(sizes) >= 2:
                mid, top = sizes[-2], sizes[-1]
                above_mid, above_top = cpus[mid] - start_cpu, cpus[top] - start_cpu
                allowed = GROWTH * top / mid
                if above_top >= JUDGE_FLOOR and above_top > allowed * max(above_mid, 0.01):
                    failures.append(f"{name}: CPU above start-up grew {above_top / max(above_mid, 0.01):.1f}x "
                                    f"from {_label(mid)} to {_label(top)} (linear: {top / mid:.1f}x, bound {allowed:.1f}x)")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    for failure in failures:
        print("FAIL:", failure)
    print("all inputs within bounds" if not failures else f"{len(failures)} failure(s)")
    return 1 if failures else 0


def _label(size: int) -> str:
    return f"{size // 1000_000}M" if size % 1000_000 == 0 else f"{size // 1000}K"


if __name__ == "__main__":
    sys.exit(main())
