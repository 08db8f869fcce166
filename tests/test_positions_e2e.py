"""Findings inside embedded scripts land on the token's real line and
column: a `run: |` block, an `sh -c` string in a Kubernetes list, a compose
`command: >` folded scalar, a Markdown fence, a TOML multi-line string and
argv array, a Dockerfile shell-form CMD with a comment inside its
continuation, a Python keyword (golden: fixtures/e2e/expected.txt)."""

from __future__ import annotations

from pathlib import Path

FIXTURES = Path(__file__).parent / "fixtures" / "e2e"


def test_embedded_findings_at_true_positions(run_cli):
    r = run_cli("check", ".", "--output-format", "concise", "--no-environment", "--isolated", cwd=FIXTURES)
    expected = (FIXTURES / "expected.txt").read_text()
    assert r.stdout == expected
    for line in expected.splitlines():
        path, ln, col = line.split(":")[:3]
        text = (FIXTURES / path).read_text().splitlines()[int(ln) - 1]
        token = line.split("'")[1]
        at = text[int(col) - 1 :]
        assert at.startswith(token) or at.startswith(('"' + token, "'" + token)), (line, text)
