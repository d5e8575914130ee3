"""Fuzz the deposit table: the BDD, SAT and brute-force encodings per type vs ``deposit``."""
from functools import lru_cache
from itertools import product

from analysed import RELPATH, rows_of_module
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pylogic.ir.deposit_types import deposit
from pylogic.ir.model import (
    DEPOSIT_TYPES, Block, Function, Imm, Module, PredDefine, PredDest, Reg, Ret,
)
from pylogic.predicates.pas import PredicateAnalysis


def analysed(make, *args, **kw) -> PredicateAnalysis:
    """PAS of ``make(*args)``; the rows of every variant come from one engine call."""
    fn = make(*args)
    rows = all_rows(make)
    return PredicateAnalysis(fn, rows.of(f"{RELPATH}::{fn.name}"), **kw)


@lru_cache(maxsize=None)
def all_rows(make):
    domains = [DEPOSIT_TYPES] + ([(0, 1)] * 3 if make is define_fn else [DEPOSIT_TYPES])
    fns = tuple(make(*args) for args in product(*domains))
    return rows_of_module(Module(functions=fns, path=RELPATH))


def define_fn(dtype, g, c, old):
    """gp = g, d = old, then (gp) d:dtype = (c == 1), all from constants."""
    ins = (
        PredDefine(rel="eq", dests=(PredDest("gp", "ut"),), a=Imm(g), b=Imm(1)),
        PredDefine(rel="eq", dests=(PredDest("d", "ut"),), a=Imm(old), b=Imm(1)),
        PredDefine(guard="gp", rel="eq", dests=(PredDest("d", dtype),), a=Imm(c), b=Imm(1)),
        Ret(),
    )
    return Function(name=f"f_{dtype}_{g}{c}{old}", blocks=(Block(label="entry", instrs=ins),))


def two_destinations(t1, t2):
    """g, C, old free (params); both destinations see the same g and C and their own old value."""
    ins = (
        PredDefine(rel="ne", dests=(PredDest("g", "ut"),), a=Reg("a"), b=Imm(0)),
        PredDefine(rel="ne", dests=(PredDest("d1", "ut"), PredDest("d2", "uf")),
                   a=Reg("b"), b=Imm(0)),
        PredDefine(guard="g", rel="ne", dests=(PredDest("d1", t1), PredDest("d2", t2)),
                   a=Reg("c"), b=Imm(0)),
        Ret(),
    )
    return Function(name=f"f_{t1}_{t2}", params=("a", "b", "c"),
                    blocks=(Block(label="entry", instrs=ins),))


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(DEPOSIT_TYPES), st.integers(0, 1), st.integers(0, 1), st.integers(0, 1))
@pytest.mark.slow
def test_constant_rows(dtype, g, c, old):
    pa = analysed(define_fn, dtype, g, c, old, check="sat")
    assert pa.always_true("d") == bool(deposit(dtype, g, c, old))
    assert pa.always_false("d") == (not deposit(dtype, g, c, old))


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(DEPOSIT_TYPES), st.sampled_from(DEPOSIT_TYPES))
@pytest.mark.slow
def test_symbolic_two_destinations(t1, t2):
    pa = analysed(two_destinations, t1, t2, check="brute")
    bdd = pa.bdd
    g, old1, c = (pa.condition(r, "ne", 0, at=("entry", 0)) for r in "abc")
    for gv in (0, 1):
        for cv in (0, 1):
            for ov in (0, 1):
                env = {}
                for u, val in ((g, gv), (old1, ov), (c, cv)):
                    env.update({v: val for v in bdd.support(u)})
                # each param family has one variable (ne 0 splits into <0, 0, >0 -> 2 vars);
                # evaluate on the cube of the chosen segment instead
                pick = bdd.true
                for u, val in ((g, gv), (old1, ov), (c, cv)):
                    pick &= u if val else ~u
                d1 = pa.value("d1") & pick
                d2 = pa.value("d2") & pick
                assert (d1 == pick) == bool(deposit(t1, gv, cv, ov))
                assert (d1 == bdd.false) == (not deposit(t1, gv, cv, ov))
                assert (d2 == pick) == bool(deposit(t2, gv, cv, 1 - ov))
    pa.equivalent("d1", "d2")  # cross-checked by brute force
