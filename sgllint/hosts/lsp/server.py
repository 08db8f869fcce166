"""``sgllint lsp``: a language server over stdio (pygls 2.x).

* Diagnostics for every supported format on open and save, and on change
  with an adaptive debounce: the first edit after a pause is linted at once;
  inside a burst of edits the pending lint is cancelled and rescheduled
  after twice the document's last lint time (`MIN_DEBOUNCE_SECONDS` at
  least, never more than `DEBOUNCE_SECONDS` or the client's
  ``initializationOptions.debounce``); ranges in the negotiated position
  encoding (UTF-16 unless the client offers UTF-8/UTF-32), built by
  `sgllint.output.lsp_convert`, the code ``--output-format lsp`` uses too.
* Code actions: the rule's fix (normalised as ``--fix`` applies it),
  "ignore SGLxxx on this line" and "ignore SGLxxx in this file" in the
  format's comment syntax. A suppression action is offered only when
  linting the edited text shows that it silences the finding.
* Hover on a flag: its help, type, choices, default and the launch's
  context (SGLang release, architecture, GPU).
* Completion of flag names (after ``--``) and of a flag's choices inside a
  launch.
* Confinement (`sgllint.hosts.lsp.confine`), failing closed: the server reads
  the documents the client gave it and, once ``initialize`` established the
  workspace without doubt, files inside its folders (plus sgllint's and
  Python's own libraries). An audit hook refuses every other ``open`` and
  directory listing from the start, so a launch's ``--config /etc/...``, a
  model path or a project file above the workspace is never read, whatever
  code path asks for it. Odd workspace folders, a failed or repeated
  ``initialize``, or a document outside every folder: open buffers only.
* Robust transport (`sgllint.hosts.lsp.frames`): a malformed frame or message is
  logged and skipped, a request among them answered with an error; one bad
  message never stops the server. At most `MAX_PUBLISHED` diagnostics per
  document reach the editor, then one summary. A document larger than
  ``max-file-size`` is not linted: it gets SGL002, as from the CLI.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams, JsonRpcInvalidRequest
from pygls.io_ import StdoutWriter
from pygls.lsp.server import LanguageServer

from sgllint import __version__
from sgllint.formats import registry
from sgllint.model.diagnostic import Diagnostic
from sgllint.output.lsp_convert import (
    UTF16,
    path_to_uri,
    position_to_offset,
    span_to_range,
    to_lsp_diagnostic,
    uri_to_path,
)
from sgllint.hosts.lsp.confine import Confinement, NoWorkspace, UncertainWorkspace, workspace_roots
from sgllint.hosts.lsp.comments import _fence_start, _file_top, _instruction_start, _line_above_edit, _trailing_comment_edit
from sgllint.hosts.lsp.frames import FrameReader
from sgllint.model.facts import Source, Span

log = logging.getLogger("sgllint.hosts.lsp.server")

DEBOUNCE_SECONDS = 0.3
#: the shortest wait inside a burst of edits: a keystroke pause
MIN_DEBOUNCE_SECONDS = 0.02
#: the most diagnostics published for one document; the rest are counted in
#: one summary (a generated file can hold hundreds of thousands)
MAX_PUBLISHED = 1000
#: the most diagnostics one code-action request offers actions for (each
#: suppression action lints the document again to prove it works)
MAX_ACTION_DIAGNOSTICS = 25
#: the longest debounce a client may ask for, in seconds
MAX_DEBOUNCE_SECONDS = 10.0

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
        self.debounce = DEBOUNCE_SECONDS  # the longest wait after an edit
        self.last_change: dict[str, float] = {}  # uri -> loop time of its last didChange
        self.lint_cost: dict[str, float] = {}  # uri -> seconds its last publish took
        self._options: dict[str, object] = {}
        self.workspace_doubt: Optional[str] = None  # why nothing is read from disk
        self.initializes_seen = 0
        self.said: set[str] = set()  # notices shown once per session (`tell`)
        self.config_problems: dict[str, dict] = {}  # config file URI -> its SGL003 diagnostic

    # -- transport -----------------------------------------------------------

    def start_io(self, stdin=None, stdout=None) -> None:
        """Serve over stdio with `FrameReader` instead of pygls' reader."""
        self.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))
        stream = stdin or sys.stdin.buffer
        reader = FrameReader(getattr(stream, "read1", stream.read))
        try:
            asyncio.run(self._serve(reader))
        except BrokenPipeError:
            log.error("the connection to the client is lost: stopping")
        except (KeyboardInterrupt, SystemExit):
            pass
        finally:
            self.shutdown()

    async def _serve(self, reader: FrameReader) -> None:
        loop = asyncio.get_running_loop()
        while True:
            body = await loop.run_in_executor(self.thread_pool, reader.next_body)
            if body is None:
                return
            self.dispatch(body)

    def dispatch(self, body: bytes) -> None:
        """Hand one message to pygls. A message that is not a JSON-RPC 2.0
        object, or whose params do not fit its method, is logged and skipped;
        when it is a request, the client gets an error reply, not silence."""
        try:
            data = json.loads(body)
        except (ValueError, RecursionError) as e:
            log.warning("skipping a message that is not JSON: %s", e)
            return
        if not isinstance(data, dict):
            log.warning("skipping a message that is a JSON %s, not an object", type(data).__name__)
            return
        if data.get("jsonrpc") != "2.0":
            log.warning("skipping a message that is not JSON-RPC 2.0")
            self._reply_error(data, JsonRpcInvalidRequest())
            return
        if data.get("method") == "initialize" and "id" in data:
            self.initializes_seen += 1
            if self.initializes_seen > 1:
                self.doubt("initialize was sent twice")
        try:
            message = self.protocol.structure_message(data)
        except Exception as e:
            log.warning("skipping %r: its parameters do not fit (%s)", data.get("method"), e)
            self._reply_error(data, e if isinstance(e, JsonRpcException) else JsonRpcInvalidParams())
            return
        try:
            self.protocol.handle_message(message)
        except Exception:
            log.exception("handling %r failed", data.get("method"))

    def _reply_error(self, data: dict, error: JsonRpcException) -> None:
        msg_id = data.get("id")
        if "method" in data and isinstance(msg_id, (int, str)) and not isinstance(msg_id, bool):
            self.protocol._send_response(msg_id, error=error.to_response_error())

    # -- helpers -------------------------------------------------------------

    def establish_workspace(self, root_uri, root_path, folder_uris) -> None:
        """Let the server read the workspace the client named, if it names
        one without doubt; any doubt stays for the whole session."""
        if self.workspace_doubt is None:
            try:
                roots = workspace_roots(root_uri, root_path, list(folder_uris))
            except NoWorkspace as e:
                log.warning("%s: linting open documents only, reading nothing from disk", e)
                CONFINEMENT.set_roots(())
            except UncertainWorkspace as e:
                self.doubt(str(e))
            except Exception as e:  # whatever went wrong: fail closed
                self.doubt(f"the workspace folders cannot be read: {e!r}")
            else:
                CONFINEMENT.set_roots(roots)
                log.info("workspace: %s", ", ".join(roots))
        self._options.clear()

    def doubt(self, reason: str) -> None:
        """From now on: open buffers only, nothing read from the workspace."""
        if self.workspace_doubt is None:
            self.workspace_doubt = reason
            log.warning("%s: linting open documents only, reading nothing from disk", reason)
        CONFINEMENT.set_roots(())
        self._options.clear()

    @property
    def encoding(self) -> str:
        try:
            enc = self.workspace.position_encoding
        except Exception:  # before initialize
            enc = None
        return str(getattr(enc, "value", enc) or UTF16)

    def options_for(self, path: str):
        from sgllint.engine.config import Config, ConfigError, discover
        from sgllint.engine.pipeline import Options

        directory = Path(path).parent
        key = str(directory)
        if key not in self._options:
            try:
                if not CONFINEMENT.in_workspace(directory):
                    config = Config(root=Path.cwd())  # a document outside the workspace: no discovery
                else:
                    config = discover(directory if directory.is_dir() else Path("."))
            except (ConfigError, OSError) as e:
                log.warning("sgllint config: %s", e)
                config = Config(root=Path.cwd())
                self.config_problem(directory, e)
            self._options[key] = Options(config=config)
        return self._options[key]

    def lint(self, uri: str, text: Optional[str] = None):
        from sgllint.formats.registry import detect_format, format_of_language

        if uri not in self.workspace.text_documents:
            self.docs.pop(uri, None)
            return None  # only documents the client gave are linted
        doc = self.workspace.get_text_document(uri)
        state = self.docs.get(uri)
        if state is None:
            path = uri_to_path(uri)
            fmt = detect_format(path, doc.source[:256]) or format_of_language(doc.language_id or "")
            state = self.docs[uri] = DocState(uri, path, fmt)
        text = doc.source if text is None else text
        state.version = doc.version
        if state.fmt is None:
            state.result = None
            return None
        state.result = self.too_large(state, text) or self.lint_text(state, text)
        return state.result

    def too_large(self, state: DocState, text: str):
        """SGL002 for a document larger than ``max-file-size`` (UTF-8
        bytes), as ``sgllint check`` reports the file; None otherwise."""
        from sgllint.engine.pipeline import not_read_result
        from sgllint.resolve.safe_read import NotRead, NotReadReason

        options = self.options_for(state.path)
        limit = options.config.max_file_size
        if len(text) * 4 <= limit:
            return None  # at most four bytes a character
        size = len(text.encode("utf-8", "surrogatepass"))
        if size <= limit:
            return None
        return not_read_result(state.path, state.fmt, NotRead(NotReadReason.TOO_LARGE, size=size, limit=limit), options)

    def lint_text(self, state: DocState, text: str):
        """``text`` linted as the document's; a document outside every
        workspace folder (or not a file) gets no file read on its behalf."""
        from sgllint.engine.pipeline import lint_source
        from sgllint.resolve.project import forget

        forget()  # project roots and pins may have changed since the last lint
        inside = state.uri.startswith("file:") and CONFINEMENT.in_workspace(state.path)
        with CONFINEMENT.buffers_only(not inside):
            return lint_source(state.path, text, self.options_for(state.path), state.fmt)

    def own(self, state: DocState, d: Diagnostic) -> bool:
        return d.span.source.path == state.path

    def uri_for(self, state: DocState):
        return lambda path: state.uri if path == state.path else path_to_uri(path)

    def config_problem(self, directory: Path, error: Exception) -> None:
        """A configuration error: a window message (once) and SGL003 on the
        configuration file, shown until a save makes it load again."""
        from sgllint.engine.config import error_position, find_config_file
        from sgllint.model.rule import CONFIG_ERROR

        self.tell(f"configuration error (linting with the defaults): {error}", types.MessageType.Error)
        try:
            path = find_config_file(directory)
            text = path.read_text(encoding="utf-8", errors="replace") if path is not None else None
        except (OSError, PermissionError):
            return
        if path is None or text is None:
            return
        line, start, end = error_position(text, str(error))
        uri = path_to_uri(str(path))
        self.config_problems[uri] = {
            "range": {"start": {"line": line, "character": start}, "end": {"line": line, "character": end}},
            "severity": 1,
            "source": "sgllint",
            "code": CONFIG_ERROR.code,
            "codeDescription": {"href": CONFIG_ERROR.url()},
            "message": str(error),
        }
        if uri not in self.docs:  # an open config file gets it with its own diagnostics
            self.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(uri=uri, diagnostics=[CONVERTER.structure(self.config_problems[uri], types.Diagnostic)])
            )

    def tell(self, message: str, kind=types.MessageType.Warning) -> None:
        """A ``window/showMessage`` notification, once per session."""
        if message not in self.said:
            self.said.add(message)
            self.window_show_message(types.ShowMessageParams(type=kind, message=f"sgllint: {message}"))

    def publish(self, uri: str) -> None:
        result = self.lint(uri)
        state = self.docs.get(uri)
        if result is not None:
            from sgllint.catalog.newer import notices, requested_versions

            for notice in notices(requested_versions([result])):
                self.tell(notice)
        diagnostics = []
        if result is not None and state is not None:
            diagnostics = self.published(state, [d for d in result.diagnostics if self.own(state, d)])
        if uri in self.config_problems:
            diagnostics.append(self.config_problems[uri])
        params = types.PublishDiagnosticsParams(
            uri=uri,
            version=state.version if state is not None else None,
            diagnostics=[CONVERTER.structure(x, types.Diagnostic) for x in diagnostics],
        )
        self.text_document_publish_diagnostics(params)

    def published(self, state: DocState, found: list[Diagnostic]) -> list[dict]:
        """The LSP diagnostics for ``found``: at most `MAX_PUBLISHED`, then
        one summary at the first one left out."""
        enc, uri_for = self.encoding, self.uri_for(state)
        shown = [to_lsp_diagnostic(d, enc, uri_for) for d in found[:MAX_PUBLISHED]]
        left_out = found[MAX_PUBLISHED:]
        if left_out:
            shown.append(
                {
                    "range": span_to_range(left_out[0].span, enc),
                    "severity": 3,
                    "source": "sgllint",
                    "message": f"{len(left_out)} more sgllint findings in this file are not shown "
                    f"(at most {MAX_PUBLISHED} per file); run `sgllint check` for all",
                }
            )
        return shown

    def schedule(self, uri: str) -> None:
        """Lint ``uri`` after an edit: at once after a pause, else cancel the
        stale pending lint and wait about twice what the last lint took."""
        handle = self.pending.pop(uri, None)
        if handle is not None:
            handle.cancel()
        loop = asyncio.get_running_loop()
        now = loop.time()
        previous = self.last_change.get(uri)
        self.last_change[uri] = now
        if previous is None or now - previous >= self.debounce:
            delay = 0.0
        else:
            delay = min(self.debounce, max(MIN_DEBOUNCE_SECONDS, 2 * self.lint_cost.get(uri, 0.0)))
        self.pending[uri] = loop.call_later(delay, self._fire, uri)

    def _fire(self, uri: str) -> None:
        self.pending.pop(uri, None)
        if uri in self.docs:
            start = time.perf_counter()
            try:
                self.publish(uri)
            except Exception:  # never kill the server on one document
                log.exception("linting %s failed", uri)
            self.lint_cost[uri] = time.perf_counter() - start


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
    debounce = opts.get("debounce") if isinstance(opts, dict) else None
    if isinstance(debounce, (int, float)) and not isinstance(debounce, bool) and math.isfinite(debounce):
        ls.debounce = min(max(0.0, float(debounce)), MAX_DEBOUNCE_SECONDS)
    folders = params.workspace_folders or ()
    ls.establish_workspace(params.root_uri, params.root_path, [getattr(f, "uri", f) for f in folders])


@server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
def did_change_folders(ls: SgllintServer, params: types.DidChangeWorkspaceFoldersParams):
    ls.establish_workspace(None, None, [f.uri for f in ls.workspace.folders.values()])


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
    for config_uri in list(ls.config_problems):  # shown again by the next lint if still broken
        del ls.config_problems[config_uri]
        ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=config_uri, diagnostics=[]))
    ls.publish(params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: SgllintServer, params: types.DidCloseTextDocumentParams):
    uri = params.text_document.uri
    handle = ls.pending.pop(uri, None)
    if handle is not None:
        handle.cancel()
    ls.docs.pop(uri, None)
    ls.last_change.pop(uri, None)
    ls.lint_cost.pop(uri, None)
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


#: one code-action request's proofs: (edit, code) -> whether the edit silences it
Proofs = dict[tuple, bool]


def _silences(ls: SgllintServer, state: DocState, text: str, edit: tuple[int, int, str], d: Diagnostic, proofs: Proofs) -> bool:
    """Whether ``edit`` silences ``d`` (some of its code's findings): a lint
    of the edited text, once per edit and code (findings on one line share
    their suppression comment)."""
    key = (edit, d.code)
    if key not in proofs:
        proofs[key] = _lint_proves_silenced(ls, state, text, edit, d)
    return proofs[key]


def _lint_proves_silenced(ls: SgllintServer, state: DocState, text: str, edit: tuple[int, int, str], d: Diagnostic) -> bool:
    start, end, content = edit
    new = text[:start] + content + text[end:]
    before = sum(1 for x in state.result.diagnostics if x.code == d.code and ls.own(state, x))
    after = ls.lint_text(state, new)
    return sum(1 for x in after.diagnostics if x.code == d.code and x.span.source.path == state.path) < before


def ignore_line_edit(ls: SgllintServer, state: DocState, d: Diagnostic, proofs: Proofs) -> Optional[tuple[int, int, str]]:
    text = d.span.source.text
    fmt = state.fmt
    candidates = []
    comment = registry.comment(fmt, f"sgllint: ignore[{d.code}]")
    if fmt == "markdown":
        fence = _fence_start(text, d.span.start)
        if fence is not None:
            candidates.append(_line_above_edit(text, fence, comment))
    else:
        candidates.append(_trailing_comment_edit(text, d.span.start, comment, fmt))
        if d.launch_span is not None and d.launch_span.source is d.span.source:
            candidates.append(_trailing_comment_edit(text, d.launch_span.start, comment, fmt))
        if fmt == "dockerfile":
            candidates.append(_line_above_edit(text, _instruction_start(text, d.span.start), comment))
    for edit in candidates:
        if edit is not None and _silences(ls, state, text, edit, d, proofs):
            return edit
    return None


def ignore_file_edit(ls: SgllintServer, state: DocState, d: Diagnostic, proofs: Proofs) -> Optional[tuple[int, int, str]]:
    text = d.span.source.text
    newline = "\r\n" if "\r\n" in text else "\n"
    comment = registry.comment(state.fmt, f"sgllint: ignore-file[{d.code}]")
    top = _file_top(text, state.fmt)
    edit = (top, top, comment + newline)
    return edit if _silences(ls, state, text, edit, d, proofs) else None


def _text_edit(source: Source, edit: tuple[int, int, str], encoding: str) -> types.TextEdit:
    rng = span_to_range(Span(source, edit[0], edit[1]), encoding)
    return types.TextEdit(range=CONVERTER.structure(rng, types.Range), new_text=edit[2])


@server.feature(
    types.TEXT_DOCUMENT_CODE_ACTION,
    types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]),
)
def code_action(ls: SgllintServer, params: types.CodeActionParams):
    from sgllint.engine.fixes import fix_spans

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
    proofs: Proofs = {}
    touched = [d for d in state.result.diagnostics if ls.own(state, d) and d.span.end >= lo and d.span.start <= hi]
    for d in touched[:MAX_ACTION_DIAGNOSTICS]:
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
        line_edit = ignore_line_edit(ls, state, d, proofs)
        if line_edit is not None:
            actions.append(
                types.CodeAction(
                    title=f"Ignore {d.code} on this line",
                    kind=types.CodeActionKind.QuickFix,
                    diagnostics=[lsp_diag],
                    edit=types.WorkspaceEdit(changes={uri: [_text_edit(d.span.source, line_edit, enc)]}),
                )
            )
        file_edit = ignore_file_edit(ls, state, d, proofs)
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
    if arg.field is not None:  # the value SGLang runs with (`sgllint explain`, issue 17)
        from sgllint.hosts.explain import hover_lines

        lines += ["", *hover_lines(launch, arg.field)]
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


@server.feature(types.TEXT_DOCUMENT_COMPLETION, types.CompletionOptions(trigger_characters=["-", " ", "=", '"', "(", ","]))
def completion(ls: SgllintServer, params: types.CompletionParams):
    from sgllint.hosts.lsp import complete as lsp_complete

    uri = params.text_document.uri
    state = _current(ls, uri)
    if state is None or state.result is None:
        return None
    doc = ls.workspace.get_text_document(uri)
    source = Source(state.path, doc.source)
    offset = position_to_offset(source, params.position.line, params.position.character, ls.encoding)
    launch = None
    for lc in state.result.launches:
        if lc.span.source.path == state.path and lc.span.start <= offset <= lc.span.end + 1:
            launch = lc
    text = doc.source
    if launch is not None:
        items = lsp_complete.in_launch(text, offset, state.fmt or "", launch.context.catalog)
    elif state.fmt == "python":
        items = lsp_complete.python_call(text, offset, _default_catalog(ls, state)) or []
    elif state.fmt == "yaml" and lsp_complete.looks_like_sglang_config(text):
        items = lsp_complete.yaml_config(text, offset, _default_catalog(ls, state))
    else:
        items = []
    kinds = {
        "flag": types.CompletionItemKind.Property,
        "field": types.CompletionItemKind.Field,
        "key": types.CompletionItemKind.Property,
        "choice": types.CompletionItemKind.EnumMember,
    }
    out = [
        types.CompletionItem(label=i.label, kind=kinds[i.kind], detail=i.detail or None, insert_text=i.insert)
        for i in items
    ]
    return types.CompletionList(is_incomplete=False, items=out) if out else None


def _default_catalog(ls: SgllintServer, state: DocState):
    """The catalog of the release configured for the document (else the
    newest) where no launch says which."""
    from sgllint import catalog as catalogs

    wanted = ls.options_for(state.path).config.sglang_version
    try:
        return catalogs.load(catalogs.resolve_version(wanted) if wanted else catalogs.latest())
    except catalogs.UnknownVersion:
        return catalogs.load(catalogs.latest())



def serve() -> None:
    logging.basicConfig(level=logging.WARNING)
    CONFINEMENT.start()  # nothing from disk until the workspace is established
    server.start_io()
