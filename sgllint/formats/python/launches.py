"""Launch calls found by the Python extractor, turned into `LaunchSite`s.

`LaunchBuilder.on_call` sees every call the interpreter (`_py_flow`) walks
past, with an evaluator for its scope, and recognises the launch forms by
the imported name the callee refers to.
"""

from __future__ import annotations

import re
from typing import Optional

from sgllint.formats.python.commands import (
    launch_server_cmd_words,
    posix_words,
    shell_script,
    split_env_words,
    starts_or_ends_with_quote,
    word_token,
)
from sgllint.formats.python.paths import Choices
from sgllint.formats.python.values import DictVal, ListVal, Scalar, Splat
from sgllint.model.launchers import find_launch, shell_c_script
from sgllint.model.facts import (
    ContextHint,
    EnvVar,
    FileFacts,
    Kwarg,
    LaunchSite,
    SourceMap,
    Span,
    Token,
    Unresolved,
)
from sgllint.model.kinds import HintKind, LaunchForm

_KEYWORD_ENTRIES = {"Engine": "sglang.Engine(...)", "Runtime": "sglang.Runtime(...)", "ServerArgs": "ServerArgs(...)"}
_SGLANG_CALLS = set(_KEYWORD_ENTRIES) | {"popen_launch_server", "launch_server_cmd"}
#: how each process-starting function takes its command
_PROCESS_CALLS = {
    "subprocess.run": "process",
    "subprocess.Popen": "process",
    "subprocess.call": "process",
    "subprocess.check_call": "process",
    "subprocess.check_output": "process",
    "subprocess.getoutput": "shell",
    "subprocess.getstatusoutput": "shell",
    "os.system": "shell",
    "os.popen": "shell",
    "asyncio.create_subprocess_shell": "shell",
    "os.execv": "exec_v",
    "os.execve": "exec_v",
    "os.execvp": "exec_v",
    "os.execvpe": "exec_v",
    "os.execl": "exec_l",
    "os.execlp": "exec_l",
    "os.execle": "exec_l",
    "os.execlpe": "exec_l",
    "asyncio.create_subprocess_exec": "exec_args",
}
#: popen_launch_server's parameters (sglang/test/test_utils.py)
_POPEN_LAUNCH_SERVER_PARAMS = ("model", "base_url", "timeout", "api_key", "other_args", "env")


class LaunchBuilder:
    """Turns launch calls into `LaunchSite`s."""

    def __init__(self, ctx, facts: FileFacts):
        self.ctx = ctx
        self.facts = facts
        self.source = ctx.source
        self._seen: set[int] = set()  # calls already turned into sites

    def on_call(self, call, ev) -> None:
        """The launch ``call`` makes, once per path through the branches
        that built its arguments (a path's launch has that path's words,
        so what one path gets wrong is found on it, and nothing is found
        that no path has)."""
        if id(call) in self._seen:
            return
        kind = _launch_kind(ev.qualname(call.func))
        if kind is None:
            return
        self._seen.add(id(call))
        picks = Choices()
        before = len(self.facts.sites)
        self._launch(call, ev.picking(picks), kind)
        combos = picks.combinations() if picks.met else None
        if not combos:
            return  # one path, or too many: the launch with the join of their arguments
        del self.facts.sites[before:]
        built = []
        for number, (combo, _) in enumerate(combos, 1):
            picks.fix(combo)
            self._launch(call, ev.picking(picks), kind)
            built.extend((number, site) for site in self.facts.sites[before:])
            del self.facts.sites[before:]
        seen: set = set()
        for number, site in built:
            key = _site_key(site)
            if key not in seen:  # paths that differ in what this call does not pass
                seen.add(key)
                site.hints.append(ContextHint(HintKind.BRANCH_PATH, number, site.entry_span))
                self.facts.sites.append(site)

    def _launch(self, call, ev, kind: str) -> None:
        if kind in _KEYWORD_ENTRIES:
            self._keyword_launch(call, ev, kind)
        elif kind == "popen_launch_server":
            self._popen_launch_server(call, ev)
        elif kind == "launch_server_cmd":
            self._launch_server_cmd(call, ev)
        else:
            self._process(call, ev, kind, ev.qualname(call.func))

    def _site(self, call, entry: str, form: LaunchForm) -> LaunchSite:
        span = self.ctx.span(call)
        return LaunchSite(self.source, span, entry, self.ctx.span(call.func), form)

    # -- keyword forms -------------------------------------------------------

    def _keyword_launch(self, call, ev, kind: str) -> None:
        site = self._site(call, _KEYWORD_ENTRIES[kind], LaunchForm.KWARGS)
        positional = 0
        for arg in call.args:
            if arg.keyword is not None:
                self._add_kwarg(site, arg.keyword.value, self.ctx.span(arg.keyword), ev.value(arg.value), arg.value)
            elif arg.star == "**":
                self._add_dict(site, ev, arg.value)
            elif arg.star == "*":
                site.opaque.append(f"*{self.ctx.code(arg.value)} passes positional arguments")
            else:
                self._add_positional(site, kind, positional, ev.value(arg.value), arg.value)
                positional += 1
        if kind == "Engine" and any(kw.name == "server_args" for kw in site.kwargs):
            return  # Engine(server_args=...) uses that ServerArgs (its own site) and nothing else
        site.kwargs = [kw for kw in site.kwargs if not (kind == "Runtime" and kw.name == "launch_timeout")]
        self.facts.sites.append(site)

    def _add_kwarg(self, site: LaunchSite, name: str, name_span: Span, value, node, only_if_field: bool = False) -> None:
        python_value, value_span = self._python_value(value, node)
        site.kwargs.append(Kwarg(name, python_value, name_span, value_span, only_if_field))

    def _add_dict(self, site: LaunchSite, ev, node) -> None:
        """``**d``: a dict built in the file is followed to its keys."""
        value = ev.value(node)
        if not isinstance(value, DictVal):
            site.opaque.append(f"**{self.ctx.code(node)} may hold any arguments")
            return
        for entry in value.entries:
            self._add_kwarg(site, entry.key, entry.key_span, entry.value, node, entry.only_if_field)
        site.opaque.extend(r for r in value.opaque if r not in site.opaque)

    def _add_positional(self, site: LaunchSite, kind: str, index: int, value, node) -> None:
        """ServerArgs' first field is model_path; Runtime(log_level,
        launch_timeout, ...); Engine takes keywords only."""
        names = {"ServerArgs": ("model_path",), "Runtime": ("log_level", "launch_timeout")}.get(kind, ())
        if index < len(names):
            python_value, value_span = self._python_value(value, node)
            site.kwargs.append(Kwarg(names[index], python_value, value_span, value_span))
        else:
            site.opaque.append(f"positional argument {self.ctx.code(node)}")

    def _python_value(self, value, node) -> tuple[object, Span]:
        """The Python value a keyword receives, and the span of its literal."""
        fallback = self.ctx.span(node)
        if isinstance(value, Scalar):
            return value.value, value.span or fallback
        span = getattr(value, "span", None) or fallback
        if isinstance(value, ListVal):
            splat = next((i for i in value.items if _is_splat(i)), None)
            if splat is not None:
                return Unresolved(span.text, splat.reason), span
            return [self._python_value(i, node)[0] for i in value.items], span
        if isinstance(value, DictVal):
            if value.opaque:
                return Unresolved(span.text, value.opaque[0]), span
            return {e.key: self._python_value(e.value, node)[0] for e in value.entries}, span
        return Unresolved(fallback.text, "not known statically"), fallback

    # -- popen_launch_server ---------------------------------------------------

    def _popen_launch_server(self, call, ev) -> None:
        """``popen_launch_server(model, base_url, timeout, api_key=None,
        other_args=[...], env={...})`` runs ``... --model-path MODEL
        *other_args`` (plus --host/--port it adds itself)."""
        args, starred = _bind_arguments(call, _POPEN_LAUNCH_SERVER_PARAMS)
        site = self._site(call, "popen_launch_server(...)", LaunchForm.ARGV)
        site.opaque.extend(f"*{self.ctx.code(n)} passes arguments" for n in starred)
        model = args.get("model")
        if model is not None:
            model_span = self.ctx.span(model)
            site.tokens.append(Token("--model-path", model_span))
            site.tokens.append(self._scalar_token(ev.value(model), model_span))
        other = args.get("other_args")
        if other is not None:
            self._add_argv_list(site, ev, other)
        if "env" in args:
            site.env = self._env_vars(ev, args["env"])
        self.facts.sites.append(site)

    def _add_argv_list(self, site: LaunchSite, ev, node) -> None:
        """The words of ``other_args`` (a list built in the file)."""
        value = ev.value(node)
        if isinstance(value, Scalar) and value.value is None:
            return
        if not isinstance(value, ListVal):
            site.opaque.append(f"{self.ctx.code(node)} is not known statically")
            return
        tokens, reasons = self._tokens(value.items, self.ctx.span(node))
        splats = {len(site.tokens) + i for i, _ in reasons}
        site.tokens.extend(tokens)
        _add_reasons(site, reasons)
        _add_reasons(site, _flag_position_unknowns(site.tokens, splats))

    # -- argv launches ---------------------------------------------------------

    def _process(self, call, ev, kind: str, qualname: str) -> None:
        """subprocess, os.exec*, asyncio: an argv list, or a command string
        when it goes through a shell."""
        positional = [a.value for a in call.args if a.keyword is None and not a.star]
        keywords = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
        if kind == "exec_args":
            items = []
            for a in call.args:
                if a.keyword is None:
                    items.extend(ev.splat(a.value) if a.star == "*" else [ev.value(a.value)])
            self._argv_launch(call, ev, items, keywords.get("env"), self.ctx.span(call))
            return
        if kind == "exec_v":
            if len(positional) >= 2:
                value = ev.value(positional[1])
                if isinstance(value, ListVal):
                    env = positional[2] if len(positional) > 2 else None
                    self._argv_launch(call, ev, list(value.items), env, self.ctx.span(positional[1]))
            return
        if kind == "exec_l":
            words = positional[1:-1] if qualname.endswith("e") else positional[1:]  # execle: env last
            self._argv_launch(call, ev, [ev.value(w) for w in words], None, self.ctx.span(call))
            return
        command = positional[0] if positional else keywords.get("args") or keywords.get("cmd")
        if command is None:
            return
        value = ev.value(command)
        if kind == "shell" or _is_true(ev, keywords.get("shell")):
            if isinstance(value, ListVal):  # Popen([script, ...], shell=True) runs the first item
                value = value.items[0] if value.items else None
            self._shell_command(call, ev, value, command)
        elif isinstance(value, ListVal):
            self._argv_launch(call, ev, list(value.items), keywords.get("env"), self.ctx.span(command))

    def _argv_launch(self, call, ev, items: list, env_node, where: Span) -> None:
        """A launch from argv words; ``where`` is the argument holding them
        (what a placeholder for unknown words points at)."""
        tokens, reasons = self._tokens(items, where)
        values = [t.value for t in tokens]
        match = find_launch(values)
        script_at = shell_c_script(values)
        if script_at is not None and (match is None or match.start > script_at):
            self._shell_command(call, ev, items[script_at], None)  # ["bash", "-c", "..."]
            return
        if match is None:
            return
        site = self._site(call, match.entry, LaunchForm.ARGV)
        site.tokens = tokens[match.args_start :]
        _add_reasons(site, [r for i, r in reasons if i >= match.args_start])
        splats = {i - match.args_start for i, _ in reasons}
        _add_reasons(site, _flag_position_unknowns(site.tokens, splats))
        site.env = _wrapper_env(tokens[: match.start])
        if env_node is not None:
            site.env.extend(self._env_vars(ev, env_node))
        self.facts.sites.append(site)

    def _tokens(self, items: list, fallback: Span) -> tuple[list[Token], list[tuple[int, str]]]:
        """Argv tokens of list items; a `Splat` becomes an unknown
        placeholder word, and its reason is returned with its index."""
        tokens: list[Token] = []
        reasons: list[tuple[int, str]] = []
        for item in items:
            if _is_splat(item):
                span = item.span or fallback
                reasons.append((len(tokens), item.reason))
                tokens.append(Token(Unresolved(span.text, item.reason), span))
            elif isinstance(item, Scalar):
                tokens.append(self._scalar_token(item, fallback))
            else:
                span = getattr(item, "span", None) or fallback
                tokens.append(Token(Unresolved(span.text, "not a string"), span))
        return tokens, reasons

    def _scalar_token(self, value, fallback: Span) -> Token:
        """The word Popen receives: ``str()`` of numbers and bools."""
        if not isinstance(value, Scalar):
            return Token(Unresolved(fallback.text, "not a string"), fallback)
        span = value.span or fallback
        v = value.value
        if isinstance(v, (Unresolved, str)):
            same_text = isinstance(v, str) and span.text == v
            value_map = value.text.value_map(self.source, span) if value.text is not None and not same_text else None
            return Token(v, span, value_map)
        return Token(str(v), span)

    def _env_vars(self, ev, node) -> list[EnvVar]:
        """``env={...}``: the entries the file can see (``**os.environ`` adds none)."""
        value = ev.value(node)
        if not isinstance(value, DictVal):
            return []
        out = []
        for entry in value.entries:
            python_value, value_span = self._python_value(entry.value, node)
            if not isinstance(python_value, (str, Unresolved)):
                python_value = str(python_value)
            out.append(EnvVar(entry.key, python_value, entry.key_span.cover(value_span), value_span))
        return out

    # -- command strings -------------------------------------------------------

    def _shell_command(self, call, ev, value, node) -> None:
        """``os.system(cmd)`` / ``shell=True``: the shell extractor reads
        the string; its sites get this call's span."""
        text = ev.as_str(value, node) if value is not None else None
        if text is None or "sglang" not in text.text:
            return
        script, offsets, env = shell_script(text)
        before = len(self.facts.sites)
        try:
            from sgllint.formats.shell.extractor import extract_embedded
        except ImportError:  # no shell extractor (tree-sitter missing): split like shlex
            self._posix_command(call, ev, text)
            return
        extract_embedded(script, SourceMap(self.source, 0, offsets), self.facts, env)
        for site in self.facts.sites[before:]:
            site.span = self.ctx.span(call)
            site.entry_span = self.ctx.span(call.func)
            site.tokens = [_unplaceholder(t, env) for t in site.tokens]
            site.opaque = [_restore_placeholders(r, env) for r in site.opaque]

    def _posix_command(self, call, ev, text) -> None:
        words = [ev.word_scalar(w, text.slice(a, b).span(self.source)) for w, a, b in posix_words(text)]
        self._argv_launch(call, ev, words, None, text.span(self.source))

    def _launch_server_cmd(self, call, ev) -> None:
        """``launch_server_cmd(command)``: SGLang replaces backslashes with
        spaces and calls ``str.split()`` (no shell quoting), taking leading
        ``KEY=VALUE`` words as environment variables."""
        args, _ = _bind_arguments(call, ("command", "host", "port"))
        node = args.get("command")
        text = ev.as_str(ev.value(node), node) if node is not None else None
        if text is None:
            return
        words = launch_server_cmd_words(text)
        env, argv = split_env_words(words, self.source)
        tokens = [word_token(w, self.source) for w in argv]
        match = find_launch([t.value for t in tokens])
        if match is None:
            return
        site = self._site(call, match.entry, LaunchForm.ARGV)
        site.tokens = tokens[match.args_start :]
        site.env = env
        for index, word in enumerate(words):
            if index < len(env):  # KEY=VALUE: the quotes stay in the value
                word = word.slice(len(env[index].name) + 1, len(word.text))
            if starts_or_ends_with_quote(word):
                span = word.span(self.source)
                site.hints.append(ContextHint(HintKind.LAUNCH_SERVER_CMD_QUOTE, word.text if word.known else span.text, span))
        _add_reasons(site, _flag_position_unknowns(site.tokens))
        self.facts.sites.append(site)


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------


def _site_key(site: LaunchSite) -> tuple:
    """What tells two paths' launches of one call apart."""
    return (
        site.entry,
        tuple((repr(t.value), t.span.start, t.span.end) for t in site.tokens),
        tuple((k.name, repr(k.value), k.name_span.start, k.value_span.start) for k in site.kwargs),
        tuple((e.name, repr(e.value), e.span.start) for e in site.env),
        tuple(site.opaque),
    )


def _launch_kind(qualname: Optional[str]) -> Optional[str]:
    """Which launch form a call's imported name is (None: not a launch)."""
    if qualname is None:
        return None
    parts = qualname.split(".")
    if "multimodal_gen" in parts:
        return None  # the diffusion server's own ServerArgs/Engine, not the LLM server's
    if parts[0] == "sglang":
        return parts[-1] if parts[-1] in _SGLANG_CALLS and len(parts) > 1 else None
    return _PROCESS_CALLS.get(qualname)


def _bind_arguments(call, params: tuple[str, ...]) -> tuple[dict, list]:
    """Map a call's arguments to parameter names (positional, then by
    keyword); starred arguments are returned apart."""
    bound: dict = {}
    starred = []
    index = 0
    for arg in call.args:
        if arg.star:
            starred.append(arg.value)
        elif arg.keyword is not None:
            bound[arg.keyword.value] = arg.value
        else:
            if index < len(params):
                bound[params[index]] = arg.value
            index += 1
    return bound, starred


def _is_splat(item) -> bool:
    return isinstance(item, Splat)


def _is_true(ev, node) -> bool:
    if node is None:
        return False
    value = ev.value(node)
    return getattr(value, "value", None) is True


def _add_reasons(site: LaunchSite, reasons) -> None:
    for reason in reasons:
        if isinstance(reason, tuple):
            reason = reason[1]
        if reason not in site.opaque:
            site.opaque.append(reason)


def _flag_position_unknowns(tokens: list[Token], skip: frozenset = frozenset()) -> list[str]:
    """An unknown word right after ``--flag`` is most likely its value; an
    unknown word anywhere else may be a flag, so the launch is opaque.
    ``skip``: indices of placeholders whose reason is already known."""
    reasons = []
    previous = None
    for index, tok in enumerate(tokens):
        v = tok.value
        if isinstance(v, Unresolved) and index not in skip and not v.known_prefix.startswith("-"):
            after_flag = isinstance(previous, str) and previous.startswith("-") and "=" not in previous and previous != "--"
            if not after_flag:
                reasons.append(f"{v.raw} is not known statically and may stand for flags")
        previous = v
    return reasons


def _wrapper_env(words: list[Token]) -> list[EnvVar]:
    """``["env", "A=1", "python", ...]``: the assignments ``env`` makes."""
    out = []
    if not words or not (isinstance(words[0].value, str) and words[0].value.rsplit("/", 1)[-1] == "env"):
        return out
    for tok in words[1:]:
        v = tok.value
        if isinstance(v, str) and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", v):
            name, _, value = v.partition("=")
            out.append(EnvVar(name, value, tok.span, tok.sub_span(len(name) + 1, len(v))))
    return out


def _unplaceholder(token: Token, env: dict) -> Token:
    """A word that held a stand-in ``${name}`` for a Python expression is
    described by the expression as written (``{port}``), not the stand-in."""
    v = token.value
    if isinstance(v, Unresolved) and v.raw != _restore_placeholders(v.raw, env):
        return Token(Unresolved(token.span.text, v.reason, v.known_prefix), token.span, token.value_map)
    return token


def _restore_placeholders(text: str, env: dict) -> str:
    for name, value in env.items():
        text = text.replace("${" + name + "}", value.raw)
    return text
