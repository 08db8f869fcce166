"""SGLang's resolution evaluated: effective values, parallel layout, deterministic verdicts."""
