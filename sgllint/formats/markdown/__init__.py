"""Markdown code blocks, each linted in its own format."""
