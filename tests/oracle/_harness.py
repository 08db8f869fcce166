"""What the two verdict oracles (``deterministic_oracle.py``,
``rulepack_oracle.py``) share: the group process's set-up (fake
``nvidia-smi``, probes answered before any stub, the stub finder, one import
of ``sglang.srt.server_args``), a case's argparse step and resolved view, the
forked per-case runner, the lazy-import preload, the group processes'
scheduling, the release's version.

Runs inside the oracle virtualenvs: stdlib only at import, never sgllint,
never sglang at import (``dump_option_strings`` and torch are imported when a
group process asks for them).
"""

from __future__ import annotations

import argparse
import atexit
import io
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

# --------------------------------------------------------------------------
# Group process: fake platform, stub finder, one import of server_args
# --------------------------------------------------------------------------


def oracle_stub_finder(*skip_files: str):
    """A new ``dump_option_strings._StubFinder``, stricter: a submodule of a
    stubbed package is stubbed only for SGLang's own imports too (torch
    probing ``triton.runtime.jit`` must get the real ImportError).

    ``skip_files``: the oracle's own files, passed over (as the dump's file
    and this one are) when looking for the module that runs an import."""
    from dump_option_strings import _StubFinder

    class _OracleStubFinder(_StubFinder):
        def _importer(self) -> str:
            skip = {self.this_file, __file__, *skip_files}
            f = sys._getframe(1)
            while f is not None:
                fn = f.f_code.co_filename
                if "importlib" not in fn and not fn.startswith("<frozen") and fn not in skip:
                    return str(f.f_globals.get("__name__", ""))
                f = f.f_back
            return ""

        def _should_stub(self, fullname: str) -> bool:
            if fullname.split(".")[0] != "sglang" and not self._importer().startswith("sglang"):
                return False
            return super()._should_stub(fullname)

    return _OracleStubFinder()


def install_fake_nvidia_smi(write: Callable[[Path], None]) -> Path:
    """A temp directory first on ``PATH`` for ``write(bindir)`` to put a fake
    ``nvidia-smi`` in; removed when the (group) process exits."""
    bindir = Path(tempfile.mkdtemp(prefix="fake-smi-"))
    atexit.register(shutil.rmtree, bindir, True)  # one per group process
    write(bindir)
    os.environ["PATH"] = f"{bindir}{os.pathsep}{os.environ.get('PATH', '')}"
    return bindir


def warm_up_torch_probes() -> None:
    """Let torch answer "is triton installed?" before any stub exists (the
    answer is cached), and import the torch modules that probe it at import."""
    try:
        from torch.utils import _triton

        _triton.has_triton_package()
        _triton.has_triton()
    except Exception:
        pass
    for m in ("torch.utils.flop_counter", "torch._inductor.runtime.hints", "torch._inductor.runtime.triton_compat",
              "torch._inductor.codecache", "torch._functorch.aot_autograd", "torch._dynamo",
              "torch._inductor.ir", "torch._inductor.compile_fx"):
        try:
            __import__(m)
        except Exception:
            pass


def enter_group(write_smi: Callable[[Path], None], fake_gpu: Callable[[], dict], *skip_files: str):
    """Set up a group process before anything imports sglang: the fake
    ``nvidia-smi``, the faked GPU (``fake_gpu()``, its info returned), the
    third-party and torch probes answered, then the stub finder installed.
    Returns ``(gpu_info, finder)``."""
    from dump_option_strings import _warm_up_third_party_probes

    install_fake_nvidia_smi(write_smi)
    gpu_info = fake_gpu()
    _warm_up_third_party_probes()
    warm_up_torch_probes()
    finder = oracle_stub_finder(*skip_files)
    sys.meta_path.append(finder)
    return gpu_info, finder


def import_server_args() -> tuple[str | None, float]:
    """Import ``sglang.srt.server_args`` once in the group process (plus the
    modules the validation imports lazily, which only saves time in each
    fork: a launch imports them too). Returns ``(import_error, seconds)``."""
    t0 = time.time()
    import_error = None
    try:
        from sglang.srt import server_args as _sa  # noqa: F401

        for m in ("sglang.srt.configs.model_config", "sglang.srt.arg_groups.pipeline"):
            try:
                __import__(m)
            except Exception:
                pass
    except BaseException as e:  # noqa: BLE001
        import_error = f"import sglang.srt.server_args failed: {type(e).__name__}: {e}"
    return import_error, round(time.time() - t0, 1)


# --------------------------------------------------------------------------
# One case (forked child)
# --------------------------------------------------------------------------


def prepare_server_args(sa, argv: list[str]):
    """``sa.prepare_server_args(argv)`` (``sa``: the release's
    ``sglang.srt.server_args``) with argparse's stderr captured. Returns
    ``(server_args, None)``, or ``(None, rejection)`` when argparse exits: the
    rejection's ``error`` is argparse's last stderr line. Any other exception
    propagates."""
    err_buf = io.StringIO()
    old_stderr = sys.stderr
    sys.stderr = err_buf
    try:
        return sa.prepare_server_args(argv), None
    except SystemExit as e:
        sys.stderr = old_stderr
        text = err_buf.getvalue().strip()
        return None, {"verdict": "rejected", "error_class": "SystemExit(argparse)",
                      "error": text.splitlines()[-1] if text else f"exit {e.code}", "raised_at": "argparse"}
    finally:
        sys.stderr = old_stderr


def resolved_view(server_args):
    """What the server runs with: ``resolved_view(server_args)`` where the
    release has it (``sglang.srt.arg_groups.model_override_base``: releases
    that keep resolution's writes as declarations), else the record itself."""
    try:
        from sglang.srt.arg_groups.model_override_base import resolved_view as view

        return view(server_args)
    except Exception:
        return server_args


# --------------------------------------------------------------------------
# Forks
# --------------------------------------------------------------------------


def run_in_fork(fn: Callable[[], dict], timeout: float, child_setup: Callable[[], None] | None = None) -> dict:
    """``fn()`` in a fresh ``os.fork()``, its (JSON) result sent back through a
    pipe. A crash of ``fn``, an unserialisable result, a child that dies or
    takes more than ``timeout`` seconds (then killed) give a ``harness-error``
    result. ``child_setup()`` runs in the child first."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # case process
        os.close(r)
        if child_setup is not None:
            child_setup()
        try:
            out = fn()
        except BaseException as e:  # noqa: BLE001
            out = {"verdict": "harness-error", "error": f"harness-error: judge crashed: {type(e).__name__}: {e}"}
        try:
            data = json.dumps(out, default=repr).encode()
        except Exception as e:  # noqa: BLE001
            data = json.dumps({"verdict": "harness-error", "error": f"harness-error: unserialisable result {e}"}).encode()
        with os.fdopen(w, "wb") as f:
            f.write(data)
        os._exit(0)
    os.close(w)
    chunks, deadline, timed_out = [], time.time() + timeout, False
    with os.fdopen(r, "rb") as f:
        while True:
            left = deadline - time.time()
            if left <= 0:
                timed_out = True
                break
            ready, _, _ = select.select([f], [], [], left)
            if not ready:
                continue
            chunk = os.read(f.fileno(), 1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
    if timed_out:
        os.kill(pid, 9)
    _, status = os.waitpid(pid, 0)
    if timed_out:
        return {"verdict": "harness-error", "error": f"harness-error: case timed out after {timeout}s"}
    if not chunks:
        return {"verdict": "harness-error", "error": f"harness-error: case process died (wait status {status})"}
    return json.loads(b"".join(chunks))


def lazy_imports_in_fork(fn: Callable[[], object]) -> bytes:
    """Speed-up only: run ``fn()`` (a throwaway case; any exception ignored) in
    a fork and return the JSON list of the modules it imported."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        before = set(sys.modules)
        try:
            fn()
        except BaseException:  # noqa: BLE001
            pass
        new = [m for m in sys.modules if m not in before]
        with os.fdopen(w, "wb") as f:
            f.write(json.dumps(new).encode())
        os._exit(0)
    os.close(w)
    with os.fdopen(r, "rb") as f:
        data = f.read()
    os.waitpid(pid, 0)
    return data


def preload(names: list[str]) -> int:
    """Import the ``sglang``/``transformers`` modules of ``names`` not imported
    yet (failures ignored); how many were imported."""
    n = 0
    for m in names:
        if m in sys.modules or m.split(".")[0] not in ("sglang", "transformers"):
            continue
        try:
            __import__(m)
            n += 1
        except BaseException:  # noqa: BLE001
            pass
    return n


# --------------------------------------------------------------------------
# Driver
# --------------------------------------------------------------------------


def parse_args(ap: argparse.ArgumentParser) -> argparse.Namespace:
    """``ap`` plus the internal arguments of a group process (``run_groups``)
    parsed; the Hugging Face hub is kept offline."""
    ap.add_argument("--_group", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--_cases", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--_result", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    return args


def run_groups(groups: list[tuple[str, str, list[dict]]], group_argv: list[str], jobs: int, work: Path,
               version: str, failed: Callable[[dict, str], dict]) -> dict[str, dict]:
    """One group process per ``(name, gpu, cases)`` of ``groups``, ``jobs`` at a
    time: ``group_argv`` (the oracle's command line) plus ``--_group gpu
    --_cases <file> --_result <file>``, its output in ``work/group-<name>.log``.
    Returns name -> the result the group wrote; a group that wrote none gets
    ``failed(case, error)`` for each of its cases."""
    pending = list(groups)
    procs: list = []
    done: dict[str, dict] = {}
    t0 = time.time()
    while pending or procs:
        while pending and len(procs) < jobs:
            name, gpu, cases = pending.pop(0)
            cf, rf = work / f"cases-{name}.json", work / f"result-{name}.json"
            cf.write_text(json.dumps(cases))
            log = open(work / f"group-{name}.log", "w")
            p = subprocess.Popen([*group_argv, "--_group", gpu, "--_cases", str(cf), "--_result", str(rf)],
                                 stdout=log, stderr=subprocess.STDOUT)
            procs.append((name, gpu, cases, p, rf))
        time.sleep(0.5)
        for item in list(procs):
            name, gpu, cases, p, rf = item
            if p.poll() is None:
                continue
            procs.remove(item)
            if rf.exists():
                done[name] = json.loads(rf.read_text())
            else:
                error = f"harness-error: group process exited {p.returncode}; see {work}/group-{name}.log"
                done[name] = {"gpu": gpu, "results": [failed(c, error) for c in cases]}
            print(f"[{version}] {name}: {len(done[name]['results'])} cases, import {done[name].get('import_seconds')}s, "
                  f"elapsed {time.time() - t0:.0f}s", flush=True)
    return done


def portable(records, *, models: Path):
    """``records`` with this machine's paths replaced by placeholders, so the
    committed data names no temporary directory: the model directory becomes
    ``{MODELS}``, the release's site directory ``{SITE}``, this checkout
    ``{REPO}``."""
    site = os.environ.get("PYTHONPATH", "").split(os.pathsep)[0]
    repo = str(Path(__file__).resolve().parents[2])
    pairs = [(str(models), "{MODELS}")] + ([(site, "{SITE}")] if site else []) + [(repo, "{REPO}")]
    text = json.dumps(records, default=repr)
    for path, placeholder in pairs:
        text = text.replace(json.dumps(path)[1:-1], placeholder)
    return json.loads(text)


def release_version() -> str:
    """``sglang.version.__version__`` of the release on PYTHONPATH, read
    without importing sglang."""
    import importlib.util

    spec = importlib.util.find_spec("sglang")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("sglang is not importable: put the release's --target dir on PYTHONPATH")
    vfile = Path(list(spec.submodule_search_locations)[0]) / "version.py"
    ns: dict = {}
    exec(vfile.read_text(), ns)
    return ns["__version__"]


def env_versions() -> dict:
    """The oracle venv's python, torch, transformers and torchvision (recorded)."""
    env = {"python": sys.version.split()[0]}
    for dist in ("torch", "transformers", "torchvision"):
        try:
            import importlib.metadata as md

            env[dist] = md.version(dist)
        except Exception:
            env[dist] = None
    return env
