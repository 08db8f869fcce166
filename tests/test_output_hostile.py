"""Output of hostile input (issue 15, findings 7 and 10, and referenced files).

- Amplification: a finding's code frame shows a window of at most 200
  columns of its line, and the text formats show at most --max-diagnostics
  findings per file (then one "N more" line); exit code and the machine
  formats stay exact.
- Control characters from paths, messages and source lines reach no
  terminal raw: text formats escape them, JUnit stays well-formed XML 1.0,
  the JSON formats stay valid and exact for every character.
- A file read only because a launch referenced it (``Source.echo`` false)
  is located but its text is never shown.
"""

from __future__ import annotations

import json
import os
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sgllint.model.diagnostic import Diagnostic, Edit, Fix, Related, Severity
from sgllint.model.facts import Source, Span
from sgllint.output import FORMATS, SUMMARISED, renderer
from sgllint.output.excerpt import CUT, WIDTH, excerpt
from sgllint.output.text import capped, display, visible

HERE = Path(__file__).resolve().parent
SCHEMA = HERE / "data" / "sarif-schema-2.1.0.json"
JSON_FORMATS = ("json", "json-lines", "sarif", "gitlab", "lsp")
TEXT_FORMATS = tuple(sorted(SUMMARISED))
#: what must never reach a terminal raw: C0 but TAB and LF (the formats' own
#: line breaks), DEL, C1, LRM/RLM/ALM, LS/PS, bidi embeddings, overrides and
#: isolates, surrogates
RAW_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff]")
#: characters XML 1.0 forbids (https://www.w3.org/TR/xml/#charsets)
NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _diagnostic(src: Source, start: int, end: int, message: str = "msg", **kw) -> Diagnostic:
    return Diagnostic("SGL101", "unknown-flag", Severity.ERROR, message, Span(src, start, end), **kw)


def _parse_machine(fmt: str, text: str) -> object:
    if fmt == "json-lines":
        return [json.loads(line) for line in text.splitlines()]
    if fmt == "junit":
        return ET.fromstring(text.split("?>", 1)[1])
    return json.loads(text)


# ---------------------------------------------------------------------------
# Finding 7: output amplification
# ---------------------------------------------------------------------------


def test_8000_unknown_flags_on_one_line_print_kilobytes_not_gigabytes(run_cli, tmp_path):
    """Before: every finding repeated the whole 120 KB line (~1 GB of `full`)."""
    (tmp_path / ".sgllint.toml").write_text('sglang-version = "0.5.23"\n')
    flags = " ".join("--bogus-flag 1" for _ in range(8000))
    (tmp_path / "serve.sh").write_text(f"python -m sglang.launch_server --model-path m/x {flags}\n")
    outputs = [f"{fmt}:out/{fmt}" for fmt in FORMATS if fmt != "full"]
    proc = run_cli("check", "--no-cache", *[a for o in outputs for a in ("--output", o)], "serve.sh")
    assert proc.returncode == 1, proc.stderr[-2000:]
    full = proc.stdout
    assert len(full.encode()) < 300_000  # 200 findings with a 200-column frame each
    assert full.count("SGL101 error") == 200
    assert "7800 more diagnostics in serve.sh not shown (--max-diagnostics)\n" in full
    assert full.endswith("Found 8000 diagnostics in 1 file: 8000 errors.\n")
    frames = [line for line in full.splitlines() if line.startswith("1 | ")]
    assert len(frames) == 200 and max(len(line) for line in frames) <= len("1 | ") + WIDTH
    out = tmp_path / "out"
    for fmt in TEXT_FORMATS:
        if fmt != "full":
            assert (out / fmt).stat().st_size < 100_000, fmt
    concise = (out / "concise").read_text().splitlines()
    assert len(concise) == 201 and concise[-1] == "7800 more diagnostics in serve.sh not shown (--max-diagnostics)"
    github = (out / "github").read_text().splitlines()
    assert github[-1] == "::notice file=serve.sh,title=sgllint::7800 more diagnostics in serve.sh not shown (--max-diagnostics)"
    # the machine formats list every finding
    assert len(json.loads((out / "json").read_text())) == 8000
    assert len((out / "json-lines").read_text().splitlines()) == 8000
    assert len(json.loads((out / "sarif").read_text())["runs"][0]["results"]) == 8000
    assert len(json.loads((out / "gitlab").read_text())) == 8000
    assert len(json.loads((out / "lsp").read_text())[0]["diagnostics"]) == 8000
    assert ET.parse(out / "junit").getroot().get("failures") == "8000"


def test_max_diagnostics_from_the_command_line_and_the_configuration(run_cli, tmp_path):
    flags = " ".join("--bogus-flag 1" for _ in range(250))
    (tmp_path / "serve.sh").write_text(f"python -m sglang.launch_server --model-path m/x {flags}\n")
    (tmp_path / "two.sh").write_text("python -m sglang.launch_server --model-path m/x --nope 1 --nada 2\n")
    config = tmp_path / ".sgllint.toml"
    config.write_text('sglang-version = "0.5.23"\n')

    def concise(*args):
        proc = run_cli("check", "--no-cache", "--output-format", "concise", *args, "serve.sh", "two.sh")
        assert proc.returncode == 1, proc.stderr
        return proc.stdout.splitlines()

    lines = concise()  # default: 200 per file
    assert len(lines) == 200 + 1 + 2 and lines[200] == "50 more diagnostics in serve.sh not shown (--max-diagnostics)"
    assert len(concise("--max-diagnostics", "0")) == 252
    lines = concise("--max-diagnostics", "1")
    assert lines[1] == "249 more diagnostics in serve.sh not shown (--max-diagnostics)"
    assert lines[3] == "1 more diagnostic in two.sh not shown (--max-diagnostics)" and len(lines) == 4
    config.write_text('sglang-version = "0.5.23"\nmax-diagnostics = 2\n')
    assert len(concise()) == 2 + 1 + 2
    assert len(concise("--max-diagnostics", "0")) == 252  # the command line wins
    config.write_text('sglang-version = "0.5.23"\nmax-diagnostics = 0\n')
    assert len(concise()) == 252
    for bad in ("-1", "x", "1.5"):
        proc = run_cli("check", "--max-diagnostics", bad, "serve.sh")
        assert proc.returncode == 2 and "--max-diagnostics" in proc.stderr
    for bad in ("-1", "true", '"5"', "2.0"):
        config.write_text(f"max-diagnostics = {bad}\n")
        proc = run_cli("check", "serve.sh")
        assert proc.returncode == 2 and "'max-diagnostics' must be a whole number" in proc.stderr, proc.stderr


def test_capped_shows_each_files_first_findings_and_counts_the_rest_in_place():
    a, b = Source("a.sh", "x" * 50), Source("b.sh", "y" * 50)
    diags = [_diagnostic(a, i, i + 1) for i in range(5)] + [_diagnostic(b, i, i + 1) for i in range(2)]
    items = capped(diags, 3)
    assert items[:3] == diags[:3] and items[4:] == diags[5:]
    assert (items[3].path, items[3].count) == ("a.sh", 2)
    assert capped(diags, 0) == diags and capped(diags, 5) == diags
    full = renderer("full", 3)(diags)
    assert full.count("SGL101") == 5 and "\n2 more diagnostics in a.sh not shown (--max-diagnostics)\n\nb.sh:1:1:" in full


def _shown_under_carets(e) -> str:
    return e.text[e.caret_column : e.caret_column + e.carets]


def test_a_long_line_is_windowed_around_the_span():
    line = "x" * 5000 + " --flag " + "y" * 5000
    src = Source("a.sh", line + "\n")
    i = line.index("--flag")
    middle = excerpt(Span(src, i, i + 6))
    assert middle.text.startswith(CUT) and middle.text.endswith(CUT) and len(middle.text) == WIDTH
    assert _shown_under_carets(middle) == "--flag"
    start = excerpt(Span(src, 0, 3))
    assert not start.text.startswith(CUT) and start.text.endswith(CUT) and start.caret_column == 0
    end = excerpt(Span(src, len(line) - 2, len(line)))
    assert end.text.startswith(CUT) and not end.text.endswith(CUT) and _shown_under_carets(end) == "yy"
    # a span wider than the window: shown from its start, carets on under the cut
    wide = excerpt(Span(src, 4000, i + 6))
    assert wide.caret_column == len(CUT) + 20 and wide.caret_column + wide.carets == len(wide.text)
    # a span running onto the next line is marked to the end of the (window of the) line
    onto = excerpt(Span(src, i, len(line) + 1))
    assert _shown_under_carets(onto).startswith("--flag yyy") and onto.text.endswith(CUT)


def test_escapes_keep_the_caret_under_the_span():
    src = Source("a.sh", "a\x1bb\u202e\x00 --flag\tz\n")
    i = src.text.index("--flag")
    e = excerpt(Span(src, i, i + 6))
    assert e.text == "a\\x1bb\\u202e\\x00 --flag z" and _shown_under_carets(e) == "--flag"
    # a short line that escapes wider than the window is windowed too
    src = Source("b.sh", "\x1b" * 150 + "--flag\n")
    e = excerpt(Span(src, 150, 156))
    assert len(e.text) <= WIDTH and e.text.startswith(CUT) and _shown_under_carets(e) == "--flag"


@settings(max_examples=300, deadline=None, database=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(
    line=st.text(st.sampled_from("ab \t\x1b\x07\u202e\u2066\udcff模🚀"), max_size=700),
    start=st.integers(0, 700),
    length=st.integers(0, 800),
)
def test_every_excerpt_fits_the_window_and_marks_the_span(line, start, length):
    src = Source("a.sh", line + "\nnext\n")
    start = min(start, len(line))
    end = min(start + length, len(src.text))
    e = excerpt(Span(src, start, end))
    assert len(e.text) <= WIDTH and not RAW_CONTROL.search(e.text)
    span_shown = "".join(display(c) for c in line[start:end])
    under = _shown_under_carets(e)
    if not span_shown:
        assert e.carets == 1
    elif under != span_shown:  # cut: a non-empty start of the span, then the cut marker
        assert under.endswith(CUT) and e.caret_column + e.carets == len(e.text)
        assert under != CUT and span_shown.startswith(under[: -len(CUT)])


# ---------------------------------------------------------------------------
# Finding 10: control characters
# ---------------------------------------------------------------------------

HOSTILE_NAME = b"d\xff/s\x1b[31mred\x07\n::error file=x,line=1::pwned.sh"
HOSTILE_LINE = (
    b"python -m sglang.launch_server --model-path m/x --bogus\x1b]0;title\x07-x 1 "
    b"--evil-\x1b[2J\x0c\x08\x7f\xc2\x9b31m\xe2\x80\xae\xe2\x81\xa6 1 --served-model-name '\xe2\x80\xaeabc'\n"
)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX file names")
def test_control_characters_from_the_tree_never_reach_the_terminal(run_cli, tmp_path):
    """Before: ESC, BEL and bidi overrides from file names and launch lines
    were printed raw, and JUnit carried them into malformed XML."""
    (tmp_path / ".sgllint.toml").write_text('sglang-version = "0.5.23"\n')
    path = os.fsencode(tmp_path) + b"/" + HOSTILE_NAME
    os.makedirs(os.path.dirname(path))
    with open(path, "wb") as f:
        f.write(HOSTILE_LINE)
    others = [fmt for fmt in FORMATS if fmt != "full"]
    proc = run_cli("check", "--no-cache", *[a for fmt in others for a in ("--output", f"{fmt}:out/{fmt}")], ".")
    assert proc.returncode == 1, proc.stderr
    assert not RAW_CONTROL.search(proc.stderr), proc.stderr
    # stdout is the terminal; the files are written as strict UTF-8
    rendered = {"full": proc.stdout, **{fmt: (tmp_path / "out" / fmt).read_text(encoding="utf-8") for fmt in others}}
    for fmt, out in rendered.items():
        assert "SGL101" in out, fmt
        assert not RAW_CONTROL.search(out), (fmt, RAW_CONTROL.search(out))
        if fmt in TEXT_FORMATS:
            assert "\\x1b" in out, fmt
            # one finding, one line (the path's line break cannot forge another)
            assert not any(line.startswith("::error file=x") for line in out.splitlines())
        else:
            parsed = _parse_machine(fmt, out)
            if fmt == "json":
                assert {d["path"] for d in parsed} == {os.fsdecode(HOSTILE_NAME)}
                assert any("\x1b" in d["message"] for d in parsed)  # exact, escaped by JSON


def _hostile_diagnostics(chars: str) -> list[Diagnostic]:
    text = f"run --a{chars}b 1 --c\n  --d{chars}\n"
    src = Source(f"dir{chars}/f{chars}.sh", text)
    i = text.index("--a")
    j = text.index("--d")
    return [
        _diagnostic(
            src, i, i + 5 + len(chars), f"'--a{chars}b' is not an option",
            related=[Related(Span(src, j, len(text)), f"see{chars}")],
            help=f"help{chars}", url="https://example.invalid/x",
            fix=Fix(f"remove --a{chars}", (Edit(Span(src, i, i + 3), f"--x{chars}"),), "unsafe"),
        ),
        Diagnostic("SGL108", "duplicate-flag", Severity.INFO, f"dup{chars}", Span(src, j, j + 3)),
    ]


ALL_BYTES = "".join(chr(b) for b in range(256))
#: lone surrogates: surrogateescape of bytes 0x80-0xff, and unpaired halves
#: (never a high one before a low one: JSON, defined on UTF-16, reads that as
#: one character)
SURROGATES = "\udc80\udcff\udfff\ud800\udbff"
#: every byte as a character, lone surrogates, the bidi controls, LS/PS and
#: the noncharacters XML forbids
EVERY_CHARACTER_CLASS = ALL_BYTES + SURROGATES + "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u2028\u2029\ufffe\uffff"


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_every_format_renders_every_character(fmt):
    diags = _hostile_diagnostics(EVERY_CHARACTER_CLASS)
    # one character per diagnostic too, so a format cannot pass by failing once
    diags += [d for c in EVERY_CHARACTER_CLASS for d in _hostile_diagnostics(c)]
    out = renderer(fmt)(diags)
    out.encode("utf-8")  # strict: no lone surrogate reaches the stream
    if fmt in TEXT_FORMATS:
        assert not RAW_CONTROL.search(out), RAW_CONTROL.search(out)
        return
    parsed = _parse_machine(fmt, out)
    if fmt == "junit":
        assert not NOT_XML.search(out)
        assert len(parsed.findall("./testsuite/testcase")) == len(diags)
        return
    assert not RAW_CONTROL.search(out.replace("\n", " "))  # JSON escapes, not raw characters
    if fmt == "json":
        from sgllint.output.json import as_dict

        expected = sorted((as_dict(d) for d in diags), key=lambda i: (i["path"], i["line"], i["column"], i["code"]))
        assert parsed == expected  # exact: every string decodes back to the original


def test_sarif_with_every_character_validates_against_the_schema():
    jsonschema = pytest.importorskip("jsonschema")
    log = json.loads(renderer("sarif")(_hostile_diagnostics(EVERY_CHARACTER_CLASS)))
    jsonschema.Draft7Validator(json.loads(SCHEMA.read_text(encoding="utf-8"))).validate(log)


def _github_unescape(text: str) -> str:
    return text.replace("%2C", ",").replace("%3A", ":").replace("%0A", "\n").replace("%0D", "\r").replace("%25", "%")


def test_github_annotations_escape_as_the_runner_specifies():
    src = Source("a%b:c,d\re\nf.sh", "--x\n")
    d = _diagnostic(src, 0, 3, "100% a:b, c\r\nd %0A", help="h%2C")
    line = renderer("github")([d])
    assert line.count("\n") == 1
    head, message = line.rstrip("\n").split("::", 2)[1:]
    props = dict(p.split("=", 1) for p in head.split(" ", 1)[1].split(","))
    assert props["file"] == "a%25b%3Ac%2Cd\\x0de\\x0af.sh"
    assert _github_unescape(props["file"]) == visible(src.path)
    assert message == "100%25 a:b, c\\x0d\\x0ad %250A%0Ahelp: h%252C"
    assert _github_unescape(message) == visible(d.message) + "\nhelp: " + d.help


# ---------------------------------------------------------------------------
# Files read only as a launch's reference: located, never echoed
# ---------------------------------------------------------------------------


class ReferencedSource(Source):
    """A Source as sgllint builds it for a file only a launch referenced.
    A property (not a plain class attribute) so it stays False whether or not
    `Source` itself declares and sets ``echo``."""

    @property
    def echo(self) -> bool:
        return False

    @echo.setter
    def echo(self, value: bool) -> None:
        pass


def test_a_referenced_files_text_is_located_but_never_shown():
    secret = "s3cr3t-t0ken-value"
    referenced = ReferencedSource("conf/server.yaml", f"api-key: {secret}\nport: 1\n")
    launch = Source("serve.sh", "python -m sglang.launch_server --config conf/server.yaml\n")
    k = referenced.text.index(secret)
    own = _diagnostic(referenced, k, k + len(secret), "bad value", help="see the docs")
    linked = _diagnostic(launch, 31, 39, "from the config", related=[Related(Span(referenced, k, k + len(secret)), "set here")])
    for fmt in FORMATS:
        out = renderer(fmt)([own, linked])
        assert secret not in out and "t0ken" not in out, fmt
    full = renderer("full")([own, linked])
    assert "conf/server.yaml:1:10: SGL101 error: bad value" in full
    assert "   = note: set here (conf/server.yaml:1:10)" in full
    assert "1 | python -m sglang.launch_server --config conf/server.yaml" in full  # the launch's own frame stays
    # the SARIF/GitLab fingerprint does not hash the hidden text either
    other = ReferencedSource("conf/server.yaml", "api-key: another-value\nport: 1\n")
    k2 = other.text.index("another-value")
    fp = lambda d: json.loads(renderer("sarif")([d]))["runs"][0]["results"][0]["partialFingerprints"]  # noqa: E731
    assert fp(own) == fp(_diagnostic(other, k2, k2 + len("another-value"), "bad value"))


# ---------------------------------------------------------------------------
# Property: random hostile diagnostics through every format
# ---------------------------------------------------------------------------

HOSTILE_ALPHABET = st.one_of(
    st.characters(codec=None, exclude_categories=()),
    st.sampled_from(list(EVERY_CHARACTER_CLASS)),
)
hostile_text = st.text(HOSTILE_ALPHABET, max_size=40)


@st.composite
def hostile_diagnostics(draw):
    sources = [
        (ReferencedSource if draw(st.booleans()) else Source)(draw(hostile_text) or "f", draw(st.text(HOSTILE_ALPHABET, max_size=300)))
        for _ in range(draw(st.integers(1, 3)))
    ]

    def span():
        src = draw(st.sampled_from(sources))
        a = draw(st.integers(0, len(src.text)))
        return Span(src, a, draw(st.integers(a, len(src.text))))

    out = []
    for _ in range(draw(st.integers(0, 6))):
        related = [Related(span(), draw(hostile_text)) for _ in range(draw(st.integers(0, 2)))]
        fix = Fix(draw(hostile_text), (Edit(span(), draw(hostile_text)),), "safe") if draw(st.booleans()) else None
        severity = draw(st.sampled_from(list(Severity)))
        out.append(Diagnostic("SGL101", "unknown-flag", severity, draw(hostile_text), span(), related, draw(hostile_text), fix))
    return sorted(out, key=Diagnostic.sort_key)


@settings(max_examples=200, deadline=None, database=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(diags=hostile_diagnostics(), limit=st.integers(0, 3))
def test_hostile_diagnostics_render_safely_in_every_format(diags, limit):
    for fmt in FORMATS:
        out = renderer(fmt, limit)(diags)
        out.encode("utf-8")
        if fmt in TEXT_FORMATS:
            assert not RAW_CONTROL.search(out), (fmt, RAW_CONTROL.search(out))
            continue
        parsed = _parse_machine(fmt, out)
        if fmt == "junit":
            assert not NOT_XML.search(out)
        else:
            assert not RAW_CONTROL.search(out.replace("\n", " ")), fmt
        if fmt in ("json", "json-lines"):
            assert len(parsed) == len(diags)  # every finding, whatever the cap
