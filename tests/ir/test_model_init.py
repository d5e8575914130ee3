"""model._dict_init: every frozen dataclass of the PIR model keeps the constructor Python's
dataclasses generate (signature, defaults, field order, __post_init__, frozen), only faster.
The oracle: a class built by ``dataclasses.dataclass`` alone from the same fields."""
from __future__ import annotations

import dataclasses
import inspect
import pickle

import pytest

from pylogic.ir import model


MODEL_CLASSES = [c for c in vars(model).values()
                 if isinstance(c, type) and dataclasses.is_dataclass(c)
                 and c.__module__ == model.__name__]


def _reference(cls):
    """``cls`` as ``dataclasses`` alone builds it (its generated ``__init__``)."""
    params = cls.__dataclass_params__
    ns = {"__annotations__": {f.name: f.type for f in dataclasses.fields(cls)},
          "__module__": cls.__module__}
    for f in dataclasses.fields(cls):
        ns[f.name] = dataclasses.field(default=f.default, compare=f.compare, repr=f.repr,
                                       kw_only=f.kw_only)
    if "__post_init__" in vars(cls) or hasattr(cls, "__post_init__"):
        ns["__post_init__"] = cls.__post_init__
    return dataclasses.dataclass(frozen=params.frozen)(type(cls.__name__, (), ns))


def _sample(f):
    """A value for field ``f`` unlike its default."""
    if f.name == "value" or f.name in ("size", "exit"):
        return (1 << 64) + 5          # Imm wraps to 64 bits in __post_init__
    if f.name == "init":
        return b"ab\0\0"              # Global strips trailing zero bytes
    return ("x", f.name)


def test_every_model_dataclass_is_covered():
    assert {c.__name__ for c in MODEL_CLASSES} >= {"Reg", "Imm", "GlobalAddr", "Load", "Store",
                                                   "BinOp", "Call", "Block", "Function",
                                                   "Global", "Module"}


@pytest.mark.parametrize("cls", MODEL_CLASSES, ids=lambda c: c.__name__)
def test_init_matches_the_generated_one(cls):
    ref = _reference(cls)
    assert inspect.signature(cls.__init__) == inspect.signature(ref.__init__)
    fs = dataclasses.fields(cls)
    required = {f.name: _sample(f) for f in fs if f.default is dataclasses.MISSING}
    everything = {f.name: _sample(f) for f in fs}
    for kwargs in (required, everything):
        got, want = cls(**kwargs), ref(**kwargs)
        assert list(vars(got).items()) == list(vars(want).items())
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(got, fs[0].name, 1)
        assert pickle.loads(pickle.dumps(got)) == got
    positional = [f for f in fs if not f.kw_only]
    if positional:
        args = [_sample(f) for f in positional]
        assert vars(cls(*args)) == vars(ref(*args))
    with pytest.raises(TypeError):
        cls(**required, no_such_field=1)
    if required:
        with pytest.raises(TypeError):
            cls()
