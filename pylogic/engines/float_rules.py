"""Soufflé's ``float`` terms rewritten for the engines, which hold a float as its key
(``floats.py``): the checker rewrites a type-checked rule (after ``unsigned.bias_rule``) so that
every term of kind float becomes integer terms and functors over keys, as ``unsigned.py`` does
for unsigned values:

- a constant becomes its key (``1`` in a float position is ``1.0``, as Soufflé types a literal
  by its context; a constant expression is folded with ``floats.BINARY``);
- ``+ - * / ^``, unary ``-``, ``min``/``max`` become the functors ``fadd`` .. ``fmax``;
- a comparison of floats becomes ``@f<op>(a, b) = 1`` (``-0.0 = 0.0`` holds), but for ``x = t``
  that binds ``x``;
- conversions pick the functor of their argument's kind (Soufflé's overloads ``I2F``, ``F2I``,
  ``U2F``, ``F2U``, ``U2I``, ``F2S``, ``U2S``, ``S2F``);
- ``range`` of floats becomes ``frange``;
- ``sum`` of floats becomes the aggregate ``fsum``, ``mean`` ``fmean`` (each engine computes
  them, ``floats.sum_total``); ``min``/``max`` of floats are the integer ones over keys, then
  clamped to +-FLT_MAX as Soufflé's, which starts from those (``min`` of ``{inf}`` is FLT_MAX),
  and refused where 0.0 and -0.0 tie (the first Soufflé meets wins);
- ``"a" + "b"`` of symbols is ``cat`` (Soufflé's ``SSADD``)."""
from __future__ import annotations

from pylogic.engines import floats
from pylogic.engines.dialect import (AdtTerm, AggLit, Atom, BinOp, Call, Constraint, Neg,
                                     NegAtom, Num, Record, Str, Test, Var, pattern_vars)
from pylogic.engines.unsigned import bias_term
from pylogic.errors import DatalogError

_OPS = {"+": "fadd", "-": "fsub", "*": "fmul", "/": "fdiv", "^": "fpower"}
#: comparison -> the functor testing it on two float keys (``functors.Functors.sf_<name>``)
COMPARISONS = {"=": "feq", "!=": "fne", "<": "flt", "<=": "fle", ">": "fgt", ">=": "fge"}
#: conversion (name, argument kind) -> functor; None: the argument itself
_CONVERT = {("to_float", "number"): "itof", ("to_float", "unsigned"): "utof",
            ("to_float", "symbol"): "stof", ("to_float", "float"): None,
            ("to_number", "float"): "ftoi", ("to_number", "unsigned"): "utoi",
            ("to_number", "number"): None,
            ("to_unsigned", "float"): "ftou", ("to_unsigned", "unsigned"): None,
            ("to_string", "float"): "ftos", ("to_string", "unsigned"): "utos",
            ("to_string", "symbol"): None}
#: the kinds each conversion accepts (the checker's overloads)
CONVERSION_ARGS = {"to_float": ("number", "unsigned", "symbol", "float"),
                   "to_number": ("symbol", "float", "unsigned", "number"),
                   "to_unsigned": ("number", "float", "unsigned"),
                   "to_string": ("number", "float", "unsigned", "symbol")}
_MIN_CLAMP = floats.key(floats.FLT_MAX)
_MAX_CLAMP = floats.key(-floats.FLT_MAX)


class _Rewriter:
    def __init__(self, kinds: dict, kind_of, types, relations, call_args: dict):
        self.kinds, self.kind_of, self.types, self.relations = kinds, kind_of, types, relations
        self.call_args = call_args     # functor -> its argument kinds (semantics._CALL_ARGS)

    def arg_kind(self, t, default: str) -> str:
        k = self.kind_of(t, self.kinds)
        return k if k and k != "record:?" else default

    def term(self, t, kind: str | None):
        """``t`` in a position of ``kind``."""
        if isinstance(t, Record) and kind and kind.startswith("record:"):
            fields = self.types.record_fields(kind)
            if fields is None:
                return t
            return Record(tuple(self.term(a, self.types.kind(f, t.loc))
                                for a, f in zip(t.args, fields)), t.loc)
        if isinstance(t, AdtTerm) and t.branch in self.types.branches:
            fields = self.types.branches[t.branch][1]
            return AdtTerm(t.branch, tuple(self.term(a, self.types.kind(f, t.loc))
                                           for a, f in zip(t.args, fields)), t.loc)
        if isinstance(t, Call) and t.name in CONVERSION_ARGS:
            return self.conversion(t, kind)
        if kind == "float":
            return self.float_term(t)
        if kind == "symbol" and isinstance(t, BinOp) and t.op == "+":   # Soufflé's SSADD
            return Call("cat", (self.term(t.left, kind), self.term(t.right, kind)), t.loc)
        if isinstance(t, BinOp):
            return BinOp(t.op, self.term(t.left, kind), self.term(t.right, kind), t.loc)
        if isinstance(t, Neg):
            return Neg(self.term(t.operand, kind), t.loc)
        if isinstance(t, Call):
            if t.name in self.call_args:
                want = self.call_args[t.name]
                return Call(t.name, tuple(self.term(a, want[min(i, len(want) - 1)])
                                          for i, a in enumerate(t.args)), t.loc)
            return Call(t.name, tuple(self.term(a, kind) for a in t.args), t.loc)
        return t

    def conversion(self, t: Call, kind):
        name, arg = t.name, t.args[0]
        default = {"to_number": "symbol", "to_string": "number"}.get(name, "number")
        ak = self.arg_kind(arg, default)
        if ak == "unsigned":    # bias_rule does not enter a term of another kind
            arg = bias_term(arg, "unsigned", self.kind_of, self.types)
        fn = _CONVERT.get((name, ak), name)
        inner = self.term(arg, ak)
        if fn is None:
            return inner
        if fn == "itof" and isinstance(inner, Num):
            return Num(floats.from_int(inner.value), t.loc, "f")
        return Call(fn, (inner,), t.loc)

    def float_term(self, t):
        if isinstance(t, Num):
            return t if t.suffix == "f" else Num(floats.from_int(t.value), t.loc, "f")
        if isinstance(t, BinOp):
            if t.op not in _OPS:
                raise DatalogError(f"type error: operator '{t.op}' on float values", t.loc)
            left, right = self.float_term(t.left), self.float_term(t.right)
            if isinstance(left, Num) and isinstance(right, Num):
                return Num(floats.BINARY[t.op](left.value, right.value), t.loc, "f")
            return Call(_OPS[t.op], (left, right), t.loc)
        if isinstance(t, Neg):
            inner = self.float_term(t.operand)
            if isinstance(inner, Num):
                return Num(floats.neg(inner.value), t.loc, "f")
            return Call("fneg", (inner,), t.loc)
        if isinstance(t, Call):
            if t.name in CONVERSION_ARGS:
                return self.conversion(t, "float")
            if t.name in ("min", "max"):
                return Call("f" + t.name, tuple(self.float_term(a) for a in t.args), t.loc)
            if t.name == "range":
                return Call("frange", tuple(self.float_term(a) for a in t.args), t.loc)
            if t.name in ("bnot", "lnot"):
                raise DatalogError(f"type error: '{t.name}' on float values", t.loc)
        return t

    def lit(self, lit, bound: set):
        if isinstance(lit, Atom):
            cols = self.relations[lit.rel].columns
            return Atom(lit.rel, tuple(self.term(a, c[2]) for a, c in zip(lit.args, cols)),
                        lit.loc)
        if isinstance(lit, NegAtom):
            return NegAtom(self.lit(lit.atom, bound), lit.loc)
        if isinstance(lit, Test):
            return Test(lit.name, tuple(self.term(a, "symbol") for a in lit.args), lit.negated,
                        lit.loc)
        if isinstance(lit, Constraint):
            found = [self.kind_of(lit.left, self.kinds), self.kind_of(lit.right, self.kinds)]
            k = next((x for x in found if x and x != "record:?"), found[0] or found[1])
            left, right = self.term(lit.left, k), self.term(lit.right, k)
            if k != "float" or (lit.op == "=" and _binds(lit, bound)):
                return Constraint(lit.op, left, right, lit.loc)
            if isinstance(left, Num) and isinstance(right, Num):
                holds = floats.COMPARE[lit.op](left.value, right.value)
                return Constraint("=", Num(0, lit.loc), Num(0 if holds else 1, lit.loc), lit.loc)
            return Constraint("=", Call(COMPARISONS[lit.op], (left, right), lit.loc),
                              Num(1, lit.loc), lit.loc)
        if isinstance(lit, AggLit):
            return self.aggregate(lit, bound)
        return lit

    def aggregate(self, lit: AggLit, bound: set):
        kind = self.kind_of(lit.target, self.kinds) if lit.target is not None else None
        target = self.term(lit.target, kind) if lit.target is not None else None
        inner_bound = _bound(lit.body, bound)
        body = tuple(self.lit(b, inner_bound) for b in lit.body)
        if kind != "float":
            return AggLit(lit.result, lit.op, target, body, lit.tuple_vars, lit.loc)
        if lit.op in ("sum", "mean"):
            return AggLit(lit.result, "f" + lit.op, target, body, lit.tuple_vars, lit.loc)
        # the least key, and the greatest key equal to it as a float (for max: the other way):
        # they differ only where both 0.0 and -0.0 reach the extremum, and then Soufflé's answer
        # is the first its own order meets (std::min keeps it): refused (``sf_fextreme``)
        raw, other = Var(lit.result.name + "f", lit.loc), Var(lit.result.name + "g", lit.loc)
        tie = Constraint("=", Call("feq", (target, raw), lit.loc), Num(1, lit.loc), lit.loc)
        clamp = Num(_MIN_CLAMP if lit.op == "min" else _MAX_CLAMP, lit.loc)
        where = Str(str(lit.loc), lit.loc)
        return (AggLit(raw, lit.op, target, body, lit.tuple_vars, lit.loc),
                AggLit(other, "max" if lit.op == "min" else "min", target, body + (tie,),
                       lit.tuple_vars, lit.loc),
                Constraint("=", lit.result, Call("fextreme", (where, raw, other, clamp),
                                                 lit.loc), lit.loc))


def _binds(lit: Constraint, bound: set) -> bool:
    """Whether ``x = t`` binds a variable side (not yet bound when the constraint is met)."""
    return any(isinstance(s, Var) and s.name not in bound for s in (lit.left, lit.right))


def _bound(body, outer: set) -> set:
    """The variables the body's positive atoms and aggregates bind (a later ``x = t`` on one
    of them is a comparison)."""
    bound = set(outer)
    for b in body:
        if isinstance(b, Atom):
            bound |= {v.name for a in b.args for v in pattern_vars(a)}
        elif isinstance(b, AggLit):
            bound.add(b.result.name)
    return bound


def float_rule(head, body, kinds: dict, kind_of, types, relations, call_args: dict) -> tuple:
    """``(head, body)`` with its float terms as keys and functors (module docstring)."""
    rw = _Rewriter(kinds, kind_of, types, relations, call_args)
    bound = _bound(body, set())
    out = []
    for b in body:
        new = rw.lit(b, bound)
        if isinstance(b, Constraint) and b.op == "=":
            bound |= {s.name for s in (b.left, b.right) if isinstance(s, Var)}
        out.extend(new if isinstance(new, tuple) else (new,))
    return rw.lit(head, bound), tuple(out)
