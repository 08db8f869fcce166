"""The GPU and platform as SGLang's start-up code probes them: torch's device queries and
SGLang's own platform helpers, answered from the launch's GPU facts (``REPLACED`` by name,
``RUNTIME_ONLY`` for what only the running machine knows)."""

from __future__ import annotations

import types
import typing

from ..domain import Unknown
from .fake_modules import ABSENT, Dyn, FakeModule, _false, _unknown
from .launch import env

#: SGLang helper modules whose platform probes are answered here (the helpers
#: moved from ``sglang.srt.utils`` (<= 0.4.x) to ``sglang.srt.utils.common``)
HELPER_MODULES = ("sglang.srt.utils", "sglang.srt.utils.common", "sglang.srt.platforms",
                  "sglang.srt.utils.device", "sglang.srt.hardware_backend")


def _vendor():
    v = env().fact("vendor")
    return Unknown("the GPU vendor") if v is None else v


def _is(vendor_name):
    def probe(*a, **k):
        v = _vendor()
        return v if isinstance(v, Unknown) else v == vendor_name
    return probe


def _sm():
    v = _vendor()
    if isinstance(v, Unknown):
        return v
    if v != "nvidia":
        return Unknown("SM of a non-NVIDIA GPU")
    sm = env().fact("sm")
    return Unknown("the GPU's SM") if sm is None else sm


def _capability(*a, **k):
    v = _vendor()
    if v == "amd":
        return Unknown("capability of an AMD GPU")
    sm = _sm()
    return sm if isinstance(sm, Unknown) else (sm // 10, sm % 10)


def _count(*a, **k):
    c = env().fact("count")
    return Unknown("the GPU count") if c is None else c


def _mem_mib(*a, **k):
    m = env().fact("mem_gib")
    return Unknown("the GPU memory") if m is None else m * 1024


def _sm_eq(major):
    def probe(*a, **k):
        sm = _sm()
        if isinstance(sm, Unknown):
            return False if _vendor() == "amd" else sm
        return sm // 10 == major
    return probe


def _sm_ge(lo):
    def probe(*a, **k):
        sm = _sm()
        if isinstance(sm, Unknown):
            return False if _vendor() == "amd" else sm
        return sm >= lo
    return probe


def _cuda_available(*a, **k):
    v = _vendor()
    return v if isinstance(v, Unknown) else v in ("nvidia", "amd")


def _device_name(*a, **k):
    n = env().fact("gpu_name")
    return Unknown("the GPU name") if n is None else n


def _props(*a, **k):
    nvidia = _vendor() == "nvidia"
    return types.SimpleNamespace(name=_device_name(), major=_capability()[0] if nvidia else Unknown("major"),
                                 minor=_capability()[1] if nvidia else Unknown("minor"),
                                 total_memory=(_mem_mib() * 1024 * 1024) if not isinstance(_mem_mib(), Unknown)
                                 else Unknown("memory"), multi_processor_count=Unknown("SM count"),
                                 gcnArchName=_gcn_arch())


def _gcn_arch():
    """torch's ``gcnArchName`` on ROCm ("gfx942:sramecc+:xnack-"): SGLang only
    tests substrings of it ("gfx95" in ...), so the known gfx name answers."""
    arch = env().fact("gpu_arch")
    return arch if isinstance(arch, str) and _vendor() == "amd" else Unknown("gcn arch")


def _gfx95(*a, **k):
    """An AMD gfx95 (MI350/MI355) GPU: the MX-capable ROCm architecture."""
    if _vendor() == "nvidia":
        return False
    arch = _gcn_arch()
    return arch if isinstance(arch, Unknown) else "gfx95" in arch


def _flashinfer_available(*a, **k):
    if env().fact("env:SGLANG_IS_FLASHINFER_AVAILABLE") in ("false", "0"):
        return False
    v = _vendor()
    return v if isinstance(v, Unknown) else v == "nvidia"


#: SGLang helpers answered by the model: name -> implementation (in HELPER_MODULES)
REPLACED: dict[str, typing.Callable] = {
    "is_cuda": _is("nvidia"), "is_hip": _is("amd"), "is_rocm": _is("amd"),
    "is_cuda_alike": _cuda_available, "is_npu": _false, "is_xpu": _false, "is_hpu": _false, "is_musa": _false,
    "is_mps": _false, "is_cpu": _false, "is_sail": _false, "use_mlx": _false, "is_host_cpu_x86": lambda *a: True,
    "is_host_cpu_arm64": _false,
    "get_device_sm": lambda *a, **k: _sm() if _vendor() != "amd" else 0,
    "get_device_capability": _capability, "get_device_count": _count, "get_device_core_count": _unknown("cores"),
    "get_nvgpu_memory_capacity": _mem_mib, "get_amdgpu_memory_capacity": _mem_mib,
    "get_device_memory_capacity": _mem_mib,
    "is_sm90_supported": _sm_eq(9), "is_sm100_supported": _sm_eq(10), "is_sm120_supported": _sm_eq(12),
    "is_sm110_supported": _sm_eq(11), "is_sm103_supported": _unknown("SM 10.3"),
    "is_blackwell": _sm_eq(10), "is_blackwell_supported": _sm_ge(100), "is_hopper_with_cuda_12_3": _sm_eq(9),
    "is_flashinfer_available": _flashinfer_available, "cpu_has_amx_support": _false,
    # utils(/common).py of every release that has them (0.5.1+): ``torch.version.hip`` and
    # ``"gfx95" in get_device_properties(0).gcnArchName``, else False
    "is_gfx95_supported": _gfx95, "mxfp_supported": _gfx95,
    "get_device_name": _device_name, "get_device": lambda *a, **k: "cuda" if _vendor() in ("nvidia", "amd")
    else Unknown("device"),
    "get_available_gpu_memory": _unknown("free GPU memory"), "get_free_port": _unknown("a free port"),
    "is_port_available": lambda *a, **k: True, "get_nvidia_driver_version": _unknown("driver"),
    "get_cuda_version": _unknown("CUDA version"), "is_triton_kernels_available": _unknown("triton_kernels"),
    "check_pkg_version_at_least": _unknown("package version"), "get_device_sm_nvidia_smi": lambda *a: _sm(),
    "_get_device_sm_via_nvml": lambda *a: _sm(),
}

#: SGLang helpers that ask the machine at run time (ports, sockets, files): Unknown in any module
RUNTIME_ONLY: dict[str, typing.Callable] = {
    name: _unknown(f"{name}() at run time") for name in (
        "get_free_port_below_ephemeral", "get_free_port", "wait_port_available", "is_port_available_unsafe",
        "get_local_ip_auto", "get_local_ip_by_remote", "get_ip", "get_open_port", "get_zmq_socket",
        "get_ephemeral_port_range", "find_free_port")}
# files of the model other than config.json (generation_config.json, tokenizer, processor)
RUNTIME_ONLY.update({name: _unknown(f"{name}(): a model file other than config.json") for name in (
    "get_generation_config", "get_tokenizer", "get_processor", "get_tokenizer_from_processor",
    "download_from_hf", "get_hf_generation_config")})
RUNTIME_ONLY["is_port_available"] = lambda *a, **k: Unknown("a port's availability")

#: platform probes answered in whichever SGLang module defines them (0.4.x has
#: ``is_sm100_supported`` in ``sglang.srt.layers.utils``)
PROBE_PREFIXES = ("is_sm", "is_cuda", "is_hip", "is_npu", "is_xpu", "is_hpu", "is_musa", "is_blackwell",
                  "is_flashinfer_available", "get_device_sm", "get_device_capability", "is_gfx95")


def _absent_unless(vendor):
    def fn():
        v = _vendor()
        if isinstance(v, Unknown):
            return v
        return ABSENT
    return fn


def _torch_cuda_version():
    """``torch.version.cuda``: None off NVIDIA; on NVIDIA the version torch was
    built with, which is the image's choice (cu126, cu129, cu130 builds):
    Unknown unless the launch's facts say."""
    v = _vendor()
    if isinstance(v, Unknown):
        return v
    if v != "nvidia":
        return None
    cuda = env().fact("cuda_version")
    return cuda if isinstance(cuda, str) else Unknown("the CUDA version torch was built with")


def _torch():
    cuda = FakeModule("torch.cuda", {
        "is_available": _cuda_available, "device_count": _count, "get_device_capability": _capability,
        "get_device_name": _device_name, "get_device_properties": _props, "current_device": lambda *a: 0,
        "is_initialized": _false, "mem_get_info": _unknown("free memory"),
    })
    version = FakeModule("torch.version", {
        "cuda": Dyn(_torch_cuda_version),
        "hip": Dyn(lambda: _vendor() if isinstance(_vendor(), Unknown) else ("6.4" if _vendor() == "amd" else None)),
    })
    not_avail = {"is_available": _false, "device_count": lambda *a: 0}
    return FakeModule("torch", {
        "cuda": cuda, "version": version,
        "npu": Dyn(_absent_unless("ascend")), "hpu": Dyn(_absent_unless("intel-gaudi")),
        "musa": Dyn(_absent_unless("musa")),
        "xpu": FakeModule("torch.xpu", dict(not_avail)), "mps": FakeModule("torch.mps", dict(not_avail)),
        "__version__": Unknown("torch version"),
    })
