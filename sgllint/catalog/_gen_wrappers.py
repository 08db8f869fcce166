"""Generate the parsers of launchers that wrap SGLang, per wrapper release.

Usage::

    python -m sgllint.catalog._gen_wrappers WHEEL [...] [--out DIR]

(also reached through ``python -m sgllint.catalog.generate WHEEL``, which
hands wrapper wheels here).  A WHEEL is an ``ai_dynamo-*.whl`` or a
``sglang_router-*.whl``; it is read with :mod:`ast` through the recorder of
:mod:`._gen_argparse`, never imported.  One file per release is written,
``data/wrappers/<package>-<version>.json``, with help texts shared through
``data/wrappers/help.json``.

What a file holds (see `sgllint.catalog.wrappers` for the reader):

* ``entry_points``: per launch form (``python -m dynamo.sglang``, the 0.4-era
  ``dynamo.sglang.worker`` / ``decode_worker``, ``python -m
  sglang_router.launch_server`` / ``launch_router``, console scripts) the
  *stages* a launch's words go through, in execution order: ``parse_known``
  (the parser takes what it knows and hands the rest on), ``parse`` (the rest
  must all be known), ``remove_pair`` (a word pair cut out of argv by hand),
  or ``subcommands`` (the first word picks a branch with its own stages);
* ``parsers``: each parser's own options (strings, action, nargs, choices,
  defaults, help) and ``includes``: where SGLang's ``ServerArgs.add_cli_args``
  adds the server options (the SGLang release is the one installed: see
  ``requires_sglang``), plus ``choice_extensions`` the wrapper makes to SGLang's
  options (Dynamo's ``--load-format gms``);
* ``rejections``: the wrapper's own start-up checks around the parse (file,
  line, condition, message), read from the functions the launch runs;
* ``requires_sglang``: the wheel's ``Requires-Dist`` on SGLang, ``sglang_pin``
  its exact version when pinned.

Environment-dependent defaults are read for the default environment (no
``DYN_*``/``SGLANG_*`` variable set).
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
import zipfile
from pathlib import Path
from typing import Any, Optional

from ._gen_argparse import ParserObj, Stage, _Recorder, record, run_main_block
from ._gen_eval import _Env
from ._gen_extract import GenerationError
from ._gen_help import OMITTED_DEFAULTS, dump_help_table, help_id
from ._gen_source import Source
from ._gen_wrapper_checks import cli_dests, exit_code, message_text, rejections

GENERATOR = "sgllint.catalog._gen_wrappers"
HELP_TABLE = "help.json"
_WHEEL_RE = re.compile(r"^(?P<dist>ai_dynamo|sglang_router)-(?P<version>[0-9][0-9A-Za-z.+!]*?)-(?:py|cp)\d")
PACKAGES = {"ai_dynamo": "ai-dynamo", "sglang_router": "sglang-router"}
#: module entry points per package, in the order they are documented
_MODULE_ENTRIES = {
    "ai-dynamo": ("dynamo.sglang", "dynamo.sglang.worker", "dynamo.sglang.decode_worker"),
    "sglang-router": ("sglang_router.launch_server", "sglang_router.launch_router"),
}
_OPTION_KEYS = ("strings", "dest", "action", "type", "nargs", "choices", "choices_open", "const", "default", "required")


def is_wrapper_wheel(path: str | Path) -> bool:
    return bool(_WHEEL_RE.match(Path(path).name))


class WheelInfo:
    """Metadata of one wrapper wheel."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        m = _WHEEL_RE.match(self.path.name)
        if not m:
            raise GenerationError(f"{self.path.name}: not an ai-dynamo or sglang-router wheel")
        self.package = PACKAGES[m.group("dist")]
        self.full_version = m.group("version")
        with zipfile.ZipFile(self.path) as z:
            names = z.namelist()
            meta = next((n for n in names if n.endswith(".dist-info/METADATA")), None)
            eps = next((n for n in names if n.endswith(".dist-info/entry_points.txt")), None)
            self.metadata = z.read(meta).decode("utf-8") if meta else ""
            self.entry_points_txt = z.read(eps).decode("utf-8") if eps else ""

    def requires_sglang(self) -> Optional[str]:
        for line in self.metadata.splitlines():
            if line.startswith("Requires-Dist:") and re.match(r"Requires-Dist:\s*sglang\b(?!-)", line):
                return line.split(":", 1)[1].strip()
        return None

    def sglang_pin(self) -> Optional[str]:
        spec = self.requires_sglang()
        m = re.search(r"==\s*([0-9][0-9A-Za-z.]*)", spec or "")
        return m.group(1) if m else None

    def console_scripts(self) -> dict[str, str]:
        out: dict[str, str] = {}
        section = None
        for line in self.entry_points_txt.splitlines():
            line = line.strip()
            if line.startswith("["):
                section = line.strip("[]")
            elif section == "console_scripts" and "=" in line:
                name, target = (x.strip() for x in line.split("=", 1))
                out[name] = target
        return out


# ---------------------------------------------------------------------------
# Entry points
# ---------------------------------------------------------------------------


def _deprecation(rec: _Recorder, module_name: str) -> Optional[str]:
    mod = rec.module(module_name)
    if mod is None:
        return None
    for node in ast.walk(mod.tree):
        if isinstance(node, ast.Call) and ast.unparse(node.func) in ("logging.warning", "warnings.warn", "logger.warning"):
            text = message_text(rec, mod, node.args[0] if node.args else None)
            if "deprecat" in text.lower():
                return text
    return None


class _Collector:
    """Collects parsers (deduplicated by content) across a release's entries."""

    def __init__(self, helps: Optional[dict]) -> None:
        self.helps = helps
        self.parsers: dict[str, dict] = {}
        self._by_content: dict[str, str] = {}

    def option(self, o: dict) -> dict:
        out: dict[str, Any] = {k: o[k] for k in _OPTION_KEYS}
        for key, dflt in OMITTED_DEFAULTS:
            if key in out and out[key] == dflt and type(out[key]) is type(dflt):
                del out[key]
        if o.get("hidden"):
            out["hidden"] = True
        if o.get("positional"):
            out["positional"] = True
        if "exclusive_group" in o:
            out["exclusive_group"] = o["exclusive_group"]
        for key in ("accepts", "raises"):  # custom Actions (see _gen_diffusion)
            if key in o:
                out[key] = o[key]
        text = o.get("help") or ""
        if text and self.helps is not None:
            hid = help_id(text)
            if self.helps.setdefault(hid, text) != text:
                raise GenerationError(f"help id collision {hid}")
            out["help_id"] = hid
        elif text:
            out["help"] = text
        out["line"] = o["line"]
        if o.get("file"):
            out["file"] = o["file"]
        return out

    def parser(self, p: ParserObj) -> str:
        items = []
        for it in p.items:
            if "strings" in it:
                items.append(self.option(it))
            elif "include" in it:
                items.append({"include": it["include"], "line": it["line"]})
            else:
                items.append(it)
        body = {
            "file": p.file,
            "line": p.line,
            "add_help": p.add_help,
            "allow_abbrev": p.allow_abbrev,
            "items": items,
        }
        if p.choice_extensions:
            body["choice_extensions"] = p.choice_extensions
        key = json.dumps(body, sort_keys=True)
        if key not in self._by_content:
            ident = f"p{len(self.parsers)}"
            self._by_content[key] = ident
            self.parsers[ident] = body
        return self._by_content[key]


def _stages_json(col: _Collector, stages: list) -> list[dict]:
    out = []
    for s in stages:
        if isinstance(s, dict):
            out.append({k: v for k, v in s.items()})
        else:
            out.append({"kind": "parse_known" if s.method == "parse_known_args" else "parse", "parser": col.parser(s.parser), "file": s.file, "line": s.line})
    return out


def _first_word_rule(func: ast.FunctionDef) -> Optional[dict]:
    """``if not argv or argv[0] not in [...]`` / ``argv[0] in [...]`` early exits."""
    rule: dict = {}
    for node in ast.walk(func):
        if not isinstance(node, ast.If):
            continue
        for cmp in ast.walk(node.test):
            if not (isinstance(cmp, ast.Compare) and len(cmp.ops) == 1 and isinstance(cmp.comparators[0], (ast.List, ast.Tuple))):
                continue
            if "[0]" not in ast.unparse(cmp.left):
                continue
            words = [e.value for e in cmp.comparators[0].elts if isinstance(e, ast.Constant)]
            exits = [c for c in ast.walk(ast.Module(body=node.body, type_ignores=[])) if isinstance(c, ast.Call) and ast.unparse(c.func) == "sys.exit"]
            code = exit_code(exits[-1]) if exits else None
            if isinstance(cmp.ops[0], ast.NotIn):
                rule["accepted_first_words"] = words
                rule["other_exit"] = code
                rule["line"] = node.lineno
            elif isinstance(cmp.ops[0], ast.In):
                rule["early_exit_words"] = {"words": words, "exit": code, "line": node.lineno}
    return rule or None


def _console_entry(source: Source, col: _Collector, target: str, sglang_strings: set, sglang_pin: Optional[str] = None) -> Optional[dict]:
    module, _, func_name = target.partition(":")
    rec = record(source, module, func_name, [], sglang_strings)
    if rec is None:
        return None
    top = next((s.parser for s in rec.stages if isinstance(s, Stage)), None)
    entry: dict[str, Any] = {"module": module, "function": func_name}
    mod = rec.module(module)
    func = mod.functions().get(func_name) if mod else None
    if top is not None and top.subcommands and func is not None:
        entry["first_word"] = _first_word_rule(func)
        entry["stages"] = _stages_json(col, [rec.stages[0]])
        subs = {}
        for sub in top.subcommands:
            branch = _branch_for(func, sub["dest"], sub["name"])
            if branch is None:
                continue
            brec = _Recorder(source, sglang_strings)
            bmod = brec.module(module)
            brec.exec_block(branch.body, _Env(bmod, {}))
            subs[sub["name"]] = {"line": branch.lineno, "stages": _stages_json(col, brec.stages), "rejections": rejections(brec, brec.stages, cli_dests(brec, sglang_pin))}
        entry["subcommands"] = subs
    else:
        entry["stages"] = _stages_json(col, rec.stages)
        entry["rejections"] = rejections(rec, rec.stages, cli_dests(rec, sglang_pin))
    return entry


def _branch_for(func: ast.FunctionDef, dest: Optional[str], name: str) -> Optional[ast.If]:
    for node in ast.walk(func):
        if isinstance(node, ast.If) and isinstance(node.test, ast.Compare):
            t = node.test
            if (
                isinstance(t.left, ast.Attribute)
                and (dest is None or t.left.attr == dest)
                and isinstance(t.comparators[0], ast.Constant)
                and t.comparators[0].value == name
            ):
                return node
    return None


def _sglang_strings(pin: Optional[str]) -> set:
    """Option strings of the SGLang release a wrapper pins, from the shipped
    catalogs (wrappers test them, e.g. Dynamo's ``add_sglang_cli_compat``)."""
    if not pin:
        return set()
    from . import UnknownVersion, load, resolve_version

    try:
        return set(load(resolve_version(pin)).by_string)
    except UnknownVersion:
        return set()


def build(path: str | Path, helps: Optional[dict]) -> dict:
    info = WheelInfo(path)
    source = Source(info.path)
    col = _Collector(helps)
    sglang_strings = _sglang_strings(info.sglang_pin())
    entries: dict[str, dict] = {}
    for module in _MODULE_ENTRIES[info.package]:
        main_module = module + ".__main__" if source.is_package(module) else module
        if source.module_path(main_module) is None:
            continue
        rec = run_main_block(source, main_module, sglang_strings)
        if rec is None or not rec.stages:
            continue
        entries[f"python -m {module}"] = {
            "module": module,
            "deprecated": _deprecation(rec, main_module),
            "stages": _stages_json(col, rec.stages),
            "rejections": rejections(rec, rec.stages, cli_dests(rec, info.sglang_pin())),
        }
    for script, target in sorted(info.console_scripts().items()):
        entry = _console_entry(source, col, target, sglang_strings, info.sglang_pin())
        if entry is not None:
            entries[script] = entry
    if not entries:
        raise GenerationError(f"{info.path.name}: no SGLang entry point found")
    return {
        "notice": f"GENERATED by `python -m {GENERATOR}` from {info.path.name} -- DO NOT EDIT. Regenerate instead.",
        "generator": GENERATOR,
        "package": info.package,
        "version": info.full_version,
        "source": info.path.name,
        "requires_sglang": info.requires_sglang(),
        "sglang_pin": info.sglang_pin(),
        "help_table": HELP_TABLE if helps is not None else None,
        "entry_points": entries,
        "parsers": col.parsers,
    }


def dumps(obj: dict) -> str:
    """One option per line, like the SGLang catalogs."""
    lines = ["{"]
    head = {k: v for k, v in obj.items() if k not in ("entry_points", "parsers")}
    for k, v in head.items():
        lines.append(f"{json.dumps(k)}: {json.dumps(v, ensure_ascii=False)},")
    lines.append('"entry_points": {')
    eps = list(obj["entry_points"].items())
    for i, (k, v) in enumerate(eps):
        sep = "," if i < len(eps) - 1 else ""
        lines.append(f"{json.dumps(k)}: {json.dumps(v, ensure_ascii=False, separators=(',', ':'))}{sep}")
    lines.append("},")
    lines.extend(parser_lines(obj["parsers"]))
    lines.append("}")
    return "\n".join(lines) + "\n"


def parser_lines(parsers: dict) -> list[str]:
    """``"parsers": {...}`` with one option per line (also for the diffusion data)."""
    lines = ['"parsers": {']
    ps = list(parsers.items())
    for i, (k, p) in enumerate(ps):
        head_p = {x: y for x, y in p.items() if x != "items"}
        lines.append(f"{json.dumps(k)}: {{{json.dumps(head_p, ensure_ascii=False, separators=(',', ':'))[1:-1]},\"items\":[")
        items = p["items"]
        for j, it in enumerate(items):
            lines.append(json.dumps(it, ensure_ascii=False, separators=(",", ":")) + ("," if j < len(items) - 1 else ""))
        lines.append("]}" + ("," if i < len(ps) - 1 else ""))
    lines.append("}")
    return lines


def prune_help_table(out: Path, helps: dict, pattern: str = "*.json") -> None:
    """Write ``out/help.json`` with the texts some parser in ``out`` still refers to."""
    used: set = set()
    for f in sorted(out.glob(pattern)):
        if f.name == HELP_TABLE:
            continue
        raw = json.loads(f.read_text(encoding="utf-8"))
        for parser in raw.get("parsers", {}).values():
            used.update(i["help_id"] for i in parser["items"] if "help_id" in i)
    (out / HELP_TABLE).write_text(dump_help_table({k: v for k, v in helps.items() if k in used}), encoding="utf-8")


def file_name(package: str, version: str) -> str:
    return f"{package}-{version}.json"


def load_help_table(out: Path) -> dict:
    """``out/help.json`` as it is (``out`` is made when missing)."""
    out.mkdir(parents=True, exist_ok=True)
    table_path = out / HELP_TABLE
    return json.loads(table_path.read_text(encoding="utf-8")) if table_path.exists() else {}


def generate_many(paths: list[str], out: Path) -> int:
    helps = load_help_table(out)
    status = 0
    for p in paths:
        try:
            data = build(p, helps)
        except (GenerationError, OSError, zipfile.BadZipFile) as exc:
            print(f"{p}: {exc}", file=sys.stderr)
            status = 1
            continue
        target = out / file_name(data["package"], data["version"])
        target.write_text(dumps(data), encoding="utf-8")
        n = sum(len([i for i in p["items"] if "strings" in i]) for p in data["parsers"].values())
        print(f"{target}: {len(data['entry_points'])} entry points, {len(data['parsers'])} parsers, {n} options")
    prune_help_table(out, helps)
    return status


def main(argv: Optional[list[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog=f"python -m {GENERATOR}", description=__doc__.split("\n\n")[0])
    ap.add_argument("wheels", nargs="+", help="ai_dynamo-*.whl / sglang_router-*.whl")
    ap.add_argument("--out", default=str(Path(__file__).parent / "data" / "wrappers"), help="output directory")
    args = ap.parse_args(argv)
    return generate_many(args.wheels, Path(args.out))


if __name__ == "__main__":
    sys.exit(main())


__all__ = ["build", "generate_many", "is_wrapper_wheel", "main"]
