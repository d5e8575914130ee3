"""What tests need from the machine, in one place: skip markers that say why, and the engines to
parametrize over (every registered engine; the unavailable ones skipped, naming the reason).

Example
-------
>>> from tests.support import ENGINES, needs_souffle
>>> @pytest.mark.parametrize("engine", ENGINES)       # doctest: +SKIP
... def test_outputs(engine): ...
"""
from __future__ import annotations

import pytest

from pylogic.engines import engine, engine_names
from pylogic.ir.llvm.clang import find_clang


def engine_available(name: str) -> bool:
    """Whether the registered engine ``name`` runs here (checked when called)."""
    return engine(name).available()


def souffle_available() -> bool:
    """Whether the ``souffle`` binary is on PATH (checked when called)."""
    return engine_available("souffle")


def clang_path() -> str | None:
    """clang-14 (or clang), found the way the C front end finds it."""
    return find_clang()


def _engine_skip(name: str):
    e = engine(name)
    return pytest.mark.skipif(not e.available(),
                              reason=f"{name} engine not tested: {e.unavailable_reason()}")


#: The souffle binary is needed (Soufflé is in no package registry these machines reach).
needs_souffle = _engine_skip("souffle")

#: clang-14 is needed (C inputs).
needs_clang = pytest.mark.skipif(clang_path() is None,
                                 reason="clang-14 not on PATH: C inputs not tested")

#: ``@pytest.mark.parametrize("engine", ENGINES)``: every registered engine.
ENGINES = [pytest.param(name, marks=_engine_skip(name)) for name in engine_names()]
