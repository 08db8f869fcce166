"""Python sources: subprocess argv, `Engine(...)`/`ServerArgs(...)` calls, Hydra overrides."""
