"""Semantic checks and normalization of a parsed Soufflé-dialect program: declarations, types,
arity, DNF expansion of bodies (disjunction, negation pushed to atoms), aggregates lifted into
literals, groundedness (Soufflé's rules), then stratification (``stratify.py``). The result,
``CheckedProgram``, is what every engine consumes (loaded by ``program.py``)."""
from __future__ import annotations

import dataclasses
import itertools
from collections import Counter
from dataclasses import dataclass, field

from pylogic.engines.autoinc import check_autoinc
from pylogic.engines.dialect import (AdtTerm, AggLit, Aggregate, Atom, BinOp, BoolLit, Call,
                                     Clause, Conj, Constraint, Disj, Neg, NegAtom, Negation, Nil,
                                     Num, Program, Record, Str, Test, Var, Wildcard, body_atoms,
                                     pattern_vars)  # pattern_vars: re-exported
from pylogic.engines.float_rules import CONVERSION_ARGS, float_rule
from pylogic.engines.stratify import dependency_graph, stratify, strongly_connected_components
from pylogic.engines.unsigned import bias_rule
from pylogic.errors import DatalogError, SourceLoc, did_you_mean
from pylogic.identity_cache import IdentityCache

# ---- the normalized program --------------------------------------------------------------


@dataclass(frozen=True)
class Rule:
    head: Atom
    body: tuple  # Atom | NegAtom | Constraint | AggLit | Test
    loc: SourceLoc = field(compare=False)
    #: variable -> kind ("number", "symbol", "unsigned", "record:T", "adt:T"), as the type
    #: check found them (the duckdb engine's min/max of symbols and record comparisons)
    kinds: dict = field(default_factory=dict, compare=False, repr=False)


@dataclass(frozen=True)
class Relation:
    name: str
    columns: tuple  # ((attr, type_name, kind), ...) kind = "number" | "symbol" | "unsigned" |
    #                 "record:T" | "adt:T"
    loc: SourceLoc = field(compare=False)
    doc: str = field(default="", compare=False)  # comment above its .decl
    enums: tuple = field(default=(), compare=False)  # per column: branch names of an enum ADT

    @property
    def arity(self) -> int:
        return len(self.columns)

    @property
    def kinds(self) -> tuple:
        return tuple(c[2] for c in self.columns)


#: Values derived from a checked program alone, for the last programs asked about: program ->
#: {key: value}. A pass calls the engines once per round on the same program.
_DERIVED = IdentityCache(16)


def derived(checked: "CheckedProgram", key, compute):
    """``compute()``, kept with ``checked`` under ``key`` (a checked program is not changed once
    built; ``dataclasses.replace`` makes another)."""
    memo = _DERIVED.get_or_compute(checked, dict)
    if key not in memo:
        memo[key] = compute()
    return memo[key]


def rules_by_head(rules) -> dict:
    """``{relation: [rule, ...]}``: the rules of ``rules`` by their head's relation, relations
    in the order of their first rule, each list in ``rules``' order (new lists: callers may edit
    them). A relation without rules is no key."""
    by_head: dict = {}
    for r in rules:
        got = by_head.get(r.head.rel)
        if got is None:
            by_head[r.head.rel] = [r]
        else:
            got.append(r)
    return by_head


@dataclass
class CheckedProgram:
    """A program ready for an engine. ``inputs``/``outputs`` map relation -> IO params (dict) of
    its first ``.input``/``.output``; ``input_files``/``output_files`` list the params of every
    one (Soufflé reads every ``.input`` of a relation and writes every ``.output``)."""

    relations: dict
    inputs: dict
    outputs: dict
    printsize: list
    rules: list
    strata: list  # list of lists of relation names, bottom-up
    files: list
    main_file: str
    input_files: dict = field(default_factory=dict)
    output_files: dict = field(default_factory=dict)
    types: TypeSystem | None = None   # record fields and ADT branches (the duckdb engine's values)

    def input_directives(self, rel: str) -> list[dict]:
        """The params of every ``.input`` of ``rel``, in source order."""
        return self.input_files.get(rel) or ([self.inputs[rel]] if rel in self.inputs else [])

    def output_directives(self, rel: str) -> list[dict]:
        """The params of every ``.output`` of ``rel``, in source order."""
        return self.output_files.get(rel) or ([self.outputs[rel]] if rel in self.outputs else [])


_FLIP = {"=": "!=", "!=": "=", "<": ">=", ">=": "<", ">": "<=", "<=": ">"}
_IO_KEYS = {"input": {"IO", "filename", "delimiter"},
            "output": {"IO", "filename", "delimiter"},
            "printsize": {"IO"}}

# ---- types ------------------------------------------------------------------------------------


#: The primitive types (``unsigned``: 0..2^32-1, held biased by -2^31 on clingo, ``unsigned.py``).
PRIMITIVE = ("number", "symbol", "unsigned", "float")
NUMERIC = ("number", "unsigned", "float")


class TypeSystem:
    """Soufflé's type lattice over ``number``/``symbol``: a subtype ``T <: B`` is its own set of
    values inside B, a union/equivalence ``T = A | B`` is the union of its members' sets."""

    def __init__(self, type_decls):
        self.decls = {}
        for t in type_decls:
            if t.name in self.decls or t.name in PRIMITIVE:
                raise DatalogError(f"type '{t.name}' is declared twice", t.loc)
            self.decls[t.name] = t
        self._kind, self._set = {}, {}
        for name in self.decls:
            self.kind(name, self.decls[name].loc)
        self.branches: dict[str, tuple] = {}   # ADT branch -> (its type, field type names)
        for t in self.decls.values():
            if t.kind in ("record", "adt"):
                for b in t.bases:           # every field type exists (they may recurse)
                    self.kind(b, t.loc)
            if t.kind == "adt":
                for branch, fields in t.fields:
                    if branch in self.branches:
                        raise DatalogError(f"ADT branch '{branch}' is declared twice", t.loc)
                    self.branches[branch] = (t.name, fields)

    def enum_branches(self, kind: str) -> frozenset | None:
        """The branches of an ADT kind whose branches have no fields (an enumeration)."""
        t = self.decls.get(kind.split(":", 1)[1]) if kind.startswith("adt:") else None
        if t is None or any(fields for _, fields in t.fields):
            return None
        return frozenset(b for b, _ in t.fields)

    def record_fields(self, kind: str) -> tuple | None:
        """The field type names of record kind ``record:T`` (None for ``record:?``)."""
        name = kind.split(":", 1)[1]
        return self.decls[name].bases if name in self.decls else None

    def kind(self, name: str, loc: SourceLoc, _seen=()) -> str:
        if name in PRIMITIVE:
            return name
        if name in self._kind:
            return self._kind[name]
        if name not in self.decls:
            raise DatalogError(f"undeclared type '{name}'", loc)
        if name in _seen:
            raise DatalogError(f"cyclic type definition of '{name}'", self.decls[name].loc)
        t = self.decls[name]
        if t.kind in ("record", "adt"):
            self._kind[name] = f"{t.kind}:{name}"
            return self._kind[name]
        kinds = {self.kind(b, t.loc, _seen + (name,)) for b in t.bases}
        if len(kinds) != 1:
            raise DatalogError(f"union type '{name}' mixes types of different kinds "
                               f"({', '.join(sorted(k.split(':')[0] for k in kinds))})", t.loc)
        self._kind[name] = kinds.pop()
        return self._kind[name]

    def values(self, name: str) -> frozenset:
        """The set of primitive tags a type ranges over."""
        if name in self._set:
            return self._set[name]
        if name in PRIMITIVE:
            result = {name} | {n for n, t in self.decls.items() if t.kind == "sub"
                               and self._kind[n] == name}
        else:
            t = self.decls[name]
            if t.kind == "sub":
                result = {name} | {n for n, u in self.decls.items()
                                   if u.kind == "sub" and name in u.bases}
                for sub in list(result - {name}):
                    result |= self.values(sub)
            elif t.kind in ("record", "adt"):
                result = {name}
            else:
                result = set()
                for b in t.bases:
                    result |= self.values(b)
        self._set[name] = frozenset(result)
        return self._set[name]

# ---- helpers ----------------------------------------------------------------------------------


def term_vars(term) -> list:
    """Named variables of a term, in order (aggregates excluded: they are lifted first)."""
    if isinstance(term, Var):
        return [term]
    if isinstance(term, BinOp):
        return term_vars(term.left) + term_vars(term.right)
    if isinstance(term, Neg):
        return term_vars(term.operand)
    if isinstance(term, (Call, Record, AdtTerm)):
        return [v for a in term.args for v in term_vars(a)]
    return []


def source_name(v: Var) -> str:
    """A variable's name as written (``scope_to_aggregate`` renames ``x`` to ``x#agg3``)."""
    return v.name.split("#agg")[0] or v.name


def compatible(k1: str | None, k2: str | None) -> bool:
    """Kinds that may meet: equal, unknown, or two records one of which is of unknown type."""
    if not k1 or not k2 or k1 == k2:
        return True
    return k1.startswith("record:") and k2.startswith("record:") and "record:?" in (k1, k2)


def _specific(*kinds) -> str | None:
    """The most specific of ``kinds`` (a named record type over ``record:?``)."""
    known = [k for k in kinds if k]
    return next((k for k in known if k != "record:?"), known[0] if known else None)


def lit_vars(lit) -> list:
    if isinstance(lit, Atom):
        out = []
        for a in lit.args:
            out += term_vars(a)
        return out
    if isinstance(lit, NegAtom):
        return lit_vars(lit.atom)
    if isinstance(lit, Constraint):
        return term_vars(lit.left) + term_vars(lit.right)
    if isinstance(lit, Test):
        return [v for a in lit.args for v in term_vars(a)]
    if isinstance(lit, AggLit):
        out = [lit.result] + (term_vars(lit.target) if lit.target is not None else [])
        for b in lit.body:
            out += lit_vars(b)
        return out
    return []


def _has_wildcard(term) -> Wildcard | None:
    if isinstance(term, Wildcard):
        return term
    if isinstance(term, BinOp):
        return _has_wildcard(term.left) or _has_wildcard(term.right)
    if isinstance(term, Neg):
        return _has_wildcard(term.operand)
    if isinstance(term, (Call, Record, AdtTerm)):
        return next((w for a in term.args if (w := _has_wildcard(a))), None)
    return None


def _dnf(node, negated: bool) -> list:
    """Disjunctive normal form: a list of conjunctions (lists of Atom/NegAtom/Constraint)."""
    if isinstance(node, Atom):
        return [[NegAtom(node, node.loc)]] if negated else [[node]]
    if isinstance(node, Constraint):
        return [[Constraint(_FLIP[node.op], node.left, node.right, node.loc) if negated else node]]
    if isinstance(node, BoolLit):
        return [[]] if node.value != negated else []
    if isinstance(node, Test):
        return [[Test(node.name, node.args, node.negated != negated, node.loc)]]
    if isinstance(node, Negation):
        return _dnf(node.inner, not negated)
    if isinstance(node, (Conj, Disj)):
        parts = [_dnf(x, negated) for x in node.items]
        if isinstance(node, Conj) != negated:  # a conjunction (or a negated disjunction)
            return [sum(combo, []) for combo in itertools.product(*parts)]
        return [c for p in parts for c in p]
    raise DatalogError(f"unexpected construct {type(node).__name__}", getattr(node, "loc", None))

# ---- the checker ------------------------------------------------------------------------------


class _Checker:
    def __init__(self, program: Program):
        self.program = program
        self.types = TypeSystem(program.types)
        self.relations: dict[str, Relation] = {}
        self.fresh = itertools.count()
        self.eqrels: list = []  # Decls of 'eqrel' relations
        # any unsigned type or literal: rules are rewritten for the biased representation
        self.uses_unsigned = any(_unsigned_literal(c) for c in program.clauses) or \
            any("unsigned" in t.bases for t in program.types)

    # -- declarations and IO
    def declare(self) -> None:
        for d in self.program.decls:
            if d.name in self.relations:
                raise DatalogError(f"relation '{d.name}' is declared twice (first at "
                                   f"{self.relations[d.name].loc})", d.loc)
            for q, qloc in d.qualifiers:
                if q == "eqrel":       # Soufflé: binary, both columns of one type
                    if len(d.attrs) != 2 or d.attrs[0][1] != d.attrs[1][1]:
                        raise DatalogError(f"eqrel relation '{d.name}' must be binary with both "
                                           "columns of one type", qloc)
                    self.eqrels.append(d)
            cols, seen = [], set()
            for attr, tname in d.attrs:
                if attr in seen:
                    raise DatalogError(f"attribute '{attr}' of '{d.name}' is declared twice", d.loc)
                seen.add(attr)
                cols.append((attr, tname, self.types.kind(tname, d.loc)))
                self.uses_unsigned |= cols[-1][2] == "unsigned"
            enums = tuple(self.types.enum_branches(k) for _, _, k in cols)
            self.relations[d.name] = Relation(d.name, tuple(cols), d.loc, d.doc,
                                              enums if any(enums) else ())

    def io(self):
        inputs, outputs, printsize = {}, {}, []
        self.input_files, self.output_files = {}, {}
        for io in self.program.ios:
            if io.rel not in self.relations:
                raise DatalogError(f".{io.kind} of undeclared relation '{io.rel}'"
                                   + did_you_mean(io.rel, self.relations), io.loc)
            params = dict(io.params)
            for key in params:
                if key not in _IO_KEYS[io.kind]:
                    raise DatalogError(f"unsupported .{io.kind} parameter '{key}'", io.loc)
            if params.get("IO", "file") not in ("file", "stdout" if io.kind != "input" else "file"):
                raise DatalogError(f"unsupported .{io.kind} IO={params['IO']}", io.loc)
            if "delimiter" in params and len(params["delimiter"]) != 1:
                raise DatalogError("delimiter must be a single character", io.loc)
            params.setdefault("loc", io.loc)
            if io.kind == "input":
                inputs.setdefault(io.rel, params)
                self.input_files.setdefault(io.rel, []).append(params)
            elif io.kind == "output":
                outputs.setdefault(io.rel, params)
                self.output_files.setdefault(io.rel, []).append(params)
            elif io.rel in printsize:
                raise DatalogError(f"second .printsize of relation '{io.rel}' (Soufflé refuses "
                                   "a redefinition)", io.loc)
            else:
                printsize.append(io.rel)
        return inputs, outputs, printsize

    # -- rules
    def rules(self) -> list[Rule]:
        out = []
        for clause in self.program.clauses:
            out.extend(self.clause(clause))
        for d in self.eqrels:
            out.extend(_equivalence_rules(d.name, d.loc))
        return out

    def clause(self, clause: Clause) -> list[Rule]:
        conjs = [[]] if clause.body is None else _dnf(clause.body, False)
        rules = []
        for head in clause.heads:
            self.check_atom(head, is_head=True)
            for conj in conjs:
                conj = _ord_comparisons(head, conj)
                body: list = []
                for lit in conj:
                    body.append(self.lift(lit, body))
                head_args = tuple(self.lift_term(a, body) for a in head.args)
                rule = Rule(Atom(head.rel, head_args, head.loc), tuple(body), clause.loc)
                rule = self.ground_witnesses(rule)
                rules.extend(self.finish_rule(rule))
        return rules

    def finish_rule(self, rule: Rule, kinds: dict | None = None) -> list[Rule]:
        """A lifted rule made ready for the engines: nested aggregates materialized (the
        variables' ``kinds`` type the new relations), aggregates scoped, checked, rewritten
        for unsigned and float values. Returns the rule and those it needed."""
        out = []
        if any(isinstance(b, AggLit) for lit in rule.body if isinstance(lit, AggLit)
               for b in lit.body):
            kinds = kinds if kinds is not None else self.check_types(rule)
            rule, aux = self.materialize_nested(rule, kinds)
            for r in aux:
                out.extend(self.finish_rule(r, kinds))
        rule = self.finish_aggregates(rule)
        self.check_grounded(rule)
        kinds = self.check_types(rule)
        if self.uses_unsigned:
            rule = Rule(*bias_rule(rule.head, rule.body, kinds, self.kind_of, self.types,
                                   self.relations), rule.loc)
        # Soufflé's overloads by type: floats, conversions, '+' of symbols
        rule = Rule(*float_rule(rule.head, rule.body, kinds, self.kind_of, self.types,
                                self.relations, _CALL_ARGS), rule.loc)
        out.append(dataclasses.replace(rule, kinds=kinds))
        return out

    def check_atom(self, atom: Atom, is_head=False) -> Relation:
        rel = self.relations.get(atom.rel)
        if rel is None:
            raise DatalogError(f"undeclared relation '{atom.rel}'"
                               + did_you_mean(atom.rel, self.relations), atom.loc)
        if len(atom.args) != rel.arity:
            raise DatalogError(f"arity mismatch: '{atom.rel}' has {rel.arity} column(s), used with "
                               f"{len(atom.args)}", atom.loc)
        if is_head:
            for a in atom.args:
                w = _has_wildcard(a)
                if w:
                    raise DatalogError("underscore '_' in the head of a rule", w.loc)
        return rel

    def lift(self, lit, body: list):
        """Check one literal and lift the aggregates among its terms into AggLits of ``body``."""
        if isinstance(lit, Atom):
            self.check_atom(lit)
            return Atom(lit.rel, tuple(self.lift_term(a, body) for a in lit.args), lit.loc)
        if isinstance(lit, NegAtom):
            self.check_atom(lit.atom)
            for a in lit.atom.args:
                if isinstance(a, Aggregate) or (isinstance(a, BinOp) and _contains_agg(a)):
                    raise DatalogError("aggregate inside a negated atom is not supported", a.loc)
            return lit
        if isinstance(lit, Constraint):
            if lit.op == "=":   # p = [x, _]: a pattern's '_' matches anything (Soufflé)
                lit = Constraint("=", self.name_pattern_wildcards(lit.left),
                                 self.name_pattern_wildcards(lit.right), lit.loc)
                # _ = min x : {..}: the value is discarded, its witnesses kept (Soufflé 2.5
                # SemanticChecker: no underscore check when a side is an aggregate)
                if isinstance(lit.left, Wildcard) and isinstance(lit.right, Aggregate):
                    lit = Constraint("=", Var(f"#w{next(self.fresh)}", lit.left.loc),
                                     lit.right, lit.loc)
                elif isinstance(lit.right, Wildcard) and isinstance(lit.left, Aggregate):
                    lit = Constraint("=", lit.left, Var(f"#w{next(self.fresh)}", lit.right.loc),
                                     lit.loc)
            for side in (lit.left, lit.right):
                w = _has_wildcard(side)
                if w:
                    raise DatalogError("underscore '_' in a constraint", w.loc)
            return Constraint(lit.op, self.lift_term(lit.left, body),
                              self.lift_term(lit.right, body), lit.loc)
        if isinstance(lit, Test):
            for side in lit.args:
                w = _has_wildcard(side)
                if w:
                    raise DatalogError(f"underscore '_' in '{lit.name}'", w.loc)
            return Test(lit.name, tuple(self.lift_term(a, body) for a in lit.args), lit.negated,
                        lit.loc)
        raise DatalogError(f"unexpected construct {type(lit).__name__}", getattr(lit, "loc", None))

    def name_pattern_wildcards(self, term):
        """``term`` with each ``_`` that is a field of a record or ADT pattern (not inside
        arithmetic or a functor) made a fresh variable, which the unpacking binds."""
        if isinstance(term, (Record, AdtTerm)):
            args = tuple(Var(f"#w{next(self.fresh)}", a.loc) if isinstance(a, Wildcard)
                         else self.name_pattern_wildcards(a) for a in term.args)
            return Record(args, term.loc) if isinstance(term, Record) else \
                AdtTerm(term.branch, args, term.loc)
        return term

    def lift_term(self, term, body: list):
        if isinstance(term, Aggregate):
            return self.lift_aggregate(term, body)
        if isinstance(term, BinOp):
            return BinOp(term.op, self.lift_term(term.left, body), self.lift_term(term.right, body),
                         term.loc)
        if isinstance(term, Neg):
            return Neg(self.lift_term(term.operand, body), term.loc)
        if isinstance(term, Call):
            return Call(term.name, tuple(self.lift_term(a, body) for a in term.args), term.loc)
        if isinstance(term, Record):
            return Record(tuple(self.lift_term(a, body) for a in term.args), term.loc)
        if isinstance(term, AdtTerm):
            return AdtTerm(term.branch, tuple(self.lift_term(a, body) for a in term.args),
                           term.loc)
        return term

    def lift_aggregate(self, agg: Aggregate, body: list) -> Var:
        conjs = _dnf(agg.body, False)
        if not conjs:       # an unsatisfiable body ({ false }): as Soufflé, count and sum are
            if agg.op in ("count", "sum"):              # 0, min and max have no value at all
                return Num(0, agg.loc)
            body.append(Constraint("!=", Num(0, agg.loc), Num(0, agg.loc), agg.loc))
            return Num(0, agg.loc)
        if len(conjs) != 1:
            raise DatalogError("unsupported construct: disjunction inside an aggregate body", agg.loc)
        if _contains_agg(agg.target):
            raise DatalogError("unsupported construct: aggregate in an aggregate's target "
                               "expression", agg.loc)
        # an aggregate nested in the body is lifted into the body's own AggLits (materialized
        # into a relation later, ``materialize_nested``)
        inner: list = []
        for lit in conjs[0]:
            inner.append(self.lift(lit, inner))
        if agg.target is not None and _has_wildcard(agg.target):
            raise DatalogError("underscore '_' in an aggregate target", agg.loc)
        result = Var(f"#agg{next(self.fresh)}", agg.loc)
        # tuple_vars are finished once the whole rule is known (which variables are local)
        body.append(AggLit(result, agg.op, agg.target, tuple(inner), (), agg.loc))
        return result

    def ground_witnesses(self, rule: Rule) -> Rule:
        """Soufflé 2.5's GroundWitnesses (ast/transform/GroundWitnesses.cpp): a witness of an
        aggregate is a variable the rest of the rule does not ground, which the aggregate's own
        body grounds (not an inner aggregate's, not injected from an outer one). Inside the
        aggregate it is renamed (its own); the aggregate's body is copied into the rule with
        its target equal to the aggregate's value, so every binding reaching the min/max is
        derived. A witness of count, sum or mean is Soufflé's "witness problem" error."""
        top = [b for b in rule.body if not isinstance(b, AggLit)]
        outside = grounded_vars(top, {b.result.name for b in rule.body if isinstance(b, AggLit)})
        seen = {v.name for v in term_vars_of_atom(rule.head)} | {v.name for b in top
                                                               for v in lit_vars(b)}
        candidates = seen - outside
        if not candidates:
            return rule
        extra: list = []

        def visit(lits, enclosing: set, nested: bool) -> tuple:
            out = []
            for lit in lits:
                if not isinstance(lit, AggLit):
                    out.append(lit)
                    continue
                own = grounded_vars(lit.body, set())
                witnesses = sorted((candidates & own) - enclosing)
                lit = dataclasses.replace(lit, body=visit(lit.body, enclosing | own, True))
                if witnesses:
                    out.append(self.witness_copies(lit, witnesses, outside, enclosing, nested,
                                                   extra))
                else:
                    out.append(lit)
            return tuple(out)
        body = visit(rule.body, set(), False)
        return Rule(rule.head, body + tuple(extra), rule.loc)

    def witness_copies(self, lit: AggLit, witnesses: list, outside: set, enclosing: set,
                       nested: bool, extra: list) -> AggLit:
        """``lit`` with its ``witnesses`` made its own; ``extra`` gets the copies of its body
        that ground them (``ground_witnesses``). As in Soufflé 2.5, the copies keep the names of
        the body's other variables (UniqueAggregationVariables made them unique first), which
        the rule then grounds: the aggregate is taken per binding of them (``m = min h : {
        s(n, h, z) }`` is the least h per z, checked on the binary); a complex target is a
        variable first (SimplifyAggregateTargetExpression), so its variables are copied too."""
        first = {}
        for b in lit.body:
            for v in lit_vars(b) if not isinstance(b, AggLit) else ():
                first.setdefault(v.name, v)
        if lit.op not in ("min", "max"):
            w = first.get(witnesses[0]) or Var(witnesses[0], lit.loc)
            raise DatalogError(f"witness problem: variable '{source_name(w)}' is grounded only "
                               f"inside a {lit.op} aggregate and used outside it (Soufflé "
                               "refuses it: only min and max have witnesses)", w.loc)
        n = next(self.fresh)
        body, target = lit.body, lit.target
        if not isinstance(target, Var):    # x = expr in the body; expr's outer variables shadowed
            shadow = {v.name: f"{v.name}#agg{next(self.fresh)}" for v in term_vars(target)
                      if v.name in outside}
            target_var = Var(f"x#agg{n}", lit.loc)
            body = tuple(_renamed(body, shadow)) + (
                Constraint("=", target_var, _renamed(target, shadow), lit.loc),)
            target = target_var
        names = {v.name for b in body for v in lit_vars(b)} | {target.name}
        reaching = sorted((names & enclosing) - outside - set(witnesses))
        if nested and reaching:
            raise DatalogError("unsupported construct: aggregate witness of an aggregate nested "
                               "in another one whose variable "
                               f"'{source_name(Var(reaching[0], lit.loc))}' it uses", lit.loc)
        local = names - outside - set(witnesses)
        u = next(self.fresh)
        unique = {m: f"{m}#agg{u}" for m in local if not m.startswith("#")}
        body, target = _renamed(body, unique), _renamed(target, unique)
        w = next(self.fresh)
        own = _renamed(AggLit(lit.result, lit.op, target, body, (), lit.loc),
                       {m: f"{m}#agg{w}" for m in witnesses})
        value = lit.result
        if nested:          # the copies need the value at the rule's level: a second aggregate
            value = Var(f"#agg{next(self.fresh)}", lit.loc)
            extra.append(dataclasses.replace(own, result=value))
        # an inner aggregate's value and a pattern's '_' are no variables in Soufflé: their
        # copies are apart from the aggregate's
        c = next(self.fresh)
        extra.extend(_renamed(body, {m: f"{m}#c{c}" for m in local if m.startswith("#")}))
        if target.name not in witnesses:  # a witness target: its copy is not replaced (Soufflé)
            extra.append(Constraint("=", value, target, lit.loc))
        return own

    def materialize_nested(self, rule: Rule, kinds: dict) -> tuple:
        """Soufflé 2.5's MaterializeAggregationQueries for an aggregate whose body holds another
        aggregate: the body becomes a relation of its own-level and injected variables (an
        outer variable the body does not ground is grounded by an atom of the rule that does,
        the others of its arguments '_'), and the aggregate ranges over that relation's tuples.
        Returns the rule and the new relation's rules (which may nest again)."""
        body, aux = list(rule.body), []
        for i, lit in enumerate(body):
            if not isinstance(lit, AggLit) or not any(isinstance(b, AggLit) for b in lit.body):
                continue
            others = body[:i] + body[i + 1:]
            outside = _ground_outside(lit, others)
            target = [v.name for v in term_vars(lit.target)] if lit.target is not None else []
            injected = _unique(v.name for v in lit_vars(lit) if v.name in outside
                               and v.name not in target and v.name != lit.result.name)
            level = _unique([v.name for b in lit.body for v in
                             ([b.result] if isinstance(b, AggLit) else lit_vars(b))] + target)
            head = _unique(level + injected)
            bound = grounded_vars(lit.body, set())
            grounding = []
            for name in injected:
                if name in bound:
                    continue
                atom = next((o for o in others if isinstance(o, Atom) and any(
                    isinstance(a, Var) and a.name == name for a in o.args)), None)
                if atom is None:
                    raise DatalogError("unsupported construct: nested aggregate using the outer "
                                       f"variable '{source_name(Var(name, lit.loc))}', which no "
                                       "atom of the rule binds (Soufflé cannot materialize "
                                       "it either)", lit.loc)
                grounding.append(Atom(atom.rel, tuple(
                    a if isinstance(a, Var) and a.name == name else Wildcard(a.loc)
                    for a in atom.args), atom.loc))
            rel = f"agg#body{next(self.fresh)}"
            cols = []
            for name in head:
                kind = kinds.get(name) or "number"
                cols.append((source_name(Var(name, lit.loc)), kind.split(":", 1)[-1], kind))
            self.relations[rel] = Relation(rel, tuple(cols), lit.loc)
            aux.append(Rule(Atom(rel, tuple(Var(n, lit.loc) for n in head), lit.loc),
                            tuple(lit.body) + tuple(grounding), lit.loc))
            args = tuple(Var(n, lit.loc) if n in injected or n in target else Wildcard(lit.loc)
                         for n in head)
            body[i] = AggLit(lit.result, lit.op, lit.target, (Atom(rel, args, lit.loc),), (),
                             lit.loc)
        return Rule(rule.head, tuple(body), rule.loc), aux

    def scope_to_aggregate(self, lit: AggLit, others: list) -> AggLit:
        """Rename, inside the aggregate ``lit``, every variable that only the aggregate itself
        grounds (``Y = min Z + Y : {..., a(B, Y)}``: the inner Y is the aggregate's own, as in
        Soufflé); a variable the other literals ground stays shared (correlated)."""
        grounded = _ground_outside(lit, others)
        inner = {v.name for b in lit.body for v in lit_vars(b)}
        inner |= {v.name for v in term_vars(lit.target)} if lit.target is not None else set()
        # Soufflé 2.5 (ast/analysis/Aggregate.cpp, getInjectedVariables): a variable of the
        # target expression is never injected, it is the aggregate's own even where the rest of
        # the body grounds it (c = min v + g : { e(g, v) } is one minimum over all of e)
        target = {v.name for v in term_vars(lit.target)} if lit.target is not None else set()
        local = {n for n in (inner - grounded) | target if not n.startswith("#")
                 and n in {v.name for o in others for v in
                           ([o.result] if isinstance(o, AggLit) else lit_vars(o))}}
        if not local:
            return lit
        mapping = {n: f"{n}#agg{next(self.fresh)}" for n in sorted(local)}
        return _renamed(lit, mapping)

    def finish_aggregates(self, rule: Rule) -> Rule:
        """Fill each AggLit's tuple: its local named variables plus every wildcard position (made a
        variable), which is what Soufflé 2.4.1 computes (checked against the binary)."""
        new_body = []
        for i, lit in enumerate(rule.body):
            if not isinstance(lit, AggLit) or lit.tuple_vars:
                new_body.append(lit)
                continue
            lit = self.scope_to_aggregate(lit, [o for j, o in enumerate(rule.body) if j != i])
            outside = {v.name for v in term_vars_of_atom(rule.head)}
            for j, other in enumerate(rule.body):
                if j != i:  # a variable seen only inside other aggregates stays local (Soufflé)
                    vs = [other.result] if isinstance(other, AggLit) else lit_vars(other)
                    outside |= {v.name for v in vs}
            # Soufflé 2.5 (MaterializeAggregationQueries): a body it evaluates in place (one
            # atom) ranges over that atom's tuples, so every wildcard position counts: sum v :
            # { e(g, _, v), v > 0 } adds v once per e tuple; a body it materializes ranges over
            # the distinct tuples of its named variables only: count : { a(g, y), b(y, _) } is
            # the number of y (measured on the binary)
            name_wildcards = not _materialized(lit)
            inner, tuple_vars, seen = [], [], set()
            for b in lit.body:
                if name_wildcards and isinstance(b, Atom):
                    args = []
                    for a in b.args:
                        if isinstance(a, Wildcard):
                            a = Var(f"#w{next(self.fresh)}", a.loc)
                            tuple_vars.append(a)
                        args.append(a)
                    b = Atom(b.rel, tuple(args), b.loc)
                inner.append(b)
                for v in lit_vars(b):
                    if v.name not in outside and v.name not in seen and not v.name.startswith("#w"):
                        seen.add(v.name)
                        tuple_vars.append(v)
            if lit.target is not None:
                for v in term_vars(lit.target):
                    if v.name not in outside and v.name not in seen:
                        raise DatalogError(f"variable '{source_name(v)}' of the aggregate target is "
                                           "ungrounded", v.loc)
            new_body.append(AggLit(lit.result, lit.op, lit.target, tuple(inner),
                                   tuple(tuple_vars) or (Num(0, lit.loc),), lit.loc))
        return Rule(rule.head, tuple(new_body), rule.loc)

    # -- groundedness (Soufflé: positive atoms ground their plain-variable arguments; x = t
    #    grounds x once t is ground; an aggregate grounds its result)
    def check_grounded(self, rule: Rule) -> None:
        bound = grounded_vars(rule.body, set())
        for lit in rule.body:
            if isinstance(lit, AggLit):
                outer = bound
                inner_bound = grounded_vars(lit.body, set(outer))
                needed = [v for b in lit.body if not isinstance(b, Atom) for v in lit_vars(b)]
                needed += term_vars(lit.target) if lit.target is not None else []
                for v in needed:
                    if v.name not in inner_bound:
                        raise DatalogError(f"ungrounded variable '{source_name(v)}'", v.loc)
        for v in term_vars_of_atom(rule.head):
            if v.name not in bound:
                if any(isinstance(lit, AggLit) and v.name in {w.name for w in lit_vars(lit)}
                       for lit in rule.body):
                    raise DatalogError(f"unsupported construct: aggregate witness (variable "
                                       f"'{v.name}' is bound only inside an aggregate)", v.loc)
                raise DatalogError(f"ungrounded variable '{v.name}' in the head", v.loc)
        for lit in rule.body:
            if isinstance(lit, (NegAtom, Constraint, Test)):
                for v in lit_vars(lit):
                    if v.name not in bound:
                        raise DatalogError(f"ungrounded variable '{source_name(v)}'", v.loc)
            elif isinstance(lit, Atom):
                for a in lit.args:
                    if not isinstance(a, Var):
                        for v in term_vars(a):
                            if v.name not in bound:
                                raise DatalogError(f"ungrounded variable '{source_name(v)}'", v.loc)

    # -- types
    def check_types(self, rule: Rule) -> dict:
        kinds: dict[str, str] = {}
        sets: dict[str, frozenset] = {}
        first: dict[str, tuple] = {}

        def note_col(v: Var, rel: Relation, i: int):
            _, tname, kind = rel.columns[i]
            if kinds.get(v.name) == "record:?":
                kinds[v.name] = kind
            if not compatible(kinds.setdefault(v.name, kind), kind):
                raise DatalogError(f"type error: variable '{v.name}' is used as {kinds[v.name]} "
                                   f"and as {kind} ({rel.name} column {i + 1})", v.loc)
            values = self.types.values(tname)
            new = sets.get(v.name, values) & values
            if not new:
                raise DatalogError(f"type error: variable '{v.name}' has type "
                                   f"{first[v.name][0]} ({first[v.name][1]}) and type {tname} "
                                   f"({rel.name} column {i + 1}), which share no values", v.loc)
            sets[v.name] = new
            first.setdefault(v.name, (tname, f"{rel.name} column {i + 1}"))

        for atom in body_atoms(rule.body):
            rel = self.relations[atom.rel]
            for i, a in enumerate(atom.args):
                if isinstance(a, Var):
                    note_col(a, rel, i)
                else:
                    self.check_term_kind(a, rel.columns[i][2], kinds, f"{rel.name} column {i + 1}")
        # a variable that only the head places gets its column's kind (as Soufflé deduces it)
        head_rel = self.relations[rule.head.rel]
        for a, col in zip(rule.head.args, head_rel.columns):
            if isinstance(a, Var) and a.name not in kinds:
                kinds[a.name] = col[2]
        # constraints and aggregates: propagate kinds to a fixpoint
        for _ in range(len(rule.body) + 1):
            for lit in _all_lits(rule.body):
                if isinstance(lit, Constraint):
                    lk, rk = self.kind_of(lit.left, kinds), self.kind_of(lit.right, kinds)
                    if not compatible(lk, rk):
                        raise DatalogError(f"type error: comparing {lk} with {rk}", lit.loc)
                    for side, k in ((lit.left, rk), (lit.right, lk)):
                        if isinstance(side, Var) and k and kinds.get(side.name) in (None,
                                                                                  "record:?"):
                            kinds[side.name] = k
                    if lit.op == "=" and isinstance(lit.left, Var) and isinstance(lit.right, Var):
                        a, b = lit.left.name, lit.right.name
                        if a in sets and b in sets:
                            if not sets[a] & sets[b]:
                                raise DatalogError(f"type error: '{a}' and '{b}' have types that "
                                                   "share no values", lit.loc)
                elif isinstance(lit, AggLit):
                    tk = self.kind_of(lit.target, kinds) if lit.target is not None else None
                    if lit.op == "mean":
                        kinds[lit.result.name] = "float"
                    elif tk in NUMERIC and lit.op in ("min", "max", "sum"):
                        kinds[lit.result.name] = tk
                    elif tk is not None or lit.op == "count":   # else: known later, or number
                        kinds[lit.result.name] = "number"
        # a variable given a numeric expression whose kind no context fixed is a number
        for lit in _all_lits(rule.body):
            if isinstance(lit, AggLit):
                kinds.setdefault(lit.result.name, "number")
        for lit in _all_lits(rule.body):
            if isinstance(lit, Constraint) and lit.op == "=":
                for a, b in ((lit.left, lit.right), (lit.right, lit.left)):
                    if isinstance(a, Var) and a.name not in kinds and (isinstance(
                            b, (Num, BinOp, Neg)) or isinstance(b, Call) and b.name == "range") \
                            and self.kind_of(b, kinds) is None:
                        kinds[a.name] = "number"
        for lit in _all_lits(rule.body):
            if isinstance(lit, Constraint):
                k = _specific(self.kind_of(lit.left, kinds), self.kind_of(lit.right, kinds))
                if lit.op not in ("=", "!=") and k and k.startswith("adt:"):
                    raise DatalogError(f"unsupported construct: ordering comparison '{lit.op}' on "
                                       "ADT values", lit.loc)
                # symbols are ordered by their texts (std::string's order, Soufflé 2.5 measured:
                # tests/engines/test_symbol_order.py), as clingo's strings and ``scmp`` are
                for side in (lit.left, lit.right):
                    if not isinstance(side, Var):
                        self.check_term_kind(side, k or self.kind_of(side, kinds) or "number",
                                             kinds, "constraint")
            elif isinstance(lit, AggLit) and lit.target is not None:
                tk = self.kind_of(lit.target, kinds) or "number"
                if tk == "unsigned" and lit.op not in ("min", "max", "sum"):
                    raise DatalogError(f"unsupported construct: '{lit.op}' over unsigned values",
                                       lit.loc)
                if lit.op == "mean" and tk != "float":     # Soufflé: mean's target is a float
                    raise DatalogError(f"type error: 'mean' of a {tk} (its target must be a "
                                       "float)", lit.loc)
                self.check_term_kind(lit.target, tk, kinds, f"'{lit.op}' target")
            elif isinstance(lit, Test):
                for a in lit.args:
                    self.check_term_kind(a, "symbol", kinds, f"'{lit.name}'")
        rel = self.relations[rule.head.rel]
        for i, a in enumerate(rule.head.args):
            _, tname, kind = rel.columns[i]
            where = f"{rel.name} column {i + 1}"
            if isinstance(a, Var):
                k = kinds.get(a.name)
                if not compatible(k, kind):
                    raise DatalogError(f"type error: variable '{a.name}' is {k} but {where} is "
                                       f"{kind}", a.loc)
                if a.name in sets and not sets[a.name] <= self.types.values(tname):
                    raise DatalogError(f"type error: variable '{a.name}' has type "
                                       f"{first[a.name][0]}, which is not a subtype of {tname} "
                                       f"({where})", a.loc)
            else:
                self.check_term_kind(a, kind, kinds, where)
        return kinds

    def kind_of(self, term, kinds) -> str | None:
        if isinstance(term, Var):
            return kinds.get(term.name)
        if isinstance(term, Str):
            return "symbol"
        if isinstance(term, Num):         # a plain literal is number, unsigned or float by context
            return {"u": "unsigned", "f": "float"}.get(term.suffix)
        if isinstance(term, BinOp):
            return _specific(self.kind_of(term.left, kinds), self.kind_of(term.right, kinds))
        if isinstance(term, Neg):
            return self.kind_of(term.operand, kinds)
        if isinstance(term, (Record, Nil)):
            return "record:?"
        if isinstance(term, AdtTerm):
            owner = self.types.branches.get(term.branch)
            return f"adt:{owner[0]}" if owner else None
        if isinstance(term, Call):
            if term.name in ("min", "max", "bnot", "lnot", "range"):
                return next((k for a in term.args if (k := self.kind_of(a, kinds))), None)
            return _CALL_RESULT.get(term.name)   # None: a functor of the rewritten rule
        return None

    def check_term_kind(self, term, expected: str, kinds, where: str) -> None:
        if isinstance(term, Wildcard):
            return
        if isinstance(term, Var):
            k = kinds.get(term.name)
            if not compatible(k, expected):
                raise DatalogError(f"type error: variable '{term.name}' is {k}, {where} expects "
                                   f"{expected}", term.loc)
            if k in (None, "record:?"):
                kinds[term.name] = expected
            return
        if isinstance(term, (Record, Nil)):
            if not expected.startswith("record:"):
                raise DatalogError(f"type error: record where {where} expects {expected}",
                                   term.loc)
            fields = self.types.record_fields(expected) if isinstance(term, Record) else None
            if fields is not None and len(fields) != len(term.args):
                raise DatalogError(f"type error: record of {len(term.args)} field(s) where "
                                   f"{where} expects {expected[7:]} of {len(fields)}", term.loc)
            for i, a in enumerate(term.args if isinstance(term, Record) else ()):
                want = self.types.kind(fields[i], term.loc) if fields is not None else \
                    self.kind_of(a, kinds)
                if want:
                    self.check_term_kind(a, want, kinds, f"field {i + 1} of a record")
            return
        if isinstance(term, AdtTerm):
            owner = self.types.branches.get(term.branch)
            if owner is None:
                raise DatalogError(f"undeclared ADT branch '${term.branch}'", term.loc)
            if expected != f"adt:{owner[0]}":
                raise DatalogError(f"type error: ${term.branch} (of {owner[0]}) where {where} "
                                   f"expects {expected}", term.loc)
            if len(term.args) != len(owner[1]):
                raise DatalogError(f"${term.branch} takes {len(owner[1])} argument(s), not "
                                   f"{len(term.args)}", term.loc)
            for i, (a, t) in enumerate(zip(term.args, owner[1])):
                self.check_term_kind(a, self.types.kind(t, term.loc), kinds,
                                     f"field {i + 1} of ${term.branch}")
            return
        if isinstance(term, Str):
            if expected != "symbol":
                raise DatalogError(f"type error: string constant where {where} expects {expected}",
                                   term.loc)
            return
        if isinstance(term, Call):
            result = self.kind_of(term, kinds) or expected
            if result != expected:
                raise DatalogError(f"type error: '{term.name}' gives a {result} where {where} "
                                   f"expects {expected}", term.loc)
            for i, a in enumerate(term.args):
                want = result if term.name in ("min", "max", "bnot", "lnot", "range") else \
                    _CALL_ARGS[term.name][
                    min(i, len(_CALL_ARGS[term.name]) - 1)]
                if term.name in CONVERSION_ARGS and self.kind_of(a, kinds) in \
                        CONVERSION_ARGS[term.name]:      # Soufflé's overloads by argument type
                    want = self.kind_of(a, kinds)
                self.check_term_kind(a, want, kinds, f"argument {i + 1} of '{term.name}'")
            return
        if expected == "symbol" and isinstance(term, BinOp) and term.op == "+":
            for side in (term.left, term.right):     # Soufflé's "a" + "b": cat (SSADD)
                self.check_term_kind(side, "symbol", kinds, "operand of '+'")
            return
        if expected not in NUMERIC:
            raise DatalogError(f"type error: number expression where {where} expects {expected}",
                               term.loc)
        if isinstance(term, Num):
            if term.suffix == "f" and expected != "float":
                raise DatalogError(f"type error: float constant where {where} expects "
                                   f"{expected}", term.loc)
            if term.suffix == "u" and expected != "unsigned":
                raise DatalogError(f"type error: unsigned constant where {where} expects "
                                   f"{expected}", term.loc)
            if expected == "unsigned" and term.value < 0:
                raise DatalogError(f"type error: negative constant where {where} expects "
                                   "unsigned", term.loc)
            if expected == "number" and term.value > 2 ** 31 - 1:
                raise DatalogError(f"number constant {term.value} is outside the 32-bit range",
                                   term.loc)
        elif isinstance(term, BinOp):
            if expected == "float" and term.op not in ("+", "-", "*", "/", "^"):
                raise DatalogError(f"type error: operator '{term.op}' on float values", term.loc)
            self.check_term_kind(term.left, expected, kinds, f"operand of '{term.op}'")
            self.check_term_kind(term.right, expected, kinds, f"operand of '{term.op}'")
        elif isinstance(term, Neg):
            if expected == "unsigned":
                raise DatalogError("unsupported construct: unary '-' on an unsigned value",
                                   term.loc)
            self.check_term_kind(term.operand, expected, kinds, "operand of unary '-'")


#: Intrinsic functors: the kind of their value and of their arguments (the last repeats).
_CALL_RESULT = {"cat": "symbol", "substr": "symbol", "to_string": "symbol", "strlen": "number",
                "to_number": "number", "range": "number", "to_unsigned": "unsigned",
                "to_float": "float", "autoinc": "number"}
_CALL_ARGS = {"cat": ("symbol",), "substr": ("symbol", "number"), "to_string": ("number",),
              "strlen": ("symbol",), "to_number": ("symbol",), "range": ("number",),
              "to_unsigned": ("number",), "to_float": ("number",), "autoinc": ("number",)}


def _unsigned_literal(node) -> bool:
    """Whether a parsed clause holds an unsigned literal (``5u``)."""
    if isinstance(node, Num):
        return node.suffix == "u"
    if isinstance(node, (list, tuple)):
        return any(_unsigned_literal(x) for x in node)
    if hasattr(node, "__dataclass_fields__"):
        return any(_unsigned_literal(getattr(node, f)) for f in node.__dataclass_fields__
                   if f != "loc")
    return False


def _equivalence_rules(rel: str, loc: SourceLoc) -> list[Rule]:
    """An ``eqrel`` relation is the equivalence closure of what is derived into it (Soufflé's
    union-find representation): reflexive on its elements, symmetric, transitive."""
    x, y, z = (Var(f"#eq{n}", loc) for n in "xyz")

    def a(*args):
        return Atom(rel, args, loc)
    return [Rule(a(x, x), (a(x, y),), loc), Rule(a(y, y), (a(x, y),), loc),
            Rule(a(y, x), (a(x, y),), loc), Rule(a(x, z), (a(x, y), a(y, z)), loc)]


def _ground_outside(lit: AggLit, others) -> set:
    """The variables the rest of a rule (``others``) grounds, for the aggregate ``lit``: another
    aggregate's result is ground, and so is what it grounds (c = count : {..}, m = max d :
    { a(d, _), d >= c }: c is the outer one, as in Soufflé); a constraint on ``lit``'s own
    result grounds nothing for it."""
    independent = [o for o in others if not (isinstance(o, Constraint) and lit.result.name in
                                             {v.name for v in lit_vars(o)})]
    return grounded_vars([o for o in independent if not isinstance(o, AggLit)],
                   {o.result.name for o in independent if isinstance(o, AggLit)})


def _unique(names) -> list:
    """``names`` without repeats, in order."""
    return list(dict.fromkeys(names))


def _materialized(lit: AggLit) -> bool:
    """Whether Soufflé 2.5 materializes an aggregate's body into a relation of its named
    variables (``needsMaterializedRelation``): more than one atom, a multi-result functor
    (``range``), or a variable repeated in its one atom."""
    atoms = [b for b in lit.body if isinstance(b, Atom)]
    if len(atoms) > 1:
        return True

    def has_range(t) -> bool:
        if isinstance(t, Call):
            return t.name == "range" or any(has_range(a) for a in t.args)
        if isinstance(t, BinOp):
            return has_range(t.left) or has_range(t.right)
        if isinstance(t, (Neg,)):
            return has_range(t.operand)
        if isinstance(t, (Record, AdtTerm)):
            return any(has_range(a) for a in t.args)
        return False
    terms = [lit.target] if lit.target is not None else []
    for b in lit.body:
        terms += list(b.args) if isinstance(b, (Atom, Test)) else list(b.atom.args) \
            if isinstance(b, NegAtom) else [b.left, b.right]
    if any(has_range(t) for t in terms):
        return True
    names = [v.name for v in term_vars_of_atom(atoms[0])] if atoms else []
    return len(names) != len(set(names))


def _contains_agg(term) -> bool:
    if isinstance(term, Aggregate):
        return True
    if isinstance(term, (Call, Record, AdtTerm)):
        return any(_contains_agg(a) for a in term.args)
    if isinstance(term, BinOp):
        return _contains_agg(term.left) or _contains_agg(term.right)
    if isinstance(term, Neg):
        return _contains_agg(term.operand)
    return False


def _distinct_vars(atom: Atom) -> bool:
    names = [v.name for a in atom.args for v in term_vars(a)]
    return len(names) == len(set(names))


def term_vars_of_atom(atom: Atom) -> list:
    return [v for a in atom.args for v in term_vars(a)]


def _all_lits(lits):
    for lit in lits:
        yield lit
        if isinstance(lit, AggLit):
            yield from _all_lits(lit.body)


def _ord_call(node):
    """The first ``ord(..)`` call in a parsed node, or None."""
    if isinstance(node, Call) and node.name == "ord":
        return node
    if isinstance(node, (list, tuple)):
        return next((c for x in node if (c := _ord_call(x))), None)
    if hasattr(node, "__dataclass_fields__"):
        return next((c for f in node.__dataclass_fields__ if f != "loc"
                     and (c := _ord_call(getattr(node, f)))), None)
    return None


def _ord_comparisons(head, conj: list) -> list:
    """``ord(x)`` is a symbol's number in Soufflé's symbol table, which depends on the order
    Soufflé interns symbols. Only comparisons whose outcome does not are kept: ``ord(x) =
    ord(y)`` is ``x = y`` and ``!=`` is ``x != y`` (the numbering is injective); ``<``/``>``
    is ``x != y`` and ``<=``/``>=`` holds, when the rest of the rule is the same with x and y
    swapped (then a binding and its swap derive the same head, and one of them satisfies the
    comparison whatever the numbering: Soufflé's suite, ordinals). Any other ``ord`` is
    refused, located."""
    out = []
    for i, lit in enumerate(conj):
        if isinstance(lit, Constraint) and all(
                isinstance(s, Call) and s.name == "ord" and len(s.args) == 1
                and isinstance(s.args[0], Var) for s in (lit.left, lit.right)):
            x, y = lit.left.args[0], lit.right.args[0]
            if lit.op in ("=", "!="):
                out.append(Constraint(lit.op, x, y, lit.loc))
                continue
            others = conj[:i] + conj[i + 1:]
            swap = {x.name: y.name, y.name: x.name}
            if x.name != y.name and _renamed(head, swap) == head and \
                    Counter(_renamed(o, swap) for o in others) == Counter(others):
                if lit.op in ("<", ">"):
                    out.append(Constraint("!=", x, y, lit.loc))
                continue
        out.append(lit)
    call = _ord_call(out) or _ord_call(head)
    if call is not None:
        raise DatalogError("unsupported construct: functor 'ord' (a symbol's number in "
                           "Soufflé's symbol table, which depends on the order it interns "
                           "symbols; supported: ord(x) = ord(y), ord(x) != ord(y), and <, <=, "
                           ">, >= in a rule that is the same with x and y swapped)", call.loc)
    return out


def _renamed(node, mapping: dict):
    """``node`` (a normalized literal or term) with its variables renamed by ``mapping``."""
    if isinstance(node, Var):
        return Var(mapping[node.name], node.loc) if node.name in mapping else node
    if isinstance(node, tuple):
        return tuple(_renamed(x, mapping) for x in node)
    if isinstance(node, list):
        return [_renamed(x, mapping) for x in node]
    if hasattr(node, "__dataclass_fields__"):
        changes = {f: _renamed(getattr(node, f), mapping) for f in node.__dataclass_fields__
                   if f != "loc"}
        return dataclasses.replace(node, **changes)
    return node


def grounded_vars(lits, bound: set) -> set:
    """The variables a conjunction ``lits`` grounds, given those ``bound`` outside it: those of its
    positive atoms, then (to a fixpoint) ``X = term`` over grounded variables, records and ADTs
    unpacked from a grounded variable, and aggregate results."""
    bound = set(bound)
    for lit in lits:
        if isinstance(lit, Atom):
            bound |= {v.name for a in lit.args for v in pattern_vars(a)}
    changed = True
    while changed:
        changed = False
        for lit in lits:
            if isinstance(lit, Constraint) and lit.op == "=":
                for a, b in ((lit.left, lit.right), (lit.right, lit.left)):
                    if isinstance(a, Var) and a.name not in bound and \
                            all(v.name in bound for v in term_vars(b)):
                        bound.add(a.name)
                        changed = True
                    elif isinstance(a, (Record, AdtTerm)) and isinstance(b, Var) and \
                            b.name in bound:
                        new = {v.name for v in pattern_vars(a)} - bound    # unpacking
                        if new:
                            bound |= new
                            changed = True
            elif isinstance(lit, AggLit) and lit.result.name not in bound:
                bound.add(lit.result.name)
                changed = True
    return bound


def _atoms_in(node):
    """The positive atoms of a parsed clause body (not under ``!`` or inside an aggregate: the
    atoms a ``.plan`` orders)."""
    if isinstance(node, Atom):
        yield node
    elif isinstance(node, (Negation, Aggregate)):
        return
    elif isinstance(node, (list, tuple)):
        for x in node:
            yield from _atoms_in(x)
    elif hasattr(node, "__dataclass_fields__"):
        for name in node.__dataclass_fields__:
            yield from _atoms_in(getattr(node, name))


def _check_inline_and_plans(program: Program, relations: dict, rules: list, io: set) -> None:
    """Soufflé's checks of ``inline`` and ``.plan``: an inlined relation has no IO directive and
    is not recursive; a ``.plan`` belongs to a recursive rule (it orders the semi-naive
    versions of a recursive rule; Soufflé refuses one on any other rule)."""
    graph = dependency_graph(relations, rules)
    component = {}
    for comp in strongly_connected_components(graph):
        recursive = len(comp) > 1 or comp[0] in graph.get(comp[0], {})
        for rel in comp:
            component[rel] = (frozenset(comp), recursive)
    for d in program.decls:
        if not any(q == "inline" for q, _ in d.qualifiers):
            continue
        if d.name in io:
            raise DatalogError(f"IO relation '{d.name}' cannot be inlined", d.loc)
        comp, recursive = component.get(d.name, (frozenset({d.name}), False))
        if recursive:
            raise DatalogError(f"cannot inline cyclically dependent relations "
                               f"{{{', '.join(sorted(comp))}}}", d.loc)
    for clause, hint in program.plans:
        heads = {component.get(h.rel, (frozenset({h.rel}), False))[0] for h in clause.heads}
        atoms = [a for a in _atoms_in(clause.body)]
        recursive = sum(1 for a in atoms if component.get(a.rel, (None,))[0] in heads)
        if not recursive:
            raise DatalogError("execution plan (.plan) for a non-recursive rule: Soufflé "
                               "refuses it", hint.entries[0][2] if hint.entries else hint.loc)
        for version, order, loc in hint.entries:      # as Soufflé checks them
            if version >= recursive:
                raise DatalogError(f"execution plan for version {version}: only versions "
                                   f"0..{recursive - 1} permitted", loc)
            if len(order) != len(atoms):
                raise DatalogError(f"invalid execution order in plan (expected {len(atoms)} "
                                   f"atoms, not {len(order)})", loc)
            if sorted(order) != list(range(1, len(atoms) + 1)):
                raise DatalogError("invalid execution order in plan (incomplete)", loc)


def check_program(program: Program, main_file: str) -> CheckedProgram:
    """Check and normalize a parsed program. Raises DatalogError (located) on the first problem."""
    checker = _Checker(program)
    checker.declare()
    inputs, outputs, printsize = checker.io()
    rules = checker.rules()
    rules = check_autoinc(rules, checker.relations, set(inputs) | set(outputs))
    strata = stratify(checker.relations, rules)
    _check_inline_and_plans(program, checker.relations, rules, set(inputs) | set(outputs)
                            | set(printsize))
    return CheckedProgram(checker.relations, inputs, outputs, printsize, rules, strata,
                          list(program.files), main_file, checker.input_files,
                          checker.output_files, checker.types)
