"""The model: sources, spans, launch facts, diagnostics and rule metadata. Imports nothing of sgllint."""
