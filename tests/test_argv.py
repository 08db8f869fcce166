"""sgllint's argv semantics against CPython's real argparse.

A parser is rebuilt from each catalog (same option strings, nargs and
actions as SGLang's) and both are asked the same questions: which option a
word resolves to, whether it is ambiguous or unrecognized, and which words
become values.
"""

from __future__ import annotations

import argparse
import contextlib
import io

import pytest

from sgllint import catalog as catalogs
from sgllint.model.facts import LaunchSite, Source, Span, Token, Unresolved
from sgllint.model.kinds import ArgProblem, Resolution
from sgllint.resolve.argv import classify, resolve_argv

SAMPLE_VERSIONS = [v for v in ("0.4.10", "0.5.4", "0.5.10", "0.5.19", "0.5.23") if v in catalogs.versions()] or [
    catalogs.latest()
]


def real_parser(cat: catalogs.Catalog) -> argparse.ArgumentParser:
    # a fixed usage line: formatting the real one on every error would dominate the run
    parser = argparse.ArgumentParser(prog="sglang serve", usage="sglang serve [options]", add_help=False)
    for opt in cat.options:
        if opt.action == "help":  # matched like any flag; printing help would only cost time
            parser.add_argument(*opt.strings, dest="help", action="store_const", const=True)
            continue
        if opt.action == "boolean_optional":
            positive = [s for s in opt.strings if not s.startswith("--no-")]
            parser.add_argument(*positive, dest=opt.dest, action=argparse.BooleanOptionalAction)
            continue
        if not opt.takes_value:
            parser.add_argument(*opt.strings, dest=opt.dest, action="store_const", const=True)
            continue
        nargs = opt.nargs
        parser.add_argument(*opt.strings, dest=opt.dest, nargs=nargs)
    return parser


def argparse_verdict(parser: argparse.ArgumentParser, word: str):
    """('ok', dest) | ('ambiguous', None) | ('unknown', None)"""
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        try:
            ns, extras = parser.parse_known_args([word])
        except SystemExit:
            text = err.getvalue()
            if "ambiguous option" in text:
                return ("ambiguous", None)
            if "expected" in text or "argument" in text:
                return ("ok", "needs-value")
            return ("error", text)
    if extras:
        return ("unknown", None)
    set_dests = [k for k, v in vars(ns).items() if v is not None and v is not False]
    return ("ok", set_dests[0] if set_dests else None)


def _site(words: list[str]) -> LaunchSite:
    text = " ".join(words)
    src = Source("t.sh", text)
    tokens, pos = [], 0
    for w in words:
        tokens.append(Token(w, Span(src, pos, pos + len(w))))
        pos += len(w) + 1
    whole = Span(src, 0, len(text))
    return LaunchSite(src, whole, "python -m sglang.launch_server", whole, "argv", tokens=tokens)


@pytest.mark.parametrize("version", SAMPLE_VERSIONS)
def test_every_prefix_resolves_like_argparse(version):
    cat = catalogs.load(version)
    parser = real_parser(cat)
    # every prefix that stops at a word boundary, one character short of
    # it, or one short of the whole option: where ambiguity can change
    prefixes = set()
    for s in cat.long_strings():
        cuts = {i for i, c in enumerate(s) if c == "-" and i > 2} | {len(s), len(s) - 1}
        for i in cuts:
            prefixes.update(p for p in (s[:i], s[: i - 1]) if len(p) > 2)
    prefixes |= {"--tp", "--pp", "--quant", "--mem-fraction", "--speculative-algo", "--cuda-graph-max-bs", "--nope"}
    mismatches = []
    for word in sorted(prefixes):
        mine = classify(word, cat)
        real = argparse_verdict(parser, word)
        if real[0] == "ambiguous":
            ok = mine is not None and mine[0] is Resolution.AMBIGUOUS
        elif real[0] == "unknown":
            ok = mine is not None and mine[0] is Resolution.UNRECOGNIZED
        else:
            ok = mine is not None and mine[0] in (Resolution.EXACT, Resolution.PREFIX)
        if not ok:
            mismatches.append((word, mine, real))
    assert not mismatches, mismatches[:20]


def test_documented_abbreviations_0_5_23():
    """sglang.md §1.6: resolved and ambiguous prefixes in 0.5.23."""
    cat = catalogs.load("0.5.23")
    assert classify("--tp", cat)[:2] == (Resolution.PREFIX, "--tp-size")
    assert classify("--mem-fraction", cat)[:2] == (Resolution.PREFIX, "--mem-fraction-static")
    assert classify("--speculative-algo", cat)[:2] == (Resolution.PREFIX, "--speculative-algorithm")
    for word in ("--pp", "--quant", "--cuda-graph-max-bs"):
        assert classify(word, cat)[0] is Resolution.AMBIGUOUS, word


def test_cuda_graph_max_bs_exact_before_0_5_20():
    if "0.5.19" not in catalogs.versions():
        pytest.skip("no 0.5.19 catalog")
    assert classify("--cuda-graph-max-bs", catalogs.load("0.5.19"))[0] is Resolution.EXACT


def test_values_and_nargs():
    cat = catalogs.load("0.5.23")
    args = resolve_argv(
        _site(["--model-path", "m", "--tp=2", "--cuda-graph-bs-decode", "1", "2", "4", "--enable-metrics", "--port", "-1"]),
        cat,
    )
    by = {a.field: a for a in args}
    assert by["model_path"].value == "m"
    assert by["tp_size"].value == 2 and by["tp_size"].resolution is Resolution.PREFIX
    assert by["tp_size"].value_span.text == "2"
    assert by["cuda_graph_bs_decode"].value == [1, 2, 4]
    assert by["cuda_graph_bs_decode"].value_span.text == "1 2 4"
    assert by["enable_metrics"].value is True
    assert by["port"].value == -1  # negative numbers are values


def test_last_occurrence_wins_and_duplicates_kept():
    cat = catalogs.load("0.5.23")
    site = _site(["--model-path", "m", "--port", "1", "--port", "2"])
    from sgllint.model.facts import Launch

    launch = Launch(site, resolve_argv(site, cat), None)
    assert len(launch.occurrences("port")) == 2
    assert launch.value("port") == 2


def test_unresolved_values_are_not_judged():
    cat = catalogs.load("0.5.23")
    src = Source("t.sh", "--tp-size $TP --attention-backend=$B")
    tokens = [
        Token("--tp-size", Span(src, 0, 9)),
        Token(Unresolved("$TP", "variable"), Span(src, 10, 13)),
        Token(Unresolved("--attention-backend=$B", "variable", "--attention-backend="), Span(src, 14, 36)),
    ]
    whole = Span(src, 0, 36)
    site = LaunchSite(src, whole, "python -m sglang.launch_server", whole, "argv", tokens=tokens)
    args = resolve_argv(site, cat)
    assert [a.field for a in args] == ["tp_size", "attention_backend"]
    assert all(a.problem is None for a in args)
    assert args[1].flag_span.text == "--attention-backend"


def test_store_true_with_word_after_is_unexpected_value():
    cat = catalogs.load("0.5.23")
    args = resolve_argv(_site(["--model-path", "m", "--enable-metrics", "false"]), cat)
    metrics = [a for a in args if a.field == "enable_metrics"][0]
    assert metrics.problem is ArgProblem.UNEXPECTED_VALUE
    assert metrics.extra[0].value == "false"


def test_sglang_serve_positional_model_and_model_type():
    cat = catalogs.load("0.5.23")
    site = _site(["Qwen/Qwen2.5-7B", "--model-type", "llm", "--port", "1"])
    site.entry = "sglang serve"
    args = resolve_argv(site, cat)
    assert args[0].field == "model_path" and args[0].value == "Qwen/Qwen2.5-7B"
    assert [a.field for a in args] == ["model_path", "port"]
