"""An abstract interpreter for SGLang's start-up code, compiled to closures.

Each ``ast`` node of a release's start-up modules is compiled once per release
into a Python closure (``compile_module``); a launch runs those closures
(``Run``). Values are concrete Python values or ``domain.Unknown``.
Interpreted classes are real Python classes whose methods are interpreted
functions (``Func``, a descriptor), so attribute lookup, properties,
``__getattr__``/``__setattr__``, dataclasses and exceptions behave as Python's
own; the interpreter only decides what runs and how Unknown flows:

* a branch on an Unknown condition runs both sides and joins the states (the
  mutable containers each side touched are snapshotted and joined in place);
  an exception escaping one side is a *possible* rejection, the side dies;
* an exception escaping on a definite path is the *definite* rejection;
* calls outside the interpreted code go through the environment model
  (``envmodel``); an unmodelled call answers Unknown.

Nothing here imports sglang or torch: the code is data (``ast`` trees).

The interpreter by concern: ``runtime`` (the launch's state ``RT``, functions,
calls, speculation), ``scopes`` (compile-time names), ``statements`` and
``expressions`` (the compiler), ``operations`` (operators, reads, names on
three-valued values). This module is their facade: ``Compiler`` and the
names the evaluator, the program loader and the environment model use.
"""

from __future__ import annotations

from . import expressions, operations, runtime, statements
from .domain import TAINTED
from .expressions import ExpressionCompiler
from .operations import _BUILTINS_MODEL, _DECORATORS, _MISSING, Lazy, apply_decorator, get_attr
from .runtime import (
    BREAK,
    CONTINUE,
    MAX_CALLS,
    MAX_DEPTH,
    MAX_RECURSION,
    BoundMethod,
    CachedFunc,
    Code,
    Degrade,
    Frame,
    Func,
    Level,
    Pending,
    Ret,
    Run,
    UnknownSignal,
    _depth,
    call_func,
    call_value,
    note_possible,
    site_of,
    speculate,
    touch,
    touch_obj,
)
from .scopes import Scope, _bound_names
from .statements import StatementCompiler

__all__ = [
    "BREAK", "CONTINUE", "MAX_CALLS", "MAX_DEPTH", "MAX_RECURSION", "RT", "TAINTED", "BoundMethod", "CachedFunc",
    "Code", "Compiler", "Degrade", "Frame", "Func", "Lazy", "Level", "Pending", "Ret", "Run", "Scope",
    "UnknownSignal", "_BUILTINS_MODEL", "_DECORATORS", "_MISSING", "_bound_names", "_depth", "apply_decorator",
    "call_func", "call_value", "get_attr", "note_possible", "set_run", "site_of", "speculate", "touch", "touch_obj",
]


class Compiler(StatementCompiler, ExpressionCompiler):
    """Compiles one module's ``ast`` into closures."""


RT: Run = None  # type: ignore[assignment]  # the launch being evaluated (single-threaded)

#: the modules whose code reads the launch being evaluated as their global ``RT``
_RUN_READERS = (runtime, operations, statements, expressions)


def set_run(rt: Run | None) -> None:
    """Make ``rt`` the launch being evaluated, for every module of the
    interpreter (each reads it as a module global, the fastest lookup on the
    hot path) and as ``interp.RT``."""
    global RT
    RT = rt
    for m in _RUN_READERS:
        m.RT = rt
