"""Walk a module's statements in order and keep track of what each name
holds, so a launch call can be evaluated with the values that reach it.

This is a small abstract interpreter, not a type checker: assignments,
imports, ``list.append/extend/insert``, ``+=``, ``d[k] = v`` and
``d.update(...)`` are followed; both sides of an ``if``, every ``try``
handler and zero-or-more loop iterations are joined with `merge`, so what
all paths agree on stays known and the rest becomes unknown. Function bodies
run after their enclosing scope, seeing its names as they are at its end
(a name assigned different values there is unknown).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable, Optional

import libcst as cst

from sgllint.formats.python.evaluate import Evaluator, _dotted
from sgllint.formats.python.mutations import extend, method_mutation, write_item
from sgllint.formats.python.paths import branch_sides
from sgllint.formats.python.syntax import bind_call, calls_in, flatten_targets, leaves_early, name_of, parameters, probed_field
from sgllint.formats.python.values import (
    NO_SIDES,
    AbsVal,
    DictVal,
    Imported,
    ListVal,
    Scalar,
    Splat,
    merge,
    same,
    unknown,
)
from sgllint.model.facts import Unresolved

#: loops nested deeper than this get no priming pass
_MAX_PRIMED_LOOP_DEPTH = 4
#: calls of this file's functions evaluated inside one another at most this deep
_MAX_CALL_DEPTH = 3
#: and at most this many such calls per file, and per call written at the
#: place a value is needed (a call in a call multiplies the work)
_MAX_CALLS_EVALUATED = 2048
_MAX_CALLS_PER_EXPRESSION = 64
#: dicts with more entries than this are not unrolled by `Interpreter._unrolled_items`
_MAX_UNROLLED = 64
#: why a name bound by ``def`` has no value of its own
_LOCAL_FUNCTION = "a function defined in this file"
#: a callback that sees every call expression with an evaluator for its scope
OnCall = Callable[[cst.Call, Evaluator], None]


class Env:
    """The names of one scope at one point of execution."""

    def __init__(self, frame: "Frame", outer: Callable[[str], Optional[AbsVal]]):
        self.frame = frame
        self.outer = outer
        self.vars: dict[str, AbsVal] = {}
        self.star_modules: tuple[str, ...] = ()

    def copy(self) -> "Env":
        other = Env(self.frame, self.outer)
        other.vars = dict(self.vars)
        other.star_modules = self.star_modules
        return other

    def lookup(self, name: str) -> Optional[AbsVal]:
        if name in self.vars:
            return self.vars[name]
        return self.outer(name)

    def bind(self, name: str, value: AbsVal) -> None:
        self.vars[name] = value
        self.frame.history.setdefault(name, []).append(value)

    def all_star_modules(self) -> tuple[str, ...]:
        return self.star_modules + self.frame.outer_star_modules


def merge_envs(a: Env, b: Env, why: str, paths: bool = True, sides: tuple = NO_SIDES) -> Env:
    """The names after two paths that left ``a`` and ``b`` (see `merge`)."""
    out = a.copy()
    for name, value in b.vars.items():
        out.vars[name] = merge(a.vars[name], value, why, paths, sides) if name in a.vars else value
    out.star_modules = tuple(dict.fromkeys(a.star_modules + b.star_modules))
    return out


def _only_if_field(taken: Env, before: Env, field_name: str) -> Env:
    """``taken`` (an ``if`` body that runs only when ServerArgs has
    ``field_name``) with the dict entries of that key it wrote marked
    `Entry.only_if_field`, on every path the dicts hold."""

    def mark(value):
        if not isinstance(value, DictVal):
            return value
        entries = tuple(replace(e, only_if_field=True) if e.key == field_name else e for e in value.entries)
        paths = tuple(replace(p, value=mark(p.value)) for p in value.paths)
        return replace(value, entries=entries, paths=paths)

    out = taken.copy()
    for name, value in taken.vars.items():
        if value is before.vars.get(name) or not isinstance(value, DictVal):
            continue
        old = before.lookup(name)
        old_entry = old.get(field_name) if isinstance(old, DictVal) else None
        if old_entry is None or old_entry is not value.get(field_name):
            out.vars[name] = mark(value)
    return out


@dataclass
class Frame:
    """A scope (module, class body or function) and every value each of its
    names was ever given; ``final`` is its env once it has run."""

    parent: Optional["Frame"]
    history: dict[str, list] = field(default_factory=dict)
    final: Optional[Env] = None
    outer_star_modules: tuple[str, ...] = ()

    def lookup_from_inside(self, name: str) -> Optional[AbsVal]:
        """What a nested function sees: the value at the end of this scope,
        unless the name was given different values (then it is unknown)."""
        if self.final is not None and name in self.final.vars:
            value = self.final.vars[name]
            history = self.history.get(name, [])
            if isinstance(value, Imported) or all(same(h, history[0]) for h in history[1:]):
                return value
            return Scalar(Unresolved(name, f"'{name}' is assigned more than once"), None)
        return self.parent.lookup_from_inside(name) if self.parent is not None else None


class Interpreter:
    """Runs a module's statements abstractly; ``on_call`` sees every call."""

    def __init__(self, ctx, on_call: OnCall):
        self.ctx = ctx
        self.on_call = on_call
        self.recording = True  # off during a loop body's first (priming) pass
        self._loop_depth = 0
        self._pending: list[tuple[cst.FunctionDef, Frame, tuple[str, ...]]] = []
        # the top-level statement being run, and each queued function's: the
        # context computes positions one top-level statement at a time
        self._top = None
        self._top_of: dict[int, object] = {}
        # functions defined in this file, by name (a name defined twice: None),
        # for calls whose result is used (`subprocess.run(build_cmd(3))`)
        self._functions: dict[str, Optional[tuple[cst.FunctionDef, Frame, tuple[str, ...]]]] = {}
        self._calling: list[str] = []  # functions being evaluated for a result
        self._call_budget = _MAX_CALLS_EVALUATED
        self._outer_budget = _MAX_CALLS_PER_EXPRESSION
        self._returns: Optional[list[AbsVal]] = None
        self._branches_run = 0

    def _enter_top(self, statement) -> None:
        self._top = statement
        enter = getattr(self.ctx, "enter_statement", None)
        if enter is not None:
            enter(statement)

    def run(self, module: cst.Module) -> None:
        frame = Frame(None)
        env = Env(frame, lambda name: None)
        for statement in module.body:
            self._enter_top(statement)
            env = self._guarded(statement, env)
        frame.final = env
        while self._pending:
            node, enclosing, stars = self._pending.pop(0)
            self._enter_top(self._top_of.get(id(node)))
            self._run_function(node, enclosing, stars)
        self._enter_top(None)

    def _run_function(self, node: cst.FunctionDef, enclosing: Frame, stars: tuple[str, ...]) -> None:
        frame = Frame(enclosing, outer_star_modules=stars)
        env = Env(frame, enclosing.lookup_from_inside)
        for param in parameters(node.params):
            env.bind(param.name.value, unknown(param.name.value, f"'{param.name.value}' is a function parameter"))
        frame.final = self.exec_suite(node.body, env)

    def evaluator(self, env: Env, shadowed: frozenset = frozenset()) -> Evaluator:
        """An evaluator for ``env``; ``shadowed`` names (a comprehension's
        loop variables) are unknown."""
        def call_local(call: cst.Call, ev: Evaluator) -> Optional[AbsVal]:
            return self._call_result(call, ev, env)

        if not shadowed:
            return Evaluator(self.ctx, env.lookup, env.all_star_modules(), call_local)

        def lookup(name: str) -> Optional[AbsVal]:
            if name in shadowed:
                return unknown(name, f"'{name}' is a loop variable")
            return env.lookup(name)

        return Evaluator(self.ctx, lookup, env.all_star_modules(), call_local)

    def _call_result(self, call: cst.Call, ev: Evaluator, env: Env) -> Optional[AbsVal]:
        """What a call of a function defined in this file returns: its body
        run (calls in it not reported: they are, where it is defined) with
        the call's arguments bound to its parameters; its ``return`` values
        joined. None for anything else, or a recursive or too deep call."""
        if not isinstance(call.func, cst.Name):
            return None
        name = call.func.value
        found = self._functions.get(name)
        bound = ev.lookup(name)
        if found is None or not isinstance(bound, Scalar) or getattr(bound.value, "reason", "") != _LOCAL_FUNCTION:
            return None
        if name in self._calling or len(self._calling) >= _MAX_CALL_DEPTH:
            return None
        if not self._calling:
            self._outer_budget = _MAX_CALLS_PER_EXPRESSION
        if self._call_budget <= 0 or self._outer_budget <= 0:
            return None
        self._call_budget -= 1
        self._outer_budget -= 1
        node, enclosing, stars = found
        arguments = bind_call(node.params, call, ev)
        if arguments is None:
            return None
        frame = Frame(enclosing, outer_star_modules=stars)
        # a call from the scope the function is defined in sees that scope as it is now
        outer = env.lookup if env.frame is enclosing else enclosing.lookup_from_inside
        inner = Env(frame, outer)
        for param, value in arguments:
            inner.bind(param, value)
        recording, returns = self.recording, self._returns
        self.recording, self._returns = False, []
        self._calling.append(name)
        try:
            self.exec_suite(node.body, inner)
            results = self._returns
        finally:
            self._calling.pop()
            self.recording, self._returns = recording, returns
        if not results:
            return None
        value = results[0]
        for other in results[1:]:  # each return is a path of its own
            value = merge(value, other, f"the returns of {name}()")
        return value

    # -- blocks ------------------------------------------------------------------

    def exec_statements(self, statements, env: Env) -> Env:
        for statement in statements:
            env = self._guarded(statement, env)
        return env

    def _guarded(self, statement, env: Env) -> Env:
        """One statement; a construct too deep to evaluate is skipped."""
        try:
            return self.exec_statement(statement, env)
        except RecursionError:
            return env

    def exec_suite(self, suite, env: Env) -> Env:
        if isinstance(suite, cst.IndentedBlock):
            return self.exec_statements(suite.body, env)
        return self.exec_statements(suite.body, env)  # SimpleStatementSuite: small statements

    def exec_statement(self, node, env: Env) -> Env:
        handler = getattr(self, "_exec_" + type(node).__name__, None)
        if handler is None:
            self.scan(node, env)
            return env
        return handler(node, env)

    def scan(self, node, env: Env) -> None:
        """Report the calls in ``node`` (an expression or small statement)."""
        if not self.recording or node is None:
            return
        may_launch = getattr(self.ctx, "may_launch", None)
        for call, shadowed in calls_in(node):
            if may_launch is None or may_launch(call):
                self.on_call(call, self.evaluator(env, shadowed))

    # -- simple statements -------------------------------------------------------

    def _exec_SimpleStatementLine(self, node, env: Env) -> Env:
        return self.exec_statements(node.body, env)

    def _exec_Expr(self, node, env: Env) -> Env:
        self.scan(node, env)
        value = node.value
        if isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute):
            self._mutating_call(value, env)
        return env

    def _exec_Assign(self, node, env: Env) -> Env:
        self.scan(node, env)
        value = self.evaluator(env).eval(node.value)
        for target in node.targets:
            self.bind(target.target, value, env)
        return env

    def _exec_AnnAssign(self, node, env: Env) -> Env:
        self.scan(node, env)
        if node.value is not None:
            self.bind(node.target, self.evaluator(env).eval(node.value), env)
        return env

    def _exec_AugAssign(self, node, env: Env) -> Env:
        self.scan(node, env)
        ev = self.evaluator(env)
        if isinstance(node.operator, cst.AddAssign):
            value = ev.over_paths(lambda: extend(ev, node, ev.value(node.target)))
        else:
            value = unknown(self.ctx.code(node.target), "changed by an operator")
        dotted = _dotted(node.target)
        if dotted is not None:
            env.vars[dotted] = value  # extends the binding: not another assignment
        else:
            self.bind(node.target, value, env)
        return env

    def _exec_Return(self, node, env: Env) -> Env:
        self.scan(node, env)
        if self._returns is not None and node.value is not None:
            self._returns.append(self.evaluator(env).eval(node.value))
        return env

    def _exec_Import(self, node, env: Env) -> Env:
        for alias in node.names:
            dotted = name_of(alias.name)
            if alias.asname is not None:
                env.bind(alias.asname.name.value, Imported(dotted))
            else:
                head = dotted.split(".")[0]
                env.bind(head, Imported(head))
        return env

    def _exec_ImportFrom(self, node, env: Env) -> Env:
        module = "." * len(node.relative) + (name_of(node.module) if node.module is not None else "")
        if isinstance(node.names, cst.ImportStar):
            env.star_modules = env.star_modules + (module,)
            return env
        for alias in node.names:
            name = name_of(alias.name)
            bound = alias.asname.name.value if alias.asname is not None else name
            env.bind(bound, Imported(f"{module}.{name}"))
        return env

    def _exec_Del(self, node, env: Env) -> Env:
        for target in flatten_targets(node.target):
            if isinstance(target, cst.Name):
                env.vars.pop(target.value, None)
            elif isinstance(target, cst.Subscript):
                self._write_item(target, None, env, delete=True)
        return env

    # -- compound statements -----------------------------------------------------

    def _exec_If(self, node, env: Env) -> Env:
        self.scan(node.test, env)
        taken = self.exec_suite(node.body, env.copy())
        probed = probed_field(node.test)
        if probed is not None:
            taken = _only_if_field(taken, env, probed)
        if node.orelse is None:
            skipped = env
        elif isinstance(node.orelse, cst.If):
            skipped = self._exec_If(node.orelse, env.copy())
        else:
            skipped = self.exec_suite(node.orelse.body, env.copy())
        self._branches_run += 1  # each run of an if (a loop's, a function's) decides anew
        return merge_envs(taken, skipped, f"a branch at line {self.ctx.line(node)}", sides=branch_sides(("if", self._branches_run)))

    def _exec_For(self, node, env: Env) -> Env:
        self.scan(node.iter, env)
        unrolled = self._unrolled_items(node, env)
        after = self._loop(node, env, lambda e: self._bind_unknown(node.target, e, "a loop variable"))
        return after if unrolled is None else unrolled

    def _unrolled_items(self, node, env: Env) -> Optional[Env]:
        """``for k, v in d.items(): cmd += [f"--{k}", str(v)]`` over a dict
        whose every key is known (a dict-to-flags helper): the body run once
        per entry, in order, with no call reported (the loop's reported pass
        is `_loop`'s). The env after it; None for any other loop."""
        it = node.iter
        target = node.target
        if not (
            isinstance(it, cst.Call)
            and isinstance(it.func, cst.Attribute)
            and it.func.attr.value == "items"
            and not it.args
            and isinstance(target, cst.Tuple)
            and len(target.elements) == 2
            and all(isinstance(e.value, cst.Name) for e in target.elements)
            and node.orelse is None
            and not leaves_early(node.body)
        ):
            return None
        mapping = self.evaluator(env).eval(it.func.value)
        if not isinstance(mapping, DictVal) or mapping.opaque or len(mapping.entries) > _MAX_UNROLLED:
            return None
        key_name, value_name = (e.value.value for e in target.elements)
        recording, self.recording = self.recording, False
        try:
            for entry in mapping.entries:
                env = env.copy()
                env.bind(key_name, Scalar(entry.key, entry.key_span))
                env.bind(value_name, entry.value)
                env = self.exec_suite(node.body, env)
        finally:
            self.recording = recording
        return env

    def _exec_While(self, node, env: Env) -> Env:
        self.scan(node.test, env)
        return self._loop(node, env, lambda e: None)

    def _loop(self, node, env: Env, bind_target) -> Env:
        """A body that runs zero or more times: a priming pass (calls not
        reported) shows what one iteration changes; the reported pass starts
        from the join of before-the-loop and after-one-iteration."""
        why = f"a loop at line {self.ctx.line(node)}"
        entry = env
        if self._loop_depth < _MAX_PRIMED_LOOP_DEPTH:  # nested loops would prime 2**depth times
            recording, self.recording = self.recording, False
            self._loop_depth += 1
            try:
                first = env.copy()
                bind_target(first)
                first = self.exec_suite(node.body, first)
            finally:
                self.recording = recording
                self._loop_depth -= 1
            entry = merge_envs(env, first, why, paths=False)
        second = entry.copy()
        bind_target(second)
        second = self.exec_suite(node.body, second)
        after = merge_envs(entry, second, why, paths=False)
        if node.orelse is not None:
            after = self.exec_suite(node.orelse.body, after)
        return after

    def _exec_Try(self, node, env: Env) -> Env:
        why = f"a try statement at line {self.ctx.line(node)}"
        body = self.exec_suite(node.body, env.copy())
        outcomes = [self.exec_suite(node.orelse.body, body) if node.orelse is not None else body]
        handler_start = merge_envs(env, body, why, paths=False)
        for handler in node.handlers:
            self.scan(handler.type, env)
            start = handler_start.copy()
            if handler.name is not None:
                self._bind_unknown(handler.name.name, start, "an exception")
            outcomes.append(self.exec_suite(handler.body, start))
        result = outcomes[0]
        for other in outcomes[1:]:
            result = merge_envs(result, other, why, paths=False)
        if node.finalbody is not None:
            result = self.exec_suite(node.finalbody.body, result)
        return result

    _exec_TryStar = _exec_Try

    def _exec_With(self, node, env: Env) -> Env:
        for item in node.items:
            self.scan(item.item, env)
            if item.asname is not None:
                self._bind_unknown(item.asname.name, env, "a context manager's value")
        return self.exec_suite(node.body, env)

    def _exec_Match(self, node, env: Env) -> Env:
        self.scan(node.subject, env)
        why = f"a match statement at line {self.ctx.line(node)}"
        result = env
        for case in node.cases:
            result = merge_envs(result, self.exec_suite(case.body, env.copy()), why, paths=False)
        return result

    def _exec_FunctionDef(self, node, env: Env) -> Env:
        for decorator in node.decorators:
            self.scan(decorator.decorator, env)
        env.bind(node.name.value, unknown(node.name.value, _LOCAL_FUNCTION))
        name = node.name.value
        self._functions[name] = None if name in self._functions else (node, env.frame, env.all_star_modules())
        if self.recording:  # a function in a loop body is queued on the reported pass only
            self._pending.append((node, env.frame, env.all_star_modules()))
            self._top_of[id(node)] = self._top
        return env

    def _exec_ClassDef(self, node, env: Env) -> Env:
        for decorator in node.decorators:
            self.scan(decorator.decorator, env)
        for base in node.bases:
            self.scan(base.value, env)
        # the class body runs now, seeing the enclosing names as they are;
        # its methods see the enclosing scope, not the class body
        frame = Frame(env.frame, outer_star_modules=env.all_star_modules())
        body = Env(frame, env.lookup)
        recording_pending = len(self._pending)
        self.exec_suite(node.body, body)
        for i in range(recording_pending, len(self._pending)):
            fn, _, stars = self._pending[i]
            self._pending[i] = (fn, env.frame, stars)
        env.bind(node.name.value, unknown(node.name.value, "a class defined in this file"))
        return env

    # -- bindings and mutations --------------------------------------------------

    def bind(self, target, value: AbsVal, env: Env) -> None:
        if isinstance(target, (cst.Name, cst.Attribute)):
            dotted = _dotted(target)
            if dotted is not None:
                env.bind(dotted, value)
            return
        if isinstance(target, cst.Subscript):
            self._write_item(target, value, env)
            return
        if isinstance(target, (cst.Tuple, cst.List)):
            elements = target.elements
            items = value.items if isinstance(value, ListVal) else None
            if items is not None and len(items) == len(elements) and not any(isinstance(i, Splat) for i in items) and not any(isinstance(e, cst.StarredElement) for e in elements):
                for element, item in zip(elements, items):
                    self.bind(element.value, item, env)
                return
            self._bind_unknown(target, env, "unpacked from a value that is not known statically")

    def _bind_unknown(self, target, env: Env, why: str) -> None:
        for t in flatten_targets(target):
            dotted = _dotted(t)
            if dotted is not None:
                env.bind(dotted, unknown(dotted, f"'{dotted}' is {why}"))

    def _write_item(self, target: cst.Subscript, value: Optional[AbsVal], env: Env, delete: bool = False) -> None:
        """``d["k"] = v``, ``args[i] = v`` and ``del d["k"]``, on each path."""
        name = _dotted(target.value)
        container = env.lookup(name) if name is not None else None
        if not isinstance(container, (DictVal, ListVal)):
            return
        ev = self.evaluator(env)
        index_node = target.slice[0].slice.value if len(target.slice) == 1 and isinstance(target.slice[0].slice, cst.Index) else None

        def written() -> AbsVal:
            key = ev.value(index_node) if index_node is not None else None
            return write_item(ev.chosen(container), key, value, name, delete)

        env.vars[name] = ev.over_paths(written)

    def _mutating_call(self, call: cst.Call, env: Env) -> None:
        """``args.append(x)``, ``args.extend(xs)``, ``d.update(...)``, ...
        on each path the container has."""
        name = _dotted(call.func.value)
        container = env.lookup(name) if name is not None else None
        mutate = method_mutation(container, call.func.attr.value)
        if mutate is not None:
            ev = self.evaluator(env)
            env.vars[name] = ev.over_paths(lambda: mutate(ev, ev.chosen(container), call, name))
