"""Python sources that nest too deeply for a parser (issue 15, finding 3).

libcst's parser is native code: ~2,000 nested brackets (or a few thousand
chained operators) overflow the C stack and the interpreter dies with
SIGSEGV, taking the whole run (or the LSP server) with it. Every Python
source is scanned first (`sgllint.formats.python.depth`) and refused with
SGL000 when it nests deeper than Python itself allows; the limits are
checked here against the running interpreter's own parser.

Each input that used to kill the process is linted by the real CLI in a
subprocess, next to a shell file whose finding must still be reported.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from sgllint.formats.python import depth as _py_depth
from sgllint.formats.python.depth import MAX_BRACKETS, MAX_CHAIN, MAX_INDENT, nesting_problem
from sgllint.formats.python.extractor import extract
from sgllint.model.facts import Source

ROOT = Path(__file__).resolve().parent.parent
LAUNCH = 'subprocess.run("python -m sglang.launch_server --model-path m --tp 2".split())\n'
HEAD = "import subprocess\n"


def _cpython_refuses(text: str) -> str:
    """CPython's own verdict on ``text``: its error message, or ''."""
    try:
        ast.parse(text)
    except SyntaxError as exc:
        return exc.msg
    return ""


def _brackets(n: int) -> str:
    return "x = " + "(" * n + "1" + ")" * n + "\n"


def _indented(levels: int) -> str:
    return "".join(" " * i + "if x:\n" for i in range(levels)) + " " * levels + "pass\n"


# ---------------------------------------------------------------------------
# The limits are CPython's, checked on the interpreter running the tests
# ---------------------------------------------------------------------------


def test_bracket_limit_is_cpythons():
    assert _cpython_refuses(_brackets(MAX_BRACKETS)) == ""
    assert _cpython_refuses(_brackets(MAX_BRACKETS + 1)) == "too many nested parentheses"
    assert nesting_problem(_brackets(MAX_BRACKETS)) is None
    offset, reason = nesting_problem(_brackets(MAX_BRACKETS + 1))
    assert offset == 4 + MAX_BRACKETS  # the 201st bracket
    assert "too many nested parentheses" in reason and "200" in reason


def test_indentation_limit_is_cpythons():
    assert _cpython_refuses(_indented(MAX_INDENT)) == ""
    assert _cpython_refuses(_indented(MAX_INDENT + 1)) == "too many levels of indentation"
    assert nesting_problem(_indented(MAX_INDENT)) is None
    assert "too many levels of indentation" in nesting_problem(_indented(MAX_INDENT + 1))[1]
    tabs = "".join("\t" * i + "if x:\n" for i in range(MAX_INDENT + 1)) + "\t" * (MAX_INDENT + 1) + "pass\n"
    assert _cpython_refuses(tabs) == "too many levels of indentation"
    assert nesting_problem(tabs) is not None


def test_brackets_in_strings_and_comments_are_not_counted():
    deep = "(" * 300
    sources = [
        f"x = '{deep}'\n",
        f'x = "{deep}"\n',
        f"x = '''\n{deep}\n'''\n",
        f'x = r"""{deep}\\""" {deep}"""\n',  # an escaped quote does not end the string
        f"# {deep}\n",
        f"x = b'\\'{deep}'\n",
        f"x = f'{{{{{deep}}}}}'\n",  # {{ and }} are literal braces in an f-string
    ]
    for text in sources:
        assert _cpython_refuses(text) == "", text
        assert nesting_problem(text) is None, text


def test_brackets_inside_fstring_fields_are_counted():
    text = "x = f'{" + "(" * MAX_BRACKETS + "1" + ")" * MAX_BRACKETS + "}'\n"
    assert _cpython_refuses(text) == "too many nested parentheses"
    assert "nested brackets" in nesting_problem(text)[1]


def test_lines_inside_brackets_and_blank_lines_are_not_indentation():
    inside = "x = [\n" + "".join(" " * i + "1,\n" for i in range(300)) + "]\n"
    blanks = "if x:\n" + "".join(" " * i + "\n" + " " * i + "# c\n" for i in range(300)) + "    pass\n"
    continued = "x = 1 + \\\n" + "".join(" " * i + "1 + \\\n" for i in range(300)) + "1\n"
    for text in (inside, blanks, continued):
        assert _cpython_refuses(text) == ""
        assert nesting_problem(text) is None


# ---------------------------------------------------------------------------
# Chains: CPython gives up on these too (3,000 levels: 3 x its recursion
# limit), libcst overflowed the C stack on them
# ---------------------------------------------------------------------------

CHAINS = {
    "unary minus": lambda n: "x = " + "- " * n + "1\n",
    "not": lambda n: "x = " + "not " * n + "1\n",
    "bitwise not": lambda n: "x = " + "~" * n + "1\n",
    "attributes": lambda n: "x = a" + ".b" * n + "\n",
    "calls": lambda n: "x = f" + "()" * n + "\n",
    "subscripts": lambda n: "x = a" + "[0]" * n + "\n",
    "plus": lambda n: "x = " + " + ".join(["1"] * n) + "\n",
    "power": lambda n: "x = " + "**".join(["2"] * n) + "\n",
    "lambda": lambda n: "x = " + "lambda: " * n + "1\n",
    "conditional": lambda n: "x = " + "1 if y else " * n + "1\n",
    "and": lambda n: "x = " + " and ".join(["y"] * n) + "\n",
    "adjacent strings": lambda n: "x = " + " ".join(["'a'"] * n) + "\n",
    "comprehension fors": lambda n: "x = [a " + "for a in b " * n + "]\n",
    "elif": lambda n: "if y: pass\n" + "elif y: pass\n" * n,
}


@pytest.mark.parametrize("name", sorted(CHAINS))
def test_chains_are_refused_past_the_limit_and_accepted_below(name):
    make = CHAINS[name]
    assert nesting_problem(make(MAX_CHAIN // 4)) is None
    problem = nesting_problem(make(MAX_CHAIN + 10))
    assert problem is not None and f"more than {MAX_CHAIN} levels" in problem[1]


def test_real_python_is_never_refused():
    """sgllint's own sources and the unpacked SGLang sources (when present)
    are far below every limit."""
    files = sorted((ROOT / "sgllint").rglob("*.py"))
    cache = os.environ.get("SGLLINT_WHEEL_CACHE")  # wheels and their unpacked sources (src/<version>)
    wheels = sorted(Path(cache, "src").glob("*/sglang/srt/server_args.py"))[-3:] if cache else []
    for path in files + wheels:
        assert nesting_problem(path.read_text(encoding="utf-8")) is None, path


# ---------------------------------------------------------------------------
# End to end: the real CLI, each input that killed the process
# ---------------------------------------------------------------------------

KILLERS = {
    "brackets.py": HEAD + "subprocess.run(" + "[" * 2000 + "]" * 2000 + ")\n" + LAUNCH,
    "indent.py": HEAD + textwrap.indent(_indented(150), "") + LAUNCH,
    "unary.py": HEAD + "x = " + "-" * 100_000 + "1\n" + LAUNCH,
    "nots.py": HEAD + "x = " + "not " * 20_000 + "1\n" + LAUNCH,
    "attrs.py": HEAD + "x = a" + ".b" * 20_000 + "\n" + LAUNCH,
    "ands.py": HEAD + "x = " + " and ".join(["1"] * 20_000) + "\n" + LAUNCH,
    "elifs.py": HEAD + "if y: pass\n" + "elif y: pass\n" * 20_000 + LAUNCH,
    "lambdas.py": HEAD + "x = " + "lambda: " * 20_000 + "1\n" + LAUNCH,
    "subscripts.py": HEAD + "x = a" + "[0]" * 20_000 + "\n" + LAUNCH,
    "fstring.py": HEAD + "x = f'{" + "(" * 2000 + "1" + ")" * 2000 + "}'\n" + LAUNCH,
}


def _lint(tree: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run(
        [sys.executable, "-m", "sgllint", "check", "--no-cache", "--output-format", "json", *args, "."],
        cwd=tree, capture_output=True, text=True, env=env, timeout=300,
    )


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_inputs_that_killed_the_process_get_sgl000_and_the_run_goes_on(tmp_path, jobs):
    (tmp_path / ".sgllint.toml").write_text('sglang-version = "0.5.23"\n')
    for name, text in KILLERS.items():
        (tmp_path / name).write_text(text)
    (tmp_path / "serve.sh").write_text("python -m sglang.launch_server --model-path m --enable_metrics\n")
    run = _lint(tmp_path, "--jobs", jobs)
    assert run.returncode == 1, run.stderr[-2000:]
    assert "Traceback" not in run.stderr
    found = json.loads(run.stdout)
    by_file: dict[str, list[dict]] = {}
    for d in found:
        by_file.setdefault(d["path"], []).append(d)
    for name in KILLERS:
        codes = [d["code"] for d in by_file.get(name, [])]
        assert codes == ["SGL000"], (name, codes)
        assert "not analysed" in by_file[name][0]["message"]
    assert "SGL000" not in [d["code"] for d in by_file["serve.sh"]] and by_file["serve.sh"]


def test_parsing_does_not_depend_on_the_callers_stack(tmp_path):
    """The deepest source the scan lets through parses with libcst even from
    a thread with a 512 KiB stack (macOS's default for secondary threads):
    libcst runs on a thread with a stack of its own."""
    script = tmp_path / "small_stack.py"
    script.write_text(
        textwrap.dedent(
            f"""
            import sys, threading
            sys.path.insert(0, {str(ROOT)!r})
            from sgllint.formats.python.extractor import extract
            from sgllint.model.facts import Source
            from sgllint.formats.python.depth import nesting_problem
            text = {HEAD!r} + "x = [" + "(" * 190 + "1" + ")" * 190 + "]\\n" + "y = " + "-" * 2500 + "1\\n" + {LAUNCH!r}
            assert nesting_problem(text) is None
            out = {{}}
            def run():
                facts = extract(Source("deep.py", text))
                out["sites"] = len(facts.sites)
                out["problems"] = [p.message for p in facts.problems]
            threading.stack_size(512 * 1024)
            t = threading.Thread(target=run)
            t.start()
            t.join()
            print(out)
            """
        )
    )
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, (run.returncode, run.stderr[-2000:])
    assert "'sites': 1" in run.stdout and "'problems': []" in run.stdout


def test_exceptions_in_the_parse_thread_reach_the_caller():
    def boom(x):
        raise ValueError(x)

    with pytest.raises(ValueError, match="7"):
        _py_depth.call_with_stack(boom, 7)
    assert _py_depth.call_with_stack(len, "abc") == 3


def test_a_refused_file_keeps_its_position_and_reason():
    text = HEAD + "x = " + "[" * 250 + "]" * 250 + "\n" + LAUNCH
    facts = extract(Source("deep.py", text))
    assert facts.sites == []
    [problem] = facts.problems
    assert problem.span.start == len(HEAD) + 4 + MAX_BRACKETS
    assert "more than 200 nested brackets" in problem.message


# ---------------------------------------------------------------------------
# Many distinct unknown flags (finding 7's cost): suggestions are exact,
# bounded per file, and the per-token work no longer scans every option
# ---------------------------------------------------------------------------


def _catalog():
    from sgllint import catalog

    return catalog.load("0.5.23")


def _reference_closest(word, pool, cutoff=0.6):
    """What `suggest.closest` computed before: the largest (ratio, candidate)."""
    import difflib

    if word in pool:
        return word
    lowered = {c.lower(): c for c in pool}
    if word.lower() in lowered:
        return lowered[word.lower()]
    best = None
    for c in pool:
        ratio = difflib.SequenceMatcher(None, c, word).ratio()
        if ratio >= cutoff and (best is None or (ratio, c) > best):
            best = (ratio, c)
    return best and best[1]


def _reference_clearly_closest(word, guess, pool, margin=0.05):
    import difflib

    threshold = difflib.SequenceMatcher(None, word, guess).ratio() - margin
    return not any(difflib.SequenceMatcher(None, word, c).ratio() >= threshold for c in pool if c != guess)


def _words(pool, count, seed):
    import random

    rng = random.Random(seed)
    out = []
    for _ in range(count):
        word = rng.choice(pool)
        for _ in range(rng.randint(0, 4)):  # typos: drop, double, swap, replace
            i = rng.randrange(2, max(3, len(word)))
            word = rng.choice([word[:i] + word[i + 1 :], word[:i] + word[i:i + 1] * 2 + word[i + 1 :],
                               word[:i] + rng.choice("abcdefgxyz-_") + word[i + 1 :]])
        out.append(word if rng.random() < 0.8 else "--" + "".join(rng.choice("abcxyz-") for _ in range(rng.randint(1, 40))))
    return out


def test_suggestions_are_what_difflib_gives():
    from sgllint.resolve import suggest

    pool = _catalog().long_strings()
    for word in _words(pool, 80, seed=1):
        guess = suggest._closest(word, tuple(pool), 0.6)
        assert guess == _reference_closest(word, pool), word
        if guess and guess != word:
            assert suggest.clearly_closest(word, guess, pool) == _reference_clearly_closest(word, guess, pool), word


def _reference_split_glued(word, options):
    known = set(options)
    start = 2
    while True:
        i = word.find("--", start)
        if i < 0:
            return None
        if word[:i] in known and word[i:].split("=", 1)[0] in known:
            return word[:i], word[i:]
        start = i + 1


def test_split_glued_is_unchanged_and_bounded():
    from sgllint.resolve import suggest

    pool = _catalog().long_strings()
    words = [a + b for a, b in zip(pool, reversed(pool))] + [a + b + "=1" for a, b in zip(pool, pool[1:])]
    words += ["--a" + "--a" * 50, pool[0] + "x--" + pool[1], "--" + pool[3], pool[5] + pool[6][:-1]]
    for word in words:
        assert suggest.split_glued(word, pool) == _reference_split_glued(word, pool), word
    # a 200,000-character word of glued dashes: only the heads a known flag
    # could be are tried (the reference tried every one of its 100,000)
    calls = []
    real_find = str.find

    class Counting(str):
        def find(self, *args):
            calls.append(args)
            return real_find(self, *args)

    assert suggest.split_glued(Counting("--a" * 66_667), pool) is None
    longest = max(map(len, pool))
    assert len(calls) <= longest


def test_suggestions_stop_after_the_per_file_budget():
    from sgllint.resolve import suggest

    pool = _catalog().long_strings()
    source, other = Source("a.sh", ""), Source("b.sh", "")
    limit = suggest.MAX_SUGGESTIONS_PER_FILE
    typos = [p[:-1] for p in pool[: limit + 20]]
    got = [suggest.closest(w, pool, source=source) for w in typos]
    assert all(got[:limit]) and not any(got[limit:])
    assert suggest.closest(typos[0], pool, source=source) == got[0]  # a word already suggested for stays
    assert suggest.closest(typos[-1], pool, source=other) is not None  # another file has its own budget


def test_eight_thousand_distinct_unknown_flags_cost_linear_work(monkeypatch):
    """One line with 8,000 different unknown flags: every flag is reported,
    at most the per-file budget of them pays for a suggestion, and no
    flag scans the whole option list for argparse's prefix matches."""
    from sgllint.engine import pipeline as engine
    from sgllint.resolve import suggest
    from sgllint.catalog import Catalog

    flags = [f"--zq{i}-unknown-{i % 97}" for i in range(8000)]
    text = "python -m sglang.launch_server --model-path m " + " ".join(f"{f} 1" for f in flags) + "\n"
    suggest._closest.cache_clear()
    scans = []
    real = Catalog.has_prefix
    monkeypatch.setattr(Catalog, "has_prefix", lambda self, p: scans.append(p) or real(self, p))
    result = engine.lint_source("serve.sh", text, engine.Options(sglang_version="0.5.23"))
    unknown = [d for d in result.diagnostics if d.code == "SGL101"]
    assert len(unknown) == 8000
    assert suggest._closest.cache_info().misses <= suggest.MAX_SUGGESTIONS_PER_FILE
    assert scans and not any(real(_catalog(), p) for p in scans)  # every prefix test answered "none" by bisection
