"""One list of POSIX shells (sgllint.model.launchers.SHELLS) for every format
that looks through ``SHELL -c SCRIPT``."""

from __future__ import annotations

import pytest

from sgllint.formats.registry import extractor
from sgllint.model.facts import Source
from sgllint.model.launchers import SHELLS, shell_c_script

SCRIPT = "python -m sglang.launch_server --model-path m --tp 2"
CASES = {
    "shell": ("run.sh", '{sh} -c "{script}"\n'),
    "python": ("run.py", 'import subprocess\nsubprocess.run(["{sh}", "-c", "{script}"])\n'),
    "yaml": ("job.yaml", 'command: ["{sh}", "-c", "{script}"]\n'),
    "toml": ("tasks.toml", '[tasks]\nserve = ["{sh}", "-c", "{script}"]\n'),
    "dockerfile": ("Dockerfile", 'FROM lmsysorg/sglang:v0.5.4\nCMD ["{sh}", "-c", "{script}"]\n'),
}


@pytest.mark.parametrize("fmt", CASES)
@pytest.mark.parametrize("sh", sorted(SHELLS))
def test_every_format_looks_through_every_shell(fmt, sh):
    name, template = CASES[fmt]
    facts = extractor(fmt)(Source(name, template.format(sh=sh, script=SCRIPT)))
    (site,) = facts.sites
    assert [t.value for t in site.tokens] == ["--model-path", "m", "--tp", "2"]


#: how a shell is told to run a string, beyond the plain ``-c``
SHAPES = ["{sh} -lc", "/bin/{sh} -ec", "{sh} -o pipefail -c", "{sh} --login -c", "{sh} -c -e", "{sh} +o posix -xc"]


@pytest.mark.parametrize("fmt", CASES)
@pytest.mark.parametrize("shape", SHAPES)
def test_every_format_reads_the_shell_options_alike(fmt, shape):
    """One recogniser (`shell_c_script`) for every format: the script is the
    first word after the shell's options, wherever the ``c`` is."""
    name, template = CASES[fmt]
    words = shape.format(sh="bash").split()
    text = template.replace("{sh} -c", " ".join(words)) if fmt == "shell" else template.replace('"{sh}", "-c"', ", ".join(f'"{w}"' for w in words))
    facts = extractor(fmt)(Source(name, text.format(script=SCRIPT)))
    (site,) = facts.sites
    assert [t.value for t in site.tokens] == ["--model-path", "m", "--tp", "2"]


@pytest.mark.parametrize(
    "words, at",
    [
        (["sh", "-c", "S"], 2),
        (["env", "A=1", "/usr/bin/bash", "-lc", "S", "x"], 4),
        (["bash", "-o", "pipefail", "-c", "S"], 4),
        (["bash", "-c", "-x", "S"], 3),
        (["bash", "--norc", "-c", "--", "S"], 4),
        (["bash", "-c"], None),  # no script
        (["bash", "-l", "S"], None),  # a script file, not a string
        (["bash", "run.sh", "sh", "-c", "S"], None),  # the first shell decides
        (["python", "-c", "S"], None),
    ],
)
def test_shell_c_script(words, at):
    assert shell_c_script(words) == at


def test_shell_c_script_stops_at_the_launch():
    assert shell_c_script(["sh", "-c", "S"], stop=0) is None
    assert shell_c_script(["sh", "-c", "S"], stop=1) == 2
