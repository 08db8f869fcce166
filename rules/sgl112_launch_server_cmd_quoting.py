"""Quotes inside a `launch_server_cmd("...")` string reach SGLang verbatim.

## What it does
Finds words of a `launch_server_cmd(...)` command string (from `sglang.utils`,
used in SGLang's notebooks and docs) that start or end with a quote
character.

## Why is this bad?
`launch_server_cmd` does not run a shell: it replaces backslashes with spaces
and splits on whitespace (`str.split()`), so quotes are not removed and
quoted values with spaces are cut into pieces. `--model-path "org/model"`
makes SGLang look for a model literally named `"org/model"` (with the quote
characters), and `--json-model-override-args '{"a": 1}'` arrives as two words,
which argparse rejects.

## Example
```python
from sglang.utils import launch_server_cmd

server_process, port = launch_server_cmd(
    'python3 -m sglang.launch_server --model-path "Qwen/Qwen2.5-7B-Instruct" --host 0.0.0.0'
)
```

## Use instead
```python
from sglang.utils import launch_server_cmd

server_process, port = launch_server_cmd(
    "python3 -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct --host 0.0.0.0"
)
```

## References
- `sglang/utils.py`: `launch_server_cmd` and `execute_shell_command`
  (`command.replace("\\\n", " ").replace("\\", " ")`, then `split()`), 0.4.x–0.5.23.
"""

from sgllint.model.kinds import HintKind
from sgllint.model.rule import ERROR, Invalid, Rule, Valid

IMPORT = "from sglang.utils import launch_server_cmd\n\n"


class LaunchServerCmdQuoting(Rule):
    code = "SGL112"
    name = "launch-server-cmd-quoting"
    severity = ERROR

    VALID = [
        Valid.py(IMPORT + 'launch_server_cmd("python3 -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct --port 30000")\n'),
        Valid.py(
            "import subprocess\n\n"
            "subprocess.run('python3 -m sglang.launch_server --model-path \"Qwen/Qwen2.5-7B-Instruct\"', shell=True)\n"
        ),
    ]
    INVALID = [
        Invalid.py(
            IMPORT + "launch_server_cmd('python3 -m sglang.launch_server --model-path \"Qwen/Qwen2.5-7B-Instruct\"')\n",
            at='"Qwen/Qwen2.5-7B-Instruct"',
            message="quote characters",
        ),
    ]

    def check(self, launch):
        open_quote = None
        for hint in launch.site.hints:
            if hint.kind is not HintKind.LAUNCH_SERVER_CMD_QUOTE or hint.span is None:
                continue
            word = str(hint.value)
            if open_quote and word.endswith(open_quote) and not word.startswith(open_quote):
                open_quote = None
                continue  # the closing half of a value already reported
            quote = word[0] if word[:1] in "'\"" else word[-1]
            split = not (word[:1] in "'\"" and word.endswith(word[0]) and len(word) > 1)
            open_quote = quote if split and word[:1] in "'\"" else None
            detail = (
                "the quoted value is split at its spaces into several words"
                if split
                else f"SGLang receives {word} with the quote characters"
            )
            yield self.diagnostic(
                hint.span,
                f"launch_server_cmd does not use a shell: {detail}",
                help="remove the quotes; for values with spaces (JSON), build the argv with subprocess instead",
                launch=launch,
            )
