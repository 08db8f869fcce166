"""The one vocabulary of partial knowledge (sgllint.model.unknown), shared by
the semantics layer and the rules."""

from __future__ import annotations

import copy
import pickle

import pytest

from sgllint.model.unknown import UNKNOWN, divides, known
from sgllint.semantics import deterministic as det
from sgllint.semantics import effective as eff
from sgllint.semantics import parallel as par

T, F, U = True, False, UNKNOWN



def test_one_unknown_everywhere():
    assert eff.UNKNOWN is UNKNOWN and par.UNKNOWN is UNKNOWN
    assert eff.at_least is det.at_least and par.at_least is det.at_least


def test_unknown_is_falsy_and_only_itself():
    assert not UNKNOWN and repr(UNKNOWN) == "UNKNOWN"
    assert known(0, False, None, "") and not known(1, UNKNOWN)
    assert pickle.loads(pickle.dumps(UNKNOWN)) is UNKNOWN  # worker processes send it back
    assert copy.deepcopy([UNKNOWN])[0] is UNKNOWN


@pytest.mark.parametrize("d,n,answer", [(2, 8, T), (3, 8, F), (0, 8, F), (U, 8, U), (2, U, U)])
def test_divides(d, n, answer):
    assert divides(d, n) is answer
