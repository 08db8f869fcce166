"""SGLang ``--config`` files linted on their own, at exact positions, as the
release's ``ConfigArgumentMerger`` reads them.

Fixtures are written here in the shapes real repositories use: a
``configs/server.yaml`` beside a ``launch.sh`` that passes it with
``--config``, keys spelled with dashes as SGLang's docs write them.
"""

from __future__ import annotations

import textwrap

from sgllint.engine.pipeline import Options, lint_file, lint_source
from sgllint.resolve.config_refs import forget


def _lint(text, path="server.yaml", version="0.5.23"):
    return lint_source(path, textwrap.dedent(text).lstrip(), Options(use_environment=False, sglang_version=version))


def _found(result):
    return [(d.code, d.span.start_line_col(), d.span.text) for d in result.diagnostics]


SERVER_YAML = """\
model-path: Qwen/Qwen2.5-7B-Instruct
tp: 2
mem-fraction-static: 0.85
enable-lora: true
lora-paths:
  - adapter1=org/lora-a
mm-enable-dp-encoder: true
chunked-prefill-size: 4096
"""


def test_config_file_without_the_word_sglang_is_linted_at_exact_positions():
    result = _lint(SERVER_YAML)
    assert _found(result) == [
        ("SGL109", (2, 1), "tp"),
        ("SGL113", (5, 1), "lora-paths"),
        ("SGL113", (7, 1), "mm-enable-dp-encoder"),
    ]
    (launch,) = result.launches
    assert launch.entry == "sglang --config file" and launch.value("tp_size") == 2


def test_sgl109_fix_in_a_config_file_keeps_the_key_spelling():
    result = _lint(SERVER_YAML)
    (d,) = [d for d in result.diagnostics if d.code == "SGL109"]
    (edit,) = d.fix.edits
    assert edit.span.text == "tp" and edit.content == "tp-size"
    cli = lint_source("a.sh", "python -m sglang.launch_server --model-path m --tp 2\n", Options(use_environment=False))
    (d,) = [d for d in cli.diagnostics if d.code == "SGL109"]
    assert d.fix.edits[0].content == "--tp-size"


def test_refused_keys_per_release():
    # 0.5.3-0.5.7: the merger refuses nothing
    assert [c for c, *_ in _found(_lint(SERVER_YAML, version="0.5.7")) if c == "SGL113"] == []
    # 0.5.8-0.5.22: argparse dests of non-store actions are refused
    codes = _found(_lint(SERVER_YAML, version="0.5.10"))
    assert ("SGL113", (5, 1), "lora-paths") in codes


def test_deprecated_store_true_key():
    result = _lint("model-path: Qwen/Qwen2.5-7B-Instruct\nenable-dp-attention: true\ndp-size: 2\n")
    (d,) = [d for d in result.diagnostics if d.code == "SGL113"]
    assert d.span.text == "enable-dp-attention" and "DeprecatedStoreTrueAction" in d.message
    # the refused key is not also an argparse arg (no "takes no value", no deprecation warning)
    assert [d.code for d in result.diagnostics] == ["SGL113"]


def test_referenced_config_reports_the_same_findings_once(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "configs").mkdir()
    (tmp_path / "configs" / "server.yaml").write_text(SERVER_YAML)
    launch = tmp_path / "launch.sh"
    launch.write_text("#!/bin/bash\npython -m sglang.launch_server --config configs/server.yaml --port 30000\n")
    options = Options(use_environment=False, sglang_version="0.5.23")
    from_launch = lint_file(str(launch), options)
    standalone = lint_file(str(tmp_path / "configs" / "server.yaml"), options)
    assert sorted(_found(from_launch)) == sorted(_found(standalone))


def test_look_alike_yaml_is_not_a_config_file():
    training = """\
    model_path: meta-llama/Llama-3.1-8B
    learning_rate: 1.0e-5
    epochs: 3
    output_dir: out/
    """
    result = _lint(training, path="train.yaml")
    assert result.launches == [] and result.diagnostics == []
    nested = "trainer:\n  model-path: x\n  tp: 2\n"
    assert _lint(nested, path="values.yaml").launches == []


TP_YAML = """\
tp-size: 2
mem-fraction-static: 0.85
attention-backend: flashinferr
lora-paths:
  - adapter1=org/lora-a
"""


def test_model_less_config_referenced_by_a_launch_is_linted_on_its_own(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "configs").mkdir()
    (tmp_path / "scripts").mkdir()
    config = tmp_path / "configs" / "tp2.yaml"
    config.write_text(TP_YAML)
    options = Options(use_environment=False, sglang_version="0.5.23")
    # nobody passes it yet: a YAML file like any other
    assert lint_file(str(config), options).diagnostics == []
    forget()
    (tmp_path / "scripts" / "serve.sh").write_text(
        "#!/bin/bash\npython -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct \\\n  --config configs/tp2.yaml --port 30000\n"
    )
    result = lint_file(str(config), options)
    assert _found(result) == [("SGL103", (3, 20), "flashinferr"), ("SGL113", (4, 1), "lora-paths")]
    # the launch gives the model path: nothing is missing from the file on its own
    assert result.launches[0].opaque


def test_unreferenced_dashed_yaml_stays_unlinted(tmp_path):
    (tmp_path / ".git").mkdir()
    other = tmp_path / "ci.yaml"
    other.write_text("run-name: nightly\ntp-size: 2\n")
    (tmp_path / "train.sh").write_text("python train.py --config ci.yaml\n")
    forget()
    # referenced, but run-name is no SGLang option: not an SGLang config
    assert lint_file(str(other), Options(use_environment=False)).launches == []
