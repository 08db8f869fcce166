"""The engine: the one-file pipeline, then the runner (serial, parallel, cache) built on it."""
