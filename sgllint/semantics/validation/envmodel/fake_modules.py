"""External modules as the environment model presents them, and its fixed answers.

``FakeModule`` lists a module's attributes (``Dyn``: computed per launch; ``ABSENT``: the
attribute does not exist); ``UnknownModule`` is a module outside the derived code, answered by
the model's replacements or Unknown.  The answers below are shared by the modules modelled in
this package; the interpreter reports a callee by its ``__name__``, so they keep their names.
"""

from __future__ import annotations

from ..domain import Unknown

ABSENT = object()


class FakeModule:
    """An external module: listed attributes, callables computed per launch
    (``Dyn``), ``ABSENT`` for attributes that do not exist; anything else Unknown."""

    def __init__(self, name: str, attrs: dict | None = None, strict: bool = False):
        self.__name__ = name
        self._attrs = attrs or {}
        self._strict = strict

    def __getattr__(self, name):
        attrs = object.__getattribute__(self, "_attrs")
        if name.startswith("__") and name.endswith("__") and name not in attrs:
            raise AttributeError(name)
        v = attrs.get(name, ABSENT if self._strict else None)
        if v is None and name not in attrs:
            return Unknown(f"{self.__name__}.{name}")
        if type(v) is Dyn:
            v = v.fn()
        if v is ABSENT:
            raise AttributeError(f"module '{self.__name__}' has no attribute '{name}'")
        return v

    def __repr__(self):
        return f"<modelled module {self.__name__}>"


class Dyn:
    __slots__ = ("fn",)

    def __init__(self, fn):
        self.fn = fn


class UnknownModule(FakeModule):
    """A module outside the derived code: the environment model's answers
    for the helpers it knows by name (``REPLACED``...), anything else Unknown."""

    def __init__(self, name: str, model=None):
        super().__init__(name)
        self._model = model

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        model = object.__getattribute__(self, "_model")
        if model is not None:
            repl = model.replacement(f"{self.__name__}.{name}")
            if repl is not None:
                return repl
        return Unknown(f"{self.__name__}.{name}")


def _false(*a, **k):
    return False


def _none(*a, **k):
    return None


def _unknown(why):
    return lambda *a, **k: Unknown(why)


def _noop(*a, **k):
    return None
