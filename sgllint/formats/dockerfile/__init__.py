"""Dockerfiles and Containerfiles: `RUN`, `CMD`, `ENTRYPOINT`."""
