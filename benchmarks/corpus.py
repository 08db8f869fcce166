"""A reproducible benchmark tree: a synthetic monorepo plus a real package.

    python benchmarks/corpus.py OUT [--files N] [--seed S] [--launch-rate R] [--no-sglang-tree]

Writes ``OUT/synthetic/``: N files (default 20,000) of Python, shell, YAML,
TOML and Markdown with realistic sizes (log-normal around the medians of
real repositories: Python ~150 lines, shell ~40, YAML ~60, TOML ~30,
Markdown ~80), of which about R (default 2%) hold SGLang launches — some
with deliberate mistakes — and most others mention SGLang in passing
(imports, clients, docs), so a prefilter on the word ``sglang`` alone does
little. The same seed always gives byte-identical files.

And ``OUT/sglang/``: the ``sglang/`` package of the sglang 0.5.23 wheel
(``pip download --no-deps sglang==0.5.23``), 4,719 Python files and 1.8 M
lines of real code in which almost every file says ``sglang`` — the hard
case for a linter that must prove quickly that a file has no launch.
"""

from __future__ import annotations

import argparse
import random
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

SGLANG_VERSION = "0.5.23"
MIX = (("py", 0.55), ("sh", 0.12), ("yaml", 0.15), ("toml", 0.06), ("md", 0.12))
MEDIAN_LINES = {"py": 150, "sh": 40, "yaml": 60, "toml": 30, "md": 80}
#: share of non-launch files that mention sglang anyway
MENTION_RATE = 0.5

MODELS = ["Qwen/Qwen2.5-7B-Instruct", "meta-llama/Llama-3.1-8B-Instruct", "deepseek-ai/DeepSeek-V3", "mistralai/Mistral-7B-Instruct-v0.3"]
GOOD_FLAGS = ["--tp-size 2", "--mem-fraction-static 0.85", "--attention-backend flashinfer", "--enable-metrics", "--port 30000", "--host 0.0.0.0", "--context-length 8192"]
BAD_FLAGS = ["--enable_metrics", "--attention-backend flash_infer", "--tp 2", "--mem-fraction-static high", "--disable-radix"]
WORDS = "model server request batch token cache layer weight config deploy cluster node metric latency throughput queue worker".split()


def _lines(rng: random.Random, kind: str) -> int:
    return max(3, int(rng.lognormvariate(0, 0.8) * MEDIAN_LINES[kind]))


def _flags(rng: random.Random) -> list[str]:
    flags = rng.sample(GOOD_FLAGS, rng.randint(1, 4))
    if rng.random() < 0.4:
        flags.append(rng.choice(BAD_FLAGS))
    return flags


def _py_filler(rng: random.Random, n: int, mention: bool) -> list[str]:
    out = ["import json", "import os", "from typing import Optional", ""]
    if mention:
        out[1:1] = ["import sglang  # client only", "from sglang.srt.server_args import ServerArgs"]
    i = 0
    while len(out) < n:
        name = f"{rng.choice(WORDS)}_{i}"
        i += 1
        body = [
            f"def {name}(x: Optional[dict] = None, server_args: 'ServerArgs' = None) -> int:",
            f'    """Compute the {rng.choice(WORDS)} for a {rng.choice(WORDS)}."""',
            "    total = 0",
            "    for k, v in (x or {}).items():",
            f"        if k.startswith('{rng.choice(WORDS)}'):",
            "            total += len(str(v))",
            f"    return total * {rng.randint(1, 99)}",
            "",
        ]
        if rng.random() < 0.2:
            body = [f"class {name.title().replace('_', '')}:", f"    limit = {rng.randint(1, 512)}", "", "    def run(self):", "        return self.limit", ""]
        out += body
    return out[:n]


def python_file(rng: random.Random, launch: bool, mention: bool) -> str:
    n = _lines(rng, "py")
    lines = _py_filler(rng, n, mention or launch)
    if launch:
        model = rng.choice(MODELS)
        kind = rng.randrange(3)
        if kind == 0:
            snippet = [
                "import subprocess, sys",
                "def start_server():",
                f"    cmd = [sys.executable, '-m', 'sglang.launch_server', '--model-path', '{model}']",
                f"    cmd += {[w for f in _flags(rng) for w in f.split()]!r}",
                "    return subprocess.Popen(cmd)",
            ]
        elif kind == 1:
            snippet = ["import sglang as sgl", "def engine():", f"    return sgl.Engine(model_path='{model}', tp_size=2, mem_fraction_static=0.8{', enable_metric=True' if rng.random() < 0.4 else ''})"]
        else:
            snippet = [
                "from sglang.test.test_utils import popen_launch_server",
                "def setup(url):",
                f"    return popen_launch_server('{model}', url, timeout=600, other_args={[w for f in _flags(rng) for w in f.split()]!r})",
            ]
        at = rng.randrange(len(lines) + 1)
        lines[at:at] = [""] + snippet + [""]
    return "\n".join(lines) + "\n"


def shell_file(rng: random.Random, launch: bool, mention: bool) -> str:
    n = _lines(rng, "sh")
    out = ["#!/usr/bin/env bash", "set -euo pipefail", ""]
    while len(out) < n:
        w = rng.choice(WORDS)
        out += [f'echo "{w} step"', f"export {w.upper()}_DIR=/data/{w}", f'if [ -d "${w.upper()}_DIR" ]; then', f'  ls "${w.upper()}_DIR" | wc -l', "fi"]
    if mention:
        out.insert(3, "# talks to an sglang server started elsewhere")
        out.insert(4, 'curl -s http://localhost:30000/v1/models  # sglang')
    if launch:
        flags = _flags(rng)
        cmd = [f"python3 -m sglang.launch_server --model-path {rng.choice(MODELS)} \\"] + [f"  {f} \\" for f in flags[:-1]] + [f"  {flags[-1]}"]
        at = rng.randrange(3, len(out) + 1)
        out[at:at] = cmd
    return "\n".join(out) + "\n"


def yaml_file(rng: random.Random, launch: bool, mention: bool) -> str:
    n = _lines(rng, "yaml")
    name = rng.choice(WORDS)
    out = ["apiVersion: apps/v1", "kind: Deployment", "metadata:", f"  name: {name}", "  labels:", f"    app: {name}", "spec:", "  replicas: 1", "  template:", "    spec:", "      containers:"]
    image = "lmsysorg/sglang:v0.5.23-cu129" if (launch or mention) else f"registry.local/{name}:1.{rng.randint(0, 9)}"
    out += [f"        - name: {name}", f"          image: {image}"]
    if launch:
        out += ["          command: [python3, -m, sglang.launch_server]", "          args:", f"            - --model-path={rng.choice(MODELS)}"]
        out += [f"            - {f.replace(' ', '=')}" for f in _flags(rng)]
        out += ["          resources:", "            limits:", f"              nvidia.com/gpu: {rng.choice([1, 2, 4, 8])}"]
    else:
        out += ["          command: [/bin/server]", "          args: [--port, '8080']"]
    out += ["          env:"]
    i = 0
    while len(out) < n:
        out += [f"            - name: {rng.choice(WORDS).upper()}_{i}", f'              value: "{rng.randint(0, 10**6)}"']
        i += 1
    return "\n".join(out) + "\n"


def toml_file(rng: random.Random, launch: bool, mention: bool) -> str:
    n = _lines(rng, "toml")
    out = ["[project]", f'name = "{rng.choice(WORDS)}-svc"', 'version = "0.1.0"', "dependencies = ["]
    out += ['  "requests>=2",', '  "pydantic>=2",'] + (['  "sglang[all]>=0.5",'] if mention else []) + ["]", ""]
    if launch:
        out += ["[tool.poe.tasks]", f'serve = "python -m sglang.launch_server --model-path {rng.choice(MODELS)} {" ".join(_flags(rng))}"', ""]
    i = 0
    while len(out) < n:
        out += [f"[tool.{rng.choice(WORDS)}{i}]", f"enabled = {rng.choice(['true', 'false'])}", f"limit = {rng.randint(1, 1000)}", ""]
        i += 1
    return "\n".join(out) + "\n"


def markdown_file(rng: random.Random, launch: bool, mention: bool) -> str:
    n = _lines(rng, "md")
    out = [f"# {rng.choice(WORDS).title()} guide", ""]
    while len(out) < n:
        out += [" ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 20))) + ".", ""]
        if rng.random() < 0.1:
            out += ["```python", "import json", "print(json.dumps({'ok': True}))", "```", ""]
    if mention:
        out.insert(2, "This service sends requests to an SGLang server (see the sglang docs).")
    if launch:
        at = rng.randrange(2, len(out) + 1)
        out[at:at] = ["", "```bash", f"python -m sglang.launch_server --model-path {rng.choice(MODELS)} {' '.join(_flags(rng))}", "```", ""]
    return "\n".join(out) + "\n"


WRITERS = {"py": python_file, "sh": shell_file, "yaml": yaml_file, "toml": toml_file, "md": markdown_file}


def synthetic(out: Path, files: int, seed: int, launch_rate: float) -> dict:
    rng = random.Random(seed)
    kinds, weights = zip(*MIX)
    stats = {"files": 0, "launch_files": 0, "bytes": 0, "lines": 0}
    for i in range(files):
        kind = rng.choices(kinds, weights)[0]
        launch = rng.random() < launch_rate
        mention = launch or rng.random() < MENTION_RATE
        text = WRITERS[kind](rng, launch, mention)
        pkg = out / f"pkg{i % 97:02d}" / f"mod{(i // 97) % 23:02d}"
        name = {"toml": "pyproject" if i % 5 == 0 else f"tasks_{i}"}.get(kind, f"f{i}")
        path = pkg / f"{name}.{kind}"
        if path.exists():
            path = pkg / f"f{i}.{kind}"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        stats["files"] += 1
        stats["launch_files"] += launch
        stats["bytes"] += len(text)
        stats["lines"] += text.count("\n")
    return stats


def sglang_tree(out: Path, version: str = SGLANG_VERSION) -> dict:
    """The wheel's ``sglang/`` package (downloaded once; reused when present)."""
    if not (out / "sglang").is_dir():
        with tempfile.TemporaryDirectory() as tmp:
            subprocess.run(
                [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", f"sglang=={version}", "-d", tmp],
                check=True,
            )
            wheel = next(Path(tmp).glob("sglang-*.whl"))
            with zipfile.ZipFile(wheel) as z:
                members = [n for n in z.namelist() if n.startswith("sglang/")]
                z.extractall(out, members=members)
    py = list((out / "sglang").rglob("*.py"))
    lines = sum(p.read_bytes().count(b"\n") for p in py)
    return {"files": sum(1 for p in (out / "sglang").rglob("*") if p.is_file()), "python_files": len(py), "python_lines": lines}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--files", type=int, default=20_000)
    ap.add_argument("--seed", type=int, default=20261202)
    ap.add_argument("--launch-rate", type=float, default=0.02)
    ap.add_argument("--no-sglang-tree", action="store_true")
    args = ap.parse_args(argv)
    syn = args.out / "synthetic"
    if syn.exists():
        shutil.rmtree(syn)
    print("synthetic:", synthetic(syn, args.files, args.seed, args.launch_rate))
    if not args.no_sglang_tree:
        print("sglang:", sglang_tree(args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
