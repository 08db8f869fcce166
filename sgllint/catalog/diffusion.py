"""SGLang's diffusion server (``multimodal_gen``) per release (``data/diffusion/``).

``load("0.5.23")`` gives a `DiffusionRelease`: the options of the diffusion
``sglang serve`` and ``sglang generate`` parsers (`DiffusionRelease.catalog`
hands them over as a `Catalog`, so the usual flag checks can run against
them), `DiffusionRelease.judge`, which replays what SGLang does with a
launch's words (the parser, a pipeline's own flags, then
``ServerArgs.from_cli_args``' dynamic component flags and its refusal of
what is left), and `DiffusionRelease.route`, which tells whether ``sglang
serve`` would pick the diffusion server for a launch, as
``sglang/cli/serve.py`` and ``sglang/cli/utils.py`` of that release decide.

The files are written by ``python -m sgllint.catalog._gen_diffusion`` (never
by hand); their shape is documented there.  Releases before 0.5.5 have no
diffusion server and no file.

Not modelled: the overlay registry of ``SGLANG_DIFFUSION_MODEL_OVERLAY_REGISTRY``
(the default environment has none), the SenseNova and FLUX.3 local-package
checks (they read the model's files), a pipeline chosen inside a ``--config``
file, and what the Hugging Face Hub says about an id the registry does not
know (`Route.HUB`).  0.5.21+ ask the registry only when ``diffusers`` is
installed (``registry.requires_diffusers``); a diffusion launch needs it, so
`route` assumes it is.
"""

from __future__ import annotations

import functools
import json
import posixpath
import re
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Callable, Optional

from . import Catalog, Option, version_key
from .wrappers import Outcome, Parser, Reason, Verdict, _parse, _parser, _table, help_table

DATA_DIR = Path(__file__).parent / "data" / "diffusion"
_FILE_RE = re.compile(r"^sglang-(?P<version>\d+(?:\.\d+)*)\.json$")
_TRUE_FALSE = ("true", "false")


class Route(str, Enum):
    """Which server ``sglang serve`` starts for a launch."""

    DIFFUSION = "diffusion"
    LLM = "llm"
    #: decided by what the Hugging Face Hub says about the model at start-up
    HUB = "hub"
    #: ``--model-type`` names no backend, or no model path is given
    REFUSED = "refused"


@dataclass(frozen=True)
class RouteDecision:
    route: Route
    reason: str
    model_path: Optional[str] = None


@dataclass
class Command:
    name: str
    raw: dict

    @property
    def parse_kind(self) -> str:
        return self.raw["kind"]

    @property
    def leftovers(self):
        return self.raw.get("leftovers")


@dataclass
class DiffusionRelease:
    version: str
    source: str
    commands: dict[str, Command]
    parsers: dict[str, Parser]
    pipeline_options: dict[str, str]
    routing: dict

    # --- options ---------------------------------------------------------
    def parser(self, command: str) -> Parser:
        return self.parsers[self.commands[command].raw["parser"]]

    def option_strings(self, command: str = "serve") -> set[str]:
        return {s for o in self.parser(command).options for s in o.strings}

    def catalog(self, command: str = "serve") -> Catalog:
        """The command's options as a `Catalog` (no fields, no lists)."""
        options = [
            Option(
                strings=o.strings,
                dest=o.dest,
                field=o.dest,
                action=o.action,
                type=o.type,
                nargs=o.nargs,
                choices=o.choices,
                choices_open=o.choices_open,
                default=o.default,
                required=o.required,
                help=o.help,
                deprecated=None,
            )
            for o in self.parser(command).options
        ]
        return Catalog(version=self.version, source=self.source, era="multimodal_gen", options=options, fields={}, lists={})

    # --- verdicts --------------------------------------------------------
    def selected_pipeline(self, argv: list[str]) -> Optional[str]:
        """The pipeline whose config adds flags (0.5.23
        ``add_resolved_pipeline_config_cli_args``): ``--pipeline`` /
        ``--pipeline-class-name``, else a non-diffusers model-path pattern."""
        if not self.pipeline_options:
            return None
        name = _flag_value(argv, self.routing.get("pipeline_flags") or ())
        if name is None:
            model = _flag_value(argv, ("--model-path",))
            name = _pattern_pipeline(self.routing["registry"]["patterns"], model) if model else None
        return name

    def judge(self, command: str, argv: list[str]) -> Verdict:
        """Whether ``sglang <command>`` of a diffusion model gets past the
        parser and ``ServerArgs.from_cli_args``' check of the leftovers."""
        cmd = self.commands[command]
        parser = self.parser(command)
        table = _table(parser, None)
        pipeline = self.selected_pipeline(argv)
        if pipeline in self.pipeline_options:
            table = table + _table(self.parsers[self.pipeline_options[pipeline]], None)[1:]
        verdict, rest = _parse(table, parser, list(argv), cmd.parse_kind == "parse_known", 0)
        if verdict is not None:
            return verdict
        left = cmd.leftovers
        if not isinstance(left, dict):
            return Verdict(Outcome.ACCEPTED)
        for extractor in left["extractors"]:
            rest = extract(extractor, rest)
        if rest and left["reject_rest"]:
            return Verdict(Outcome.REJECTED, Reason.UNRECOGNIZED, " ".join(rest), 1)
        return Verdict(Outcome.ACCEPTED)

    # --- routing ---------------------------------------------------------
    def registered(self, model_path: str) -> Optional[str]:
        """The registry step that claims ``model_path`` (None: none does)."""
        reg = self.routing["registry"]
        return registry_match(reg["match"], reg["hf_paths"], reg["patterns"], model_path)

    def route(self, argv: list[str], model_index: Optional[Callable[[str], Optional[dict]]] = None) -> RouteDecision:
        """Which server ``sglang serve ARGV`` starts.  ``model_index(path)``
        returns the parsed ``model_index.json`` (or the modular one) of a
        local model directory, ``{}`` for a local directory without one, and
        None when the path is not known to be local."""
        r = self.routing
        words = list(argv)
        if r.get("model_type"):
            choice, words, bad = _take_model_type(words, r["model_type"]["values"])
            if bad:
                return RouteDecision(Route.REFUSED, f"--model-type {choice!r} is not one of {r['model_type']['values']}")
            if choice in (Route.LLM.value, Route.DIFFUSION.value):
                return RouteDecision(Route(choice), "--model-type")
        if r.get("positional_model_path") and words and not words[0].startswith("-"):
            words = ["--model-path", *words]
        model = _flag_value(words, r["model_path_flags"])
        if model is None:
            return RouteDecision(Route.REFUSED, "no model path")
        index = model_index(model) if model_index else None
        reg = r["registry"]
        # before 0.5.17 a local directory is judged by its files and the name
        # patterns only (sglang/cli/utils.py get_is_diffusion_model)
        steps = reg["match"] if index is None or reg.get("for_local_dirs") else [s for s in reg["match"] if s == "substring_patterns"]
        step = registry_match(steps, reg["hf_paths"], reg["patterns"], model)
        if step is not None:
            return RouteDecision(Route.DIFFUSION, f"registry ({step})", model)
        if r.get("pipeline_signal") and _flag_value(words, r.get("pipeline_flags") or ()) in reg["pipeline_names"]:
            return RouteDecision(Route.DIFFUSION, "registered pipeline", model)
        if index is not None:
            key = r["model_index"]["key"]
            return RouteDecision(Route.DIFFUSION if key in index else Route.LLM, f"model_index.json {'has' if key in index else 'lacks'} {key}", model)
        if model.startswith(("/", "./", "../", "~")):
            return RouteDecision(Route.LLM, "local path without a diffusers model index", model)
        return RouteDecision(Route.HUB, "decided by the Hub's model_index.json", model)


# ---------------------------------------------------------------------------
# SGLang's own matching and extraction, replayed
# ---------------------------------------------------------------------------


def _short_name(model_id: str) -> str:
    return model_id.rstrip("/").split("/")[-1] if "/" in model_id else model_id


def _normalized(path: str) -> str:
    return posixpath.normpath(path.replace("\\", "/")).lower()


def registry_match(steps: list[str], hf_paths: list[str], patterns: dict, model_path: str) -> Optional[str]:
    """multimodal_gen/registry.py ``has_registered_diffusion_model_path``
    (0.5.10-0.5.16) / ``is_registered_diffusion_model_path`` (0.5.17+), and
    0.5.10-0.5.16's ``is_known_non_diffusers_diffusion_model`` (sglang/utils.py,
    called by sglang/cli/utils.py): the first of ``steps`` (as the release's
    data lists them) that matches."""
    lower = model_path.lower()
    normalized = _normalized(model_path)
    for step in steps:
        if step == "exact" and model_path in hf_paths:
            return step
        if step == "short_name" and any(_short_name(p.lower()) in _short_name(lower) for p in hf_paths):
            return step
        if step == "hf_cache" and any(f"models--{p.lower().replace('/', '--')}" in normalized for p in hf_paths):
            return step
        if step == "patterns" and _pattern_pipeline(patterns, model_path) is not None:
            return step
        if step == "substring_patterns" and any(p.lower() in lower for p in patterns):
            return step
    return None


def _pattern_pipeline(patterns: dict, model_path: str) -> Optional[str]:
    """registry.py ``get_non_diffusers_pipeline_name`` (name patterns only)."""
    normalized = _normalized(model_path)
    short = _short_name(normalized)
    for pattern, pipeline in patterns.items():
        pattern = pattern.lower()
        if "/" not in pattern and pattern in normalized:
            return pipeline
        if "/" in pattern and (
            normalized == pattern or short == _short_name(pattern) or f"models--{pattern.replace('/', '--')}" in normalized
        ):
            return pipeline
    return None


def _flag_value(words: list[str], flags) -> Optional[str]:
    """``sglang/cli/utils.py`` ``try_get_model_path``-style pre-parse: the value
    after the first of ``flags`` (exact or ``--flag=value``)."""
    for i, word in enumerate(words):
        if word in flags:
            return words[i + 1] if i + 1 < len(words) else None
        for flag in flags:
            if word.startswith(flag + "="):
                return word.split("=", 1)[1]
    return None


def _take_model_type(words: list[str], values: list[str]) -> tuple[Optional[str], list[str], bool]:
    """``_extract_model_type_override``: every ``--model-type`` is cut out, the
    last value wins; (value, rest, invalid?)."""
    choice, rest, i = "auto", [], 0
    while i < len(words):
        if words[i] == "--model-type":
            if i + 1 >= len(words):
                return None, rest, True
            choice = words[i + 1]
            i += 2
            continue
        if words[i].startswith("--model-type="):
            choice = words[i].split("=", 1)[1]
        else:
            rest.append(words[i])
        i += 1
    return choice, rest, choice not in values


def extract(extractor: dict, words: list[str]) -> list[str]:
    """One ``ServerArgs._extract_component_*`` over the leftovers; returns
    what it does not claim."""
    prefixes, suffix, kind = extractor["prefixes"], extractor.get("alias_suffix"), extractor["kind"]
    remaining: list[str] = []
    i = 0
    while i < len(words):
        arg = words[i]
        key = arg.split("=", 1)[0]
        component = next((key[len(p):] for p in prefixes if key.startswith(p)), None)
        if component is None and suffix and key.startswith("--") and key.endswith(suffix):
            component = key[2:-len(suffix)]
        if component is None:
            remaining.append(arg)
        elif kind == "bool":
            value = "true"
            if "=" in arg:
                value = arg.split("=", 1)[1]
            elif i + 1 < len(words) and words[i + 1].lower() in _TRUE_FALSE:
                i += 1
                value = words[i]
            if not component or value.lower() not in _TRUE_FALSE:
                remaining.append(arg)
        elif kind == "multi":
            values = [arg.split("=", 1)[1]] if "=" in arg else []
            while "=" not in arg and i + 1 < len(words) and not words[i + 1].startswith("-"):
                i += 1
                values.append(words[i])
            if not (component and values):
                remaining.append(arg)
        elif "=" not in arg:
            if i + 1 < len(words) and not words[i + 1].startswith("-"):
                i += 1
            else:
                remaining.append(arg)
        i += 1
    return remaining


# ---------------------------------------------------------------------------
# Loading
# ---------------------------------------------------------------------------


@functools.lru_cache(maxsize=None)
def versions() -> tuple[str, ...]:
    """Every release with diffusion data, oldest first."""
    found = [m.group("version") for p in DATA_DIR.glob("sglang-*.json") if (m := _FILE_RE.match(p.name))]
    return tuple(sorted(found, key=version_key))


def release_for(version: str) -> Optional[str]:
    """The data release that applies to ``version`` (0.5.10.post1 -> 0.5.10);
    None before the first release with a diffusion server."""
    key = version_key(version)[:3]
    older = [v for v in versions() if version_key(v) <= key]
    return older[-1] if older else None


@functools.lru_cache(maxsize=None)
def load(version: str) -> DiffusionRelease:
    path = DATA_DIR / f"sglang-{version}.json"
    if not path.exists():
        raise KeyError(f"no diffusion data for SGLang {version}")
    raw = json.loads(path.read_text(encoding="utf-8"))
    helps = help_table(DATA_DIR)
    parsers = {k: _parser(k, v, helps) for k, v in raw["parsers"].items()}
    return DiffusionRelease(
        version=raw["sglang_version"],
        source=raw["source"],
        commands={k: Command(k, v) for k, v in raw["commands"].items()},
        parsers=parsers,
        pipeline_options=dict(raw.get("pipeline_options") or {}),
        routing=raw["routing"],
    )
