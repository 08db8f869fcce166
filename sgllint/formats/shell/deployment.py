"""What ``docker run`` (podman, nerdctl) says about the container a launch
runs in, as the ``deploy-*`` hints the YAML reader gives a pod or a compose
service (`sgllint.formats.yaml.deployment`): the runtime, shared memory
(``--shm-size``, ``--ipc host``, ``-v /dev/shm:/dev/shm``), mounts (``-v``,
``--volume``, ``--mount``) and published ports (``-p``)."""

from __future__ import annotations

from sgllint.model.facts import ContextHint
from sgllint.model.kinds import HintKind

_CONTAINER_TOOLS = {"docker", "podman", "nerdctl"}
#: options taking a value as the next word (``-v SRC:DST``)
_VALUED = {"-v": "volume", "--volume": "volume", "--mount": "mount", "--shm-size": "shm", "--ipc": "ipc", "-p": "port", "--publish": "port"}


def container_deploy_hints(words) -> list[ContextHint]:
    """Hints of the ``docker run`` wrapping a launch (``words``: the words
    before the launcher); none when there is no container tool."""
    # a word with an expansion (``-v $HOME/.cache:/root/.cache``) as written:
    # its container side is still known
    texts = [w.token.value if isinstance(w.token.value, str) else getattr(w.token.value, "raw", None) for w in words]
    tool = next((i for i, w in enumerate(words) if isinstance(w.token.value, str) and w.token.value.rsplit("/", 1)[-1] in _CONTAINER_TOOLS), None)
    if tool is None or "run" not in texts[tool + 1 : tool + 3]:
        return []
    hints = [ContextHint(HintKind.DEPLOY_RUNTIME, "docker", words[tool].token.span)]
    i = tool + 1
    while i < len(words):
        text = texts[i]
        if text is None:
            i += 1
            continue
        kind, value, span = None, None, words[i].token.span
        if text in _VALUED and i + 1 < len(words):
            kind, value, span = _VALUED[text], texts[i + 1], words[i].token.span.cover(words[i + 1].token.span)
            i += 1
        elif "=" in text and text.split("=", 1)[0] in _VALUED:
            name, value = text.split("=", 1)
            kind = _VALUED[name]
        i += 1
        if kind is None or value is None:
            continue
        value = value.strip("'\"")
        if kind == "shm":
            from sgllint.formats.yaml.deployment import size_bytes  # imports the YAML reader: only for --shm-size

            hints.append(ContextHint(HintKind.DEPLOY_SHM, {"how": "--shm-size", "bytes": size_bytes(value, docker=True)}, span))
        elif kind == "ipc" and (value == "host" or value.startswith("container:")):
            hints.append(ContextHint(HintKind.DEPLOY_SHM, {"how": f"--ipc {value}", "bytes": None}, span))
        elif kind in ("volume", "mount"):
            hints += _mount(kind, value, span)
        elif kind == "port":
            port = value.rsplit(":", 1)[-1].split("/", 1)[0]
            if port.isdigit() and len(port) <= 5:
                hints.append(ContextHint(HintKind.DEPLOY_PORT, {"port": int(port), "name": None}, span))
    return hints


def _mount(kind: str, value: str, span) -> list[ContextHint]:
    if kind == "volume":
        parts = value.split(":")
        if len(parts) < 2:
            return []
        source, target = parts[0], parts[1]
        volume_kind = "bind" if source.startswith(("/", ".", "~", "$")) else "volume"
    else:  # --mount type=bind,source=...,target=...
        fields = dict(p.split("=", 1) for p in value.split(",") if "=" in p)
        target = fields.get("target") or fields.get("dst") or fields.get("destination")
        source = fields.get("source") or fields.get("src")
        volume_kind = fields.get("type", "volume")
        if not target:
            return []
    target = target.rstrip("/") or "/"
    if target == "/dev/shm":
        return [ContextHint(HintKind.DEPLOY_SHM, {"how": f"a {volume_kind} mounted at /dev/shm", "bytes": None}, span)]
    return [ContextHint(HintKind.DEPLOY_MOUNT, {"path": target, "volume": source, "kind": volume_kind}, span)]
