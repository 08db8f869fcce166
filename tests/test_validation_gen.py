"""The validation generator (issue 17): SGLang's start-up call closure as shared AST units, its
rejection sites and rewrites (``sgllint/catalog/_gen_validation.py``), and the checked-in data
read back lazily by ``sgllint.catalog.validation``."""

from __future__ import annotations

import ast
import gzip
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from sgllint.catalog import _gen_validation as gv
from sgllint.catalog import validation as V
from sgllint.catalog._gen_source import Source
from sgllint.catalog._gen_validation_ast import Encoder, schema_for

CATALOG = Path(gv.__file__).resolve().parent / "data"
DATA = V.DATA_DIR
MAX_BYTES = 15 * 1024 * 1024


def _catalog_versions() -> list[str]:
    return sorted(p.name[len("sglang-"):-len(".json")] for p in CATALOG.glob("sglang-*.json"))


# ---------------------------------------------------------------------------
# A hand-made release: the shapes SGLang uses (dataclass __post_init__ calling
# helpers, a hook module imported inside a method, a registry decorator)
# ---------------------------------------------------------------------------

SERVER_ARGS = '''
import dataclasses
import sys
from typing import Optional

from sglang.srt.utils import is_cuda


@dataclasses.dataclass
class ServerArgs:
    model_path: str
    tp_size: int = 1
    dp_size: int = 1
    enable_dp_attention: bool = False
    chunked_prefill_size: Optional[int] = None
    attention_backend: Optional[str] = None
    port: int = 30000

    def __post_init__(self):
        if self.attention_backend is None and is_cuda():
            self.attention_backend = "fa3"
        if self.attention_backend == "fa3" and self.dp_size > 8:
            raise ValueError("fa3 supports --dp-size <= 8")
        if self.enable_dp_attention:
            self._handle_dp()
        from sglang.srt.arg_groups.hooks import check_chunked

        check_chunked(self)

    def _handle_dp(self):
        assert self.dp_size > 1, "dp attention needs --dp-size > 1"
        self.chunked_prefill_size = self.chunked_prefill_size // self.dp_size

    def check_server_args(self):
        if self.port < 0:
            self.check_ports()
        if self.tp_size % 2 and is_cuda():
            raise ValueError(f"odd tp_size {self.tp_size} on CUDA")

    def check_ports(self):
        msg = f"port {self.port} is taken"
        raise RuntimeError(msg)

    def unused(self):
        raise RuntimeError("never reached from start-up")


def prepare_server_args(argv):
    if "--bad" in argv:
        sys.exit("bad flag")
    return ServerArgs(model_path=argv[0])
'''

HOOKS = '''
import os

from sglang.srt.choices import RESERVED_PATHS
from sglang.srt.registry import register

OVERRIDES = {}


def check_chunked(server_args):
    if server_args.chunked_prefill_size is not None and server_args.chunked_prefill_size < 0:
        raise ValueError("--chunked-prefill-size must be >= 0, got {}".format(server_args.chunked_prefill_size))
    if server_args.model_path in RESERVED_PATHS:
        raise ValueError(f"{server_args.model_path} is reserved")
    for fn in OVERRIDES.values():
        fn(server_args)


@register("Llama")
def _llama(server_args):
    if os.environ.get("NO_LLAMA"):
        raise RuntimeError("llama disabled by the environment")
    overrides = {}
    overrides["tp_size"] = 2
    return overrides


@register("Qwen")
def _qwen(server_args):
    if server_args.tp_size > 4:
        return {"dp_size": 2}
    return {}
'''

REGISTRY = '''
def register(name):
    def deco(fn):
        return fn
    return deco
'''

UTILS = '''
def is_cuda():
    return True
'''


def _tree(tmp_path: Path, shift: int = 0, version: str = "9.9.9") -> Path:
    root = tmp_path / f"sglang-{version}-{shift}"
    srt = root / "sglang" / "srt"
    srt.mkdir(parents=True)
    (root / "sglang" / "__init__.py").write_text("")
    (srt / "__init__.py").write_text("")
    (root / "sglang" / "version.py").write_text(f'__version__ = "{version}"\n')
    (srt / "server_args.py").write_text("\n" * shift + textwrap.dedent(SERVER_ARGS))
    (srt / "arg_groups").mkdir()
    (srt / "arg_groups" / "__init__.py").write_text("")
    (srt / "arg_groups" / "hooks.py").write_text(textwrap.dedent(HOOKS))
    (srt / "registry.py").write_text(textwrap.dedent(REGISTRY))
    (srt / "utils.py").write_text(textwrap.dedent(UTILS))
    (srt / "choices.py").write_text('RESERVED_PATHS = ["none", "dummy"]\n')
    return root


def _site(rel: V.Release, message_part: str) -> dict:
    hits = [s for s in rel.sites if message_part in s["message"]]
    assert len(hits) == 1, [s["message"] for s in rel.sites]
    return hits[0]


def test_closure_follows_methods_imports_and_registries(tmp_path):
    rel = gv.release(Source(_tree(tmp_path)))
    fns = set(rel.functions)
    assert {
        "sglang.srt.server_args:ServerArgs.__post_init__",
        "sglang.srt.server_args:ServerArgs._handle_dp",  # self.m()
        "sglang.srt.server_args:ServerArgs.check_server_args",  # an entry step
        "sglang.srt.server_args:prepare_server_args",
        "sglang.srt.arg_groups.hooks:check_chunked",  # imported inside a method
        "sglang.srt.arg_groups.hooks:_llama",  # registered by an SGLang decorator in arg_groups
        "sglang.srt.utils:is_cuda",
    } <= fns
    assert "sglang.srt.server_args:ServerArgs.unused" not in fns
    # a module whose constant a closure function reads: its top level is in (module_ast runs it)
    choices = rel.module_ast("sglang.srt.choices")
    assert ast.unparse(choices) == "RESERVED_PATHS = ['none', 'dummy']"
    assert [s["call"].split(":")[1] for s in rel.entry["cli"]] == [
        "prepare_server_args", "ServerArgs.__post_init__", "ServerArgs.check_server_args"]
    assert rel.fields == {"model_path": None, "tp_size": 1, "dp_size": 1, "enable_dp_attention": False,
                          "chunked_prefill_size": None, "attention_backend": None, "port": 30000}
    assert rel.manifest["unknown_defaults"] == ["model_path"]


def test_sites_messages_conditions_and_classes(tmp_path):
    rel = gv.release(Source(_tree(tmp_path)))
    dp = _site(rel, "dp attention needs")
    assert (dp["kind"], dp["exception"], dp["class"]) == ("assert", "AssertionError", "a")
    assert dp["condition"] == "!(self.dp_size > 1)"
    assert dp["facts"] == ["field:dp_size"]
    odd = _site(rel, "odd tp_size")
    assert odd["message"] == "odd tp_size {self.tp_size} on CUDA"  # f-string holes kept as {expr}
    assert odd["class"] == "b" and "field:tp_size" in odd["facts"]
    assert odd["file"] == "sglang/srt/server_args.py"
    chunk = _site(rel, "--chunked-prefill-size must be")
    assert chunk["message"] == "--chunked-prefill-size must be >= 0, got {}" and chunk["class"] == "a"
    fa3 = _site(rel, "fa3 supports")
    # attention_backend may be auto-selected from the GPU: a fact, but the user's value decides
    assert fa3["class"] == "a" and "auto:attention_backend" in fa3["facts"]
    assert _site(rel, "port {self.port} is taken")["kind"] == "raise"  # the message through its local
    env = _site(rel, "llama disabled")
    assert env["class"] == "c" and env["function"] == "sglang.srt.arg_groups.hooks:_llama"
    ex = _site(rel, "bad flag")
    assert ex["kind"] == "sys.exit"
    # the site's lines are the statement's lines in the file
    src = (tmp_path / "sglang-9.9.9-0" / "sglang" / "srt" / "server_args.py").read_text().splitlines()
    assert "raise ValueError" in src[odd["line"] - 1] and odd["end_line"] == odd["line"]
    assert len({s["id"] for s in rel.sites}) == len(rel.sites)
    assert rel.coverage() == rel.manifest["coverage"] and sum(rel.coverage().values()) == len(rel.sites)


def test_rewrites(tmp_path):
    rel = gv.release(Source(_tree(tmp_path)))
    got = {(r["field"], r["function"].split(":")[1], r["how"]) for r in rel.rewrites}
    assert ("chunked_prefill_size", "ServerArgs._handle_dp", "attr") in got
    assert ("tp_size", "_llama", "override-dict") in got
    assert ("dp_size", "_qwen", "return-dict") in got
    qwen = next(r for r in rel.rewrites if r["function"].endswith("_qwen"))
    assert qwen["condition"] == "server_args.tp_size > 4" and qwen["value"] == "2"


def test_moved_code_keeps_units_and_ids(tmp_path):
    """Shifting server_args.py by 7 lines changes no unit and no site id, only the lines."""
    a = gv.build_release(Source(_tree(tmp_path, 0)))
    b = gv.build_release(Source(_tree(tmp_path, 7)))
    fa, fb = a.manifest["functions"], b.manifest["functions"]
    assert {q: i["unit"] for q, i in fa.items()} == {q: i["unit"] for q, i in fb.items()}
    moved = "sglang.srt.server_args:ServerArgs.__post_init__"
    assert fb[moved]["line"] == fa[moved]["line"] + 7
    ids_a = {s["id"]: s["line"] for s in a.manifest["sites"]}
    ids_b = {s["id"]: s["line"] for s in b.manifest["sites"]}
    assert set(ids_a) == set(ids_b)
    assert any(ids_b[i] == ids_a[i] + 7 for i in ids_a)


def test_ast_round_trip_is_exact(tmp_path):
    root = _tree(tmp_path)
    rel = gv.release(Source(root))
    prog = gv.Program(Source(root))
    for q in rel.functions:
        mine = rel.function(q)
        orig = prog.function_node(q)[2]
        assert ast.dump(mine) == ast.dump(orig), q
        assert (mine.lineno, mine.end_lineno) == (orig.lineno, orig.end_lineno)
    full = rel.module_ast("sglang.srt.server_args")
    compile(full, "server_args.py", "exec")  # a complete module Python could run
    cls = next(n for n in full.body if isinstance(n, ast.ClassDef) and n.name == "ServerArgs")
    meths = {n.name: n for n in cls.body if isinstance(n, ast.FunctionDef)}
    assert ast.dump(meths["_handle_dp"]) == ast.dump(rel.function("sglang.srt.server_args:ServerArgs._handle_dp"))
    assert ast.unparse(meths["unused"].body[0]) == "..."  # outside the closure
    body = rel.module_body("sglang.srt.arg_groups.hooks")
    assert isinstance(body, ast.Module)
    defs = {n.name: n for n in body.body if isinstance(n, ast.FunctionDef)}
    assert defs["_llama"].body == [] and ast.unparse(defs["_llama"].decorator_list[0]) == "register('Llama')"


def test_constants_round_trip():
    tree = ast.parse("x = (b'\\x00', ..., 1j, 1e999, -1e999, None, True, 'é')")
    enc = Encoder()
    data = json.loads(json.dumps(enc.encode(tree, 1)))  # through JSON, as stored
    out = V.Decoder(schema_for(enc.types)).decode(data, 1)
    assert ast.dump(out) == ast.dump(tree)


def test_generation_is_deterministic(tmp_path):
    """Two runs write byte-identical files (gzip without timestamps, sorted units)."""
    root = _tree(tmp_path)
    outs = []
    for n in (1, 2):
        out = tmp_path / f"out{n}"
        assert gv.main([str(root), "--out", str(out)]) == 0
        outs.append({p.name: p.read_bytes() for p in sorted(out.iterdir())})
    assert outs[0] == outs[1] and set(outs[0]) == {"sglang-9.9.9.json.gz", "units-9.9.9.jsonl.gz"}


def _stored(out: Path) -> dict[str, set]:
    return {v: set(V.read_store(p)[1]) for v, p in V.unit_shards(out).items()}


def test_units_are_shared_and_sharded_by_newest_user(tmp_path):
    out = tmp_path / "out"
    assert gv.main([str(_tree(tmp_path, 0, "1.0.0")), "--out", str(out)]) == 0
    assert gv.main([str(_tree(tmp_path, 5, "1.0.1")), "--out", str(out)]) == 0
    stored = _stored(out)
    assert list(stored) == ["1.0.1"]  # the same code: every unit is 1.0.1's too
    old = V.load.__wrapped__("1.0.0", out)
    assert old.function("sglang.srt.arg_groups.hooks:check_chunked") is not None
    # a newer release with changed code: its new units get its shard, the shared ones move up
    tree = _tree(tmp_path, 0, "1.0.2")
    hooks = tree / "sglang" / "srt" / "arg_groups" / "hooks.py"
    hooks.write_text(hooks.read_text().replace("must be >= 0", "must be >= 0 (changed)"))
    assert gv.main([str(tree), "--out", str(out)]) == 0
    stored = _stored(out)
    assert set(stored) == {"1.0.1", "1.0.2"} and stored["1.0.1"]  # check_chunked's old unit stays in 1.0.1
    for v in ("1.0.0", "1.0.1", "1.0.2"):
        rel = V.load.__wrapped__(v, out)
        assert ("changed" in ast.unparse(rel.function("sglang.srt.arg_groups.hooks:check_chunked"))) == (v == "1.0.2")
    # units no manifest uses any more are dropped
    for v in ("1.0.0", "1.0.1"):
        (out / f"sglang-{v}.json.gz").unlink()
    assert gv.main([str(tree), "--out", str(out)]) == 0
    assert list(_stored(out)) == ["1.0.2"]


# ---------------------------------------------------------------------------
# The checked-in data
# ---------------------------------------------------------------------------


def test_every_catalog_release_has_validation_data():
    assert set(_catalog_versions()) <= set(V.available()), sorted(set(_catalog_versions()) - set(V.available()))


def test_checked_in_data_is_small():
    total = sum(p.stat().st_size for p in DATA.rglob("*") if p.is_file())
    assert total <= MAX_BYTES, f"{total / 1e6:.1f} MB"


@pytest.mark.parametrize("version", ["0.4.0", "0.4.10", "0.5.4", "0.5.19", "0.5.23"])
def test_checked_in_release_is_consistent(version):
    rel = V.load(version)
    assert rel is not None and rel.version == version
    man = rel.manifest
    assert man["format"] == V.FORMAT
    assert man["source"].startswith(f"sglang-{man['sglang_full_version']}")
    ids = [s["id"] for s in rel.sites]
    assert len(ids) == len(set(ids))
    for s in rel.sites:
        assert s["class"] in V.CLASSES and s["reason"]
        assert s["kind"] in ("raise", "assert", "sys.exit", "parser.error")
        outer = s["function"].split(".<locals>")[0]
        fn = rel.function(outer)
        assert fn.lineno <= s["line"] <= s["end_line"] <= fn.end_lineno, s
    post = rel.function("sglang.srt.server_args:ServerArgs.__post_init__")
    assert isinstance(post, ast.FunctionDef)
    assert {s["call"].split(":")[1] for s in rel.entry["cli"]} >= {
        "ServerArgs.__post_init__", "ServerArgs.check_server_args"}
    assert rel.coverage() == man["coverage"]


def test_0_5_23_closure_reaches_the_hooks():
    rel = V.load("0.5.23")
    fns = set(rel.functions)
    for q in (
        "sglang.srt.server_args:ServerArgs.resolve_once",
        "sglang.srt.arg_groups.pipeline:run_resolution_pipeline",
        "sglang.srt.arg_groups.speculative_hook:_handle_eagle_family",  # via algo.handle_server_args
        "sglang.srt.arg_groups.validation_hook:check_server_args",
        "sglang.srt.configs.model_config:ModelConfig._verify_quantization",
        "sglang.srt.speculative.spec_info:SpeculativeAlgorithm.from_string",
        "sglang.srt.arg_groups.model_overrides.gpt_oss:_gpt_oss_overrides",  # decorator registry
    ):
        assert q in fns, q
    assert rel.functions["sglang.srt.layers.attention.attention_registry:attn_backend_wrapper"]["reach"] == "late"
    # `sglang serve`: its own argv checks, then the same stages
    assert [st["call"].split(":")[1] for st in rel.entry["serve"]][:2] == ["serve", "prepare_server_args"]
    assert any(s["function"] == "sglang.cli.serve:_extract_model_type_override" for s in rel.sites)


def test_oracle_rejections_are_listed_sites():
    """Every explicit rejection the random oracle recorded on 0.5.23 (tests/data/oracle/random/) is at
    a site of the derived list (implicit exceptions -- TypeError, JSONDecodeError, ... -- are not
    enumerable: the evaluator names them with ``implicit_site_id``)."""
    fixture = Path(__file__).parent / "data" / "oracle" / "random" / "random-0.5.23.json.gz"
    cases = json.loads(gzip.decompress(fixture.read_bytes()))["cases"]
    rel = V.load("0.5.23")
    spans: dict[str, list] = {}
    for s in rel.sites:
        spans.setdefault(s["file"], []).append((s["line"], s["end_line"]))
    implicit = ("TypeError", "JSONDecodeError", "ZeroDivisionError", "FileNotFoundError")
    missed = []
    checked = 0
    for c in cases:
        v = c.get("verdict", c)
        if v.get("v") != "rejected" or v.get("stage") == "argparse" or v.get("exc") in implicit:
            continue
        checked += 1
        f, _, line = v["at"].rpartition(":")
        if not any(a <= int(line) <= b for a, b in spans.get(f, [])):
            missed.append(v["at"])
    assert checked > 500 and not missed, missed


# ---------------------------------------------------------------------------
# Regeneration from the real wheel
# ---------------------------------------------------------------------------


def _wheel(full: str) -> Path:
    for d in (os.environ.get("SGLLINT_WHEEL_CACHE"),):
        if d:
            hits = sorted(Path(d).glob(f"sglang-{full}-*.whl"))
            if hits:
                return hits[0]
    pytest.skip(f"no sglang-{full} wheel (set SGLLINT_WHEEL_CACHE)")


@pytest.mark.slow
def test_regenerating_0_5_23_is_byte_identical(tmp_path):
    man = V.read_manifest("0.5.23")
    if man["python_ast"] != "%d.%d" % sys.version_info[:2]:
        pytest.skip(f"the data was generated with Python {man['python_ast']}'s ast")
    wheel = _wheel(man["sglang_full_version"])
    out = tmp_path / "out"
    assert gv.main([str(wheel), "--out", str(out)]) == 0
    assert (out / "sglang-0.5.23.json.gz").read_bytes() == (DATA / "sglang-0.5.23.json.gz").read_bytes()
    # the newest release's units are all in its own shard
    assert (out / "units-0.5.23.jsonl.gz").read_bytes() == (DATA / "units-0.5.23.jsonl.gz").read_bytes()


def test_pick_version_never_silent():
    newest = V.available()[-1]
    assert V.pick_version(newest) == (newest, None)
    assert V.pick_version("0.5.4.post3") == ("0.5.4", None)
    pick, note = V.pick_version("9.0.0")
    assert pick == newest and "newer than the newest" in note
    pick, note = V.pick_version("0.5.0")  # never released: the closest older one
    assert pick == "0.4.10" and "closest older" in note
    assert V.pick_version("0.3.0")[0] is None


def test_coverage_table(tmp_path):
    rel = gv.release(Source(_tree(tmp_path)))
    table = rel.coverage_table()
    assert [r["class"] for r in table] == list(V.CLASSES)
    assert sum(r["sites"] for r in table) == len(rel.sites)
    assert all(r["startup"] + r["late"] == r["sites"] for r in table)
    a = next(r for r in table if r["class"] == "a")
    assert a["sites"] == rel.coverage()["a"] and "reads only arguments" in a["reasons"]


def test_module_source_and_site_ids_for_the_evaluator():
    src = V.module_source("0.5.23")
    file, tree, pkg = src.find("sglang.srt.arg_groups.kv_cache_hook")
    assert file == "sglang/srt/arg_groups/kv_cache_hook.py" and not pkg
    compile(tree, file, "exec")
    assert src.find("sglang.srt.arg_groups.model_overrides")[2] is True  # a package
    assert src.find("sglang.srt.models.llama") is None and not src.exists("sglang.srt.models.llama")
    rel = V.load("0.5.23")
    site = next(s for s in rel.sites if s["end_line"] > s["line"])
    for line in (site["line"], site["end_line"]):
        assert V.site_id(site["file"], line, "0.5.23") == site["id"] == V.site_id(site["file"], line)
    assert V.site_id(site["file"], 1, "0.5.23") is None


def test_reading_the_data_imports_neither_sglang_nor_torch():
    code = (
        "import sys, sgllint.catalog.validation as V\n"
        "r = V.load('0.5.23')\n"
        "src = V.module_source('0.5.23')\n"
        "[src.find(m) for m in list(r.modules)[:40]]\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('sglang', 'torch'))\n"
        "assert not bad, bad\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
