"""A file that launches SGLang could not be parsed.

## What it does
Reports a syntax error in a file that mentions SGLang (a shell script with an
unterminated quote, a Python file that does not parse, malformed YAML), at the
place the parser gave up. The rest of the file and every other file in the run
are still linted as far as they can be.

## Why is this bad?
A launcher that does not parse never starts the server, and the launches
inside it cannot be checked, so other problems may hide behind this one.

## Example
```sh
python -m sglang.launch_server --model-path "Qwen/Qwen2.5-7B-Instruct
```

## Use instead
```sh
python -m sglang.launch_server --model-path "Qwen/Qwen2.5-7B-Instruct"
```

## References
- The format's own parser (tree-sitter-bash for shell).
"""

from sgllint.model.rule import ERROR, Invalid, Rule, Valid, WARNING


class ParseError(Rule):
    code = "SGL000"
    name = "parse-error"
    severity = ERROR

    VALID = [
        Valid.sh(
            """
            #!/bin/bash
            if [ -n "$TP" ]; then
              python -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct --tp-size "$TP"
            fi
            """
        ),
    ]
    INVALID = [
        Invalid.sh(
            """
            #!/bin/bash
            if [ -n "$TP" ]; then
              python -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct --tp-size "$TP"
            """,
            at="if",
        ),
    ]

    def check_file(self, facts):
        # a code block that does not parse is a flaw of the documentation,
        # not of a file that runs: a warning (issue 18)
        severity = WARNING if facts.format == "markdown" else None
        for problem in facts.problems:
            yield self.diagnostic(
                problem.span,
                f"cannot parse this {facts.format} file: {problem.message}",
                help="fix the syntax error; launches after it may not have been checked",
                severity=severity,
            )
