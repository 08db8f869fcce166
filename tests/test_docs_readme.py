"""The README shows what sgllint really does: every file it cites exists,
and its console example is the real output for the file it names."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_every_cited_repository_path_exists():
    cited = set(re.findall(r"(?<![\w/.-])((?:examples|docs|rules|tests|sgllint)/[\w./-]*[\w/])", README))
    assert cited, "the README cites no repository path?"
    missing = sorted(p for p in cited if not (ROOT / p).exists() and "NN" not in p)  # sgl2NN_: the template's placeholder
    assert missing == [], f"the README cites paths that do not exist: {missing}"


def test_console_example_is_real_output(run_cli):
    block = re.search(r"```console\n\$ (sgllint check \S+)\n(.*?)```", README, re.S)
    assert block is not None
    args = block.group(1).split()[1:]
    r = run_cli(*args, "--no-cache", cwd=ROOT)
    assert r.returncode == 1, r.stderr
    shown = block.group(2)
    assert shown in r.stdout, f"README example differs from `{block.group(1)}`:\n{r.stdout}"
