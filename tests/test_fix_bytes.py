"""``--fix`` changes exactly the bytes of its edits, and only files inside
the project (issue 15, finding 11).

Every test writes real files, runs the real CLI (``sgllint check --fix``)
and compares the bytes on disk with the original with only the fix's edit
made: a Latin-1 file or one with invalid UTF-8 is not re-encoded, a BOM,
CRLF or CR line ends and trailing bytes stay, the mode stays, and a fix is
never written through a symbolic link, through a hard link, or outside the
project root.
"""

from __future__ import annotations

import os
import stat

import pytest

LAUNCH = b"python -m sglang.launch_server --model-path m --tp 2\n"
FIXED = b"python -m sglang.launch_server --model-path m --tp-size 2\n"


@pytest.fixture
def proj(tmp_path):
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    return root


def fix(run_cli, proj, *paths):
    result = run_cli("check", "--no-cache", "--fix", "--output-format", "concise", *paths, cwd=proj)
    assert "Traceback" not in result.stderr, result.stderr
    return result


@pytest.mark.parametrize(
    ("name", "before", "after"),
    [
        ("latin1", "# café, déployé\n".encode("latin-1") + LAUNCH, "# café, déployé\n".encode("latin-1") + FIXED),
        ("invalid-utf8", b"# \xff\xfe bytes \xc3( \xed\xa0\x80\n" + LAUNCH + b"# tail \xe2\x82", b"# \xff\xfe bytes \xc3( \xed\xa0\x80\n" + FIXED + b"# tail \xe2\x82"),
        ("invalid-byte-on-the-fixed-line", LAUNCH[:-1] + b" # \xe9t\xe9\n", FIXED[:-1] + b" # \xe9t\xe9\n"),
        ("bom", b"\xef\xbb\xbf# caf\xc3\xa9\n" + LAUNCH, b"\xef\xbb\xbf# caf\xc3\xa9\n" + FIXED),
        ("crlf", LAUNCH.replace(b"\n", b"\r\n") + b"echo done\r\n", FIXED.replace(b"\n", b"\r\n") + b"echo done\r\n"),
        ("no-final-newline", b"echo start\n" + LAUNCH[:-1], b"echo start\n" + FIXED[:-1]),
        ("trailing-bytes", LAUNCH + b"\n\n  \t\x1a", FIXED + b"\n\n  \t\x1a"),
    ],
)
def test_fix_changes_only_the_edited_bytes(run_cli, proj, name, before, after):
    script = proj / f"{name}.sh"
    script.write_bytes(before)
    result = fix(run_cli, proj, script.name)
    assert "Fixed 1 diagnostic" in result.stderr, result.stderr
    assert script.read_bytes() == after


def test_crlf_line_removal_takes_the_whole_crlf_line(run_cli, proj):
    script = proj / "dup.sh"
    script.write_bytes(b"python -m sglang.launch_server \\\r\n  --model-path m \\\r\n  --port 1 \\\r\n  --port 2\r\n")
    result = fix(run_cli, proj, "dup.sh")
    assert "Fixed 1 diagnostic" in result.stderr, result.stderr
    assert script.read_bytes() == b"python -m sglang.launch_server \\\r\n  --model-path m \\\r\n  --port 2\r\n"


def test_cr_only_line_ends_stay(run_cli, proj):
    compose = proj / "compose.yaml"
    head = b"# old mac line ends\rservices:\r  server:\r    image: lmsysorg/sglang:latest\r    command: "
    compose.write_bytes(head + LAUNCH.replace(b"\n", b"\r") + b"# end\r")
    result = fix(run_cli, proj, "compose.yaml")
    assert "Fixed 1 diagnostic" in result.stderr, result.stderr
    assert compose.read_bytes() == head + FIXED.replace(b"\n", b"\r") + b"# end\r"


def test_referenced_yaml_keeps_bom_crlf_and_latin1_bytes(run_cli, proj):
    config = proj / "server.yaml"
    config.write_bytes(b"\xef\xbb\xbf# r\xe9glages\r\nmodel-path: m\r\ntp: 2\r\nport: 30000\r\n")
    (proj / "serve.sh").write_bytes(b"python -m sglang.launch_server --config server.yaml\n")
    before = config.read_bytes()
    result = fix(run_cli, proj, "serve.sh")
    assert "Fixed 1 diagnostic" in result.stderr, result.stderr
    after = config.read_bytes()
    # the edit is the abbreviated key; every other byte is the original's
    key = before.index(b"\r\ntp: 2") + 2
    rest = before[key + len(b"tp") :]
    assert after[:key] == before[:key] and after.endswith(rest)
    assert after[key : len(after) - len(rest)].isascii() and after != before


@pytest.mark.parametrize("mode", [0o755, 0o640, 0o600])
def test_fix_keeps_the_file_mode(run_cli, proj, mode):
    script = proj / "serve.sh"
    script.write_bytes(LAUNCH)
    os.chmod(script, mode)
    fix(run_cli, proj, "serve.sh")
    assert script.read_bytes() == FIXED
    assert stat.S_IMODE(os.stat(script).st_mode) == mode


def test_fix_never_writes_through_a_symlink_inside_the_root(run_cli, proj):
    real = proj / "real.sh"
    real.write_bytes(LAUNCH)
    os.symlink("real.sh", proj / "link.sh")
    result = fix(run_cli, proj, "link.sh")
    assert real.read_bytes() == LAUNCH and os.path.islink(proj / "link.sh")
    assert "not fixed link.sh" in result.stderr and "symbolic link" in result.stderr


def test_fix_never_writes_through_a_symlink_leading_outside(run_cli, tmp_path, proj):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "serve.sh").write_bytes(LAUNCH)
    os.symlink(outside / "serve.sh", proj / "serve.sh")
    os.symlink(outside, proj / "linkdir")
    result = fix(run_cli, proj, "serve.sh", "linkdir/serve.sh")
    assert (outside / "serve.sh").read_bytes() == LAUNCH
    assert "not fixed serve.sh" in result.stderr and "not fixed linkdir/serve.sh" in result.stderr
    assert "outside the project root" in result.stderr


def test_fix_does_not_write_a_hard_linked_file_elsewhere(run_cli, tmp_path, proj):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "serve.sh").write_bytes(LAUNCH)
    os.link(outside / "serve.sh", proj / "serve.sh")
    fix(run_cli, proj, "serve.sh")
    assert (proj / "serve.sh").read_bytes() == FIXED
    assert (outside / "serve.sh").read_bytes() == LAUNCH


def test_fix_outside_the_given_project_root_is_refused(run_cli, proj):
    (proj / "deploy").mkdir()
    script = proj / "serve.sh"
    script.write_bytes(LAUNCH)
    result = run_cli("check", "--no-cache", "--fix", "--project-root", "deploy", "serve.sh", cwd=proj)
    assert script.read_bytes() == LAUNCH and "outside the project root" in result.stderr


def test_diff_shows_nothing_it_would_refuse(run_cli, proj):
    (proj / "real.sh").write_bytes(LAUNCH)
    os.symlink("real.sh", proj / "link.sh")
    result = run_cli("check", "--no-cache", "--diff", "link.sh", cwd=proj)
    assert result.stdout == "" and "symbolic link" in result.stderr


# ---------------------------------------------------------------------------
# The byte editor itself
# ---------------------------------------------------------------------------


def test_edited_bytes_refuses_text_that_would_mix_encodings():
    from sgllint.engine.fixes import RefusedWrite, edited_bytes

    data = "# café\n--tp 2\n".encode("latin-1")
    text = data.decode("utf-8", errors="replace")
    start = text.index("--tp")
    assert edited_bytes(data, text, [(start, start + 4, "--tp-size")]) == data.replace(b"--tp", b"--tp-size")
    with pytest.raises(RefusedWrite, match="not valid UTF-8"):
        edited_bytes(data, text, [(start, start + 4, "--tp-sizé")])


def test_edited_bytes_refuses_a_file_changed_since_it_was_linted():
    from sgllint.engine.fixes import RefusedWrite, edited_bytes

    with pytest.raises(RefusedWrite, match="changed on disk"):
        edited_bytes(b"--tp 3\n", "--tp 2\n", [(0, 4, "--tp-size")])


def test_edited_bytes_maps_offsets_across_replacements_and_multibyte_text():
    from sgllint.engine.fixes import edited_bytes

    data = b"\xef\xbb\xbf\xe4\xb8\xad \xff\xfe x \xf0\x9f\x98\x80 y \xc3"
    text = "中 \ufffd\ufffd x 😀 y \ufffd"
    assert data[3:].decode("utf-8", errors="replace") == text
    edits = [(0, 1, "A"), (text.index("x"), text.index("x") + 1, "XX"), (text.index("y"), text.index("y") + 1, ""), (len(text), len(text), "!")]
    assert edited_bytes(data, text, edits) == b"\xef\xbb\xbfA \xff\xfe XX \xf0\x9f\x98\x80  \xc3!"
