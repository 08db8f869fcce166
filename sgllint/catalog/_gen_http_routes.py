"""Generate ``catalog/data/http_routes.json``: for each SGLang release, the
HTTP paths its server answers a GET on (what a Kubernetes ``httpGet`` probe
sends), with the file and line of each route.

    python -m sgllint.catalog._gen_http_routes WHEELS/src

Read from each release's ``sglang/srt/entrypoints/*.py`` source (0.4.0:
``sglang/srt/server.py``; nothing is imported): every ``@<app|router>.get(PATH)`` and ``@<...>.api_route(PATH,
methods=[...])`` whose methods include GET (FastAPI's default for
``api_route``). A path given as ``os.environ.get(NAME, DEFAULT)`` is recorded
with the variable that replaces it (path null when the variable alone names
it, ``_ollama_root_route = os.environ.get(NAME)``); a path sgllint cannot read
marks the release ``dynamic``. A Starlette ``Mount("/prefix", ...)`` in the server or in
``sglang/srt/utils`` (the Prometheus ``/metrics`` app) is recorded as a prefix:
it is served only with its flag, so a probe under it is never reported.
"""

from __future__ import annotations

import ast
import json
import re
import sys
from pathlib import Path

OUTPUT = Path(__file__).parent / "data" / "http_routes.json"
_MOUNT = re.compile(r"""\bMount\(\s*["'](/[^"']*)["']""")


def release_key(full: str) -> str:
    """``0.4.0.post2`` -> ``0.4.0`` (the catalog's release names)."""
    return re.sub(r"\.post\d+$", "", full)


def _methods(call: ast.Call):
    for kw in call.keywords:
        if kw.arg == "methods":
            try:
                return [m.upper() for m in ast.literal_eval(kw.value)]
            except ValueError:
                return None
    return ["GET"]


def _environ_get(node: ast.AST):
    """``os.environ.get(NAME[, DEFAULT])`` / ``os.getenv(...)``: (NAME, DEFAULT or None); None otherwise."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("get", "getenv") \
            and 1 <= len(node.args) <= 2 and all(isinstance(a, ast.Constant) for a in node.args) \
            and isinstance(node.args[0].value, str) and "environ" in ast.unparse(node.func) + ("environ" if node.func.attr == "getenv" else ""):
        return node.args[0].value, node.args[1].value if len(node.args) == 2 else None
    return None


def _path(node: ast.AST, names: dict):
    """(path, env var) for a literal, ``os.environ.get(NAME, DEFAULT)`` or a
    module-level name bound to one ((None, NAME) when the variable alone
    names the path); (None, None) when not readable."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value, None
    if isinstance(node, ast.Name) and node.id in names:
        node = names[node.id]
    env = _environ_get(node)
    if env is not None:
        return env[1], env[0]
    return None, None


def scan_file(path: Path, rel: str, out: dict) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8", errors="replace"))
    names = {t.id: node.value for node in tree.body if isinstance(node, ast.Assign)
             for t in node.targets if isinstance(t, ast.Name)}
    for fn in ast.walk(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for dec in fn.decorator_list:
            if not (isinstance(dec, ast.Call) and isinstance(dec.func, ast.Attribute) and dec.args):
                continue
            verb = dec.func.attr
            if verb == "get":
                methods = ["GET"]
            elif verb == "api_route":
                methods = _methods(dec)
            else:
                continue
            if methods is None or "GET" not in methods:
                continue
            route, env = _path(dec.args[0], names)
            if route is None and env is None:
                out["dynamic"].append(f"{rel}:{dec.lineno}")
                continue
            entry = {"path": route, "where": f"{rel}:{dec.lineno}"}
            if env:
                entry["env"] = env
            out["routes"].append(entry)


def scan_release(root: Path) -> dict:
    out: dict = {"routes": [], "dynamic": [], "mounts": []}
    entrypoints = root / "sglang" / "srt" / "entrypoints"
    servers = sorted(entrypoints.glob("*.py")) or [root / "sglang" / "srt" / "server.py"]
    for path in servers:
        scan_file(path, str(path.relative_to(root)), out)
    srt = root / "sglang" / "srt"
    for path in sorted([*servers, srt / "utils.py", *(srt / "utils").glob("*.py")]):
        if not path.is_file():
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        for m in _MOUNT.finditer(text):
            out["mounts"].append({"path": m.group(1), "where": f"{path.relative_to(root)}:{text.count(chr(10), 0, m.start()) + 1}"})
    out["routes"].sort(key=lambda r: (r["path"] or "", r["where"]))
    out["mounts"].sort(key=lambda r: (r["path"], r["where"]))
    return out


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv:
        print("usage: python -m sgllint.catalog._gen_http_routes DIR  (DIR/<version>/sglang/...: unpacked wheels)", file=sys.stderr)
        return 2
    src = Path(argv[0])
    releases = {}
    for root in sorted(p for p in src.iterdir() if (p / "sglang" / "srt" / "entrypoints" / "http_server.py").is_file()
                       or (p / "sglang" / "srt" / "server.py").is_file()):
        releases[release_key(root.name)] = {"wheel": root.name, **scan_release(root)}
    OUTPUT.write_text(json.dumps({"generated_by": "python -m sgllint.catalog._gen_http_routes", "releases": releases},
                                 indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {OUTPUT} ({len(releases)} releases)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
