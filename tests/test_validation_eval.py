"""The derived-validation evaluator (issue 17): three-valued domain, the
abstract interpreter's semantics on small programs written in the shape of
SGLang's start-up code, the environment model, and its import hygiene."""

from __future__ import annotations

import sys
import textwrap

import pytest

from sgllint.semantics.validation import (
    GpuFacts,
    LaunchFacts,
    Unknown,
    and3,
    evaluate,
    is_unknown,
    join,
    not3,
    or3,
    truth,
)
from sgllint.semantics.validation.evaluator import program
from sgllint.semantics.validation.interp import UnknownSignal
from sgllint.semantics.validation.program import DictSource

# --------------------------------------------------------------------------
# The value domain
# --------------------------------------------------------------------------


def test_three_valued_logic():
    u = Unknown("x")
    assert truth(1) is True and truth("") is False and is_unknown(truth(u))
    assert and3(False, u) is False and and3(True, True) is True and is_unknown(and3(True, u))
    assert or3(True, u) is True and or3(False, False) is False and is_unknown(or3(False, u))
    assert not3(True) is False and is_unknown(not3(u))
    with pytest.raises(UnknownSignal):  # Python asking for the truth of an Unknown is caught, never answered
        bool(Unknown("never silently true or false"))


def test_join_keeps_equal_values_only():
    assert join(3, 3) == 3
    assert is_unknown(join(3, 4))
    assert is_unknown(join(True, 1))  # a bool and an int are different values
    assert join([1, 2], [1, 2]) == [1, 2]
    j = join({"a": 1, "b": 2}, {"a": 1, "b": 3})
    assert j["a"] == 1 and is_unknown(j["b"])


# --------------------------------------------------------------------------
# Programs in SGLang's shape
# --------------------------------------------------------------------------

UTILS = '''
import os
import torch


def is_hip():
    return torch.version.hip is not None


def get_device_sm():
    major, minor = torch.cuda.get_device_capability()
    return major * 10 + minor


def get_bool_env_var(name, default="false"):
    value = os.getenv(name, default)
    return value.lower() in ("true", "1")
'''

SERVER_ARGS = '''
import argparse
import dataclasses
import logging
from typing import Optional

import vendor_probe
from sglang.srt.utils import get_bool_env_var, get_device_sm, is_hip

logger = logging.getLogger(__name__)


@dataclasses.dataclass
class ServerArgs:
    model_path: str
    tp_size: int = 1
    attention_backend: Optional[str] = None
    page_size: Optional[int] = None
    enable_mixed_chunk: bool = False

    def __post_init__(self):
        if self.tp_size <= 0:
            raise ValueError(f"tp_size must be positive, got {self.tp_size}")
        if self.attention_backend is None:
            self.attention_backend = "triton" if is_hip() else "flashinfer"
        if self.attention_backend == "fa3":
            if get_device_sm() < 90:
                raise ValueError("fa3 requires SM90")
            logger.warning("fa3 runs with page size 1")
            self.page_size = 1
        if self.attention_backend == "fa3" and self.page_size != 1:
            raise AssertionError("unreachable: the rewrite above set it")
        if self.enable_mixed_chunk and self.attention_backend == "flashinfer":
            raise ValueError("mixed chunk is not supported with flashinfer")
        if self.enable_mixed_chunk and vendor_probe.has_feature():
            raise ValueError("a vendor library says no")
        if get_bool_env_var("SGLANG_STRICT") and self.page_size == 7:
            raise ValueError("strict mode rejects page size 7")
        self._check_model()

    def _check_model(self):
        from transformers import AutoConfig

        config = AutoConfig.from_pretrained(self.model_path)
        assert config.num_attention_heads % self.tp_size == 0, (
            f"{config.num_attention_heads} heads are not divisible by tp_size {self.tp_size}"
        )

    @classmethod
    def from_cli_args(cls, args):
        names = [f.name for f in dataclasses.fields(cls)]
        return cls(**{n: getattr(args, n) for n in names if hasattr(args, n)})


def prepare_server_args(argv):
    parser = argparse.ArgumentParser()
    raw_args = parser.parse_args(argv)
    return ServerArgs.from_cli_args(raw_args)
'''

LLAMA = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "num_attention_heads": 32}
H100 = GpuFacts("nvidia", 90, "NVIDIA H100", 8, 80.0)
A100 = GpuFacts("nvidia", 80, "NVIDIA A100", 8, 80.0)


@pytest.fixture(scope="module")
def prog():
    return program("0.5.4", DictSource({"sglang.srt.utils": UTILS, "sglang.srt.server_args": SERVER_ARGS}))


def run(prog, user, model=LLAMA, gpu=H100, env=None):
    facts = LaunchFacts("0.5.4", {"model_path": "/models/m", **user}, "cli", model, gpu, env or {})
    return evaluate(facts, prog)


def line_of(text: str) -> int:
    return next(i for i, line in enumerate(SERVER_ARGS.splitlines(), 1) if text in line)


def test_definite_rejection_names_the_site_and_fills_the_message(prog):
    v = run(prog, {"tp_size": 0})
    assert v.rejection is not None and v.degraded is None
    assert v.rejection.file == "sglang/srt/server_args.py"
    assert v.rejection.line == line_of("tp_size must be positive")
    assert v.rejection.message == "tp_size must be positive, got 0"
    assert v.rejection.exc == "ValueError"


def test_accepted_launch_has_no_rejection(prog):
    v = run(prog, {"tp_size": 8})
    assert v.rejection is None and v.degraded is None and not v.possible


def test_gpu_facts_decide_and_unknown_gpu_is_only_possible(prog):
    assert run(prog, {"attention_backend": "fa3"}, gpu=A100).rejection.message == "fa3 requires SM90"
    assert run(prog, {"attention_backend": "fa3"}, gpu=H100).rejection is None
    v = run(prog, {"attention_backend": "fa3"}, gpu=None)
    assert v.rejection is None
    assert [p.line for p in v.possible] == [line_of("fa3 requires SM90")]


def test_rewrite_of_a_user_value_and_sequential_semantics(prog):
    v = run(prog, {"attention_backend": "fa3", "page_size": 16})
    assert v.rejection is None  # the later check sees the rewritten page size
    assert [(r.field, r.user_value, r.final_value) for r in v.rewrites] == [("page_size", 16, 1)]
    assert v.rewrites[0].line == line_of("self.page_size = 1")
    # a default SGLang fills in is not a rewrite of the user's value
    assert run(prog, {}).rewrites == []


def test_unknown_branches_join(prog):
    # the vendor is unknown: the backend default is triton or flashinfer, so
    # the flashinfer-only check is possible, never definite
    v = run(prog, {"enable_mixed_chunk": True}, gpu=None)
    assert v.rejection is None
    assert line_of("mixed chunk is not supported") in [p.line for p in v.possible]
    nvidia = run(prog, {"enable_mixed_chunk": True}, gpu=H100)
    assert nvidia.rejection.line == line_of("mixed chunk is not supported")
    amd = run(prog, {"enable_mixed_chunk": True}, gpu=GpuFacts("amd", None, "MI300X", 8, 192.0))
    assert amd.rejection is None or amd.rejection.line != line_of("mixed chunk is not supported")


def test_an_unmodelled_call_is_unknown_never_an_error(prog):
    v = run(prog, {"enable_mixed_chunk": True, "attention_backend": "triton"})
    assert v.rejection is None
    assert line_of("a vendor library says no") in [p.line for p in v.possible]


def test_environment_variables(prog):
    assert run(prog, {"page_size": 7}).rejection is None  # SGLANG_STRICT unset
    v = run(prog, {"page_size": 7}, env={"SGLANG_STRICT": "1"})
    assert v.rejection.line == line_of("strict mode rejects page size 7")


def test_model_facts(prog):
    v = run(prog, {"tp_size": 3})
    assert v.rejection.exc == "AssertionError"
    assert v.rejection.message == "32 heads are not divisible by tp_size 3"
    unknown_model = run(prog, {"tp_size": 3}, model=None)
    assert unknown_model.rejection is None
    assert line_of("assert config.num_attention_heads") in [p.line for p in unknown_model.possible]


def test_evaluation_imports_neither_sglang_nor_torch(prog):
    run(prog, {"tp_size": 3})
    run(prog, {"attention_backend": "fa3"}, gpu=None)
    loaded = [m for m in sys.modules if m.split(".")[0] in ("sglang", "torch", "transformers", "vendor_probe")]
    assert loaded == []


def test_module_state_does_not_leak_between_launches(prog):
    counter = textwrap.dedent('''
        CALLS = []

        def note(x):
            CALLS.append(x)
            if len(CALLS) > 1:
                raise ValueError("state leaked from another launch")
    ''')
    sa = SERVER_ARGS.replace("        self._check_model()", "        self._check_model()\n        note(self.tp_size)")
    sa = sa.replace("import vendor_probe", "import vendor_probe\nfrom sglang.srt.counter import note")
    p = program("0.5.4", DictSource({"sglang.srt.utils": UTILS, "sglang.srt.server_args": sa,
                                     "sglang.srt.counter": counter}))
    for _ in range(3):
        assert run(p, {"tp_size": 2}).rejection is None


def test_a_release_without_derived_data_says_so():
    v = evaluate(LaunchFacts("0.0.1", {"model_path": "m"}))
    assert v.rejection is None and "no derived validation" in v.degraded


# --------------------------------------------------------------------------
# The checked-in derived data of a real release, on launches SGLang judged
# --------------------------------------------------------------------------


def test_recorded_launches_of_a_release():
    """The first 300 recorded launches of 0.4.10 (the random differential's
    fixture, SGLang's own verdicts): no false error, SGLang's rejections at
    the same site, each disagreement with a cause (the full replay of all
    releases is tests/test_random_differential.py)."""
    from collections import Counter

    from tests.oracle import random_agreement as ra

    fx = ra.load("0.4.10")
    counts: Counter = Counter()
    for case in fx["cases"][:300]:
        outcome, rw_out, verdict = ra.judge_case("0.4.10", fx, case)
        counts[outcome] += 1
        counts.update(rw_out)
        for o in [outcome, *rw_out]:
            if o in ("false error", "false rewrite", "other site", "possible only", "missed"):
                assert ra._cause("0.4.10", case, o, verdict), (o, case["id"], case.get("at"))
    rejected = sum(counts[k] for k in ("agree: same site", "other site", "possible only", "missed"))
    assert counts["false error"] == 0
    assert rejected > 50 and counts["agree: same site"] / rejected >= 0.9, counts


_REAL_RELEASE_PROBE = '''
import gzip, json, sys
from pathlib import Path

opened = []
_open = gzip.open
def _recording_open(path, *a, **k):
    opened.append(Path(path).name)
    return _open(path, *a, **k)
gzip.open = _recording_open

from sgllint.semantics.validation import LaunchFacts, GpuFacts, evaluate
from sgllint.semantics.validation import evaluator
import sgllint.catalog.validation as V

imported_data_before = [n for n in opened if n.startswith(("sglang-", "units-"))]
model = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096,
         "num_attention_heads": 32, "num_key_value_heads": 8, "num_hidden_layers": 32,
         "vocab_size": 128256, "max_position_embeddings": 8192, "torch_dtype": "bfloat16"}
v = evaluate(LaunchFacts("0.5.23", {"model_path": "/models/llama", "tp_size": 3}, model_config=model,
                         gpu=GpuFacts(vendor="nvidia", sm=90, name="NVIDIA H100 80GB HBM3", count=8)))
print(json.dumps({
    "before": imported_data_before,
    "read": sorted(set(n for n in opened if n.startswith(("sglang-", "units-")))),
    "programs": sorted(evaluator._PROGRAMS),
    "heavy": sorted(m for m in sys.modules if m.split(".")[0] in ("sglang", "torch", "transformers")),
    "newest_shard": list(V.unit_shards())[-1],
    "verdict": bool(v.rejection) or bool(v.possible) or v.degraded is None,
}))
'''


def test_a_real_release_loads_lazily_and_imports_neither_sglang_nor_torch():
    """On a release's checked-in data, in a fresh interpreter: importing the
    evaluator reads no data; evaluating one 0.5.23 launch reads that release's
    manifest and the one units shard it needs (the newest release's units
    all live in its own shard), compiles that release only, and loads no
    sglang, torch or transformers module."""
    import json
    import subprocess

    proc = subprocess.run([sys.executable, "-c", _REAL_RELEASE_PROBE], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert got["before"] == []
    assert got["newest_shard"] == "0.5.23"
    assert got["read"] == ["sglang-0.5.23.json.gz", "units-0.5.23.jsonl.gz"]
    assert got["programs"] == ["0.5.23"]
    assert got["heavy"] == []
    assert got["verdict"]
