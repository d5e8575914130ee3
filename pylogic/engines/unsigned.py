"""Soufflé's ``unsigned`` (0 .. 2^32-1) on clingo, whose integers are 32-bit signed: an unsigned
value u is held as u - 2^31. The bias keeps the order, so comparisons, ``min``/``max`` (functor
and aggregate) and equality are clingo's own; arithmetic and bit operators on unsigned operands
become the Python functions ``functors.Functors.sf_u*`` (modulo 2^32, as Soufflé's RamUnsigned).
Facts are biased on the way in and unbiased on the way out (``clingo_engine``).

``bias_rule`` rewrites a type-checked rule: every term whose kind is unsigned is replaced by its
biased form (constants shifted, operators renamed ``u<op>``)."""
from __future__ import annotations

from pylogic.engines.dialect import (AdtTerm, AggLit, Atom, BinOp, Call, Constraint, Neg,
                                     NegAtom, Num, Record, Var)
from pylogic.errors import DatalogError

BIAS = 2 ** 31

#: Soufflé operator -> the name of its unsigned version (``functors.Functors.sf_<name>``).
U_OPS = {"+": "uadd", "-": "usub", "*": "umul", "/": "udiv", "%": "umod", "^": "upower",
         "band": "uband", "bor": "ubor", "bxor": "ubxor", "bshl": "ubshl", "bshr": "ubshr",
         "bshru": "ubshr", "land": "uland", "lor": "ulor", "lxor": "ulxor"}


def to_clingo(value: int) -> int:
    return value - BIAS


def from_clingo(value: int) -> int:
    return value + BIAS


def bias_term(term, kind: str | None, kind_of, types):
    """``term`` in a position of ``kind`` (a term of another kind is returned as it is, but for
    records, whose fields are rewritten by their own kinds)."""
    if isinstance(term, Record) and kind and kind.startswith("record:"):
        fields = types.record_fields(kind)
        if fields is None:
            return term
        return Record(tuple(bias_term(a, types.kind(f, term.loc), kind_of, types)
                            for a, f in zip(term.args, fields)), term.loc)
    if isinstance(term, AdtTerm) and term.branch in types.branches:
        fields = types.branches[term.branch][1]
        return AdtTerm(term.branch, tuple(bias_term(a, types.kind(f, term.loc), kind_of, types)
                                          for a, f in zip(term.args, fields)), term.loc)
    if kind != "unsigned":
        return term
    if isinstance(term, Num):
        return Num(to_clingo(term.value), term.loc)
    if isinstance(term, BinOp):
        return BinOp(U_OPS[term.op], bias_term(term.left, kind, kind_of, types),
                     bias_term(term.right, kind, kind_of, types), term.loc)
    if isinstance(term, Neg):
        raise DatalogError("unsupported construct: unary '-' on an unsigned value", term.loc)
    if isinstance(term, Call):
        if term.name in ("min", "max"):         # the bias keeps the order
            return Call(term.name, tuple(bias_term(a, kind, kind_of, types) for a in term.args),
                        term.loc)
        if term.name in ("bnot", "lnot", "range"):
            return Call("u" + term.name, tuple(bias_term(a, kind, kind_of, types)
                                               for a in term.args), term.loc)
        if term.name == "to_unsigned":          # its argument is a number
            return Call("to_unsigned", term.args, term.loc)
        raise DatalogError(f"unsupported construct: '{term.name}' on unsigned values", term.loc)
    return term        # a variable: already biased where it was bound


def _bias_lit(lit, kinds, kind_of, types, relations):
    if isinstance(lit, Atom):
        cols = relations[lit.rel].columns
        return Atom(lit.rel, tuple(bias_term(a, c[2], kind_of, types)
                                   for a, c in zip(lit.args, cols)), lit.loc)
    if isinstance(lit, NegAtom):
        return NegAtom(_bias_lit(lit.atom, kinds, kind_of, types, relations), lit.loc)
    if isinstance(lit, Constraint):
        found = [kind_of(lit.left, kinds), kind_of(lit.right, kinds)]
        k = next((x for x in found if x and x != "record:?"), found[0] or found[1])
        return Constraint(lit.op, bias_term(lit.left, k, kind_of, types),
                          bias_term(lit.right, k, kind_of, types), lit.loc)
    if isinstance(lit, AggLit):
        target = lit.target
        kind = kind_of(target, kinds) if target is not None else None
        if target is not None:
            target = bias_term(target, kind, kind_of, types)
        body = tuple(_bias_lit(b, kinds, kind_of, types, relations) for b in lit.body)
        if lit.op == "sum" and kind == "unsigned":
            # clingo's #sum wraps modulo 2^32 like RamUnsigned: add the unbiased patterns
            # (t - INT_MIN), then bias the total again (+ INT_MIN)
            total = Var(lit.result.name + "u", lit.loc)
            low = Num(-BIAS, lit.loc)
            return (AggLit(total, "sum", BinOp("-", target, low, lit.loc), body, lit.tuple_vars,
                           lit.loc),
                    Constraint("=", lit.result, BinOp("+", total, low, lit.loc), lit.loc))
        return AggLit(lit.result, lit.op, target, body, lit.tuple_vars, lit.loc)
    return lit         # a Test: symbols only


def bias_rule(head, body, kinds: dict, kind_of, types, relations) -> tuple:
    """``(head, body)`` of a rule with its unsigned terms biased (``kinds``: the variable kinds
    of the rule)."""
    out = []
    for b in body:
        new = _bias_lit(b, kinds, kind_of, types, relations)
        out.extend(new if isinstance(new, tuple) else (new,))
    return _bias_lit(head, kinds, kind_of, types, relations), tuple(out)
