"""Text that documentation and templates leave for the reader to fill in:
shared by the shell, Markdown and YAML readers without importing each other."""

import re

#: ``<model-path>``-style placeholders in documentation
PLACEHOLDER_RE = re.compile(r"<[A-Za-z_][\w.:/-]*>")
#: Python format fields a document leaves for the reader (``{model}``,
#: ``{args.tp}``, ``%(tp)s``); ``${x}`` and brace expansion ``{a,b}`` are shell
FORMAT_FIELD_RE = re.compile(r"(?<![$\w{])\{[A-Za-z_][\w.]*\}(?!\})|%\([A-Za-z_]\w*\)[sdifr]")
#: words documentation writes for "more arguments here": ``...``, ``…`` and
#: ``[other options]`` standing alone (a shell test ``[ -f x ]`` has a blank
#: after its bracket, a glob ``[ab]*`` more text after it)
MORE_ARGS_RE = re.compile(r"(?<!\S)(?:\.{3,}|\u2026|\[[A-Za-z][\w.-]*(?: [A-Za-z][\w.-]*)*\])(?!\S)")
