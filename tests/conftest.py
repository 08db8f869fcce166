from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def run_cli(tmp_path):
    """Run `python -m sgllint ...` in a subprocess, as a user would."""

    def run(*args, cwd=None, stdin=None):
        env = dict(os.environ)
        env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
        return subprocess.run(
            [sys.executable, "-m", "sgllint", *args],
            cwd=cwd or tmp_path,
            input=stdin,
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
        )

    return run
