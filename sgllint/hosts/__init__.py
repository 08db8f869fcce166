"""Hosts: the command line, the flake8 plugin and the language server."""
