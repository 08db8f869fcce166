"""Inline suppression by code or name."""

from __future__ import annotations

from sgllint.engine.pipeline import Options, lint_source

LAUNCH = "python -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct"


def codes(text, name="s.sh"):
    return [d.code for d in lint_source(name, text, Options(sglang_version="0.5.23", use_environment=False)).diagnostics]


def test_ignore_on_the_line():
    assert codes(f"{LAUNCH} --enable_metrics\n") == ["SGL101"]
    assert codes(f"{LAUNCH} --enable_metrics  # sgllint: ignore[SGL101]\n") == []
    assert codes(f"{LAUNCH} --enable_metrics  # sgllint: ignore[unknown-flag]\n") == []
    assert codes(f"{LAUNCH} --enable_metrics  # noqa: SGL101\n") == []
    assert codes(f"{LAUNCH} --enable_metrics  # noqa\n") == []
    assert codes(f"{LAUNCH} --enable_metrics  # sgllint: ignore[SGL102]\n") == ["SGL101"]
    assert codes(f"{LAUNCH} --enable_metrics  # the message text: not an option\n") == ["SGL101"]


def test_ignore_on_first_line_of_launch():
    text = f"{LAUNCH} \\\n  --tp-size 2 \\\n  --enable_metrics\n"
    assert codes(text) == ["SGL101"]
    text = "# a comment\npython -m sglang.launch_server \\\n  --model-path m \\\n  --enable_metrics\n"
    assert codes(text) == ["SGL101"]


def test_ignore_file():
    text = f"# sgllint: ignore-file[SGL101]\n{LAUNCH} --enable_metrics\n{LAUNCH} --tp 2 --nope\n"
    assert codes(text) == ["SGL109"]
