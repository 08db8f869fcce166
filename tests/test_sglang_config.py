"""``--config FILE.yaml`` emulation against SGLang's own merger.

SGLang's ``ConfigArgumentMerger`` of each behaviour era is kept verbatim in
``tests/fixtures/yaml/sglang_merger/``. Each test builds one argparse parser
(real argparse actions plus stand-ins with SGLang's action class names and
``__init__`` defaults) and the matching catalog, runs SGLang's merger on a
config file and compares its words, or its error, with sgllint's.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
from pathlib import Path

import pytest

from sgllint.catalog import Catalog, Option
from sgllint.model.launchers import LAUNCH_SERVER, ROUTER_LAUNCH_SERVER, SERVE
from sgllint.catalog import _gen_spellings
from sgllint.formats import sglang_spellings
from sgllint.formats.yaml.sglang_config import entries_from_text, raw_config_tokens
from sgllint.model.kinds import Origin
from sgllint.resolve import sglang_config
from sgllint.resolve.sglang_config import config_tokens, unsupported_option_message, unsupported_options
from sgllint.model.facts import LaunchSite, Source, Span, Token, Unresolved

FIXTURES = Path(__file__).parent / "fixtures" / "yaml"
MERGERS = FIXTURES / "sglang_merger"


def read_config(path):
    """Resolution reads the file; the YAML format parses it (as the engine wires them)."""
    return sglang_config.read_config(path, entries_from_text)


def merge_config(site, cat, base_dir):
    return sglang_config.merge_config(site, cat, base_dir, parse=entries_from_text)


def test_generated_spellings_are_the_newest_catalogs():
    """The formats' copy of SGLang's option names (they never import the
    catalog) is regenerated with each new release:
    ``python -m sgllint.catalog._gen_spellings``."""
    assert Path(sglang_spellings.__file__).read_text(encoding="utf-8") == _gen_spellings.render()


# ---------------------------------------------------------------------------
# SGLang's action classes (names and __init__ defaults as in argparse_actions.py)
# ---------------------------------------------------------------------------


class DeprecatedAction(argparse.Action):
    def __init__(self, option_strings, dest, nargs=0, **kwargs):
        super().__init__(option_strings, dest, nargs=nargs, **kwargs)


class DeprecatedStoreTrueAction(argparse.Action):
    def __init__(self, option_strings, dest, nargs=0, const=True, default=False, **kwargs):
        super().__init__(option_strings, dest, nargs=nargs, const=const, default=default, **kwargs)


class DeprecatedAliasStoreAction(argparse.Action):
    def __init__(self, option_strings, dest, **kwargs):
        super().__init__(option_strings, dest, **kwargs)


class LoRAPathAction(argparse.Action):
    pass


#: (option strings, dest, catalog action kind, nargs)
SPEC = [
    (["-h", "--help"], "help", "help", 0),
    (["--config"], "config", "store", None),
    (["--model-path", "--model"], "model_path", "store", None),
    (["--tp-size", "--tensor-parallel-size"], "tp_size", "store", None),
    (["--port"], "port", "store", None),
    (["--mem-fraction-static"], "mem_fraction_static", "store", None),
    (["--log-level"], "log_level", "store", None),
    (["--revision"], "revision", "store", None),
    (["--json-model-override-args"], "json_model_override_args", "store", None),
    (["--cuda-graph-bs"], "cuda_graph_bs", "store", "+"),
    (["--enable-metrics"], "enable_metrics", "store_true", 0),
    (["--disable-radix-cache"], "disable_radix_cache", "store_true", 0),
    (["--trust-remote-code"], "trust_remote_code", "store_true", 0),
    (["--mm-enable-dp-encoder", "--no-mm-enable-dp-encoder"], "mm_enable_dp_encoder", "boolean_optional", 0),
    (["--lora-paths"], "lora_paths", "lora_paths", "*"),
    (["--enable-dp-attention"], "enable_dp_attention", "deprecated_store_true", 0),
    (["--dp-attention"], "enable_dp_attention", "store_true", 0),  # shares the dest
    (["--old-name"], "new_name", "deprecated_alias", None),
    (["--no-cache"], "cache", "store_false", 0),
    (["--removed-flag"], "removed_flag", "deprecated", 0),
    (["--tag"], "tags", "append", None),
]


def real_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(add_help=False)
    classes = {
        "deprecated": DeprecatedAction,
        "deprecated_store_true": DeprecatedStoreTrueAction,
        "deprecated_alias": DeprecatedAliasStoreAction,
        "lora_paths": LoRAPathAction,
        "boolean_optional": argparse.BooleanOptionalAction,
    }
    for strings, dest, kind, nargs in SPEC:
        if kind == "help":
            parser.add_argument(*strings, action="help")
        elif kind == "boolean_optional":
            parser.add_argument(*[s for s in strings if not s.startswith("--no-")], dest=dest, action=classes[kind])
        elif kind in classes:
            kwargs = {"nargs": nargs} if kind == "lora_paths" else {}
            parser.add_argument(*strings, dest=dest, action=classes[kind], **kwargs)
        elif kind in ("store_true", "store_false", "append"):
            parser.add_argument(*strings, dest=dest, action=kind)
        else:
            parser.add_argument(*strings, dest=dest, nargs=nargs)
    return parser


def catalog(version: str) -> Catalog:
    options = [
        Option(tuple(strings), dest, dest, kind, "str", nargs, None, False, None, False, "", None)
        for strings, dest, kind, nargs in SPEC
    ]
    return Catalog(version=version, source="test", era="test", options=options, fields={}, lists={})


def sglang_merger(version: str):
    key = tuple(int(p) for p in version.split("."))
    name = "v0_5_3" if key < (0, 5, 8) else "v0_5_8" if key < (0, 5, 14) else "v0_5_14" if key < (0, 5, 23) else "v0_5_23"
    spec = importlib.util.spec_from_file_location(f"sglang_merger_{name}", MERGERS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    if key < (0, 5, 8):
        # prepare_server_args 0.5.3-0.5.7: `action.action` never exists
        return module.ConfigArgumentMerger(boolean_actions=[])
    return module.ConfigArgumentMerger(real_parser())


def sglang_words(version: str, path: Path):
    """SGLang's config words for ``path``, or its ValueError message."""
    merger = sglang_merger(version)
    try:
        result = merger._parse_yaml_config(str(path))
        return result if isinstance(result, list) else merger._convert_config_to_args(result)
    except ValueError as exc:
        return str(exc)


def sgllint_words(version: str, path: Path):
    cat = catalog(version)
    _, entries, problems = read_config(path)
    assert not problems
    refused = unsupported_options(entries, cat)
    if refused and tuple(int(p) for p in version.split(".")) >= (0, 5, 8):
        return unsupported_option_message(refused[0].value, cat)
    return [t.value for t in config_tokens(entries, cat)]


VERSIONS = ["0.5.3", "0.5.5", "0.5.7", "0.5.8", "0.5.13", "0.5.14", "0.5.19", "0.5.22", "0.5.23"]

CONFIGS = {
    "values": """
model-path: meta-llama/Llama-3.1-8B-Instruct
tp-size: 2
tp_size: 3
port: "30000"
mem-fraction-static: 0.85
log-level: null
revision: 2024-01-01
enable-metrics: true
disable-radix-cache: false
trust-remote-code: yes
port2: 010
cuda-graph-bs: [1, 2, 4]
lora-paths-empty: []
json-model-override-args: {rope_scaling: {type: yarn, factor: 4.0}, ok: [1, true]}
""",
    "bools on valued flags": "model-path: m\nport: true\nrevision: false\n",
    "alias spellings": "tensor-parallel-size: 4\nmodel: m\ndp-attention: true\n",
    "boolean optional": "model-path: m\nmm-enable-dp-encoder: true\n",
    "no- spelling": "model-path: m\nno-mm-enable-dp-encoder: true\n",
    "lora paths": "lora-paths: [a=/x, b=/y]\n",
    "deprecated store true": "enable-dp-attention: true\n",
    "deprecated alias": "old-name: 3\n",
    "store false": "no-cache: true\n",
    "append": "tag: a\n",
    "unknown keys": "not-a-flag: 1\nmodel_path: m\n",
    "merge keys": "base: &b {model-path: m, tp-size: 2}\n<<: *b\ntp-size: 8\n",
    "duplicate keys": "tp-size: 2\nport: 1\ntp-size: 4\n",
    "empty": "",
}


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_words_match_sglang(tmp_path, version, name):
    path = tmp_path / "config.yaml"
    path.write_text(CONFIGS[name])
    assert sgllint_words(version, path) == sglang_words(version, path)


@pytest.mark.parametrize("version", ["0.5.5", "0.5.13", "0.5.23"])
def test_merge_places_config_first_like_sglang(tmp_path, version):
    (tmp_path / "cfg.yaml").write_text("model-path: from-config\ntp-size: 2\nenable-metrics: true\n")
    cli = ["--port", "8000", "--config", "cfg.yaml", "--tp-size", "4"]
    expected = sglang_merger(version).merge_config_with_args([str(tmp_path / w) if w == "cfg.yaml" else w for w in cli])
    merged = merge_config(cli_site(cli), catalog(version), tmp_path)
    assert [t.value for t in merged.tokens] == expected
    assert [t.origin for t in merged.tokens] == [Origin.CONFIG_FILE] * 5 + [None] * 4
    assert [h.kind for h in merged.hints] == ["config-file"]
    assert not merged.opaque


# ---------------------------------------------------------------------------
# Reading: problems in SGLang's words, positions into the YAML file
# ---------------------------------------------------------------------------


def test_read_config_problems_use_sglang_wording(tmp_path):
    merger = sglang_merger("0.5.23")
    json_path = tmp_path / "c.json"
    json_path.write_text("{}")
    missing = tmp_path / "missing.yaml"
    for path in (json_path, missing):
        with pytest.raises(ValueError) as raised:
            merger._validate_yaml_file(str(path))
        _, _, problems = read_config(path)
        assert [p.message for p in problems] == [str(raised.value)]

    listing = tmp_path / "list.yaml"
    listing.write_text("- --tp\n- 2\n")
    with pytest.raises(ValueError) as raised:
        merger._parse_yaml_config(str(listing))
    _, _, problems = read_config(listing)
    assert [p.message for p in problems] == [str(raised.value)]

    broken = tmp_path / "broken.yaml"
    broken.write_text("model-path: m\n  tp-size: 2\n")
    source, entries, problems = read_config(broken)
    assert entries == [] and len(problems) == 1
    assert problems[0].message.startswith(f"Failed to read config file {broken}: invalid YAML: mapping values are not allowed")
    assert source.line_col(problems[0].span.start) == (2, 10)


def test_read_config_refuses_python_tags_like_safe_load(tmp_path):
    path = tmp_path / "evil.yaml"
    path.write_text("model-path: !!python/object/apply:os.system ['true']\n")
    _, entries, problems = read_config(path)
    assert entries == [] and "could not determine a constructor" in problems[0].message


def test_read_config_alias_bomb_is_refused_quickly(tmp_path):
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 12)]
    path = tmp_path / "bomb.yaml"
    path.write_text("model-path: m\n" + "\n".join(lines) + "\n")
    _, entries, problems = read_config(path)
    assert entries == [] and "alias" in problems[0].message


def test_config_token_spans_point_into_the_yaml(tmp_path):
    path = FIXTURES / "sglang_config.yaml"
    source, entries, problems = read_config(path)
    assert not problems
    tokens = config_tokens(entries, catalog("0.5.23"))
    by_value = {t.value: t for t in tokens}
    # keys: the literal --{key} word, spanning the key as written
    assert by_value["--mem_fraction_static"].span.text == "mem_fraction_static"
    assert by_value["--model-path"].span.text == "model-path"
    # quoted values: the span has the quotes, the value map only the text
    model = by_value["meta-llama/Llama-3.1-8B-Instruct"]
    assert model.span.text == '"meta-llama/Llama-3.1-8B-Instruct"'
    assert model.sub_span(0, len(model.value)).text == "meta-llama/Llama-3.1-8B-Instruct"
    name = by_value["llama '8b'"]
    assert name.span.text == "'llama ''8b'''"
    assert name.sub_span(6, 10).text == "''8b''"
    # list items one by one; a dict as one JSON word over the mapping
    assert [t.span.text for t in tokens if t.value in ("1", "2", "4", "8") and t.span.text != "tp-size"][-4:] == ["1", "2", "4", "8"]
    override = by_value['{"rope_scaling": {"type": "yarn", "factor": 4.0}}']
    assert override.span.text.startswith("rope_scaling:") and override.span.text.endswith("factor: 4.0")
    assert all(t.origin is Origin.CONFIG_FILE and t.span.source is source for t in tokens)


def test_dicts_are_python_repr_before_0_5_14(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("json-model-override-args: {a: 1}\n")
    _, entries, _ = read_config(path)
    assert [t.value for t in config_tokens(entries, catalog("0.5.13"))][1] == "{'a': 1}"
    assert [t.value for t in config_tokens(entries, catalog("0.5.14"))][1] == '{"a": 1}'


def test_raw_tokens_for_a_config_linted_on_its_own():
    _, entries, _ = read_config(FIXTURES / "sglang_config.yaml")
    assert [t.value for t in raw_config_tokens(entries)] == [
        "--model-path", "meta-llama/Llama-3.1-8B-Instruct",
        "--tp-size", "2",
        "--mem_fraction_static", "0.8",
        "--enable-metrics",
        "--cuda-graph-bs", "1", "2", "4", "8",
        "--json-model-override-args", '{"rope_scaling": {"type": "yarn", "factor": 4.0}}',
        "--served-model-name", "llama '8b'",
    ]  # fmt: skip


# ---------------------------------------------------------------------------
# merge_config
# ---------------------------------------------------------------------------


def cli_site(words, entry=LAUNCH_SERVER) -> LaunchSite:
    """A launch ``python -m sglang.launch_server WORDS`` in a fake script."""
    text = "python -m sglang.launch_server " + " ".join(str(w) for w in words)
    source = Source("launch.sh", text)
    tokens = []
    at = len("python -m sglang.launch_server ")
    for w in words:
        raw = str(w)
        tokens.append(Token(w, Span(source, at, at + len(raw))))
        at += len(raw) + 1
    entry_span = Span(source, 0, len("python -m sglang.launch_server"))
    return LaunchSite(source, Span(source, 0, len(text)), entry, entry_span, "argv", tokens)


def write_config(tmp_path, text="model-path: m\ntp-size: 2\n"):
    (tmp_path / "c.yaml").write_text(text)


def test_merge_reports_unsupported_options(tmp_path):
    write_config(tmp_path, "model-path: m\nlora-paths: [a]\nmm-enable-dp-encoder: true\n")
    merged = merge_config(cli_site(["--config", "c.yaml"]), catalog("0.5.23"), tmp_path)
    unsupported = [h for h in merged.hints if h.kind == "config-unsupported-option"]
    assert [(h.value, h.span.text) for h in unsupported] == [("lora-paths", "lora-paths"), ("mm-enable-dp-encoder", "mm-enable-dp-encoder")]
    assert unsupported_option_message("lora-paths", catalog("0.5.23")) == (
        "Unsupported config option 'lora_paths' with action 'LoRAPathAction'"
    )
    old = merge_config(cli_site(["--config", "c.yaml"]), catalog("0.5.7"), tmp_path)
    assert not [h for h in old.hints if h.kind == "config-unsupported-option"]


def test_merge_underscore_key_stays_unnormalised(tmp_path):
    write_config(tmp_path, "model-path: m\ntp_size: 2\n")
    merged = merge_config(cli_site(["--config", "c.yaml"]), catalog("0.5.23"), tmp_path)
    flag = merged.tokens[2]
    assert flag.value == "--tp_size" and flag.span.text == "tp_size" and flag.span.path.endswith("c.yaml")


def test_config_with_equals_is_ignored(tmp_path):
    write_config(tmp_path)
    site = cli_site(["--config=c.yaml", "--tp", "2"])
    merged = merge_config(site, catalog("0.5.23"), tmp_path)
    assert [t.value for t in merged.tokens] == ["--config=c.yaml", "--tp", "2"]
    assert [(h.kind, h.value, h.span.text) for h in merged.hints] == [("config-equals-ignored", "c.yaml", "--config=c.yaml")]


def test_abbreviated_config_flag_is_ignored(tmp_path):
    write_config(tmp_path)
    merged = merge_config(cli_site(["--conf", "c.yaml"]), catalog("0.5.23"), tmp_path)
    assert [t.value for t in merged.tokens] == ["--conf", "c.yaml"]
    assert [(h.kind, h.value) for h in merged.hints] == [("config-abbrev-ignored", "c.yaml")]


def test_missing_config_makes_the_launch_opaque(tmp_path):
    merged = merge_config(cli_site(["--config", "conf/config.yaml", "--port", "1"]), catalog("0.5.23"), tmp_path)
    assert [(h.kind, h.value, h.span.text) for h in merged.hints] == [("config-missing", "conf/config.yaml", "conf/config.yaml")]
    assert merged.opaque and [t.value for t in merged.tokens] == ["--config", "conf/config.yaml", "--port", "1"]


def test_config_outside_the_project_is_not_read_and_makes_the_launch_opaque(tmp_path):
    merged = merge_config(cli_site(["--config", "/root/config.yaml", "--port", "1"]), catalog("0.5.23"), tmp_path)
    assert [(h.kind, h.value, h.span.text) for h in merged.hints] == [("reference-outside-project", "/root/config.yaml", "/root/config.yaml")]
    assert merged.opaque and [t.value for t in merged.tokens] == ["--config", "/root/config.yaml", "--port", "1"]


def test_unresolved_config_path_is_missing(tmp_path):
    site = cli_site(["--config", "x"])
    site.tokens[1] = Token(Unresolved("$CFG", "variable"), site.tokens[1].span)
    merged = merge_config(site, catalog("0.5.23"), tmp_path)
    assert [h.kind for h in merged.hints] == ["config-missing"] and merged.opaque


@pytest.mark.parametrize(
    ("words", "message"),
    [
        (["--config", "c.yaml", "--config", "c.yaml"], "Multiple config files specified! Only one allowed."),
        (["--tp", "2", "--config"], "No config file specified after --config flag!"),
    ],
)
def test_refused_config_arguments(tmp_path, words, message):
    write_config(tmp_path)
    merged = merge_config(cli_site(words), catalog("0.5.23"), tmp_path)
    assert [(h.kind, h.value) for h in merged.hints] == [("config-error", message)]
    assert merged.opaque


def test_invalid_config_file_is_a_config_error(tmp_path):
    write_config(tmp_path, "- a\n- b\n")
    merged = merge_config(cli_site(["--config", "c.yaml"]), catalog("0.5.23"), tmp_path)
    assert [(h.kind, h.value) for h in merged.hints] == [("config-error", "Config file must contain a dictionary at root level")]


def test_no_merge_before_0_5_3_or_for_the_router(tmp_path):
    write_config(tmp_path)
    old = catalog("0.5.2")
    old.options = [o for o in old.options if o.dest != "config"]
    old.by_string = {s: o for o in old.options for s in o.strings}
    site = cli_site(["--config", "c.yaml"])
    assert merge_config(site, old, tmp_path) is site
    router = merge_config(cli_site(["--config", "c.yaml"], entry=ROUTER_LAUNCH_SERVER), catalog("0.5.23"), tmp_path)
    assert [h.kind for h in router.hints] == ["config-ignored"] and len(router.tokens) == 2


def test_serve_positional_model_stays_first(tmp_path):
    write_config(tmp_path)
    site = cli_site(["Qwen/Qwen3-8B", "--config", "c.yaml", "--port", "1"], entry=SERVE)
    merged = merge_config(site, catalog("0.5.23"), tmp_path)
    assert [t.value for t in merged.tokens] == ["Qwen/Qwen3-8B", "--model-path", "m", "--tp-size", "2", "--port", "1"]


def test_merge_does_not_touch_the_original_site(tmp_path):
    write_config(tmp_path)
    site = cli_site(["--config", "c.yaml"])
    merge_config(site, catalog("0.5.23"), tmp_path)
    assert [t.value for t in site.tokens] == ["--config", "c.yaml"] and not site.hints


def test_real_yaml_values_reach_json(tmp_path):
    write_config(tmp_path, "json-model-override-args:\n  a: [1, 2.5, null, 'x']\n")
    _, entries, _ = read_config(tmp_path / "c.yaml")
    token = config_tokens(entries, catalog("0.5.23"))[1]
    assert json.loads(token.value) == {"a": [1, 2.5, None, "x"]}
