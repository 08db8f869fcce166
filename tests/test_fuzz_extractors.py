"""Property-based fuzzing of every extractor, the engine and the argv parser.

Random and mutated inputs (truncated files, invalid UTF-8, NUL bytes, CRLF
and mixed line endings, tabs, BOMs, 100k-character lines, deeply nested
YAML/JSON, YAML alias bombs, huge block scalars) must never raise out of
`engine.lint_source` in any format, never hang (a hard per-example alarm),
and every span stays inside its file. The prefilter must never reject an
input its extractor would find a launch in.

Budget: ``SGLLINT_FUZZ=ci`` (default: bounded so the whole module stays well
under a minute on the 2-core project machine) or ``SGLLINT_FUZZ=long``
(``SGLLINT_FUZZ=long python -m pytest tests/test_fuzz_extractors.py``: 20x
the examples, for a local soak). The number of generated cases is printed at
the end of the module and written to ``.hypothesis/sgllint-fuzz-summary.json``.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sgllint import catalog as catalogs
from sgllint.engine.pipeline import Options, decode, extract, lint_source
from sgllint.engine.prefilter import may_launch
from sgllint.formats.registry import EXTRACTORS
from sgllint.model.facts import LaunchSite, Source, Span, Token, Unresolved
from sgllint.resolve.argv import resolve

ROOT = Path(__file__).resolve().parent.parent
PROFILE = os.environ.get("SGLLINT_FUZZ", "ci")
SCALE = 20 if PROFILE == "long" else 1
#: a per-example wall-clock limit: an input that takes longer is a hang
HANG_SECONDS = 30
FORMATS = sorted(EXTRACTORS)
SUFFIX = {"python": "x.py", "shell": "x.sh", "yaml": "x.yaml", "toml": "x.toml", "dockerfile": "Dockerfile", "markdown": "x.md"}
OPTIONS = Options(sglang_version="0.5.23", use_environment=False)
COUNTS: Counter = Counter()


def _settings(n: int):
    return settings(
        max_examples=n * SCALE,
        deadline=None,  # the machine is shared: the alarm below bounds time instead
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
        database=None,
        derandomize=PROFILE != "long",  # CI: the same cases every run
    )


class Hang(SystemExit):
    """Raised by the alarm; a BaseException so no `except Exception` in the
    code under test can swallow it."""


def _alarm(signum, frame):
    raise Hang(f"an input took more than {HANG_SECONDS}s")


@pytest.fixture(autouse=True)
def hang_guard():
    if not hasattr(signal, "SIGALRM"):
        yield
        return
    old = signal.signal(signal.SIGALRM, _alarm)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, old)


@pytest.fixture(scope="module", autouse=True)
def summary():
    t = time.perf_counter()
    yield
    data = {"profile": PROFILE, "cases": dict(COUNTS), "total": sum(COUNTS.values()), "seconds": round(time.perf_counter() - t, 1)}
    out = ROOT / ".hypothesis" / "sgllint-fuzz-summary.json"
    try:
        out.parent.mkdir(exist_ok=True)
        out.write_text(json.dumps(data, indent=2) + "\n")
    except OSError:
        pass
    print(f"\nsgllint fuzz ({PROFILE}): {data['total']} generated cases {data['cases']} in {data['seconds']}s", file=sys.__stdout__)


# ---------------------------------------------------------------------------
# Inputs
# ---------------------------------------------------------------------------


def _seeds() -> list[bytes]:
    paths = [p for p in sorted((ROOT / "tests" / "fixtures").rglob("*")) if p.is_file() and p.stat().st_size < 64_000]
    paths += [p for p in sorted((ROOT / "examples").rglob("*")) if p.is_file() and p.stat().st_size < 64_000]
    return [p.read_bytes() for p in paths]


SEEDS = _seeds()
SNIPPETS = [
    b"python -m sglang.launch_server --model-path m --tp 2 \\\n  --port 1\n",
    b"sglang serve --model-path 'a b' --attention-backend=fa3\n",
    b"import sglang as sgl\nsgl.Engine(model_path='m', tp_size=2, **kw)\n",
    b"subprocess.Popen(['python3', '-m', 'sglang.launch_server', *a])\n",
    b"command: [python3, -m, sglang.launch_server]\nargs: ['--model-path', x]\n",
    b"[sglang]\nmodel-path = 'm'\ntp-size = 2\n",
    b"CMD [\"python3\", \"-m\", \"sglang.launch_server\", \"--tp\", \"2\"]\n",
    b"```bash\npython -m sglang.launch_server --model-path m\n```\n",
    b"x.y.engine_kwargs.sglang.attention_backend=triton\n",
    b"model-path: m\ntp-size: 2\n",
    b"run: |\n  python -m sglang.launch_server \\\n    --model-path m\n",
]


def _nasty(kind: int, n: int) -> bytes:
    """Pathological documents, each scaled by ``n``."""
    if kind == 0:  # deeply nested YAML / JSON flow collections
        return b"a: " + b"[" * (50 * n) + b"sglang.launch_server" + b"]" * (50 * n) + b"\n"
    if kind == 1:  # a billion-laughs alias bomb mentioning a launcher
        lines = [b'a0: &a0 ["python", "-m", "sglang.launch_server"]']
        for i in range(1, 9 + n % 4):
            lines.append(b"a%d: &a%d [" % (i, i) + b", ".join([b"*a%d" % (i - 1)] * 9) + b"]")
        return b"\n".join(lines) + b"\n"
    if kind == 2:  # a huge block scalar holding a launch
        body = b"".join(b"  echo line %d sglang\n" % i for i in range(2000 * n))
        return b"run: |\n" + body + b"  python -m sglang.launch_server --model-path m\n"
    if kind == 3:  # a 100k-character line
        return b"python -m sglang.launch_server --model-path m " + b"--tp 2 " * (14_300 * n // 3 + 1) + b"\n"
    if kind == 4:  # deeply nested Python expressions
        return b"import sglang\nsglang.Engine(model_path=" + b"(" * (80 * n) + b"1" + b")" * (80 * n) + b")\n"
    if kind == 5:  # deeply nested JSON in a launch argument
        return b"python -m sglang.launch_server --json-model-override-args '" + b'{"a":' * (200 * n) + b"1" + b"}" * (200 * n) + b"'\n"
    return b"\xef\xbb\xbf" + b"sglang serve --model-path m\r\n\tpython -m sglang.launch_server\r--tp 2\n" * n


MUTATIONS = ("truncate", "nul", "invalid_utf8", "crlf", "cr", "mixed", "tabs", "bom", "splice", "long_line", "delete", "duplicate")


@st.composite
def documents(draw) -> bytes:
    if draw(st.integers(0, 9)) == 0:
        return _nasty(draw(st.integers(0, 6)), draw(st.integers(1, 3)))
    parts = draw(st.lists(st.sampled_from(SEEDS + SNIPPETS), min_size=1, max_size=3))
    data = b"\n".join(parts)
    for _ in range(draw(st.integers(0, 4))):
        data = _mutate(draw, data)
    return data


def _mutate(draw, data: bytes) -> bytes:
    m = draw(st.sampled_from(MUTATIONS))
    at = draw(st.integers(0, len(data)))
    if m == "truncate":
        return data[:at]
    if m == "nul":
        return data[:at] + b"\0" + data[at:]
    if m == "invalid_utf8":
        return data[:at] + draw(st.sampled_from([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\x80\x80"])) + data[at:]
    if m == "crlf":
        return data.replace(b"\n", b"\r\n")
    if m == "cr":
        return data.replace(b"\n", b"\r")
    if m == "mixed":
        return data[:at].replace(b"\n", b"\r\n") + data[at:]
    if m == "tabs":
        return data.replace(b"  ", b"\t")
    if m == "bom":
        return b"\xef\xbb\xbf" + data
    if m == "splice":
        return data[:at] + draw(st.sampled_from(SNIPPETS)) + data[at:]
    if m == "long_line":
        return data[:at] + b"x" * 100_000 + data[at:]
    if m == "delete":
        end = draw(st.integers(at, min(len(data), at + 64)))
        return data[:at] + data[end:]
    if m == "duplicate":
        return data[:at] + data[at : at + 200] + data[at:]
    return data


# ---------------------------------------------------------------------------
# Checks
# ---------------------------------------------------------------------------


def _inside(span: Span, what: str) -> None:
    n = len(span.source.text)
    assert 0 <= span.start <= span.end <= n, f"{what} {span.start}..{span.end} outside 0..{n} of {span.path}"


def check_result(result) -> None:
    for d in result.diagnostics:
        _inside(d.span, f"{d.code} span")
        for r in d.related:
            _inside(r.span, f"{d.code} related span")
        if d.fix is not None:
            for e in d.fix.edits:
                _inside(e.span, f"{d.code} fix edit")
        if d.launch_span is not None:
            _inside(d.launch_span, f"{d.code} launch span")
        d.span.start_line_col()  # renders
    for launch in result.launches:
        _inside(launch.span, "launch span")
        for arg in launch.args:
            for name in ("span", "flag_span", "value_span"):
                span = getattr(arg, name, None)
                if isinstance(span, Span):
                    _inside(span, f"arg {name}")


def _lint_all_formats(data: bytes) -> None:
    text = decode(data)
    for fmt in FORMATS:
        signal.alarm(HANG_SECONDS) if hasattr(signal, "SIGALRM") else None
        t = time.perf_counter()
        result = lint_source(SUFFIX[fmt], text, OPTIONS, fmt=fmt)
        signal.alarm(0) if hasattr(signal, "SIGALRM") else None
        assert time.perf_counter() - t < HANG_SECONDS
        check_result(result)
        COUNTS[f"engine:{fmt}"] += 1


@_settings(30)
@given(documents())
def test_engine_never_raises_and_spans_stay_inside(data):
    _lint_all_formats(data)


@_settings(25)
@given(st.binary(max_size=2000))
def test_random_bytes(data):
    _lint_all_formats(b"sglang serve python -m sglang.launch_server Engine(\n" + data)


@pytest.mark.parametrize("kind", range(7))
def test_pathological_documents(kind):
    _lint_all_formats(_nasty(kind, 3))
    COUNTS["pathological"] += 1


@_settings(50)
@given(documents(), st.sampled_from(FORMATS))
def test_prefilter_never_hides_a_launch(data, fmt):
    """A file the byte prefilter rejects yields no launch site."""
    COUNTS[f"prefilter:{fmt}"] += 1
    if may_launch(fmt, data):
        return
    signal.alarm(HANG_SECONDS) if hasattr(signal, "SIGALRM") else None
    facts = extract(Source(SUFFIX[fmt], decode(data)), fmt)
    signal.alarm(0) if hasattr(signal, "SIGALRM") else None
    assert facts.sites == [], f"prefilter rejected a {fmt} file with a launch: {facts.sites[0].entry}"


# ---------------------------------------------------------------------------
# The argv parser
# ---------------------------------------------------------------------------

CATALOG = catalogs.load("0.5.23")
_FLAGS = sorted(s for s in CATALOG.by_string if s.startswith("-"))
_WORDS = st.one_of(
    st.sampled_from(_FLAGS),
    st.sampled_from(_FLAGS).map(lambda f: f + "="),
    st.builds(lambda f, v: f"{f}={v}", st.sampled_from(_FLAGS), st.text(max_size=12)),
    st.sampled_from(["--", "-", "--tp", "--mod", "-h", "--config", "true", "False", "0", "-1", "1e9", "nan", "{}", "{\"a\":", "[]", ""]),
    st.text(max_size=20),
)


@st.composite
def argv_sites(draw) -> LaunchSite:
    values = draw(st.lists(st.one_of(_WORDS, _WORDS.map(lambda w: Unresolved(w, "fuzz", w[:3]))), max_size=30))
    text = " ".join(str(v) for v in values)
    source = Source("x.sh", text)
    tokens, at = [], 0
    for v in values:
        raw = str(v)
        tokens.append(Token(v, Span(source, at, at + len(raw))))
        at += len(raw) + 1
    entry = draw(st.sampled_from(["python -m sglang.launch_server", "sglang serve", "python -m sglang_router.launch_server"]))
    return LaunchSite(source, Span(source, 0, len(text)), entry, Span(source, 0, 0), "argv", tokens=tokens)


@_settings(150)
@given(argv_sites())
def test_argv_parser_never_raises_and_spans_stay_inside(site):
    COUNTS["argv"] += 1
    for arg in resolve(site, CATALOG):
        for name in ("span", "flag_span", "value_span"):
            span = getattr(arg, name, None)
            if isinstance(span, Span):
                _inside(span, f"arg {name}")
