"""sgllint: a static linter for SGLang launch configurations."""

__version__ = "0.1.0"

__all__ = ["__version__"]
