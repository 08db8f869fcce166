"""The rule pack's oracle matrix, made from the rules' own examples.

For every rule of the registry with code >= SGL205 (so rules added later are
picked up by a rerun) and every one of its VALID and INVALID examples, the
launch is extracted with sgllint's own extractors and turned into a plain
``argv`` for ``prepare_server_args`` plus its context:

* release: each of ``RELEASES`` (the example's own ``sglang=`` pin is a
  statement about one release; the oracle judges the launch on all four, so
  both sides of a version boundary are checked against SGLang);
* GPU: the example's GPU (pragma, manifest label, ...) mapped by SM to one of
  the oracle's faked GPUs, else H100;
* architecture: the one sgllint resolved for the model (registry, config),
  else ``FALLBACK_ARCH``; the model path becomes ``{MODEL}``, a local
  directory with only a ``config.json`` for that architecture (``model``
  names the directory; a ``:tag`` in the original path is kept because
  ``--served-model-name`` defaults to the model path); a
  ``--speculative-draft-model-path`` becomes ``{DRAFT}``, a local EAGLE /
  EAGLE3 draft config (``draft_arch``), since SGLang reads the draft's
  config while resolving;
* Python ``Engine(...)``/``ServerArgs(...)`` keyword launches become the
  equivalent command line (each keyword's option string in that release).

Generated variants: for an INVALID example on a release where its rule
fires, the same launch with the flagged argument(s) removed ("fixed").

Launches that cannot be run as written (``$VAR``, ``"$@"``) are listed under
``skipped``. Identical launches (same release, GPU, model, argv) are merged;
``origins`` says which rules' examples produced them. Output:
``tests/data/oracle/rulepack-cases.json`` (deterministic, sorted)::

    python -m tests.oracle.rulepack_cases
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "tests" / "data" / "oracle" / "rulepack-cases.json"

#: oracle release -> exact wheel version
RELEASES = {"0.5.4": "0.5.4.post3", "0.5.10": "0.5.10.post1", "0.5.19": "0.5.19", "0.5.23": "0.5.23"}
FIRST_RULE = 205
FALLBACK_ARCH = "Qwen3ForCausalLM"
#: model ids sgllint's registry does not know -> the architecture to run them as
MODEL_ARCHS = {"Qwen/Qwen2.5-VL-7B-Instruct": "Qwen2_5_VLForConditionalGeneration"}


def rulepack_rules():
    from sgllint.model.rule import builtin_rules

    return [r for r in builtin_rules() if int(r.code[3:]) >= FIRST_RULE]


def _oracle_tables():
    sys.path.insert(0, str(ROOT / "tests" / "oracle"))
    import rulepack_oracle as ro  # stdlib only; never imports sglang here

    return ro


def _arg_tokens(launch) -> list[tuple[object, list[str]]]:
    """[(Arg or None, its argv words)], in order; raises ValueError when a
    word is not a known string."""
    from sgllint.model.kinds import Origin

    site = launch.site
    out: list[tuple[object, list[str]]] = []
    if site.form == "argv":
        args = [a for a in launch.args if a.origin is Origin.CLI]
        for tok in site.tokens:
            if not isinstance(tok.value, str):
                raise ValueError(f"unresolved word {tok.span.text!r}")
            owner = None
            for a in args:
                sp = a.span
                if sp.start <= tok.span.start < sp.end:
                    owner = a
                    break
            if out and owner is not None and out[-1][0] is owner:
                out[-1][1].append(tok.value)
            else:
                out.append((owner, [tok.value]))
        return out
    for a in launch.args:
        if not a.known:
            raise ValueError(f"unresolved value for {a.spelling}")
        opt = a.option
        flag = opt.name if opt is not None else "--" + a.spelling.replace("_", "-")
        v = a.value
        if opt is not None and not opt.takes_value:
            if opt.action == "store_false":
                words = [] if v else [flag]
            else:
                words = [flag] if v else []
        elif isinstance(v, (list, tuple)):
            words = [flag, *[json.dumps(x) if isinstance(x, dict) else str(x) for x in v]]
        elif isinstance(v, dict):
            words = [flag, json.dumps(v)]
        elif v is None:
            words = []
        else:
            words = [flag, str(v).lower() if isinstance(v, bool) and opt is None else str(v)]
        out.append((a, words))
    return out


def _model_name(arch: str, model: str | None) -> str:
    if model and ":" in model and "://" not in model:
        return arch + ":" + model.rsplit(":", 1)[1].replace("/", "-")
    return arch


def _case_id(rel: str, gpu: str, model: str, argv: list[str]) -> str:
    return hashlib.sha1(json.dumps([rel, gpu, model, argv]).encode()).hexdigest()[:12]


def build() -> dict:
    from sgllint.engine.config import Config
    from sgllint.engine.pipeline import Options, lint_source
    from sgllint.model.rule import iter_examples

    ro = _oracle_tables()
    cases: dict[str, dict] = {}
    skipped: list[dict] = []
    rules_meta: dict[str, dict] = {}
    for rule in rulepack_rules():
        n_examples = 0
        for test_id, ex in iter_examples(rule):
            n_examples += 1
            for rel in RELEASES:
                opts = Options(config=Config(), sglang_version=rel, use_environment=False)
                res = lint_source(ex.filename, ex.source, opts)
                if len(res.launches) != 1:
                    skipped.append({"rule": rule.code, "example": test_id, "release": rel,
                                    "why": f"{len(res.launches)} launches"})
                    continue
                launch = res.launches[0]
                if launch.opaque:
                    skipped.append({"rule": rule.code, "example": test_id, "release": rel,
                                    "why": "; ".join(launch.site.opaque)})
                    continue
                try:
                    parts = _arg_tokens(launch)
                except ValueError as e:
                    skipped.append({"rule": rule.code, "example": test_id, "release": rel, "why": str(e)})
                    continue
                ctx = launch.context
                model_value = ctx.model.value if ctx.model else None
                arch = ctx.arch or MODEL_ARCHS.get(model_value or "") or FALLBACK_ARCH
                if arch not in ro.MODEL_CONFIGS:
                    arch = FALLBACK_ARCH
                sm = ctx.gpu_target.sm if ctx.gpu_target is not None and ctx.gpu_target.sm else None
                gpu = ro.GPU_BY_SM.get(sm) if sm else None
                if gpu is None and sm:
                    lower = [s for s in ro.GPU_BY_SM if s <= sm]
                    gpu = ro.GPU_BY_SM[max(lower)] if lower else ro.DEFAULT_GPU
                gpu = gpu or ro.DEFAULT_GPU
                model = _model_name(arch, model_value)

                def argv_of(drop=()):
                    words: list[str] = []
                    for owner, ws in parts:
                        if owner is not None and id(owner) in drop:
                            continue
                        for fld, ph in (("model_path", "{MODEL}"), ("speculative_draft_model_path", "{DRAFT}")):
                            if owner is not None and owner.field == fld:
                                ws = [ws[0], ph] if len(ws) == 2 else [ws[0].split("=", 1)[0] + "=" + ph] if "=" in ws[0] else ws
                        words.extend(ws)
                    return words

                def add(argv, kind):
                    if "{MODEL}" not in argv and not any(w.endswith("={MODEL}") for w in argv):
                        skipped.append({"rule": rule.code, "example": test_id, "release": rel, "why": "no model path"})
                        return
                    cid = _case_id(rel, gpu, model, argv)
                    c = cases.setdefault(cid, {"id": cid, "release": rel, "wheel": RELEASES[rel], "gpu": gpu,
                                               "sm": list(ro.det.GPUS[gpu][0]), "arch": arch, "model": model,
                                               "argv": argv, "origins": []})
                    if any("{DRAFT}" in w for w in argv):
                        c["draft_arch"] = ro.draft_arch(argv)
                    o = {"rule": rule.code, "example": test_id, "kind": kind}
                    if o not in c["origins"]:
                        c["origins"].append(o)

                add(argv_of(), "valid" if ex.valid else "invalid")
                if not ex.valid:
                    mine = lint_source(ex.filename, ex.source,
                                       Options(config=Config(), sglang_version=rel, use_environment=False, rules=[rule]))
                    flagged = [d for d in mine.diagnostics if d.code == rule.code]
                    if flagged:
                        drop = set()
                        for d in flagged[:1]:
                            for owner, _ in parts:
                                if owner is None or owner.field == "model_path":
                                    continue
                                sp = owner.span
                                if sp.start < d.span.end and d.span.start < sp.end:
                                    drop.add(id(owner))
                        if drop:
                            add(argv_of(drop), "fixed")
        rules_meta[rule.code] = {"name": rule.name, "severity": rule.severity.value, "examples": n_examples}
    for c in cases.values():
        c["origins"].sort(key=lambda o: (o["rule"], o["example"], o["kind"]))
    skipped.sort(key=lambda s: (s["rule"], s["example"], s["release"]))
    return {
        "generated_by": "python -m tests.oracle.rulepack_cases",
        "releases": RELEASES,
        "rules": rules_meta,
        "skipped": skipped,
        "cases": sorted(cases.values(), key=lambda c: (c["release"], c["id"])),
    }


def main() -> int:
    data = build()
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    per = {}
    for c in data["cases"]:
        per[c["release"]] = per.get(c["release"], 0) + 1
    print(f"{OUT}: {len(data['cases'])} cases {per}, {len(data['rules'])} rules, {len(data['skipped'])} skipped")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main())
