"""`sgllint lsp`: the language server, its framing and its confinement."""
