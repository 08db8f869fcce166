"""The closed vocabularies of the launch model: how an argument was resolved,
what is wrong with it, where its words come from, and where a context fact
was learned.

Each is a `str`-valued enum: a member equals, prints and serialises as its
value, so JSON and text output read exactly as before the enums existed,
while code compares members and a typo is a NameError, not a silent miss.
"""

from __future__ import annotations

from enum import Enum


class _Word(str, Enum):
    """A `str` enum that prints as its value (``f"{x}"``, ``str(x)``), as
    `enum.StrEnum` does from Python 3.11 on."""

    def __str__(self) -> str:
        return self.value

    def __format__(self, spec: str) -> str:
        return self.value.__format__(spec)


class Resolution(_Word):
    """How the target release's parser took an argument's flag (or keyword)."""

    EXACT = "exact"  # an option string as declared
    PREFIX = "prefix"  # a unique abbreviation argparse expands (allow_abbrev)
    AMBIGUOUS = "ambiguous"  # an abbreviation of several options
    UNRECOGNIZED = "unknown"  # no option of the release: argparse's "unrecognized arguments"
    KEYWORD = "kwarg"  # a ServerArgs field passed as a Python keyword
    POSITIONAL = "positional"  # a word that is no option (``sglang serve MODEL``, a stray word)
    COMPONENT = "component"  # a diffusion component path the parser's extractors take (``--vae-path``)

    @property
    def names_no_option(self) -> bool:
        """The flag names no single option of the release (unrecognized or
        ambiguous): every later check of the launch would judge a guess."""
        return self in (Resolution.UNRECOGNIZED, Resolution.AMBIGUOUS)


class ArgProblem(_Word):
    """What argparse (or the keyword check) rejects about a resolved argument."""

    MISSING_VALUE = "missing-value"
    UNEXPECTED_VALUE = "unexpected-value"  # a value for a switch, or a stray word after it
    INVALID_TYPE = "invalid-type"
    INVALID_CHOICE = "invalid-choice"


class Origin(_Word):
    """Where an argument's words come from."""

    CLI = "cli"  # the launch's own argv
    KEYWORD = "kwarg"  # a Python launcher's keyword arguments
    CONFIG_FILE = "config-file"  # a ``--config`` YAML file (spans point into it)


class Provenance(_Word):
    """Where a fact of a launch's context (release, model, architecture,
    GPU, GPU count) was learned; shown by ``--show-context`` and in JSON."""

    # the release, most specific first (`sgllint.resolve.context.resolve_version`)
    COMMAND_LINE = "command line"
    PRAGMA = "pragma"
    CONFIG = "config"
    IMAGE_TAG = "image tag"
    IMAGE_PIP_PIN = "image pip pin"
    CHART_VALUES = "chart values"
    PROJECT_PIN = "project pin"
    INSTALLED = "installed sglang"
    NEWEST_CATALOG = "default (newest catalog)"
    WRAPPER_PIN = "wrapper pin"
    # the model and its architecture
    MODEL_PATH_FLAG = "--model-path"
    OVERRIDE_FLAG = "--json-model-override-args"
    LOCAL_CONFIG_JSON = "local config.json"
    HF_CACHE = "Hugging Face cache"
    REGISTRY = "registry"
    # the GPU and how many the launch sees
    MANIFEST = "manifest"
    SBATCH = "#SBATCH"
    ROCM_IMAGE = "ROCm image"
    GPU_LIMIT = "GPU limit"
    CUDA_VISIBLE_DEVICES = "CUDA_VISIBLE_DEVICES"

    @property
    def read_from_model_files(self) -> bool:
        """An architecture read from the model's own config.json (a local
        directory or the Hugging Face cache), not named by the user."""
        return self in (Provenance.LOCAL_CONFIG_JSON, Provenance.HF_CACHE)
