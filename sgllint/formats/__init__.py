"""Input formats: one package per format, each registered once in `registry`. Imports the model only."""
