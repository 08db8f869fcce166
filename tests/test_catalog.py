"""The shipped flag catalogs against SGLang's real parsers.

Ground truth lives in ``tests/data/option_strings/``:

* ``sglang-<v>-option-strings.json``: option strings enumerated from the
  unmodified wheels of 0.5.5, 0.5.10, 0.5.15 and 0.5.23 (copied from the
  project's shared research data);
* ``sglang-<v>.json``: dumps of the real parsers made by
  ``tests/oracle/dump_option_strings.py`` (see ``tests/oracle/README.md``),
  with each option's Action class, dest, nargs, choices and const.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from sgllint import catalog
from sgllint.catalog import generate

ROOT = Path(__file__).resolve().parent.parent
TRUTH = ROOT / "tests" / "data" / "option_strings"
DATA = ROOT / "sgllint" / "catalog" / "data"

# Every release from 0.4.0 to 0.5.23 on PyPI (0.5.0 was never published),
# each generated from its last .postN.
EXPECTED_SOURCES = {
    "0.4.0": "0.4.0.post2",
    "0.4.1": "0.4.1.post7",
    "0.4.2": "0.4.2.post4",
    "0.4.3": "0.4.3.post4",
    "0.4.4": "0.4.4.post4",
    "0.4.5": "0.4.5.post3",
    "0.4.6": "0.4.6.post5",
    "0.4.7": "0.4.7.post1",
    "0.4.8": "0.4.8.post1",
    "0.4.9": "0.4.9.post6",
    "0.4.10": "0.4.10.post2",
    "0.5.1": "0.5.1.post3",
    "0.5.2": "0.5.2",
    "0.5.3": "0.5.3.post3",
    "0.5.4": "0.5.4.post3",
    "0.5.5": "0.5.5.post3",
    "0.5.6": "0.5.6.post2",
    "0.5.7": "0.5.7",
    "0.5.8": "0.5.8.post1",
    "0.5.9": "0.5.9",
    "0.5.10": "0.5.10.post1",
    "0.5.11": "0.5.11",
    "0.5.12": "0.5.12.post1",
    "0.5.13": "0.5.13.post1",
    "0.5.14": "0.5.14",
    "0.5.15": "0.5.15.post1",
    "0.5.16": "0.5.16",
    "0.5.17": "0.5.17",
    "0.5.18": "0.5.18",
    "0.5.19": "0.5.19",
    "0.5.20": "0.5.20",
    "0.5.21": "0.5.21",
    "0.5.22": "0.5.22",
    "0.5.23": "0.5.23",
}

ORACLE_RELEASES = ["0.4.3", "0.4.10", "0.5.4", "0.5.5", "0.5.10", "0.5.13", "0.5.15", "0.5.19", "0.5.23"]

# Releases of the brief's sample whose parser could not be built on CPU here.
ORACLE_NOT_IMPORTABLE: dict[str, str] = {}  # every sampled release has a real-parser dump

# argparse Action class (as the oracle dumps it) -> catalog "action".
ACTION_CLASSES = {
    "_StoreAction": "store",
    "_StoreTrueAction": "store_true",
    "_StoreFalseAction": "store_false",
    "_StoreConstAction": "store_const",
    "_HelpAction": "help",
    "_AppendAction": "append",
    "_CountAction": "count",
    "BooleanOptionalAction": "boolean_optional",
    "LoRAPathAction": "lora_paths",
    "DeprecatedAction": "deprecated",
    "DeprecatedStoreTrueAction": "deprecated_store_true",
    "DeprecatedStoreConstAction": "deprecated_store_const",
    "DeprecatedAliasStoreAction": "deprecated_alias",
}


def _truth(name: str) -> dict:
    return json.loads((TRUTH / name).read_text(encoding="utf-8"))


def _raw(version: str) -> dict:
    return json.loads((DATA / f"sglang-{version}.json").read_text(encoding="utf-8"))


# ---------------------------------------------------------------------------
# What ships
# ---------------------------------------------------------------------------


def test_every_release_ships_from_its_last_post_release():
    assert catalog.versions() == tuple(EXPECTED_SOURCES)
    for version, full in EXPECTED_SOURCES.items():
        raw = _raw(version)
        assert raw["sglang_version"] == version
        assert raw["sglang_full_version"] == full
        assert raw["source"].startswith(f"sglang-{full}-"), raw["source"]
        assert raw["source"].endswith(".whl")
        assert "GENERATED" in raw["notice"] and "DO NOT EDIT" in raw["notice"]
        assert "sgllint.catalog.generate" in raw["notice"] and raw["source"] in raw["notice"]
    assert catalog.latest() == "0.5.23"


def test_eras():
    eras = {v: _raw(v)["era"] for v in EXPECTED_SOURCES}
    assert {v for v, e in eras.items() if e == "annotated"} == {f"0.5.{i}" for i in range(14, 20)}
    assert {v for v, e in eras.items() if e == "msgspec"} == {f"0.5.{i}" for i in range(20, 24)}
    assert eras["0.4.0"] == eras["0.5.13"] == "add_argument"


def test_total_size_is_small():
    total = sum(p.stat().st_size for p in DATA.iterdir() if p.suffix == ".json")
    assert total < 3_200_000, total


def test_loading_one_catalog_reads_one_file(monkeypatch):
    """Loading a release parses its own file (and the shared help table),
    never the other catalogs; the time it takes is measured in benchmarks/."""
    import json as json_module

    catalog.load.cache_clear()
    catalog._help_table.cache_clear()
    read = []
    real_loads = json_module.loads

    def counting_loads(text, *a, **kw):
        read.append(len(text))
        return real_loads(text, *a, **kw)

    monkeypatch.setattr(catalog.json, "loads", counting_loads)
    cat = catalog.load("0.5.23")
    assert len(cat.option_strings) == 561
    assert len(read) <= 2


def test_loader_view_of_a_catalog():
    cat = catalog.load("0.5.23")
    tp = cat.by_string["--tp-size"]
    assert tp.field == "tp_size" and tp.type == "int" and tp.default == 1
    assert "--tensor-parallel-size" in tp.strings
    assert tp.help == "The tensor parallelism size."
    assert cat.by_string["-h"].action == "help" and cat.by_string["--config"].type == "str"
    assert cat.by_string["--model-path"].required
    assert cat.fields["tp_size"].cli and cat.fields["tp_size"].default == 1
    # no_cli field, but the manual --sampling-backend stores into it.
    assert _raw("0.5.23")["fields"]["sampling_backend"].get("no_cli") is True
    assert cat.fields["sampling_backend"].cli
    assert cat.by_string["--sampling-backend"].field == "sampling_backend"
    assert not cat.fields["watermark_key"].cli
    old = catalog.load("0.4.10")
    assert old.by_string["--tp-size"].dest == "tensor_parallel_size"
    assert old.by_string["--tp-size"].field == "tp_size"
    assert old.by_string["--dp-size"].field == "dp_size"
    assert catalog.load("0.5.10").by_string["--attn-cp-size"].field == "attn_cp_size"
    assert catalog.load("0.5.10").by_string["--moe-dp-size"].field == "moe_dp_size"


# ---------------------------------------------------------------------------
# Option strings against the real parsers
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("version", ["0.5.10", "0.5.15", "0.5.23"])
def test_shared_ground_truth(version):
    truth = set(_truth(f"sglang-{version}-option-strings.json")["option_strings"])
    got = catalog.load(version).option_strings
    assert got == truth, {"missing": sorted(truth - got), "extra": sorted(got - truth)}


def test_shared_ground_truth_0_5_5():
    """The shared 0.5.5 list was made from the 0.5.5 wheel; the shipped 0.5.5
    catalog comes from 0.5.5.post3, whose parser (see the oracle dump) has
    exactly these differences.  The regeneration test checks 0.5.5 itself."""
    truth = set(_truth("sglang-0.5.5-option-strings.json")["option_strings"])
    got = catalog.load("0.5.5").option_strings
    assert len(truth) == 283
    assert sorted(truth - got) == ["--kt-amx-method", "--kt-amx-weight-path"]
    assert sorted(got - truth) == [
        "--enable-attn-tp-input-scattered",
        "--enable-broadcast-mm-inputs-process",
        "--enable-draft-weights-cpu-backup",
        "--enable-layerwise-nvtx-marker",
        "--export-metrics-to-file",
        "--export-metrics-to-file-dir",
        "--kt-method",
        "--kt-weight-path",
    ]


def _oracle_mismatches(version: str) -> list[str]:
    dump = _truth(f"sglang-{version}.json")
    cat = catalog.load(version)
    problems: list[str] = []
    truth = set(dump["option_strings"])
    got = cat.option_strings
    for s in sorted(truth - got):
        problems.append(f"{s}: missing from the catalog")
    for s in sorted(got - truth):
        problems.append(f"{s}: not in the real parser")
    for s, act in dump["actions"].items():
        opt = cat.by_string.get(s)
        if opt is None:
            continue
        kind = ACTION_CLASSES.get(act["action"], act["action"])
        if opt.action != kind:
            problems.append(f"{s}: action {opt.action!r} != real {kind!r} ({act['action']})")
        if opt.dest != act["dest"]:
            problems.append(f"{s}: dest {opt.dest!r} != real {act['dest']!r}")
        if opt.nargs != act["nargs"]:
            problems.append(f"{s}: nargs {opt.nargs!r} != real {act['nargs']!r}")
        if sorted(opt.strings) != sorted(act["option_strings"]):
            problems.append(f"{s}: strings {sorted(opt.strings)} != real {sorted(act['option_strings'])}")
        real_choices = act["choices"]
        if real_choices is None:
            if opt.choices is not None:
                problems.append(f"{s}: choices {list(opt.choices)} but the real parser has none")
        elif opt.choices is None:
            problems.append(f"{s}: no choices, real {real_choices}")
        elif opt.choices_open:
            unknown = set(opt.choices) - set(real_choices)
            if unknown:
                problems.append(f"{s}: open choices {sorted(unknown)} not in real {real_choices}")
        elif sorted(map(str, opt.choices)) != sorted(map(str, real_choices)):
            problems.append(
                f"{s}: choices differ: missing {sorted(set(map(str, real_choices)) - set(map(str, opt.choices)))}, "
                f"extra {sorted(set(map(str, opt.choices)) - set(map(str, real_choices)))}"
            )
        raw_const = next((o.get("const") for o in _raw(version)["options"] if s in o["strings"]), None)
        if act["const"] is not None and raw_const != act["const"] and kind != "help":
            problems.append(f"{s}: const {raw_const!r} != real {act['const']!r}")
    return problems


@pytest.mark.parametrize("version", ORACLE_RELEASES)
def test_catalog_matches_real_parser(version):
    path = TRUTH / f"sglang-{version}.json"
    if version in ORACLE_NOT_IMPORTABLE:
        assert not path.exists()
        pytest.skip(f"no oracle dump for {version}: {ORACLE_NOT_IMPORTABLE[version]} (tests/oracle/README.md)")
    assert path.exists(), f"run tests/oracle/run_oracle.sh for {version}"
    dump = _truth(f"sglang-{version}.json")
    assert dump["wheel"] == _raw(version)["source"], "oracle dump and catalog come from different wheels"
    problems = _oracle_mismatches(version)
    assert not problems, "\n".join(problems)


def test_oracle_agrees_with_shared_ground_truth():
    dump = set(_truth("sglang-0.5.23.json")["option_strings"])
    assert dump == set(_truth("sglang-0.5.23-option-strings.json")["option_strings"])
    assert len(dump) == 561


# ---------------------------------------------------------------------------
# Deprecations, types, lists, constants
# ---------------------------------------------------------------------------


def test_deprecations():
    c = catalog.load("0.4.6")
    d = c.by_string["--enable-flashinfer-mla"].deprecated
    assert d.behaviour == "error" and d.replacement == "--attention-backend"
    c = catalog.load("0.5.3")
    d = c.by_string["--enable-ep-moe"].deprecated
    assert d.behaviour == "error" and d.replacement == "--ep-size"
    c = catalog.load("0.5.13")
    d = c.by_string["--hybrid-kvcache-ratio"].deprecated
    assert d.behaviour == "warn" and d.replacement == "--swa-full-tokens-ratio"
    d = c.by_string["--nsa-prefill-backend"].deprecated
    assert d.behaviour == "warn" and d.replacement == "--dsa-prefill-backend"
    c = catalog.load("0.5.19")
    d = c.by_string["--enable-expert-distribution-metrics"].deprecated
    assert d.behaviour == "exit" and d.replacement == "--expert-balancedness-report-mode"
    assert "no longer supported" in d.message
    d = c.by_string["--stream-output"].deprecated
    assert d.replacement == "--incremental-streaming-output"
    assert c.by_string["--stream-output"].field == "incremental_streaming_output"
    assert c.by_string["--prefill-round-robin-balance"].deprecated.replacement is None
    c = catalog.load("0.5.23")
    assert c.by_string["--disable-cuda-graph"].deprecated.replacement == "--cuda-graph-backend-{decode,prefill}=disabled"
    mono = c.by_string["--monokernel-backend"]
    assert mono.deprecated.replacement == "--enable-amd-monokernel" and mono.field == "enable_amd_monokernel"
    # store_true flags whose help says deprecated and for which SGLang warns:
    fusion = c.by_string["--enable-flashinfer-allreduce-fusion"]
    assert fusion.action == "store_true"
    assert fusion.deprecated.behaviour == "warn"
    assert fusion.deprecated.replacement == "--flashinfer-allreduce-fusion-backend"
    # 0.5.1: --enable-ep-moe is a plain store_true whose help says (Deprecated) and SGLang warns.
    d = catalog.load("0.5.1").by_string["--enable-ep-moe"].deprecated
    assert d.behaviour == "warn" and d.replacement == "--ep-size"
    for v in catalog.versions():
        for opt in catalog.load(v).options:
            if opt.action.startswith("deprecated"):
                assert opt.deprecated is not None, (v, opt.name)


def test_types_are_normalised():
    allowed = {"str", "int", "float", "bool", "json", "json_list", "human_readable_int", "nullable_str"}
    for v in catalog.versions():
        for opt in catalog.load(v).options:
            assert opt.type in allowed or opt.type.startswith("parse_"), (v, opt.name, opt.type)
    c = catalog.load("0.5.23")
    assert c.by_string["--json-model-override-args"].type == "str"
    assert c.by_string["--max-total-tokens"].type == "human_readable_int"
    assert c.by_string["--port"].type == "int"
    assert catalog.load("0.5.10").by_string["--cuda-graph-bs"].nargs == "+"


def test_choices():
    c = catalog.load("0.5.23")
    rp = c.by_string["--reasoning-parser"]
    assert rp.choices[0] == "auto" and "deepseek-r1" in rp.choices and not rp.choices_open
    assert "qwen25" in c.by_string["--tool-call-parser"].choices
    assert list(c.by_string["--kv-canary-real-data"].choices) == ["none", "partial", "all"]
    assert set(c.by_string["--sampling-backend"].choices) == {"ascend", "flashinfer", "intel_xpu", "pytorch"}
    assert list(catalog.load("0.5.19").by_string["--cuda-graph-backend-decode"].choices) == [
        "full",
        "breakable",
        "tc_piecewise",
        "disabled",
    ]
    # Function-local ATTN_BACKENDS of 0.5.1 / 0.5.2.
    assert "fa3" in catalog.load("0.5.1").by_string["--attention-backend"].choices
    # SUPPORTED_LORA_TARGET_MODULES + [LORA_TARGET_ALL_MODULES] through a star import.
    lora = catalog.load("0.5.3").by_string["--lora-target-modules"]
    assert lora.choices[-1] == "all" and "q_proj" in lora.choices and not lora.choices_open
    for v in catalog.versions():
        assert not any(o.choices_open for o in catalog.load(v).options), v


def test_deterministic_lists_history():
    """What the wheels really say (research notes: 0.5.3 [flashinfer, fa3,
    triton] -> 0.5.13 +ascend -> 0.5.16 +fa4 -> 0.5.19 +intel_xpu; radix list
    0.5.5 [fa3, triton] -> 0.5.13 +ascend -> 0.5.16 [ascend, fa3, fa4, triton]).
    Differences from those notes: the radix list is already in 0.5.4.post3
    (the shipped 0.5.4), and from 0.5.16 the deterministic list is written in
    alphabetical order."""

    def det(v):
        return catalog.load(v).list("DETERMINISTIC_ATTENTION_BACKEND_CHOICES")

    def radix(v):
        return catalog.load(v).list("RADIX_SUPPORTED_DETERMINISTIC_ATTENTION_BACKEND")

    expected_det = {}
    expected_radix = {}
    for v in catalog.versions():
        key = catalog.version_key(v)
        if key < (0, 5, 3):
            expected_det[v] = None
        elif key < (0, 5, 13):
            expected_det[v] = ["flashinfer", "fa3", "triton"]
        elif key < (0, 5, 16):
            expected_det[v] = ["flashinfer", "fa3", "triton", "ascend"]
        elif key < (0, 5, 19):
            expected_det[v] = ["ascend", "fa3", "fa4", "flashinfer", "triton"]
        else:
            expected_det[v] = ["ascend", "fa3", "fa4", "flashinfer", "intel_xpu", "triton"]
        if key < (0, 5, 4):
            expected_radix[v] = None
        elif key < (0, 5, 13):
            expected_radix[v] = ["fa3", "triton"]
        elif key < (0, 5, 16):
            expected_radix[v] = ["fa3", "triton", "ascend"]
        else:
            expected_radix[v] = ["ascend", "fa3", "fa4", "triton"]
    assert {v: det(v) for v in catalog.versions()} == expected_det
    assert {v: radix(v) for v in catalog.versions()} == expected_radix
    lists = catalog.load("0.5.23").lists
    assert "CHUNKED_PREFIX_CACHE_SUPPORTED_ATTENTION_BACKENDS" in lists
    assert "fa3" in lists["ATTENTION_BACKEND_CHOICES"]
    assert set(lists["SAMPLING_BACKEND_CHOICES"]) == {"ascend", "flashinfer", "intel_xpu", "pytorch"}
    # DETERMINISTIC_ATTENTION_BACKEND_CHOICES is also what --attention-backend
    # validation compares against; every name is an attention backend.
    assert set(lists["DETERMINISTIC_ATTENTION_BACKEND_CHOICES"]) <= set(lists["ATTENTION_BACKEND_CHOICES"])


def test_deterministic_facts_history():
    """The "deterministic" and "mla_architectures" keys, extracted from each
    release's own check (research §2.1, with the differences the wheels
    show: the DeepSeek check and the radix list are already in 0.5.4.post3,
    0.5.17 still says "DeepSeek models", 0.5.19's hook list equals the
    fallback's, only 0.5.20+ add Glm5Next to the check alone)."""
    ds = ["DeepseekV2ForCausalLM", "DeepseekV3ForCausalLM", "DeepseekV32ForCausalLM"]
    mistral = ["MistralLarge3ForCausalLM", "PixtralForConditionalGeneration"]
    for v in catalog.versions():
        key = catalog.version_key(v)
        cat = catalog.load(v)
        facts = cat.deterministic
        assert cat.mla_architectures and "DeepseekV2ForCausalLM" in cat.mla_architectures
        if key < (0, 5, 3):
            assert facts is None
            continue
        assert facts["allow_list"] == "DETERMINISTIC_ATTENTION_BACKEND_CHOICES"
        assert facts["fallback"] is (key >= (0, 5, 4))
        assert facts["rl_on_policy_target_implies"] is (key >= (0, 5, 4))
        assert "allow_list" in facts["messages"]
        check = facts["check_architectures"]
        if key < (0, 5, 4):
            assert check == [] and facts["mla_backends"] is None and facts["radix_backends"] is None
            continue
        expected = list(ds)
        if key >= (0, 5, 6):
            expected += mistral
        if key >= (0, 5, 9):
            expected.append("GlmMoeDsaForCausalLM")
        if key >= (0, 5, 18):
            expected.append("Glm4MoeLiteForCausalLM")
        assert facts["fallback_architectures"] == expected, v
        assert check == expected + (["Glm5NextForConditionalGeneration"] if key >= (0, 5, 20) else []), v
        if key < (0, 5, 17):
            assert facts["mla_backends"] == ["fa3", "triton"] and facts["mla_backends_from"] == "literal"
            assert facts["fa4_sm_check"] is None and "mla_fa4" not in facts["messages"]
        else:
            assert facts["mla_backends"] == cat.list("RADIX_SUPPORTED_DETERMINISTIC_ATTENTION_BACKEND")
            assert facts["mla_backends_from"] == "RADIX_SUPPORTED_DETERMINISTIC_ATTENTION_BACKEND"
            assert "sm100_or_sm110" in facts["fa4_sm_check"]
            assert "requires SM100/SM110" in facts["messages"]["mla_fa4"]
        wording = "absorbed-MLA models" if key >= (0, 5, 18) else "DeepSeek models"
        assert wording in facts["messages"]["mla_backend"], v
        assert facts["radix_backends"] == cat.list("RADIX_SUPPORTED_DETERMINISTIC_ATTENTION_BACKEND")
        where = "arg_groups/attention_hook.py" if key >= (0, 5, 19) else "server_args.py"
        assert where in facts["check"]
    assert catalog.load("0.5.16").deterministic["messages"]["mla_backend"].startswith("Currently only ['fa3', 'triton']")
    assert "KimiK25ForConditionalGeneration" in catalog.load("0.5.23").mla_architectures
    assert "DeepseekV4ForCausalLM" not in catalog.load("0.5.23").mla_architectures


def test_fields():
    c = catalog.load("0.5.23")
    assert len(c.fields) == 546
    assert list(c.fields)[:3] == ["model_path", "tokenizer_path", "tokenizer_mode"]
    no_cli = {n for n, f in c.fields.items() if not f.cli}
    assert "watermark_key" in no_cli and "tp_size" not in no_cli
    declared_no_cli = {n for n, f in _raw("0.5.23")["fields"].items() if f.get("no_cli")}
    assert len(declared_no_cli) == 19, sorted(declared_no_cli)
    raw = _raw("0.5.23")
    assert raw["fields"]["model_path"].get("required") is True
    old = catalog.load("0.4.10")
    assert old.fields["tp_size"].type == "int" and old.fields["tp_size"].cli


def test_test_constants():
    consts = _raw("0.5.23")["test_constants"]
    assert isinstance(consts["DEFAULT_MODEL_NAME_FOR_TEST"], str) and "/" in consts["DEFAULT_MODEL_NAME_FOR_TEST"]
    assert all(k.isupper() for k in consts)
    assert all(isinstance(v, (str, int)) and not isinstance(v, bool) for v in consts.values())
    assert _raw("0.4.0")["test_constants"]["DEFAULT_MODEL_NAME_FOR_TEST"]


# ---------------------------------------------------------------------------
# Regeneration from the real wheels (needs PyPI)
# ---------------------------------------------------------------------------

REGEN_SAMPLE = ["0.4.10", "0.5.15", "0.5.23"]


def _download(spec: str, dest: Path) -> Path:
    if os.environ.get("SGLLINT_OFFLINE"):
        pytest.skip("SGLLINT_OFFLINE is set")
    cache = os.environ.get("SGLLINT_WHEEL_CACHE")
    name = spec.split("==")[1]
    if cache:
        hits = sorted(Path(cache).glob(f"sglang-{name}-*.whl"))
        if hits:
            return hits[0]
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "-q", spec, "-d", str(dest)],
            capture_output=True,
            text=True,
            timeout=120,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        pytest.skip(f"pip download {spec} failed (no network?): {exc}")
    hits = sorted(dest.glob(f"sglang-{name}-*.whl"))
    if proc.returncode != 0 or not hits:
        pytest.skip(f"pip download {spec} failed (no network?): {proc.stderr.strip()[-300:]}")
    return hits[0]


@pytest.mark.network
@pytest.mark.parametrize("version", REGEN_SAMPLE)
def test_regeneration_is_byte_identical(version, tmp_path):
    full = EXPECTED_SOURCES[version]
    wheel = _download(f"sglang=={full}", tmp_path / "wheels")
    out = tmp_path / "out"
    out.mkdir()
    shutil.copy(DATA / "help.json", out / "help.json")
    assert generate.main([str(wheel), "--out", str(out)]) == 0
    produced = (out / f"sglang-{version}.json").read_bytes()
    assert produced == (DATA / f"sglang-{version}.json").read_bytes()
    # Every help text it needs is already in the shipped table.
    table = json.loads((DATA / "help.json").read_text(encoding="utf-8"))
    ids = {o["help_id"] for o in json.loads(produced)["options"] if "help_id" in o}
    assert ids <= set(table)


@pytest.mark.network
def test_generated_from_0_5_5_wheel_matches_shared_ground_truth(tmp_path):
    wheel = _download("sglang==0.5.5", tmp_path / "wheels")
    cat = generate.build_catalog(generate.Source(wheel), None)
    got = {s for o in cat["options"] for s in o["strings"]}
    truth = set(_truth("sglang-0.5.5-option-strings.json")["option_strings"])
    assert got == truth, {"missing": sorted(truth - got), "extra": sorted(got - truth)}
