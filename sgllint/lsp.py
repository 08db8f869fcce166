"""``sgllint lsp``: a language server over stdio (pygls 2.x).

* Diagnostics for every supported format on open and save, and on change
  after a per-document debounce (`DEBOUNCE_SECONDS`, or the client's
  ``initializationOptions.debounce``); ranges in the negotiated position
  encoding (UTF-16 unless the client offers UTF-8/UTF-32), built by
  `sgllint.lsp_convert`, the code ``--output-format lsp`` uses too.
* Code actions: the rule's fix (normalised as ``--fix`` applies it),
  "ignore SGLxxx on this line" and "ignore SGLxxx in this file" in the
  format's comment syntax. A suppression action is offered only when
  linting the edited text shows that it silences the finding.
* Hover on a flag: its help, type, choices, default and the launch's
  context (SGLang release, architecture, GPU).
* Completion of flag names (after ``--``) and of a flag's choices inside a
  launch.
* Confinement: the server reads only the documents the client gave it and
  files inside the workspace folders (plus sgllint's and Python's own
  installation). An audit hook (`sys.addaudithook`) refuses every other
  ``open`` and directory listing once the workspace is known, so a launch's
  ``--config /etc/...``, a model path or a project file above the workspace
  is never read, whatever code path asks for it; documents the client did
  not open are never read from disk.
"""

from __future__ import annotations

import asyncio
import errno
import io
import logging
import os
import re
import site
import sys
import sysconfig
import tokenize
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from sgllint import __version__
from sgllint.diagnostic import Diagnostic
from sgllint.lsp_convert import (
    UTF16,
    offset_to_position,
    path_to_uri,
    position_to_offset,
    span_to_range,
    to_lsp_diagnostic,
    uri_to_path,
)
from sgllint.model import Source, Span

log = logging.getLogger("sgllint.lsp")

DEBOUNCE_SECONDS = 0.3
LANGUAGE_FORMATS = {
    "shellscript": "shell",
    "sh": "shell",
    "bash": "shell",
    "python": "python",
    "yaml": "yaml",
    "toml": "toml",
    "dockerfile": "dockerfile",
    "markdown": "markdown",
}
HASH_COMMENT_FORMATS = ("shell", "python", "yaml", "toml", "dockerfile")


# ---------------------------------------------------------------------------
# Workspace confinement
# ---------------------------------------------------------------------------


class Confinement:
    """Which paths the server may read: the workspace folders and the
    directories Python and sgllint are installed in. ``check`` is the audit
    hook; it is active once `activate` gave it the workspace."""

    def __init__(self) -> None:
        self.roots: tuple[str, ...] = ()
        self.active = False
        self.refused: list[str] = []  # for the log, bounded
        here = Path(__file__).resolve().parent
        system = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix, str(here), str(here.parent / "rules")}
        for key in ("stdlib", "platstdlib", "purelib", "platlib"):
            try:
                system.add(sysconfig.get_paths()[key])
            except KeyError:
                pass
        try:
            system.update(site.getsitepackages())
            system.add(site.getusersitepackages())
        except Exception:  # a virtualenv's site module may lack these
            pass
        self.system = tuple(sorted({os.path.realpath(d) for d in system if d}))
        self._installed = False

    def activate(self, roots) -> None:
        self.roots = tuple(sorted({os.path.realpath(r) for r in roots if r}))
        self.active = True
        if not self._installed:
            sys.addaudithook(self.check)
            self._installed = True

    def allowed(self, path) -> bool:
        try:
            real = os.path.realpath(os.fsdecode(path))
        except (TypeError, ValueError):
            return True  # not a path (a descriptor)
        return any(real == d or real.startswith(d.rstrip(os.sep) + os.sep) for d in self.roots + self.system)

    def check(self, event: str, args) -> None:
        if not self.active or event not in ("open", "os.listdir", "os.scandir"):
            return
        path = args[0] if args else None
        if path is None or isinstance(path, int):
            return
        if not self.allowed(path):
            if len(self.refused) < 100:
                self.refused.append(os.fsdecode(path))
            log.warning("not reading %s: outside the workspace", os.fsdecode(path))
            raise PermissionError(errno.EACCES, "outside the sgllint lsp workspace", os.fsdecode(path))


CONFINEMENT = Confinement()


@dataclass
class DocState:
    uri: str
    path: str
    fmt: Optional[str]
    result: object = None  # engine.FileResult of the last lint
    version: Optional[int] = None


class SgllintServer(LanguageServer):
    def __init__(self):
        super().__init__("sgllint", __version__, text_document_sync_kind=types.TextDocumentSyncKind.Incremental)
        self.docs: dict[str, DocState] = {}
        self.pending: dict[str, asyncio.TimerHandle] = {}
        self.debounce = DEBOUNCE_SECONDS
        self._options: dict[str, object] = {}

    # -- helpers -------------------------------------------------------------

    def refresh_roots(self) -> None:
        """Follow workspace folders added or removed after initialize."""
        if not CONFINEMENT.active:
            return
        try:
            roots = [uri_to_path(f.uri) for f in self.workspace.folders.values()]
            if self.workspace.root_path:
                roots.append(self.workspace.root_path)
        except Exception:
            return
        if roots:
            CONFINEMENT.roots = tuple(sorted({os.path.realpath(r) for r in roots}))

    @property
    def encoding(self) -> str:
        try:
            enc = self.workspace.position_encoding
        except Exception:  # before initialize
            enc = None
        return str(getattr(enc, "value", enc) or UTF16)

    def options_for(self, path: str):
        from sgllint.config import Config, ConfigError, discover
        from sgllint.engine import Options

        directory = Path(path).parent
        key = str(directory)
        if key not in self._options:
            try:
                if CONFINEMENT.active and not CONFINEMENT.allowed(directory):
                    config = Config(root=Path.cwd())  # a document outside the workspace: no discovery
                else:
                    config = discover(directory if directory.is_dir() else Path("."))
            except (ConfigError, OSError) as e:
                log.warning("sgllint config: %s", e)
                config = Config(root=Path.cwd())
            self._options[key] = Options(config=config)
        return self._options[key]

    def lint(self, uri: str, text: Optional[str] = None):
        from sgllint.engine import lint_source
        from sgllint.extract import detect_format

        if uri not in self.workspace.text_documents:
            self.docs.pop(uri, None)
            return None  # only documents the client gave are linted
        self.refresh_roots()
        doc = self.workspace.get_text_document(uri)
        state = self.docs.get(uri)
        if state is None:
            path = uri_to_path(uri)
            fmt = detect_format(path, doc.source[:256]) or LANGUAGE_FORMATS.get(doc.language_id or "")
            state = self.docs[uri] = DocState(uri, path, fmt)
        text = doc.source if text is None else text
        state.version = doc.version
        if state.fmt is None:
            state.result = None
            return None
        state.result = lint_source(state.path, text, self.options_for(state.path), state.fmt)
        return state.result

    def own(self, state: DocState, d: Diagnostic) -> bool:
        return d.span.source.path == state.path

    def uri_for(self, state: DocState):
        return lambda path: state.uri if path == state.path else path_to_uri(path)

    def publish(self, uri: str) -> None:
        result = self.lint(uri)
        state = self.docs.get(uri)
        diagnostics = []
        if result is not None and state is not None:
            enc, uri_for = self.encoding, self.uri_for(state)
            diagnostics = [to_lsp_diagnostic(d, enc, uri_for) for d in result.diagnostics if self.own(state, d)]
        params = types.PublishDiagnosticsParams(
            uri=uri,
            version=state.version if state is not None else None,
            diagnostics=[CONVERTER.structure(x, types.Diagnostic) for x in diagnostics],
        )
        self.text_document_publish_diagnostics(params)

    def schedule(self, uri: str) -> None:
        handle = self.pending.pop(uri, None)
        if handle is not None:
            handle.cancel()
        loop = asyncio.get_running_loop()
        self.pending[uri] = loop.call_later(self.debounce, self._fire, uri)

    def _fire(self, uri: str) -> None:
        self.pending.pop(uri, None)
        if uri in self.docs:
            try:
                self.publish(uri)
            except Exception:  # never kill the server on one document
                log.exception("linting %s failed", uri)


def _converter():
    from lsprotocol.converters import get_converter

    return get_converter()


CONVERTER = _converter()
server = SgllintServer()


# ---------------------------------------------------------------------------
# Document sync
# ---------------------------------------------------------------------------


@server.feature(types.INITIALIZE)
def on_initialize(ls: SgllintServer, params: types.InitializeParams):
    opts = params.initialization_options
    if isinstance(opts, dict) and isinstance(opts.get("debounce"), (int, float)):
        ls.debounce = max(0.0, float(opts["debounce"]))
    uris = [params.root_uri] + [f.uri for f in params.workspace_folders or ()]
    roots = [uri_to_path(u) for u in uris if u and u.startswith("file:")]
    if not uris[0] and params.root_path:
        roots.append(params.root_path)
    CONFINEMENT.activate(roots)


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: SgllintServer, params: types.DidOpenTextDocumentParams):
    ls.docs.pop(params.text_document.uri, None)
    ls.publish(params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: SgllintServer, params: types.DidChangeTextDocumentParams):
    ls.schedule(params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_SAVE)
def did_save(ls: SgllintServer, params: types.DidSaveTextDocumentParams):
    handle = ls.pending.pop(params.text_document.uri, None)
    if handle is not None:
        handle.cancel()
    ls._options.clear()  # a saved config file may change the options
    ls.publish(params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: SgllintServer, params: types.DidCloseTextDocumentParams):
    uri = params.text_document.uri
    handle = ls.pending.pop(uri, None)
    if handle is not None:
        handle.cancel()
    ls.docs.pop(uri, None)
    ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))


# ---------------------------------------------------------------------------
# Code actions
# ---------------------------------------------------------------------------


def _current(ls: SgllintServer, uri: str):
    """The document's state and a fresh lint of its current text (None for
    a document the client did not open: it is never read from disk)."""
    if uri not in ls.workspace.text_documents:
        return None
    state = ls.docs.get(uri)
    doc = ls.workspace.get_text_document(uri)
    if state is None or state.result is None or state.version != doc.version:
        ls.lint(uri)
        state = ls.docs.get(uri)
    return state


def _line_end(text: str, offset: int) -> int:
    for i in range(offset, len(text)):
        if text[i] in "\r\n":
            return i
    return len(text)


def _line_start(text: str, offset: int) -> int:
    return max(text.rfind("\n", 0, offset), text.rfind("\r", 0, offset)) + 1


def _trailing_comment_edit(text: str, offset: int, comment: str, fmt: str) -> Optional[tuple[int, int, str]]:
    start, end = _line_start(text, offset), _line_end(text, offset)
    kept = text[start:end].rstrip()
    if kept.endswith("\\"):
        return None  # a comment after a continuation would end the command
    pos = start + len(kept)
    new = text[:pos] + f"  {comment}" + text[end:]
    if fmt == "python" and not _comment_token_at(new, text[:pos].count("\n") + 1):
        return None  # the line ends inside a string literal
    return pos, end, f"  {comment}"


def _comment_token_at(text: str, line: int) -> bool:
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.COMMENT and tok.start[0] == line and "sgllint:" in tok.string:
                return True
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return False
    return False


def _line_above_edit(text: str, line_offset: int, comment: str) -> tuple[int, int, str]:
    start = _line_start(text, line_offset)
    indent = re.match(r"[ \t]*", text[start:]).group(0)
    newline = "\r\n" if "\r\n" in text else "\n"
    return start, start, f"{indent}{comment}{newline}"


def _instruction_start(text: str, offset: int) -> int:
    """Dockerfile: the first line of the instruction holding ``offset``."""
    start = _line_start(text, offset)
    while start > 0:
        prev = _line_start(text, start - 1)
        prev_line = text[prev : start].rstrip("\r\n")
        if prev_line.rstrip().endswith("\\") or prev_line.lstrip().startswith("#"):
            start = prev
            continue
        break
    # skip comment lines at the top of what we walked over
    while text[start:].lstrip(" \t").startswith("#"):
        start = _line_end(text, start) + 1
    return start


def _fence_start(text: str, offset: int) -> Optional[int]:
    """Markdown: the line of the fence that opens the block holding ``offset``."""
    start = _line_start(text, offset)
    while start > 0:
        start = _line_start(text, start - 1)
        if re.match(r"[ \t]*(```|~~~)", text[start:]):
            return start
    return None


def _file_top(text: str, fmt: str) -> int:
    pos = 0
    if text.startswith("#!"):
        pos = _line_end(text, 0) + 1
    if fmt == "python":
        while re.match(r"#.*coding[:=]", text[pos : _line_end(text, pos)]):
            pos = _line_end(text, pos) + 1
    if fmt == "dockerfile":
        while re.match(r"#\s*\w+\s*=", text[pos : _line_end(text, pos)]):
            pos = _line_end(text, pos) + 1
    return min(pos, len(text))


def _silences(ls: SgllintServer, state: DocState, text: str, edit: tuple[int, int, str], d: Diagnostic) -> bool:
    from sgllint.engine import lint_source

    start, end, content = edit
    new = text[:start] + content + text[end:]
    before = sum(1 for x in state.result.diagnostics if x.code == d.code and ls.own(state, x))
    after = lint_source(state.path, new, ls.options_for(state.path), state.fmt)
    return sum(1 for x in after.diagnostics if x.code == d.code and x.span.source.path == state.path) < before


def ignore_line_edit(ls: SgllintServer, state: DocState, d: Diagnostic) -> Optional[tuple[int, int, str]]:
    text = d.span.source.text
    fmt = state.fmt
    candidates = []
    if fmt == "markdown":
        fence = _fence_start(text, d.span.start)
        if fence is not None:
            candidates.append(_line_above_edit(text, fence, f"<!-- sgllint: ignore[{d.code}] -->"))
    else:
        comment = f"# sgllint: ignore[{d.code}]"
        candidates.append(_trailing_comment_edit(text, d.span.start, comment, fmt))
        if d.launch_span is not None and d.launch_span.source is d.span.source:
            candidates.append(_trailing_comment_edit(text, d.launch_span.start, comment, fmt))
        if fmt == "dockerfile":
            candidates.append(_line_above_edit(text, _instruction_start(text, d.span.start), comment))
    for edit in candidates:
        if edit is not None and _silences(ls, state, text, edit, d):
            return edit
    return None


def ignore_file_edit(ls: SgllintServer, state: DocState, d: Diagnostic) -> Optional[tuple[int, int, str]]:
    text = d.span.source.text
    newline = "\r\n" if "\r\n" in text else "\n"
    if state.fmt == "markdown":
        comment = f"<!-- sgllint: ignore-file[{d.code}] -->"
    else:
        comment = f"# sgllint: ignore-file[{d.code}]"
    top = _file_top(text, state.fmt)
    edit = (top, top, comment + newline)
    return edit if _silences(ls, state, text, edit, d) else None


def _text_edit(source: Source, edit: tuple[int, int, str], encoding: str) -> types.TextEdit:
    rng = span_to_range(Span(source, edit[0], edit[1]), encoding)
    return types.TextEdit(range=CONVERTER.structure(rng, types.Range), new_text=edit[2])


@server.feature(
    types.TEXT_DOCUMENT_CODE_ACTION,
    types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]),
)
def code_action(ls: SgllintServer, params: types.CodeActionParams):
    from sgllint.fixes import fix_spans

    uri = params.text_document.uri
    state = _current(ls, uri)
    if state is None or state.result is None:
        return []
    enc = ls.encoding
    doc = ls.workspace.get_text_document(uri)
    source = Source(state.path, doc.source)
    lo = position_to_offset(source, params.range.start.line, params.range.start.character, enc)
    hi = position_to_offset(source, params.range.end.line, params.range.end.character, enc)
    actions = []
    for d in state.result.diagnostics:
        if not ls.own(state, d) or d.span.end < lo or d.span.start > hi:
            continue
        lsp_diag = CONVERTER.structure(to_lsp_diagnostic(d, enc, ls.uri_for(state)), types.Diagnostic)
        if d.fix is not None:
            changes: dict[str, list] = {}
            for src, edit in fix_spans(d.fix, lambda p: state.fmt if p == state.path else None):
                target = ls.uri_for(state)(src.path)
                changes.setdefault(target, []).append(_text_edit(src, edit, enc))
            actions.append(
                types.CodeAction(
                    title=f"{d.fix.message} ({d.code})" + (" [unsafe]" if d.fix.applicability == "unsafe" else ""),
                    kind=types.CodeActionKind.QuickFix,
                    diagnostics=[lsp_diag],
                    edit=types.WorkspaceEdit(changes=changes),
                    is_preferred=d.fix.applicability == "safe",
                )
            )
        line_edit = ignore_line_edit(ls, state, d)
        if line_edit is not None:
            actions.append(
                types.CodeAction(
                    title=f"Ignore {d.code} on this line",
                    kind=types.CodeActionKind.QuickFix,
                    diagnostics=[lsp_diag],
                    edit=types.WorkspaceEdit(changes={uri: [_text_edit(d.span.source, line_edit, enc)]}),
                )
            )
        file_edit = ignore_file_edit(ls, state, d)
        if file_edit is not None:
            actions.append(
                types.CodeAction(
                    title=f"Ignore {d.code} in this file",
                    kind=types.CodeActionKind.QuickFix,
                    diagnostics=[lsp_diag],
                    edit=types.WorkspaceEdit(changes={uri: [_text_edit(d.span.source, file_edit, enc)]}),
                )
            )
    return actions


# ---------------------------------------------------------------------------
# Hover and completion
# ---------------------------------------------------------------------------


def _arg_at(result, offset: int):
    for launch in result.launches:
        for arg in launch.args:
            spans = [arg.flag_span] + ([arg.value_span] if arg.value_span is not None else [])
            for s in spans:
                if s.source.path == result.path and s.start <= offset < max(s.end, s.start + 1):
                    return launch, arg, s
    return None


def hover_markdown(launch, arg) -> str:
    opt = arg.option
    ctx = launch.context
    lines = []
    if opt is None:
        lines.append(f"**{arg.spelling}**: not an option of SGLang {ctx.catalog.version}")
    else:
        lines.append(f"**{opt.name}**" + (f" (`{arg.spelling}`)" if arg.spelling != opt.name else ""))
        if opt.help:
            lines += ["", opt.help]
        lines.append("")
        facts = [f"type: `{'flag' if opt.is_flag else opt.type}`"]
        if opt.nargs not in (None, 0):
            facts.append(f"nargs: `{opt.nargs}`")
        if opt.choices:
            facts.append("choices: " + ", ".join(f"`{c}`" for c in opt.choices))
        facts.append(f"default: `{opt.default!r}`")
        if opt.deprecated is not None:
            facts.append("deprecated" + (f": use `{opt.deprecated.replacement}`" if opt.deprecated.replacement else ""))
        lines.append(" · ".join(facts))
        other = [s for s in opt.strings if s != opt.name]
        if other:
            lines.append("also: " + ", ".join(f"`{s}`" for s in other))
    lines += ["", "---", "Launch context:"]
    lines += [f"- {line}" for line in ctx.lines()]
    return "\n".join(lines)


@server.feature(types.TEXT_DOCUMENT_HOVER)
def hover(ls: SgllintServer, params: types.HoverParams):
    uri = params.text_document.uri
    state = _current(ls, uri)
    if state is None or state.result is None:
        return None
    doc = ls.workspace.get_text_document(uri)
    source = Source(state.path, doc.source)
    offset = position_to_offset(source, params.position.line, params.position.character, ls.encoding)
    found = _arg_at(state.result, offset)
    if found is None:
        return None
    launch, arg, span = found
    rng = CONVERTER.structure(span_to_range(span, ls.encoding), types.Range)
    return types.Hover(
        contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=hover_markdown(launch, arg)),
        range=rng,
    )


@server.feature(types.TEXT_DOCUMENT_COMPLETION, types.CompletionOptions(trigger_characters=["-", " ", "="]))
def completion(ls: SgllintServer, params: types.CompletionParams):
    uri = params.text_document.uri
    state = _current(ls, uri)
    if state is None or state.result is None or not state.result.launches:
        return None
    doc = ls.workspace.get_text_document(uri)
    source = Source(state.path, doc.source)
    offset = position_to_offset(source, params.position.line, params.position.character, ls.encoding)
    launch = None
    for lc in state.result.launches:
        if lc.span.source.path == state.path and lc.span.start <= offset <= lc.span.end + 1:
            launch = lc
    if launch is None:
        return None
    text = doc.source
    start = offset
    while start > 0 and re.match(r"[\w\-.=]", text[start - 1]):
        start -= 1
    word = text[start:offset]
    catalog = launch.context.catalog
    items = []
    if word.startswith("--") and "=" not in word:
        for s in catalog.long_strings():
            if s.startswith(word):
                opt = catalog.by_string[s]
                if opt.deprecated is not None:
                    continue
                items.append(types.CompletionItem(label=s, kind=types.CompletionItemKind.Property, detail=(opt.help or "")[:120]))
    else:
        # the flag before the cursor: --flag <cursor> or --flag=<cursor>
        prefix = word.split("=", 1)[1] if "=" in word else word
        flag = word.split("=", 1)[0] if "=" in word else None
        if flag is None:
            m = re.search(r"(--[\w-]+)[\s\"',]+$", text[:start])
            flag = m.group(1) if m else None
        opt = catalog.by_string.get(flag or "")
        if opt is not None and opt.choices:
            for c in opt.choices:
                if str(c).startswith(prefix):
                    items.append(types.CompletionItem(label=str(c), kind=types.CompletionItemKind.EnumMember))
    return types.CompletionList(is_incomplete=False, items=items) if items else None


def serve() -> None:
    logging.basicConfig(level=logging.WARNING)
    server.start_io()
