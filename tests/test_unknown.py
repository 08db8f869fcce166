"""The one vocabulary of partial knowledge (sgllint.model.unknown), shared by
the semantics layer and the rules."""

from __future__ import annotations

import copy
import pickle

import pytest

from sgllint.model.unknown import UNKNOWN, Unknown, divides, has_unknown, known
from sgllint.semantics import deterministic as det
from sgllint.semantics import effective as eff
from sgllint.semantics import parallel as par
from sgllint.semantics.validation import domain
from sgllint.semantics.validation.interp import UnknownSignal

T, F, U = True, False, UNKNOWN


def test_one_unknown_everywhere():
    assert eff.UNKNOWN is UNKNOWN and par.UNKNOWN is UNKNOWN
    assert eff.at_least is det.at_least and par.at_least is det.at_least


def test_unknown_is_falsy_and_only_itself():
    assert not UNKNOWN and repr(UNKNOWN) == "UNKNOWN"
    assert known(0, False, None, "") and not known(1, UNKNOWN)
    assert pickle.loads(pickle.dumps(UNKNOWN)) is UNKNOWN  # worker processes send it back
    assert copy.deepcopy([UNKNOWN])[0] is UNKNOWN


def test_every_kind_of_unknown_is_one_unknown():
    """The generators' (a plain `Unknown` with a reason) and the evaluator's
    (`domain.Unknown`) answer the same questions as the lint-time UNKNOWN."""
    folded, evaluated = Unknown("call f"), domain.Unknown("a fact not given")
    for u in (UNKNOWN, folded, evaluated):
        assert isinstance(u, Unknown) and not known(u) and has_unknown({"k": [1, u]})
    assert folded.why == "call f" and not folded and repr(folded) == "<Unknown call f>"
    assert has_unknown(1) is False and has_unknown({"a": (1, [2])}) is False
    assert divides(evaluated, 4) is UNKNOWN


def test_a_reasoned_unknown_copies_as_itself_not_as_the_singleton():
    for u in (Unknown("why"), domain.Unknown("why")):
        for back in (pickle.loads(pickle.dumps(u)), copy.deepcopy(u)):
            assert type(back) is type(u) and back is not UNKNOWN and back.why == "why"


def test_the_evaluators_unknown_is_never_silently_true_or_false():
    with pytest.raises(UnknownSignal):  # the interpreter turns it into "this expression is Unknown"
        bool(domain.Unknown("x"))
    assert repr(domain.Unknown("x")) == "Unknown(x)"  # the verdict dumps print it so


@pytest.mark.parametrize("d,n,answer", [(2, 8, T), (3, 8, F), (0, 8, F), (U, 8, U), (2, U, U)])
def test_divides(d, n, answer):
    assert divides(d, n) is answer


def test_no_second_unknown_class():
    """One vocabulary: a class named Unknown anywhere in sgllint is the model's or a subclass of it."""
    import ast
    import importlib
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    found = []
    for path in sorted((root / "sgllint").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and node.name.lstrip("_") == "Unknown":
                parts = path.relative_to(root).with_suffix("").parts
                module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
                found.append(getattr(importlib.import_module(module), node.name))
    assert Unknown in found and domain.Unknown in found
    assert all(issubclass(cls, Unknown) for cls in found), found
