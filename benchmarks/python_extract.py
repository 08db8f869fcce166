"""Cost of the Python extractor per 1,000 lines, against ``ast.parse`` of the
same file measured in the same run (issue: Python launchers, "Spans and speed").

    python benchmarks/python_extract.py [FILE ...]

Without arguments it downloads the sglang 0.5.23 wheel (``pip download
--no-deps``) and measures two large real files from it: one with launches
(``sglang/test/test_utils.py``, full of ``popen_launch_server`` and
``ServerArgs`` uses) and one without launch calls
(``sglang/srt/server_args.py``). Prints, per file: lines, ast.parse ms,
sgllint ms, both per 1,000 lines, the ratio, and the launches found.
"""

from __future__ import annotations

import ast
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sgllint.formats.python.extractor import extract  # noqa: E402
from sgllint.model.facts import Source  # noqa: E402

REPEAT = 7
WHEEL_FILES = ("sglang/test/test_utils.py", "sglang/srt/server_args.py")


def _median_ms(fn) -> float:
    times = []
    for _ in range(REPEAT):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times)


def _wheel_files(workdir: Path) -> list[Path]:
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "sglang==0.5.23", "-d", str(workdir)],
        check=True,
    )
    wheel = next(workdir.glob("sglang-*.whl"))
    out = []
    with zipfile.ZipFile(wheel) as z:
        for name in WHEEL_FILES:
            target = workdir / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(z.read(name))
            out.append(target)
    return out


def measure(path: Path) -> dict:
    text = path.read_text(encoding="utf-8")
    lines = text.count("\n") + 1
    ast_ms = _median_ms(lambda: ast.parse(text))
    facts = None

    def run():
        nonlocal facts
        facts = extract(Source(str(path), text))

    run()  # warm the lazy imports once; the timing below is steady state
    sg_ms = _median_ms(run)
    return {
        "file": path.name,
        "lines": lines,
        "ast_ms": ast_ms,
        "sgllint_ms": sg_ms,
        "ast_per_kloc": ast_ms * 1000 / lines,
        "sgllint_per_kloc": sg_ms * 1000 / lines,
        "ratio": sg_ms / ast_ms if ast_ms else float("inf"),
        "launches": len(facts.sites),
    }


def main(argv: list[str]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        files = [Path(a) for a in argv] or _wheel_files(Path(tmp))
        print(f"{'file':<22}{'lines':>7}{'ast ms':>9}{'sgllint ms':>12}{'ast/kloc':>10}{'sgl/kloc':>10}{'ratio':>8}{'launches':>10}")
        for f in files:
            r = measure(f)
            print(
                f"{r['file']:<22}{r['lines']:>7}{r['ast_ms']:>9.1f}{r['sgllint_ms']:>12.1f}"
                f"{r['ast_per_kloc']:>10.2f}{r['sgllint_per_kloc']:>10.2f}{r['ratio']:>8.1f}{r['launches']:>10}"
            )


if __name__ == "__main__":
    main(sys.argv[1:])
