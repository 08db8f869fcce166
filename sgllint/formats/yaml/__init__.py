"""YAML: Kubernetes, Compose, SkyPilot, CI and recipe files, and `sglang --config` files."""
