"""The model's Hugging Face config: ``transformers.AutoConfig`` and SGLang's ``get_config``
answer the launch's ``config.json`` as an object (``HFConfig``)."""

from __future__ import annotations

from ..domain import Unknown
from .fake_modules import ABSENT, FakeModule
from .launch import env


class HFConfig:
    """A model's config.json as the object ``AutoConfig`` returns: keys as
    attributes, nested configs as objects; a key not in the file is Unknown
    (the config class may default it), except the base attributes below."""

    #: ``PretrainedConfig`` attributes every config has (transformers 4.x/5.x)
    BASE = {"architectures": None, "is_encoder_decoder": False, "tie_word_embeddings": True,
            "quantization_config": ABSENT, "compression_config": ABSENT, "text_config": ABSENT,
            "vision_config": ABSENT, "audio_config": ABSENT, "rope_scaling": ABSENT}

    def __init__(self, data: dict, top: bool = True):
        object.__setattr__(self, "_data", dict(data))
        object.__setattr__(self, "_top", top)

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        d = object.__getattribute__(self, "_data")
        if name in d:
            v = d[name]
            if type(v) is dict and name.endswith("_config") and name not in ("quantization_config", "rope_scaling"):
                v = HFConfig(v, top=False)
                d[name] = v
            return v
        if name == "torch_dtype" and "dtype" in d:
            return d["dtype"]
        if name == "dtype" and "torch_dtype" in d:
            return d["torch_dtype"]
        if name.endswith("_config"):
            # a sub-config, or a quantization/compression config, exists when config.json has it
            # (AutoConfig builds them from the file; PretrainedConfig has no such default)
            raise AttributeError(name)
        b = self.BASE.get(name, None)
        if b is ABSENT:
            return Unknown(f"config.{name} (not in config.json)")
        if name in self.BASE:
            return b
        return Unknown(f"config.{name} (not in config.json; the config class may set it)")

    def __setattr__(self, name, value):
        object.__getattribute__(self, "_data")[name] = value

    def to_dict(self):
        return dict(object.__getattribute__(self, "_data"))

    def update(self, d):
        for k, v in d.items():
            setattr(self, k, v)

    def get_text_config(self, *a, **k):
        d = object.__getattribute__(self, "_data")
        if "text_config" in d:
            return self.text_config
        return self


def _from_pretrained(*a, **k):
    cfg = env().fact("model_config")
    if cfg is None:
        return Unknown("the model's config.json")
    path = a[0] if a else k.get("pretrained_model_name_or_path")
    if isinstance(path, str) and "draft" in path.rsplit("/", 1)[-1]:
        return Unknown("the draft model's config.json")
    return HFConfig(cfg)


def _transformers():
    auto = FakeModule("transformers.AutoConfig", {"from_pretrained": _from_pretrained})
    return FakeModule("transformers", {"AutoConfig": auto, "PretrainedConfig": HFConfig,
                                       "PreTrainedConfig": HFConfig})


#: where SGLang's ``get_config`` lives: ``sglang.srt.hf_transformers_utils`` (0.4),
#: ``sglang.srt.utils.hf_transformers_utils`` (0.5.0-0.5.1x), ``sglang.srt.utils.hf_transformers.config`` (0.5.2x)
CONFIG_MODULES = ("hf_transformers_utils", "hf_transformers.config")


def _get_config(model=None, trust_remote_code=None, revision=None, model_override_args=None, *a, **k):
    """SGLang's ``get_config``: the model's config.json, with
    ``--json-model-override-args`` applied (``config.update``)."""
    cfg = _from_pretrained(model)
    if model_override_args and isinstance(cfg, HFConfig):
        if not isinstance(model_override_args, dict):
            return Unknown("model override args")
        for key, value in model_override_args.items():
            setattr(cfg, key, value)
    return cfg
