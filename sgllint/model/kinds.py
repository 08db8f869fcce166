"""The closed vocabularies of the launch model: how a launch is written,
how an argument was resolved, what is wrong with it, where its words come
from, what a context hint says and where a context fact was learned.

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


class LaunchForm(_Word):
    """How a launch site passes its arguments (`LaunchSite.form`)."""

    ARGV = "argv"  # words of a command line: tokens
    KWARGS = "kwargs"  # keyword arguments of a Python call or a mapping's keys


class HintKind(_Word):
    """What a `ContextHint` says about a launch's surroundings."""

    # the release and the GPU
    SGLANG_IMAGE = "sglang-image"  # an SGLang container image the launch runs in
    SGLANG_IMAGE_VALUES = "sglang-image-values"  # a Helm chart's image values, as written
    PATCHED_SGLANG = "patched-sglang"  # the file patches the installed SGLang
    GPU_PRODUCT = "gpu-product"  # a GPU product name (a node selector, --gpus)
    GPU_COUNT = "gpu-count"  # how many GPUs the launch sees
    # an SGLang --config file (`sgllint.resolve.sglang_config`)
    CONFIG_FILE = "config-file"  # merged
    CONFIG_MISSING = "config-missing"  # not found, or too large to read
    CONFIG_ERROR = "config-error"  # SGLang refuses the file or the argv
    CONFIG_IGNORED = "config-ignored"  # a launcher without the merger
    CONFIG_EQUALS_IGNORED = "config-equals-ignored"  # ``--config=x``
    CONFIG_ABBREV_IGNORED = "config-abbrev-ignored"  # ``--conf x``
    CONFIG_UNSUPPORTED_OPTION = "config-unsupported-option"  # a key the merger refuses
    OUTSIDE_PROJECT = "reference-outside-project"  # a reference left unread: it leads outside the project
    # how the launch is written
    LAUNCH_SERVER_CMD_QUOTE = "launch-server-cmd-quote"  # a quoted word in launch_server_cmd(...)
    BRANCH_PATH = "branch-path"  # made on one path of its call (one call's paths are alternatives)
    # the deployment around the launch (Kubernetes, Compose, docker run)
    DEPLOY_RUNTIME = "deploy-runtime"
    DEPLOY_LABELS = "deploy-labels"
    DEPLOY_SHM = "deploy-shm"
    DEPLOY_VOLUME = "deploy-volume"
    DEPLOY_MOUNT = "deploy-mount"
    DEPLOY_PROBE = "deploy-probe"
    DEPLOY_PORT = "deploy-port"
    DEPLOY_POD_PORTS = "deploy-pod-ports"
    DEPLOY_SERVICE = "deploy-service"

    @property
    def describes_deployment(self) -> bool:
        """A fact of the deployment around the launch (`sgllint.semantics.deployment`)."""
        return self.value.startswith("deploy-")


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


class LaunchFact(_Word):
    """A fact of a resolved launch that a rule's ``check`` needs to find
    anything (`sgllint.model.rule.Rule.needs`): read from the launch without
    importing the rule, so a launch without it never loads the rule."""

    #: an argument no option of the release takes, or a word that is no option
    UNRESOLVED_ARGUMENT = "unresolved-argument"
    #: a container around the launch: a Kubernetes pod, a compose service, docker run
    DEPLOYMENT = "deployment"

    def holds(self, launch) -> bool:
        """Whether ``launch`` (a `sgllint.model.facts.Launch`) shows this fact."""
        if self is LaunchFact.UNRESOLVED_ARGUMENT:
            return any(arg.resolution is Resolution.UNRECOGNIZED or arg.resolution is Resolution.POSITIONAL for arg in launch.args)
        # what gives `sgllint.semantics.deployment.Deployment` its runtime
        return any(h.kind is HintKind.DEPLOY_RUNTIME and h.span is not None and isinstance(h.value, str) for h in launch.site.hints)
