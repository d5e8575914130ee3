"""Why a row holds, and why not: derivation trees rebuilt from any engine's result rows
(issue #17 item 2; Soufflé's ``-t explain`` gives the same kind of answer from its provenance).

The model (input facts plus every computed relation) is taken as given. Tuples are ranked by
the round of a bottom-up re-derivation *inside the model*: an input fact has rank 0; a computed
tuple gets rank k when some rule instance derives it whose positive body atoms all have lower
ranks, its negated atoms are absent from the model and its aggregates and constraints hold on the
model (they read lower strata, complete in the model). Each tuple keeps the first such instance,
so its tree is finite (ranks strictly decrease toward the leaves). A rule instance that derives a
tuple the engine did not compute, or a computed tuple no instance derives, is reported: the
explanation never claims a derivation the rules do not give.

"Why not" takes each rule whose head can match the row and walks its body in evaluation order
over the model, reporting the furthest any instance gets: the first body literal no instance can
satisfy, with the variables bound so far.

Example
-------
>>> ex = Explainer(checked, model)                                    # doctest: +SKIP
>>> tree = ex.explain("idom", ("f.pir::main", "entry", "b1"))         # doctest: +SKIP
>>> tree["rule"], [c["atom"] for c in tree["children"]]               # doctest: +SKIP
"""
from __future__ import annotations

import sys
from collections import defaultdict
from functools import lru_cache
from operator import itemgetter

import clingo

from pylogic.collector import collector_paused
from pylogic.engines.dialect import (AggLit, Atom, BinOp, Call, Constraint, Neg, NegAtom, Num,
                                     Str, Var, Wildcard, body_atoms)
from pylogic.engines.functors import Functors, as_bytes, string_symbol, symbol_text
from pylogic.engines.numbers import BINARY, UNARY, binary, wrap_const as _wrap   # Soufflé's
from pylogic.engines.program import CheckedProgram
from pylogic.engines.semantics import rules_by_head
from pylogic.engines.to_clingo import functor_name
from pylogic.engines.values import SIGNATURES
from pylogic.errors import DatalogError, SourceLoc, did_you_mean
from pylogic.identity_cache import IdentityCache

#: Partial instances tried per rule when looking for why a row does not hold.
WHY_NOT_BUDGET = 200_000


def allow_depth(depth: int) -> None:
    """Let Python recurse through a derivation tree ``depth`` levels deep (its rank bounds it):
    building, folding and printing it take a few frames a level, and a value-flow chain of
    csmith or C code is over 1,000 levels (Python's default limit). Never lowers the limit."""
    need = 1000 + 4 * depth
    if sys.getrecursionlimit() < need:
        sys.setrecursionlimit(need)


def evaluate(term, env: dict):
    """The value of ``term`` under ``env``; KeyError if a variable is unbound."""
    if isinstance(term, Var):
        return env[term.name]
    if isinstance(term, (Num, Str)):
        return term.value
    if isinstance(term, Wildcard):
        raise KeyError("_")
    if isinstance(term, Neg):
        return _wrap(-evaluate(term.operand, env))
    if isinstance(term, BinOp):
        a, b = evaluate(term.left, env), evaluate(term.right, env)
        if term.op not in BINARY:    # a KeyError would read as an unbound variable
            raise unsupported(term)
        if term.op == "+":
            return _wrap(a + b)
        if term.op == "-":
            return _wrap(a - b)
        if term.op == "*":
            return _wrap(a * b)
        return binary(term.op, a, b)
    if isinstance(term, Call):
        return _call(term, env)
    raise unsupported(term)


def unsupported(x) -> DatalogError:
    """The refusal of a term or literal the explanation does not evaluate, at its location."""
    what = f"functor '{x.name}'" if isinstance(x, Call) else f"operator '{x.op}'" \
        if isinstance(x, BinOp) else type(x).__name__
    return DatalogError(f"explain: unsupported {what}", getattr(x, "loc", None))


def _call(term: Call, env: dict):
    """A functor over numbers and symbols, computed by the engines' own definition
    (``functors.Functors`` on clingo symbols, as ``values.Values.call`` does for duckdb)."""
    if term.name in ("bnot", "lnot") and len(term.args) == 1:
        return UNARY[term.name](evaluate(term.args[0], env))
    if term.name in ("min", "max"):     # of numbers or of symbols (the values say which)
        args = [string_symbol(v) if isinstance(v, str) else clingo.Number(v)
                for v in (evaluate(a, env) for a in term.args)]
    else:
        kinds, result = SIGNATURES.get(term.name, ((), None))
        if result not in ("number", "symbol") or term.name == "range" or \
                any(k not in ("number", "symbol") for k in kinds):
            raise unsupported(term)
        args = [string_symbol(v) if (kinds[i] if i < len(kinds) else kinds[-1]) == "symbol"
                else clingo.Number(v) for i, v in enumerate(evaluate(a, env) for a in term.args)]
    value = getattr(_FUNCTORS, functor_name(term.name))(*args)
    return symbol_text(value) if value.type == clingo.SymbolType.String else value.number


#: the functors' methods (``Functors`` holds no state)
_FUNCTORS = Functors()


#: (rule, its delta atom's place or None) -> the function of _Version, None when it does not
#: compile (the ranking interprets that version)
_VERSIONS = IdentityCache(size=16384)
#: (rule, its delta atom's place or None) -> _Version's template, None when it does not compile:
#: by the rule's text (Rule's equality: head and body), for the equal rules of other programs
_TEMPLATES: dict = {}
_MISSING = object()

#: term or literal -> its variables: the rules' terms are computed over for every row.
_VARS = IdentityCache()


def _cached_vars(x, compute) -> frozenset:
    hit = _VARS.get(x)
    return hit if hit is not None else _VARS.put(x, frozenset(compute(x)))


def term_vars(term) -> frozenset[str]:
    if isinstance(term, Var):
        return frozenset((term.name,))
    if isinstance(term, (Num, Str, Wildcard)):
        return frozenset()
    return _cached_vars(term, _term_vars)


def _term_vars(term) -> set[str]:
    if isinstance(term, Neg):
        return term_vars(term.operand)
    if isinstance(term, BinOp):
        return term_vars(term.left) | term_vars(term.right)
    if isinstance(term, Call):
        return set().union(*(term_vars(a) for a in term.args))
    return set()


_VAR, _CONST, _ANY, _EXPR, _OTHER = range(5)
_CHECK, _ATOM = "check", "atom"     # the steps of a solving plan (Explainer._plan)
_UNBOUND = object()


def atom_shape(atom) -> tuple:
    """What matching ``atom`` against a row reads of it: per argument ``(kind, what)`` (a
    variable's name, a constant's value, else the term), and the variables of each expression
    argument (``k - 1``)."""
    args = tuple((_VAR, a.name) if isinstance(a, Var) else
                 (_CONST, a.value) if isinstance(a, (Num, Str)) else
                 (_ANY, a) if isinstance(a, Wildcard) else
                 (_EXPR, a) if isinstance(a, (BinOp, Neg)) else (_OTHER, a)
                 for a in atom.args)
    return args, tuple(term_vars(a) for kind, a in args if kind == _EXPR)


def _lookup_columns(args: tuple, bound) -> tuple:
    """``(column, kind, arg)`` of the columns of an atom (``atom_shape``'s ``args``) that a
    lookup binds when the variables of ``bound`` (a dict) are: a bound variable, a constant, an
    expression over bound variables (``Explainer._bound``'s values, ``_plan``'s steps)."""
    return tuple((c, kind, arg) for c, (kind, arg) in enumerate(args)
                 if kind == _VAR and arg in bound or kind == _CONST or
                 kind == _EXPR and term_vars(arg) <= bound.keys())


def literal_vars(lit) -> frozenset[str]:
    return _cached_vars(lit, _literal_vars)


def _literal_vars(lit) -> set[str]:
    if isinstance(lit, Atom):
        return set().union(*(term_vars(a) for a in lit.args)) if lit.args else set()
    if isinstance(lit, NegAtom):
        return literal_vars(lit.atom)
    if isinstance(lit, Constraint):
        return term_vars(lit.left) | term_vars(lit.right)
    if isinstance(lit, AggLit):
        inner = set().union(*(literal_vars(b) for b in lit.body)) if lit.body else set()
        return {lit.result.name} | inner | (term_vars(lit.target) if lit.target else set())
    return set()


def _order(v):
    """A value as Soufflé orders it: a symbol by its bytes (``functors.as_bytes``: a lone byte
    ``substr`` cut is a surrogate escape here, whose code point is not its byte's place)."""
    return as_bytes(v) if isinstance(v, str) else v


_CMP = {"=": lambda a, b: a == b, "!=": lambda a, b: a != b,
        "<": lambda a, b: _order(a) < _order(b), "<=": lambda a, b: _order(a) <= _order(b),
        ">": lambda a, b: _order(a) > _order(b), ">=": lambda a, b: _order(a) >= _order(b)}


def show_value(v) -> str:
    if isinstance(v, int):
        return str(v)
    return '"' + str(v).replace("\\", "\\\\").replace('"', '\\"') + '"'


def show_atom(rel: str, row: tuple) -> str:
    return f"{rel}({', '.join(show_value(v) for v in row)})"


def show_term(term, env: dict) -> str:
    try:
        return show_value(evaluate(term, env))
    except (KeyError, ZeroDivisionError):
        if isinstance(term, Wildcard):
            return "_"
        if isinstance(term, Var):
            return "_" if term.name.startswith("#") else term.name
        if isinstance(term, BinOp):
            return f"{show_term(term.left, env)} {term.op} {show_term(term.right, env)}"
        if isinstance(term, Neg):
            return f"-{show_term(term.operand, env)}"
        return "?"


def show_literal(lit, env: dict) -> str:
    """A body literal with the values bound in ``env`` (unbound variables by name)."""
    if isinstance(lit, Atom):
        return f"{lit.rel}({', '.join(show_term(a, env) for a in lit.args)})"
    if isinstance(lit, NegAtom):
        return "!" + show_literal(lit.atom, env)
    if isinstance(lit, Constraint):
        return f"{show_term(lit.left, env)} {lit.op} {show_term(lit.right, env)}"
    if isinstance(lit, AggLit):
        target = f" {show_term(lit.target, env)}" if lit.target is not None else ""
        body = ", ".join(show_literal(b, env) for b in lit.body)
        return f"{show_term(lit.result, env)} = {lit.op}{target} : {{ {body} }}"
    return repr(lit)


class Rows:
    """An ordered set of tuples with hash indexes on the column sets atoms look them up by,
    built on first use and kept up to date as rows are added. ``lookup`` returns the rows in
    insertion order, so a derivation chosen through an index is the one a scan would choose."""

    __slots__ = ("rows", "indexes", "keys")

    def __init__(self, rows=()):
        self.rows: dict = dict.fromkeys(rows)
        self.indexes: dict = {}              # column positions -> values -> [rows]
        self.keys: list = []                 # (a row's values at an index's columns, the index)

    def add(self, row: tuple) -> None:
        if row in self.rows:
            return
        self.rows[row] = None
        for key, index in self.keys:
            index.setdefault(key(row), []).append(row)

    def lookup(self, cols: tuple, values: tuple):
        if not cols:
            return self.rows
        return self.index(cols).get(values, ())

    def index(self, cols: tuple) -> dict:
        """The values of the columns ``cols`` (a tuple) -> the rows that have them."""
        index = self.indexes.get(cols)
        if index is None:
            index = self.indexes[cols] = {}
            key = itemgetter(*cols) if len(cols) > 1 else lambda row, c=cols[0]: (row[c],)
            for row in self.rows:
                index.setdefault(key(row), []).append(row)
            self.keys.append((key, index))
        return index

    def __contains__(self, row) -> bool:
        return row in self.rows

    def __iter__(self):
        return iter(self.rows)

    def __len__(self) -> int:
        return len(self.rows)


_NO_ROWS = Rows()


def _ordered(rows) -> Rows:
    """``rows`` as an indexed ordered set, sorted when the values compare."""
    rows = set(map(tuple, rows))
    try:
        return Rows(sorted(rows))
    except TypeError:                          # a column mixing numbers and symbols
        return Rows(sorted(rows, key=repr))


class Explainer:
    """Derivations and refutations of rows of ``checked`` over ``model``.

    Parameters
    ----------
    checked : CheckedProgram
    model : dict
        Relation -> tuples: the input facts and the computed rows of every relation the
        explained relations depend on (an engine's ``run`` with those relations shown).
    """

    def __init__(self, checked: CheckedProgram, model: dict):
        self.checked = checked
        # rows as ordered sets (dict keys) in sorted order: the tree chosen among several
        # derivations must not depend on the hash seed (an explanation is a result too)
        self.model = {r: _ordered(rows) for r, rows in model.items()}
        self.rules = rules_by_head(checked.rules)
        # id(atom) -> atom_shape(atom) for the rules' atoms (alive as long as ``checked``, so
        # the ids are theirs); another atom (why_not's head) is shaped when matched
        self._shapes = {id(atom): atom_shape(atom) for rule in checked.rules
                        for atom in body_atoms(rule.body)}
        self.rank: dict[tuple, int] = {}
        self.why: dict[tuple, tuple] = {}     # (rel, row) -> (rule, env)
        self._ranked: set[str] = set()
        # the ranked tuples by relation, in the order they were ranked (what the rules of a
        # later _rank_for read)
        self._known: dict[str, Rows] | None = defaultdict(Rows)
        # (ids of the literals, bound variables, id of the delta atom) -> _plan's steps
        self._plans: dict[tuple, tuple] = {}
        self._depends_of: dict[str, frozenset] = {}   # rel -> what its rules read, transitively
        self._lines: dict[str, list[str]] = {}
        # (rel, row) -> its node's text parts: a tuple is shown once however many trees hold it
        self._shown: dict[tuple, tuple] = {}

    # ---- matching ------------------------------------------------------------------------

    def _outer(self, rule) -> dict:
        """Per aggregate of ``rule``: the variables it shares with the rest of the rule."""
        out = {}
        for k, lit in enumerate(rule.body):
            if isinstance(lit, AggLit):
                rest = literal_vars(rule.head)
                for j, other in enumerate(rule.body):
                    if j != k:
                        rest |= literal_vars(other)
                inner = literal_vars(lit) - {lit.result.name}
                out[id(lit)] = inner & rest
        return out

    def _shape(self, atom: Atom) -> tuple:
        """``atom_shape(atom)``, kept for the rules' atoms."""
        return self._shapes.get(id(atom)) or atom_shape(atom)

    def _match(self, atom: Atom, row: tuple, env: dict) -> dict | None:
        new = dict(env)
        for (kind, arg), value in zip(self._shape(atom)[0], row):
            if kind == _VAR:
                bound = new.get(arg, _UNBOUND)
                if bound is _UNBOUND:
                    new[arg] = value
                elif bound != value:
                    return None
            elif kind == _CONST:
                if arg != value:
                    return None
            elif kind == _ANY:
                continue
            else:
                try:
                    if evaluate(arg, new) != value:
                        return None
                except (KeyError, ZeroDivisionError):
                    return None   # an expression over unbound variables: not matchable here
        new[("row", id(atom))] = row   # the tuple itself (wildcard positions included)
        return new

    def _ready(self, lit, env: dict, outer: dict) -> bool:
        """Whether ``lit`` can be checked (or bind by ``=``) under ``env`` now."""
        if isinstance(lit, Atom):
            return False
        if isinstance(lit, NegAtom):
            return literal_vars(lit) <= env.keys()
        if isinstance(lit, AggLit):
            return outer[id(lit)] <= env.keys()
        if isinstance(lit, Constraint):
            free = literal_vars(lit) - env.keys()
            if not free:
                return True
            return lit.op == "=" and any(
                isinstance(side, Var) and side.name in free and term_vars(other) <= env.keys()
                for side, other in ((lit.left, lit.right), (lit.right, lit.left)))
        return True

    def _check(self, lit, env: dict, outer: dict) -> list[dict]:
        """The extensions of ``env`` that satisfy the non-atom literal ``lit`` on the model."""
        try:
            if isinstance(lit, NegAtom):
                rows = self.model.get(lit.atom.rel, _NO_ROWS)
                if any(isinstance(a, Wildcard) for a in lit.atom.args):
                    for a in lit.atom.args:     # a division by zero derives nothing, as the
                        if not any(isinstance(x, Wildcard) for x in _subterms(a)):
                            evaluate(a, env)    # engines do (docs/dialect.md): no instance
                    hit = any(self._match(lit.atom, r, env) is not None
                              for r in rows.lookup(*self._bound(lit.atom, env)))
                else:
                    hit = tuple(evaluate(a, env) for a in lit.atom.args) in rows
                return [] if hit else [env]
            if isinstance(lit, Constraint):
                for side, other in ((lit.left, lit.right), (lit.right, lit.left)):
                    if isinstance(side, Var) and side.name not in env:
                        return [dict(env, **{side.name: evaluate(other, env)})]
                return [env] if _CMP[lit.op](evaluate(lit.left, env), evaluate(lit.right, env)) \
                    else []
            if isinstance(lit, AggLit):
                value = self._aggregate(lit, {k: env[k] for k in outer[id(lit)]})
                if value is None:
                    return []
                name = lit.result.name
                if name in env:
                    return [env] if env[name] == value else []
                return [dict(env, **{name: value})]
        except ZeroDivisionError:
            return []
        raise unsupported(lit)

    def _aggregate(self, lit: AggLit, env: dict):
        seen = {}
        for inner in self._solve(list(lit.body), env, None, {}):
            # (0,) when the body has no local variable (``finish_aggregates``): one tuple
            key = tuple(inner.get(v.name) if isinstance(v, Var) else evaluate(v, inner)
                        for v in lit.tuple_vars)
            seen[key] = evaluate(lit.target, inner) if lit.target is not None else 1
        values = list(seen.values())
        if lit.op == "count":
            return len(values)
        if lit.op == "sum":
            return _wrap(sum(values))
        if not values:
            return None
        if lit.op == "min":
            return min(values)
        if lit.op == "max":
            return max(values)
        raise DatalogError(f"explain: aggregate '{lit.op}' is not supported", lit.loc)

    def _matchable(self, atom: Atom, env: dict) -> bool:
        """Whether every expression argument of ``atom`` (``k - 1``) can be evaluated under
        ``env``: an atom is matched against rows only then (``_match`` cannot bind through an
        expression)."""
        expressions = self._shape(atom)[1]
        return all(names <= env.keys() for names in expressions)

    def _next_atom(self, lits: list, env: dict, first=None) -> int | None:
        """The position of the atom to match next: ``first`` (an atom's id) when it is
        matchable, else the first matchable atom, else the first atom."""
        first_atom = first_ready = None
        for k, lit in enumerate(lits):
            if isinstance(lit, Atom):
                if first_atom is None:
                    first_atom = k
                if self._matchable(lit, env):
                    if id(lit) == first:
                        return k
                    if first_ready is None:
                        first_ready = k
        return first_atom if first_ready is None else first_ready

    def _bound(self, atom: Atom, env: dict) -> tuple[tuple, tuple]:
        """The columns of ``atom`` whose values ``env`` fixes, and those values (an index key)."""
        cols, values = [], []
        for c, kind, arg in _lookup_columns(self._shape(atom)[0], env):
            if kind == _VAR:
                value = env[arg]
            elif kind == _CONST:
                value = arg
            else:
                try:
                    value = evaluate(arg, env)
                except ZeroDivisionError:
                    continue
            cols.append(c)
            values.append(value)
        return tuple(cols), tuple(values)

    def _solve(self, lits: list, env: dict, known, outer: dict, delta: tuple | None = None):
        """Every extension of ``env`` satisfying ``lits``: atoms over ``known`` (rel -> set of
        ranked tuples) or, when None, over the whole model; ``delta`` = (atom, rows) reads that
        one atom from ``rows`` instead (semi-naive), matched as soon as its expression
        arguments are bound (``_dt_idom_k(f, g, k - 1, a2, a)`` waits for ``k``).

        The order literals are taken in (``_plan``) depends only on which variables are bound,
        so it is worked out once per rule version, not again for every partial instance."""
        first = delta[0] if delta is not None else None
        keys = frozenset(k for k in env if isinstance(k, str))
        plan_key = (tuple(map(id, lits)), keys, id(first))
        steps = self._plans.get(plan_key)
        if steps is None:
            steps = self._plans[plan_key] = self._plan(lits, keys, outer, first)
        return self._run(steps, 0, env, known, outer, delta[1] if delta is not None else None)

    def _plan(self, lits: list, keys: frozenset, outer: dict, first) -> tuple:
        """The steps ``_solve`` takes through ``lits`` from an environment binding ``keys``:
        first any non-atom literal that can be checked (``_ready``), in body order; else the
        atom ``_next_atom`` picks; ``(None, ...)`` when only literals waiting for variables no
        atom binds are left (no solution). An atom step carries the columns its lookup binds
        (``_bound``'s)."""
        lits, bound, steps = list(lits), dict.fromkeys(keys), []
        while lits:
            for k, lit in enumerate(lits):
                if not isinstance(lit, Atom) and self._ready(lit, bound, outer):
                    steps.append((_CHECK, lit))
                    del lits[k]
                    if isinstance(lit, Constraint):
                        for side in (lit.left, lit.right):
                            if isinstance(side, Var) and side.name not in bound:
                                bound[side.name] = None
                                break
                    elif isinstance(lit, AggLit):
                        bound.setdefault(lit.result.name)
                    break
            else:
                k = self._next_atom(lits, bound, id(first) if first is not None else None)
                if k is None:
                    steps.append((None,))
                    break
                atom = lits.pop(k)
                lookup = _lookup_columns(self._shape(atom)[0], bound)
                steps.append((_ATOM, atom, first is not None and atom is first,
                              tuple(c for c, _, _ in lookup), lookup))
                for kind, arg in self._shape(atom)[0]:
                    if kind == _VAR:
                        bound.setdefault(arg)
        return tuple(steps)

    def _run(self, steps: tuple, i: int, env: dict, known, outer: dict, delta_rows):
        if i == len(steps):
            yield env
            return
        step = steps[i]
        if step[0] is _CHECK:
            for nxt in self._check(step[1], env, outer):
                yield from self._run(steps, i + 1, nxt, known, outer, delta_rows)
            return
        if step[0] is None:
            return
        _, atom, is_delta, cols, lookup = step
        if is_delta:
            source = delta_rows
        else:
            source = self.model.get(atom.rel, _NO_ROWS) if known is None else \
                known.get(atom.rel, _NO_ROWS)
        try:
            values = tuple(env[arg] if kind == _VAR else arg if kind == _CONST else
                           evaluate(arg, env) for _, kind, arg in lookup)
        except ZeroDivisionError:    # that expression column is not looked up (``_bound``)
            cols, values = self._bound(atom, env)
        for row in list(source.lookup(cols, values)):
            nxt = self._match(atom, row, env)
            if nxt is not None:
                yield from self._run(steps, i + 1, nxt, known, outer, delta_rows)

    # ---- ranking -------------------------------------------------------------------------

    def _depends(self, rel: str) -> frozenset:
        """``rel`` and every relation its rules read, transitively (computed once per rel: each
        explained row asks it)."""
        hit = self._depends_of.get(rel)
        if hit is None:
            hit = self._depends_of[rel] = frozenset(self._reads(rel))
        return hit

    def _reads(self, rel: str) -> set[str]:
        todo, seen = [rel], {rel}
        while todo:
            for rule in self.rules.get(todo.pop(), ()):
                for lit in rule.body:
                    atoms = [lit] if isinstance(lit, Atom) else \
                        [lit.atom] if isinstance(lit, NegAtom) else \
                        [b.atom if isinstance(b, NegAtom) else b for b in lit.body
                         if isinstance(b, (Atom, NegAtom))] if isinstance(lit, AggLit) else []
                    for a in atoms:
                        if a.rel not in seen:
                            seen.add(a.rel)
                            todo.append(a.rel)
        return seen

    def _refuse_kinds(self, rules) -> None:
        """Refuse a rule over ``unsigned`` or ``float`` values, which the model does not hold
        as the rules compute them: the checker rewrote an unsigned rule for the engines with
        its values biased by -2^31 and its operators renamed (``unsigned.bias_rule``); a float
        is text (an input fact's "1234.5678" is the engines' "1234.56775", ``floats.py``), so
        equality, order and min/max here are not the engines'."""
        relations = self.checked.relations
        for rule in rules:
            kinds = set(rule.kinds.values()).union(*(
                relations[a.rel].kinds for a in (rule.head, *body_atoms(rule.body))
                if a.rel in relations))
            for kind in ("unsigned", "float"):
                if kind in kinds:
                    raise DatalogError(f"explain: unsupported {kind} values (rewritten for the "
                                       "engines; the explanation does not evaluate them)",
                                       rule.loc)

    def _rank_for(self, rel: str) -> None:
        """Rank every tuple of ``rel`` and of what it depends on (bottom-up, semi-naive)."""
        wanted = self._depends(rel) - self._ranked
        if not wanted:
            return
        self._refuse_kinds(rule for r in wanted for rule in self.rules.get(r, ()))
        known = self._known
        if known is None:    # a ranking stopped by an error: what it ranked is known too
            known = self._known = defaultdict(Rows)
            for (r, row), _ in self.rank.items():
                known[r].add(row)
        try:
            # the ranking and the trees build many objects without cycles (rows, environments,
            # nodes) on the model's large heap: the collector's passes over it were about a
            # third of their CPU in test_explain_every_row's sweep (stop 43)
            with collector_paused():
                self._rank_rounds(wanted, known)
        except BaseException:
            self._known = None
            raise
        self._ranked |= wanted

    def _rank_rounds(self, wanted: set, known: dict) -> None:
        delta: dict[str, dict] = defaultdict(dict)      # ordered sets: dict keys
        for r in sorted(wanted):
            if r in self.checked.inputs:
                for row in self.model.get(r, ()):
                    if (r, row) not in self.rank:
                        self.rank[(r, row)] = 0
                        delta[r][row] = None
                        known[r].add(row)
        rules = [(rule, self._outer(rule), list(rule.body),
                  [k for k, lit in enumerate(rule.body) if isinstance(lit, Atom)])
                 for r in sorted(wanted) for rule in self.rules.get(r, ())]
        rnd = 0
        first = True
        while first or any(delta.values()):
            rnd += 1
            new: dict[str, dict] = defaultdict(dict)
            deltas: dict[str, Rows] = {}      # the round's delta rows, indexed once
            for rule, outer, body, starts in rules:
                if first:
                    plans = [(None, body)]     # round 1: every rule over what is known
                else:
                    plans = [(k, body) for k in starts if delta.get(body[k].rel)]
                for k, lits in plans:
                    rows = None
                    if k is not None:
                        rows = deltas.get(lits[k].rel)
                        if rows is None:
                            rows = deltas[lits[k].rel] = Rows(delta[lits[k].rel])
                    version = self._version(rule, outer, k)
                    if version is not None:
                        version(known, rows, self._deriver(rule, rnd, new), self._aggregate,
                                self.rank, self.model)
                        continue
                    envs = self._solve(lits, {}, known, outer,
                                       None if k is None else (lits[k], rows))
                    for env in envs:
                        self._derived(rule, env, rnd, new)
            first = False
            for r, rows in new.items():
                for row in rows:
                    known[r].add(row)
            delta = new

    def _version(self, rule, outer: dict, k: int | None):
        """The compiled rule version (``_Version``) whose ``_solve`` is ``_rank_rounds``'s
        with delta atom ``rule.body[k]`` (None: none), or None when it does not compile. Kept
        per rule (``_VERSIONS``) and made once per rule text (``_TEMPLATES``): a version depends
        on the rule alone, every Explainer of a program runs the same ones, and the programs
        that include a library (``lib/dominator_tree.dl``) hold equal copies of its rules."""
        version = _VERSIONS.get(rule, k, _MISSING)
        if version is _MISSING:
            try:
                template = _TEMPLATES.get((rule, k), _MISSING)
            except TypeError:     # a term holding a list: the rule has no text to share by
                template = _MISSING
            if template is _MISSING:
                lits = list(rule.body)
                first = lits[k] if k is not None else None
                plan_key = (tuple(map(id, lits)), frozenset(), id(first))
                steps = self._plans.get(plan_key)
                if steps is None:
                    steps = self._plans[plan_key] = self._plan(lits, frozenset(), outer, first)
                try:
                    template = _Version(self, rule, outer, steps).template
                except _Refused:
                    template = None
                if len(_TEMPLATES) >= 4096:
                    _TEMPLATES.clear()
                try:
                    _TEMPLATES[(rule, k)] = template
                except TypeError:
                    pass
            version = None if template is None else _bind(template, rule)
            _VERSIONS.put(rule, version, k)
        return version

    def _deriver(self, rule, rnd: int, new: dict):
        """``derive(key, env)`` for a compiled version: ``_record``."""
        return lambda key, env: self._record(rule, key, env, rnd, new)

    def _derived(self, rule, env: dict, rnd: int, new: dict) -> None:
        try:
            row = tuple(evaluate(a, env) for a in rule.head.args)
        except (KeyError, ZeroDivisionError):
            return
        key = (rule.head.rel, row)
        if key not in self.rank:
            self._record(rule, key, env, rnd, new)

    def _record(self, rule, key: tuple, env: dict, rnd: int, new: dict) -> None:
        """``key``, not ranked yet, derived in round ``rnd`` by ``rule``'s instance ``env``."""
        if key[1] not in self.model.get(key[0], ()):
            raise DatalogError(f"explain: the rule at {rule.loc} derives "
                               f"{show_atom(*key)}, which the engine's result does "
                               "not hold (engine and explanation disagree)", rule.loc)
        self.rank[key] = rnd
        self.why[key] = (rule, env)
        new[key[0]][key[1]] = None

    # ---- answers -------------------------------------------------------------------------

    def holds(self, rel: str, row: tuple) -> bool:
        return tuple(row) in self.model.get(rel, ())

    def rule_text(self, loc: SourceLoc) -> str:
        """The source line a rule starts on (for display)."""
        lines = self._lines.get(loc.file)
        if lines is None:
            try:
                with open(loc.file, encoding="utf-8") as fh:
                    lines = fh.read().split("\n")
            except OSError:
                lines = []
            self._lines[loc.file] = lines
        return lines[loc.line - 1].strip() if 0 < loc.line <= len(lines) else ""

    def explain(self, rel: str, row: tuple) -> dict:
        """The derivation tree of ``rel(row)``: nodes ``{atom, rel, row, kind, rank, rule,
        rule_text, checks, children}``; ``kind`` is "input" (a leaf), "rule" (an instance of
        the rule at ``rule``; a fact stated in the program has no children) or "ref" (a tuple
        expanded earlier in the tree, by ``atom``).

        Raises
        ------
        DatalogError
            The row does not hold, or no rule instance derives it within the model.
        """
        row = tuple(row)
        if not self.holds(rel, row):
            raise DatalogError(f"{show_atom(rel, row)} does not hold (see why_not)")
        self._rank_for(rel)
        if (rel, row) not in self.rank:
            raise DatalogError(f"explain: no rule instance derives {show_atom(rel, row)} inside "
                               "the engine's result (engine and explanation disagree)")
        allow_depth(self.rank[(rel, row)])
        with collector_paused():     # (as _rank_for's)
            return self._node((rel, row), set())

    def _node(self, key: tuple, done: set) -> dict:
        shown = self._shown.get(key)
        if shown is None:
            shown = self._shown[key] = self._show(key)
        atom, rank, kind, rule_loc, rule_text, checks, children = shown
        # the keys in this order: the JSON a user reads (one dict display per kind: a node is
        # built for every tuple of every tree, 2.1 million in test_explain_every_row's sweep)
        if key in done:
            return {"atom": atom, "rel": key[0], "row": list(key[1]), "rank": rank,
                    "children": [], "checks": [], "kind": "ref"}
        done.add(key)
        if kind == "input":
            return {"atom": atom, "rel": key[0], "row": list(key[1]), "rank": rank,
                    "children": [], "checks": [], "kind": "input"}
        node = self._node
        return {"atom": atom, "rel": key[0], "row": list(key[1]), "rank": rank,
                "children": [node(child, done) for child in children], "checks": list(checks),
                "kind": "rule", "rule": rule_loc, "rule_text": rule_text}

    def _show(self, key: tuple) -> tuple:
        """``(atom, rank, kind, rule, rule_text, checks, children)`` of ``key``'s node: "input"
        or "rule"; ``children``, the (relation, row) its rule instance reads, in body order."""
        atom, rank = show_atom(*key), self.rank[key]
        if rank == 0 and key not in self.why:
            return atom, rank, "input", None, None, (), ()
        rule, env = self.why[key]
        checks = tuple(show_literal(lit, env) for lit in rule.body if not isinstance(lit, Atom))
        children = tuple((lit.rel, env[("row", id(lit))]) for lit in rule.body
                         if isinstance(lit, Atom))
        return atom, rank, "rule", str(rule.loc), self.rule_text(rule.loc), checks, children

    def why_not(self, rel: str, row: tuple, depth: int = 2, _seen: frozenset = frozenset()
                ) -> list[dict]:
        """Per rule with head ``rel``: ``{rule, rule_text, reason, satisfied, missing}``: the
        furthest any instance gets through the body over the model (``satisfied``: literals
        that held, bound), ``missing``: the first literal that no instance satisfies there.
        [] for an input relation (an absent input fact is its own reason). When the missing
        literal is a fully bound atom of a computed relation, ``because`` answers why *it*
        does not hold, ``depth`` levels down.

        Raises
        ------
        DatalogError
            The row holds.
        """
        row = tuple(row)
        if self.holds(rel, row):
            raise DatalogError(f"{show_atom(rel, row)} holds (see explain)")
        answers = []
        self._refuse_kinds(self.rules.get(rel, ()))
        for rule in self.rules.get(rel, ()):
            answer = self._refute(rule, row)
            missing = answer.pop("missing_atom", None)
            if missing and depth > 0 and missing not in _seen and self.rules.get(missing[0]):
                answer["because"] = {"atom": show_atom(*missing), "rules": self.why_not(
                    missing[0], missing[1], depth - 1, _seen | {(rel, row)})}
            answers.append(answer)
        return answers

    def _refute(self, rule, row: tuple) -> dict:
        base = {"rule": str(rule.loc), "rule_text": self.rule_text(rule.loc)}
        env = self._match(Atom(rule.head.rel, tuple(a for a in rule.head.args), rule.head.loc),
                          row, {})
        if env is None:
            simple = [(a, v) for a, v in zip(rule.head.args, row) if isinstance(a, (Num, Str))]
            bad = next(((a, v) for a, v in simple if a.value != v), None)
            what = (f"the head has {show_value(bad[0].value)} where the row has "
                    f"{show_value(bad[1])}") if bad else "the head's expressions cannot give the row"
            return dict(base, reason=what, satisfied=[], missing=None)
        outer = self._outer(rule)
        best = {"depth": -1}
        budget = [WHY_NOT_BUDGET]

        def walk(lits: list, env: dict, done: list) -> None:
            if budget[0] <= 0:
                return
            budget[0] -= 1
            if not lits:
                best.update(depth=len(done), env=env, done=list(done), lits=[], complete=True)
                return
            order = [k for k, lit in enumerate(lits) if self._ready(lit, env, outer)] or \
                [k for k in [self._next_atom(lits, env)] if k is not None]
            if not order:
                return
            k = order[0]
            lit, rest = lits[k], lits[:k] + lits[k + 1:]
            if isinstance(lit, Atom):
                rows = self.model.get(lit.rel, _NO_ROWS).lookup(*self._bound(lit, env))
                nexts = [e for r in rows for e in [self._match(lit, r, env)] if e is not None]
            else:
                nexts = self._check(lit, env, outer)
            for nxt in nexts:
                walk(rest, nxt, done + [(lit, nxt)])
                if best.get("complete"):
                    return
            if not nexts and len(done) > best["depth"]:
                best.update(depth=len(done), env=env, done=list(done), failed=lit)

        walk(list(rule.body), env, [])
        if best.get("complete"):
            return dict(base, reason="every body literal holds but the head's expressions do "
                        "not give the row", satisfied=[show_literal(l, e) for l, e in best["done"]],
                        missing=None)
        failed = best.get("failed")
        env = best.get("env", env)
        atom = None
        if isinstance(failed, Atom):
            try:
                atom = (failed.rel, tuple(evaluate(a, env) for a in failed.args))
            except (KeyError, ZeroDivisionError):
                atom = None   # not fully bound: no single atom to ask about
        return dict(base, reason="no instance satisfies the body past this literal",
                    satisfied=[show_literal(l, e) for l, e in best.get("done", [])],
                    missing=show_literal(failed, env) if failed is not None else None,
                    missing_kind=type(failed).__name__, missing_atom=atom,
                    truncated=budget[0] <= 0)


# ---- ranking, compiled ---------------------------------------------------------------------


class _Refused(Exception):
    """A rule version ``_Version`` does not compile: the ranking interprets it (``_solve``)."""


class _Unbound(Exception):
    """A term over a variable not bound there (``evaluate`` would raise KeyError)."""


class _Version:
    """One rule version of the ranking (the rule with its delta atom, or none) as a Python
    function ``f(known, D, derive, agg, rank, model)`` that does what ``_solve``'s plan steps
    (``_run``, ``_match``, ``_check``) and ``_derived`` do, in the same order, as nested loops
    over hash indexes with the variables in locals (as ``indexed.py`` compiles the duckdb
    engine's rounds): ``known`` the ranked rows (``Rows`` by relation), ``D`` the delta atom's
    rows, ``derive(key, env)`` records a tuple not in ``rank`` yet (``Explainer._record``),
    ``agg`` is ``Explainer._aggregate``, ``model`` the Explainer's (negated atoms read it). A
    version the interpreter would not evaluate the same way (a term ``evaluate`` refuses, a ``_``
    inside an expression, an unknown literal or comparison) raises ``_Refused``.

    Interpreting the plan per partial instance (a generator frame and an environment dict
    each) was about half of test_explain_every_row's sweep (stop 42's profile)."""

    def __init__(self, ex: "Explainer", rule, outer: dict, steps: tuple):
        self.ex, self.outer = ex, outer
        self.names: dict = {"_ONE": (0,), "_wrap": _wrap, "_binary": binary,
                            "_NO_ROWS": _NO_ROWS}
        # names bound per rule (``_bind``): (name, place of a body literal, "row" for its
        # environment key, "lit" for the literal)
        self.subs: list[tuple] = []
        self.place = {id(lit): k for k, lit in enumerate(rule.body)}
        self.env: dict[str, str] = {}     # variable -> local
        self.rows: dict[int, str] = {}    # an atom's place in the body -> the local of its row
        self.entry: list[str] = []
        self.lines: list[str] = []
        self.depth = 2
        self.emit("for _once in _ONE:", 1)
        for step in steps:
            if step[0] is None:           # no solution (_run)
                self.emit("continue")
                break
            if step[0] is _ATOM:
                self.atom(*step[1:])
            else:
                self.check(step[1])
        else:
            self.head(rule)
        source = "def version(known, D, derive, agg, rank, model):\n" + "".join(
            f"    {line}\n" for line in self.entry + self.lines)
        #: what ``_bind`` makes the version of a rule equal to this one from
        self.template = (_code(source), self.names, tuple(self.subs))

    def emit(self, line: str, depth: int | None = None) -> None:
        self.lines.append("    " * ((self.depth if depth is None else depth) - 1) + line)

    def sub(self, place: int, what: str) -> str:
        """A name ``_bind`` gives the body literal at ``place`` ("lit") or its environment key
        ("row": ``("row", id(atom))``, as ``_match`` writes it)."""
        name = self.const(None)
        self.subs.append((name, place, what))
        return name

    def const(self, value) -> str:
        name = f"K{len(self.names)}"
        self.names[name] = value
        return name

    def local(self, var: str) -> str:
        name = self.env[var] = f"v{len(self.env)}"
        return name

    def index(self, rows: str, cols: tuple) -> str:
        """A local holding ``rows.index(cols)``, taken where first needed (``Rows.index``
        builds it then)."""
        name = f"I{len(self.entry)}"
        self.entry.append(f"{name} = None")
        self.emit(f"if {name} is None: {name} = {rows}.index({self.const(cols)})")
        return name

    def term(self, t) -> tuple[str, bool]:
        """``t`` as a Python expression over the locals (``evaluate``'s semantics), and whether
        it may raise ZeroDivisionError."""
        if isinstance(t, Var):
            if t.name not in self.env:
                raise _Unbound(t.name)
            return self.env[t.name], False
        if isinstance(t, (Num, Str)):
            return self.const(t.value), False
        if isinstance(t, Wildcard):
            raise _Unbound("_")
        if isinstance(t, Neg):
            code, div = self.term(t.operand)
            return f"_wrap(-{code})", div
        if isinstance(t, BinOp):
            (a, da), (b, db) = self.term(t.left), self.term(t.right)
            if t.op in ("+", "-", "*"):
                return f"_wrap({a} {t.op} {b})", da or db
            if t.op not in BINARY:
                raise _Refused(f"operator {t.op}")
            return f"_binary({t.op!r}, {a}, {b})", da or db or t.op in ("/", "%")
        raise _Refused(f"term {t!r}")

    def checked_term(self, t) -> tuple[str, bool]:
        """``term`` where the interpreter lets a KeyError out (a lookup value, a check)."""
        if any(isinstance(x, Wildcard) for x in _subterms(t)):
            raise _Refused("_ inside an expression")
        try:
            return self.term(t)
        except _Unbound:
            raise _Refused("a variable unbound where the plan says bound") from None

    def assign(self, local: str, codes: list, one: bool = False) -> None:
        """``local = `` the tuple of ``codes`` (``term``'s answers; the one value when ``one``),
        the instance skipped when it divides by zero."""
        text = codes[0][0] if one else "(" + "".join(c + ", " for c, _ in codes) + ")"
        self.guarded(f"{local} = {text}", any(div for _, div in codes))

    def guarded(self, line: str, div: bool) -> None:
        """``line``, the instance skipped where it divides by zero (``div``: it may)."""
        if div:
            self.emit("try:")
            self.emit(f"    {line}")
            self.emit("except ZeroDivisionError:")
            self.emit("    continue")
        else:
            self.emit(line)

    def atom(self, atom, is_delta: bool, cols: tuple, lookup: tuple) -> None:
        """``_run``'s atom step and ``_match`` on each row it looks up."""
        args = self.ex._shape(atom)[0]
        if any(kind == _OTHER for kind, _ in args):
            raise _Refused("a term evaluate does not take")
        n = len(self.rows)
        source = "D" if is_delta else f"S{n}"
        if not is_delta:
            self.entry.append(f"S{n} = known.get({self.const(atom.rel)}, _NO_ROWS)")
        row = f"r{n}"
        if cols:
            key = [self.env[arg] if kind == _VAR else self.const(arg) if kind == _CONST else
                   None for _, kind, arg in lookup]
            codes = [(k, False) if k is not None else self.checked_term(arg)
                     for k, (_, _, arg) in zip(key, lookup)]
            self.assign(f"k{n}", codes)      # a division by zero: no row matches (_match)
            self.emit(f"for {row} in {self.index(source, cols)}.get(k{n}, ()):")
        else:
            self.emit(f"for {row} in {source}.rows:")
        self.depth += 1
        for c, (kind, arg) in enumerate(args):
            if c in cols or kind in (_ANY, _CONST):      # the index matched the looked-up ones
                continue
            if kind == _VAR:
                if arg in self.env:                       # bound by an earlier column
                    self.emit(f"if {row}[{c}] != {self.env[arg]}: continue")
                else:
                    self.emit(f"{self.local(arg)} = {row}[{c}]")
                continue
            try:                                          # an expression not looked up
                code, div = self.term(arg)
            except _Unbound:
                self.emit("continue")                     # KeyError in _match: no match
                continue
            self.guarded(f"if {row}[{c}] != {code}: continue", div)
        self.rows[self.place[id(atom)]] = row

    def check(self, lit) -> None:
        """``_check`` of a literal the plan found ready."""
        if isinstance(lit, NegAtom):
            args = self.ex._shape(lit.atom)[0]
            held = f"M{len(self.entry)}"
            self.entry.append(f"{held} = model.get({self.const(lit.atom.rel)}, _NO_ROWS)")
            if any(kind == _OTHER for kind, _ in args):
                raise _Refused("a term evaluate does not take")
            n = len(self.lines)
            if not any(kind == _ANY for kind, _ in args):
                self.assign(f"n{n}", [self.checked_term(a) for a in lit.atom.args])
                self.emit(f"if n{n} in {held}.rows: continue")
                return
            lookup = _lookup_columns(args, self.env)
            if not lookup:
                self.emit(f"if {held}.rows: continue")
                return
            codes = [(self.env[arg], False) if kind == _VAR else (self.const(arg), False)
                     if kind == _CONST else self.checked_term(arg) for _, kind, arg in lookup]
            self.assign(f"n{n}", codes)      # a division by zero derives nothing: no instance
            self.emit(f"if {self.index(held, tuple(c for c, _, _ in lookup))}.get(n{n}): "
                      "continue")
        elif isinstance(lit, Constraint):
            if lit.op not in _CMP:
                raise _Refused(f"comparison {lit.op}")
            for side, other in ((lit.left, lit.right), (lit.right, lit.left)):
                if isinstance(side, Var) and side.name not in self.env:
                    code = self.checked_term(other)
                    self.assign(self.local(side.name), [code], one=True)
                    return
            (a, da), (b, db) = self.checked_term(lit.left), self.checked_term(lit.right)
            test = f"{a} {'==' if lit.op == '=' else lit.op} {b}" if lit.op in ("=", "!=") \
                else f"{self.const(_CMP[lit.op])}({a}, {b})"
            self.guarded(f"if not ({test}): continue", da or db)
        elif isinstance(lit, AggLit):
            inner = "{" + "".join(f"{name!r}: {self.env[name]}, " for name in
                                  self.outer[id(lit)]) + "}"
            n = len(self.lines)
            self.emit("try:")
            self.emit(f"    a{n} = agg({self.sub(self.place[id(lit)], 'lit')}, {inner})")
            self.emit("except ZeroDivisionError:")
            self.emit("    continue")
            self.emit(f"if a{n} is None: continue")
            name = lit.result.name
            if name in self.env:
                self.emit(f"if {self.env[name]} != a{n}: continue")
            else:
                self.emit(f"{self.local(name)} = a{n}")
        else:
            raise _Refused(f"literal {type(lit).__name__}")

    def head(self, rule) -> None:
        """``_derived``: the head's tuple (none when a term is unbound or divides by zero),
        recorded with the instance's environment unless it is ranked already."""
        try:
            codes = [self.term(a) for a in rule.head.args]
        except _Unbound:
            self.emit("continue")
            return
        self.assign("h", codes)
        self.emit(f"k = ({self.const(rule.head.rel)}, h)")
        env = "".join(f"{name!r}: {local}, " for name, local in self.env.items()) + "".join(
            f"{self.sub(k, 'row')}: {row}, " for k, row in self.rows.items())
        self.emit("if k not in rank:")
        self.emit(f"    derive(k, {{{env}}})")


def _bind(template: tuple, rule):
    """The function of ``_Version(...).template`` for ``rule`` (equal to the rule it was made
    from: its own literals and environment keys bound)."""
    code, names, subs = template
    names = dict(names)
    for name, place, what in subs:
        names[name] = ("row", id(rule.body[place])) if what == "row" else rule.body[place]
    exec(code, names)
    return names["version"]


@lru_cache(maxsize=4096)
def _code(source: str):
    """``source`` compiled: the same rule versions are compiled for every Explainer of a
    program (their source names the objects they read, not their values); compiling was a
    third of the ranking's CPU (9,539 versions in test_explain_every_row's sweep)."""
    return compile(source, "<explain rule version>", "exec")


def _subterms(t):
    yield t
    if isinstance(t, Neg):
        yield from _subterms(t.operand)
    elif isinstance(t, BinOp):
        yield from _subterms(t.left)
        yield from _subterms(t.right)
    elif isinstance(t, Call):
        for a in t.args:
            yield from _subterms(a)


def parse_row(text: str, checked: CheckedProgram) -> tuple[str, tuple]:
    """``relation(v1, v2, ...)`` as a user writes it on the command line: symbols quoted
    (``"a b"``, with ``\\"`` escapes) or bare (up to the next ``,`` or ``)``), numbers as integers.

    Raises
    ------
    DatalogError
        Located in the row text (``<row>:1:COL``): bad syntax, an undeclared relation, the wrong
        number of values, a number column given a non-number.
    """
    def err(msg: str, pos: int) -> DatalogError:
        return DatalogError(msg, SourceLoc("<row>", 1, pos + 1))

    text = text.strip()
    open_ = text.find("(")
    if open_ <= 0 or not text.endswith(")"):
        raise err("expected relation(v1, v2, ...)", 0)
    rel = text[:open_].strip()
    if rel not in checked.relations:
        raise err(f"no relation '{rel}' is declared in the program"
                  + did_you_mean(rel, checked.relations), 0)
    values, pos, inner_end = [], open_ + 1, len(text) - 1
    starts = []
    while pos < inner_end:
        while pos < inner_end and text[pos] in " \t":
            pos += 1
        starts.append(pos)
        if pos < inner_end and text[pos] == '"':
            k, out = pos + 1, []
            while k < inner_end and text[k] != '"':
                if text[k] == "\\" and k + 1 < inner_end:
                    k += 1
                out.append(text[k])
                k += 1
            if k >= inner_end:
                raise err("unterminated string", pos)
            values.append(("str", "".join(out)))
            pos = k + 1
        else:
            k = pos
            while k < inner_end and text[k] != ",":
                k += 1
            values.append(("bare", text[pos:k].strip()))
            pos = k
        while pos < inner_end and text[pos] in " \t":
            pos += 1
        if pos < inner_end:
            if text[pos] != ",":
                raise err("expected ',' between values", pos)
            pos += 1
    relation = checked.relations[rel]
    if len(values) != relation.arity:
        raise err(f"{rel} has {relation.arity} columns, the row gives {len(values)}", open_)
    row = []
    for (kind, value), (attr, _, col_kind), at in zip(values, relation.columns, starts):
        if col_kind == "number":
            try:
                row.append(int(value, 0))
            except ValueError:
                raise err(f"column '{attr}' of {rel} is a number, not {value!r}", at) from None
        else:
            row.append(value)
    return rel, tuple(row)
