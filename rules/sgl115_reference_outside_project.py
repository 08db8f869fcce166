"""A file the launch references lies outside the project, so sgllint did not read it.

## What it does
Reports a launch that names a file outside the project root: a `--config`
file (`/etc/sglang/server.yaml`, `../../shared/server.yaml`, or a symlink
in the tree that leads out of it), or a model directory given by a relative
path leading out of the project (`../../models/my-finetune`) whose
`config.json` would have decided the model's architecture. sgllint does not
open such a file, so the launch is checked without it: the config file's
arguments are unknown, and so is the architecture. An absolute model path
(`/models/my-finetune`) names the serving machine's disk and is not
reported; `--show-context` says when it was left unread.

The project root is the nearest directory, from the linted path upward,
holding `.git`, `.sgllint.toml`, `sgllint.toml` or a `pyproject.toml` with
a `[tool.sgllint]` table; without one, the directory given on the command
line. `--project-root DIR` sets it.

## Why is this bad?
It is not a fault in the launch: a container's `--config
/etc/sglang/server.yaml` is fine, which is why this is an info. It says
what sgllint did not check. The linted tree may be a stranger's pull
request, and a path it names could lead anywhere on the machine that runs
sgllint (a CI runner's secrets): reading it would put its lines in the
report, and `--fix` would edit it. So a file outside the project is read
only when you allow it, and `--fix` never writes outside the project.

## Example
```sh
python -m sglang.launch_server --config /etc/sglang/server.yaml
```

## Use instead
Keep the config file in the repository, or allow the directory when the
file is yours (`sgllint check --allow-outside /etc/sglang`, or
`allow-outside = ["/etc/sglang"]` in `[tool.sgllint]`):
```sh
python -m sglang.launch_server --config deploy/server.yaml
```

## References
- sgllint's threat model: the project root and `--allow-outside`
  (`sgllint/resolve/project.py`). SGLang reads the file at `prepare_server_args`
  (`sglang/srt/server_args.py`, 0.5.3+) on the machine the server starts on.
"""

import os

from sgllint.model.kinds import HintKind
from sgllint.model.rule import INFO, Invalid, Rule, Valid


class ReferenceOutsideProject(Rule):
    code = "SGL115"
    name = "reference-outside-project"
    severity = INFO

    VALID = [
        Valid.sh("python -m sglang.launch_server --config deploy/server.yaml"),
        Valid.sh("python -m sglang.launch_server --model-path /models/DeepSeek-V3 --tp-size 8"),
        Valid.sh("python -m sglang.launch_server --model-path /models/my-finetune --tp-size 2"),
        Valid.yaml(
            """
            command: [python, -m, sglang.launch_server, --config, server.yaml]
            """
        ),
    ]
    INVALID = [
        Invalid.sh("python -m sglang.launch_server --config /etc/sglang/server.yaml", at="/etc/sglang/server.yaml"),
        Invalid.sh(
            "python -m sglang.launch_server --model-path ../../models/my-finetune --tp-size 2",
            at="../../models/my-finetune",
            message="config.json",
        ),
        Invalid.yaml(
            """
            command: [python, -m, sglang.launch_server, --config, /etc/sglang/server.yaml]
            """,
            at="/etc/sglang/server.yaml",
        ),
        Invalid.dockerfile(
            """
            FROM lmsysorg/sglang:v0.5.23
            CMD ["python", "-m", "sglang.launch_server", "--config", "../../secrets/server.yaml"]
            """,
            at='"../../secrets/server.yaml"',
        ),
    ]

    def check(self, launch):
        hints = [h for h in launch.site.hints if h.kind is HintKind.OUTSIDE_PROJECT]
        for hint in hints:
            yield self.diagnostic(
                hint.span,
                f"the config file '{hint.value}' is outside the project: not read; "
                "pass --allow-outside PATH to include it",
                help="its arguments are unknown, so the launch is checked without them",
                launch=launch,
            )
        for hint in launch.context.outside:
            if os.path.isabs(os.path.expanduser(str(hint.value))):
                continue
            yield self.diagnostic(
                hint.span,
                f"the model directory '{hint.value}' is outside the project: its config.json is not read; "
                "pass --allow-outside PATH to include it",
                help="the model's architecture is unknown; or name it with # sgllint: arch=...",
                launch=launch,
            )
