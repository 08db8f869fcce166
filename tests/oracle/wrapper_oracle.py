"""Run generated launches through a wrapper's REAL parser and record verdicts.

Run inside a throwaway venv that has the wrapper wheel installed ``--no-deps``
(plus what its parser module imports: see ``run_wrapper_oracle.sh``)::

    python tests/oracle/wrapper_oracle.py --package sglang-router --version 0.3.2 \
        --cases cases.json --out tests/data/oracle/wrappers/sglang-router-0.3.2.json

Cases (written by ``wrapper_cases.py`` from the generated data) are
``{"entry": ..., "argv": [...]}``.  Each case runs in a fresh ``os.fork()``:
the package's own parser function is called (``parse_router_args`` for
``sglang_router.launch_router``, ``cli.main`` up to its parser for the console
scripts) and its outcome recorded: ``accepted``, ``exited`` (``--help``),
or ``rejected`` with argparse's message and the reason kind it names.  No
sgllint code runs here.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import re
import sys
from contextlib import redirect_stderr, redirect_stdout

_REASONS = (
    (re.compile(r"unrecognized arguments: (.*)"), "unrecognized"),
    (re.compile(r"ambiguous option: (\S+)"), "ambiguous"),
    (re.compile(r"argument ([^:]+): expected (?:one|at least one|\d+) argument"), "expected_value"),
    (re.compile(r"argument ([^:]+): invalid choice"), "invalid_choice"),
    (re.compile(r"argument ([^:]+): invalid \S+ value"), "invalid_value"),
    (re.compile(r"argument ([^:]+): ignored explicit argument"), "ignored_explicit"),
    (re.compile(r"the following arguments are required: (.*)"), "required"),
)


def classify(message: str) -> tuple[str, str]:
    for rx, kind in _REASONS:
        m = rx.search(message)
        if m:
            return kind, m.group(1).strip()
    return "other", message.strip().splitlines()[-1] if message.strip() else ""


class _Reached(Exception):
    """Raised where the launch would go on to start servers."""


def _launch_server(argv: list[str]) -> None:
    """``python -m sglang_router.launch_server``: its ``main()`` builds one
    parser from the installed SGLang's ``ServerArgs.add_cli_args`` and the
    router's options and calls ``parse_args()`` on ``sys.argv``; the next
    statement, ``ServerArgs.from_cli_args``, is replaced so nothing starts."""
    import multiprocessing

    import sglang_router.launch_server as ls
    from sglang.srt.server_args import ServerArgs

    def reached(*_a, **_k):
        raise _Reached()

    ServerArgs.from_cli_args = classmethod(reached)
    multiprocessing.set_start_method = lambda *a, **k: None
    sys.argv = ["launch_server", *argv]
    try:
        ls.main()
    except _Reached:
        return


def _dynamo(argv: list[str]) -> None:
    """``python -m dynamo.sglang``: its ``main`` hands ``sys.argv[1:]`` to
    ``dynamo.sglang.args.parse_args`` (a coroutine from 0.6.1).  That function
    runs the wrapper's parse stages and then goes on to fetch the model; the
    launch is stopped right after the parse that holds SGLang's options (the
    last stage of every release) succeeds."""
    import asyncio
    import inspect

    from dynamo.sglang import args as dynamo_args

    original = argparse.ArgumentParser.parse_args

    def parse_args(self, args=None, namespace=None):
        result = original(self, args, namespace)
        if "--model-path" in self._option_string_actions:
            raise _Reached()
        return result

    argparse.ArgumentParser.parse_args = parse_args
    try:
        result = dynamo_args.parse_args(list(argv))
        if inspect.iscoroutine(result):
            asyncio.run(result)
    except _Reached:
        return


def _router_parser_call(entry: str, argv: list[str]) -> None:
    """The package's own parse for ``entry`` (stops before anything starts)."""
    if entry == "python -m dynamo.sglang":
        _dynamo(argv)
        return
    if entry == "python -m sglang_router.launch_server":
        _launch_server(argv)
        return
    if entry == "python -m sglang_router.launch_router":
        from sglang_router.launch_router import parse_router_args

        parse_router_args(argv)
        return
    # console scripts: cli.main builds its parser, then parse_router_args for
    # "launch"; launch_router() itself is replaced so nothing starts.
    import sglang_router.cli as cli
    import sglang_router.launch_router as lr

    lr.launch_router = lambda args: None
    cli.main(argv)


def run_case(entry: str, argv: list[str]) -> dict:
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        err, out = io.StringIO(), io.StringIO()
        result: dict
        try:
            with redirect_stderr(err), redirect_stdout(out):
                _router_parser_call(entry, argv)
            result = {"verdict": "accepted"}
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
            if code == 0:
                result = {"verdict": "exited"}
            else:
                kind, subject = classify(err.getvalue())
                if kind == "other" and not err.getvalue().strip():
                    kind = "first_word"  # cli.main printed help and exited 1
                result = {"verdict": "rejected", "reason": kind, "subject": subject, "message": err.getvalue().strip().splitlines()[-1] if err.getvalue().strip() else ""}
        except ValueError as exc:
            # the package's own check after argparse (RouterArgs.from_cli_args:
            # bootstrap ports, API key format): a start-up rejection that is
            # not the parser's, kept apart from the parser comparison
            result = {"verdict": "wrapper-check", "error": f"{type(exc).__name__}: {exc}"}
        except BaseException as exc:
            result = {"verdict": "harness-error", "error": f"{type(exc).__name__}: {exc}"}
        os.write(w, json.dumps(result).encode())
        os.close(w)
        os._exit(0)
    os.close(w)
    data = b""
    while True:
        chunk = os.read(r, 65536)
        if not chunk:
            break
        data += chunk
    os.close(r)
    os.waitpid(pid, 0)
    return json.loads(data.decode()) if data else {"verdict": "harness-error", "error": "no result"}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--package", required=True)
    ap.add_argument("--version", required=True)
    ap.add_argument("--wheel", required=True)
    ap.add_argument("--cases", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--sglang-wheel", default=None, help="the SGLang wheel installed beside (launch_server, ai-dynamo)")
    args = ap.parse_args()
    cases = json.load(open(args.cases, encoding="utf-8"))
    sglang_version, finder = None, None
    if args.sglang_wheel:
        # launch_server imports SGLang's ServerArgs: the SGLang oracle's stub
        # finder stands in for GPU-only modules (listed in the output)
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import _harness
        from dump_option_strings import _warm_up_third_party_probes

        _warm_up_third_party_probes()
        _harness.warm_up_torch_probes()
        finder = _harness.oracle_stub_finder(__file__)
        sys.meta_path.append(finder)
        from sglang.version import __version__ as sglang_version
    # Import the package once; each case forks from here.
    if args.package == "ai-dynamo":
        import dynamo.sglang.args  # noqa: F401
    else:
        import sglang_router.launch_router  # noqa: F401

        if args.sglang_wheel:
            import sglang_router.launch_server  # noqa: F401
        try:
            import sglang_router.cli  # noqa: F401
        except ImportError:
            pass
    results = []
    for case in cases:
        res = run_case(case["entry"], case["argv"])
        results.append({**case, **res})
    data = {
        "package": args.package,
        "version": args.version,
        "wheel": os.path.basename(args.wheel),
        "python": sys.version.split()[0],
        "source": "verdicts of the package's own parser (tests/oracle/wrapper_oracle.py)",
        **({"sglang": sglang_version, "sglang_wheel": os.path.basename(args.sglang_wheel),
            "stubbed_modules": sorted(finder.stubbed)} if args.sglang_wheel else {}),
        "cases": results,
    }
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=0, sort_keys=False)
        f.write("\n")
    counts: dict = {}
    for r in results:
        counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
    print(f"{args.out}: {len(results)} cases {counts}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
