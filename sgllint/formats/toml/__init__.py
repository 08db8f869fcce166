"""TOML task runners and launcher tables."""
