"""Reading an SGLang release (a wheel or an unpacked source tree) as text.

Part of the catalog generator (``python -m sgllint.catalog.generate``).
Nothing here imports SGLang: files are only read and handed to ``ast``.
"""

from __future__ import annotations

import ast
import re
import zipfile
from pathlib import Path
from typing import Optional

_WHEEL_RE = re.compile(r"^sglang-(?P<version>[0-9][0-9A-Za-z.+!]*?)-(?:py|cp)\d")


class GenerationError(RuntimeError):
    """A release's sources are not shaped as the generators expect."""


class Source:
    """One SGLang release: ``read("sglang/srt/server_args.py")`` gives text."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._zip: Optional[zipfile.ZipFile] = None
        self._root: Optional[Path] = None
        self._cache: dict[str, Optional[str]] = {}
        if self.path.is_file() and self.path.suffix == ".whl":
            self._zip = zipfile.ZipFile(self.path)
            self._names = set(self._zip.namelist())
        elif self.path.is_dir():
            root = self.path
            for cand in (root, root / "python", root.parent):
                if (cand / "sglang" / "srt" / "server_args.py").is_file():
                    self._root = cand
                    break
            if self._root is None:
                raise ValueError(f"{path}: no sglang/srt/server_args.py below it")
        else:
            raise ValueError(f"{path}: neither a .whl file nor a directory")

    @property
    def name(self) -> str:
        return self.path.name

    def exists(self, rel: str) -> bool:
        if self._zip is not None:
            return rel in self._names
        assert self._root is not None
        return (self._root / rel).is_file()

    def read(self, rel: str) -> Optional[str]:
        if rel in self._cache:
            return self._cache[rel]
        text: Optional[str] = None
        if self._zip is not None:
            if rel in self._names:
                text = self._zip.read(rel).decode("utf-8")
        else:
            assert self._root is not None
            p = self._root / rel
            if p.is_file():
                text = p.read_text(encoding="utf-8")
        self._cache[rel] = text
        return text

    def module_path(self, module: str) -> Optional[str]:
        """``sglang.srt.server_args`` -> ``sglang/srt/server_args.py`` (or the
        package's ``__init__.py``), None when the release has no such file."""
        base = module.replace(".", "/")
        for rel in (base + ".py", base + "/__init__.py"):
            if self.exists(rel):
                return rel
        return None

    def is_package(self, module: str) -> bool:
        return self.exists(module.replace(".", "/") + "/__init__.py")

    def list_dir(self, rel_dir: str) -> list[str]:
        """Python files directly inside ``rel_dir`` (relative paths, sorted)."""
        rel_dir = rel_dir.rstrip("/") + "/"
        if self._zip is not None:
            out = [
                n
                for n in self._names
                if n.startswith(rel_dir) and n.endswith(".py") and "/" not in n[len(rel_dir) :]
            ]
        else:
            assert self._root is not None
            d = self._root / rel_dir
            out = [str(p.relative_to(self._root)) for p in d.glob("*.py")] if d.is_dir() else []
        return sorted(out)

    def version(self) -> str:
        """The release's full version (``0.5.4.post3``)."""
        text = self.read("sglang/version.py")
        if text:
            for node in ast.parse(text).body:
                if (
                    isinstance(node, ast.Assign)
                    and any(isinstance(t, ast.Name) and t.id == "__version__" for t in node.targets)
                    and isinstance(node.value, ast.Constant)
                ):
                    return str(node.value.value)
        m = _WHEEL_RE.match(self.name)
        if m:
            return m.group("version")
        raise ValueError(f"{self.path}: cannot tell the SGLang version")


def base_version(version: str) -> str:
    """``0.5.4.post3`` -> ``0.5.4``; ``0.5.23rc1`` -> ``0.5.23``."""
    m = re.match(r"^(\d+(?:\.\d+)*)", version)
    if not m:
        raise ValueError(version)
    return m.group(1)
