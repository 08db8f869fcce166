"""Python extractor: find SGLang server launches in Python source.

The file is parsed with libcst (never imported or run). Its statements are
walked in order by a small abstract interpreter (`_py_flow`) that knows what
each name holds at each call, and every call is checked against the launch
forms SGLang code uses:

- keyword launches: ``sglang.Engine(...)``, ``sglang.Runtime(...)``,
  ``ServerArgs(...)`` (keys are ServerArgs fields; ``**d`` of a dict built
  in the file is followed);
- argv launches: ``subprocess.Popen/run/...([...])``, ``os.execvp``,
  ``asyncio.create_subprocess_exec`` whose words hold a launcher, and
  ``popen_launch_server(model, url, timeout, other_args=[...])``;
- command strings: ``os.system``, ``shell=True`` (handed to the shell
  extractor) and ``launch_server_cmd("...")``, split exactly as SGLang
  splits it;
- Hydra overrides (``...engine_kwargs.sglang.attention_backend=triton``) in
  lists and strings.

Calls are recognised through the file's imports, so an ``Engine`` from
another library is not a launch. Spans point at the literals as written;
values that cannot be known are `Unresolved`, and arguments that may hide
more arguments make the launch opaque.
"""

from __future__ import annotations

import re

from sgllint.formats.python.commands import HYDRA_MARKER
from sgllint.formats.python.depth import nesting_problem
from sgllint.formats.python.parse import _LaunchCalls, _Lines, _ast_parse, _comments, _import_libcst, _parse, _parse_quietly, _point, _python_syntax_error, _reduce
from sgllint.formats.python.positions import _Context
from sgllint.model.facts import ContextHint, FileFacts, ParseProblem, Source, Span
from sgllint.model.kinds import HintKind

__all__ = ["extract"]

#: a file without any of these cannot hold a launch: it is not even parsed
_PREFILTER = re.compile(r"sglang|ServerArgs|Engine\s*\(|launch_server|popen_launch_server")
#: a launch call, an aliased import of one, or a launcher inside a string;
#: a file without any is parsed (for its comments) but never walked, so it
#: never pays for positions
_CANDIDATE = re.compile(
    r"\b(?:Engine|Runtime|ServerArgs|popen_launch_server|launch_server_cmd)(?:\s*\(|\s+as\s)"
    r"|sglang\.launch_server|sglang_router\.launch_(?:server|router)|sglang serve|sglang[\"']"
    r"|dynamo\.sglang|sglang generate|sglang-router"
)


def extract(source: Source) -> FileFacts:
    """All launches, comments and parse problems of one Python file."""
    facts = FileFacts(source, "python")
    if not _PREFILTER.search(source.text):
        return facts
    libcst = _import_libcst()
    if libcst is None:
        facts.problems.append(ParseProblem(Span(source, 0, 0), "Python files need libcst: pip install libcst"))
        return facts
    deep = nesting_problem(source.text)
    if deep is not None:  # before any parser: libcst's native recursion would kill the process
        facts.problems.append(ParseProblem(_point(source, deep[0]), deep[1]))
        return facts
    lines = _Lines(source)
    facts.comments = _comments(source.text)
    has_calls = _CANDIDATE.search(source.text) is not None
    has_hydra = HYDRA_MARKER.search(source.text) is not None
    if not (has_calls or has_hydra):
        # nothing to look at: CPython's parser (20-50x faster than libcst)
        # proves the file parses; libcst only locates a syntax error
        if _python_syntax_error(lines.parsed) is None:
            return facts
        _parse(libcst, lines, facts)
        return facts  # positions are never computed
    tree = _ast_parse(lines.parsed)
    calls = None
    if tree is not None:
        try:
            calls = _LaunchCalls(tree, lines.parsed)
        except RecursionError:
            calls = None
        if calls is not None and not calls.any and not has_hydra:
            # CPython's parser proves that no call can launch: the file is
            # what a file without a candidate is, libcst never runs
            return facts
    module = None
    if lines._to_original is None and tree is not None:
        reduced, _ = _reduce(source.text, tree, calls)
        if reduced is not None:
            module = _parse_quietly(libcst, reduced)
            if module is not None:
                lines.parsed = reduced  # same lines, same columns: offsets stay exact
    if module is None:
        module = _parse(libcst, lines, facts)
    if module is None:
        return facts
    # the ast of the parsed text has the reduced text's top-level lines
    _find_launches(_Context(source, lines, module, tree, calls), module, facts, has_calls, has_hydra)
    facts.sites.sort(key=lambda s: (s.span.start, s.span.end))
    if facts.sites and "patch" in source.text:
        _mark_patched_sglang(source, facts)
    return facts


#: a name (``_patched_sglang``, ``apply_sglang_patch``) or a string naming a
#: patch file of SGLang (``"patches/sglang/v0.5.14/capture.patch"``)
_PATCH_NAME = re.compile(r"(?i)sglang\w*patch|patch\w*sglang")
_PATCH_FILE = re.compile(r"(?i)sglang[^\n]*\.(?:patch|diff)\b|patch(?:es)?/[^\n]*sglang")


def _mark_patched_sglang(source: Source, facts: FileFacts) -> None:
    """A file whose code checks for or applies a patched SGLang (a name such
    as ``_patched_sglang``, a ``patches/sglang/...patch`` path in a string;
    never a comment or a docstring) launches a patched SGLang: its parser
    may have options the release lacks. Each launch gets a
    ``patched-sglang`` hint at the first such word, as the shell extractor
    gives one."""
    import io
    import tokenize

    starts = [0]
    for line in source.text.split("\n"):  # the lines tokenize reads
        starts.append(starts[-1] + len(line) + 1)
    statement_start = (tokenize.NEWLINE, tokenize.NL, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING)
    previous = tokenize.NEWLINE
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source.text).readline):
            kind, previous = previous, tok.type if tok.type != tokenize.COMMENT else previous
            if tok.type == tokenize.NAME and "sglang" in tok.string.lower():
                m = _PATCH_NAME.search(tok.string)
            elif tok.type == tokenize.STRING and kind not in statement_start:  # a docstring is prose
                m = _PATCH_FILE.search(tok.string)
            else:
                continue
            if m is None:
                continue
            at = starts[tok.start[0] - 1] + tok.start[1]
            hint = ContextHint(HintKind.PATCHED_SGLANG, m.group(), Span(source, at + m.start(), at + m.end()))
            for site in facts.sites:
                site.hints.append(hint)
            return
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return


def _find_launches(ctx: "_Context", module, facts: FileFacts, calls: bool, hydra: bool) -> None:
    # imported on first use: the engine imports this module for every .py file
    from sgllint.formats.python.flow import Interpreter
    from sgllint.formats.python.hydra import scan_hydra_overrides
    from sgllint.formats.python.launches import LaunchBuilder

    if calls:
        Interpreter(ctx, LaunchBuilder(ctx, facts).on_call).run(module)
    if hydra:
        scan_hydra_overrides(ctx, module, facts)
