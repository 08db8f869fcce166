"""Shell scripts, and shell embedded in other formats' strings."""
