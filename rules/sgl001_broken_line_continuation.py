r"""A `\` followed by a space or a comment ends the command: the next lines never reach the server.

## What it does
Finds a line continuation backslash that is followed by a space, a tab or a
comment instead of the end of the line, inside an SGLang launch.

## Why is this bad?
In the shell, `\` only continues a line when it is the very last character.
`\ ` escapes the space instead: the launch ends at that line (with a stray
`' '` argument that SGLang rejects as an unrecognized argument), and the
following lines run as a separate command (`--tp-size: command not found`).
The server either fails to start or starts without the flags you wrote below
the break, which is easy to miss in a long script.

## Example
```sh
python -m sglang.launch_server \
  --model-path Qwen/Qwen2.5-7B-Instruct \ 
  --tp-size 2
```

## Use instead
```sh
python -m sglang.launch_server \
  --model-path Qwen/Qwen2.5-7B-Instruct \
  --tp-size 2
```

## References
- Bash manual, "Escape Character": a backslash-newline pair is a line continuation.
"""

from sgllint.model.diagnostic import Edit, Fix
from sgllint.model.rule import ERROR, Invalid, Rule, Valid


class BrokenLineContinuation(Rule):
    code = "SGL001"
    name = "broken-line-continuation"
    severity = ERROR

    VALID = [
        Valid.sh(
            """
            python -m sglang.launch_server \\
              --model-path Qwen/Qwen2.5-7B-Instruct \\
              --tp-size 2  # a comment after the last line is fine
            """
        ),
    ]
    INVALID = [
        Invalid.sh(
            "python -m sglang.launch_server \\\n  --model-path Qwen/Qwen2.5-7B-Instruct \\ \n  --tp-size 2 --port 30000\n",
            at=("\\", 2),
            message="--tp-size 2 --port 30000",
            fix='python -m sglang.launch_server \\\n  --model-path Qwen/Qwen2.5-7B-Instruct \\\n  --tp-size 2 --port 30000\n',
        ),
        Invalid.sh(
            "python -m sglang.launch_server \\\n  --model-path Qwen/Qwen2.5-7B-Instruct \\  # model\n  --mem-fraction-static 0.8\n",
            at=("\\", 2),
        ),
    ]

    def check(self, launch):
        severed = launch.site.severed
        if severed is None:
            return
        lost = " ".join(str(t.value) for t in severed.lost)
        if lost:
            message = f"this '\\' does not continue the line, so {lost} never reach the server"
        else:
            message = "this '\\' does not continue the line: the command ends here"
        related = [(severed.lost[0].span.cover(severed.lost[-1].span), "run as a separate command")] if severed.lost else []
        fix = None
        if severed.trailing is not None and severed.trailing.end > severed.trailing.start:
            fix = Fix("delete the spaces after the backslash", (Edit(severed.trailing, ""),), "safe")
        yield self.diagnostic(
            severed.backslash,
            message,
            help="delete the spaces or the comment after the backslash; a line continuation must end the line",
            related=related,
            fix=fix,
            launch=launch,
        )
