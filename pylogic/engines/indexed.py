"""Components of a checked program evaluated in process: semi-naive rounds over hash indexes,
tuple at a time, as Soufflé's interpreter does: the duckdb engine's recursive components (issue
#32 item 3) and every stratum of the python engine (``python_engine.py``, issue #28 item 1).

Why not SQL: a recursive component is iterated round by round, and a round of DuckDB (a
``WITH RECURSIVE`` iteration or a statement per round) costs in proportion to the whole relations
it joins, never to the round's delta: DuckDB's hash joins rebuild or rescan their full sides and
it has no index joins. The dominator-tree walk (``datalog/lib/dominator_tree.dl``) needs about one
round per block (843 rounds for a 1,000-block random CFG with irreducible regions, 92 for a
1,021-block structured one), so every DuckDB strategy was quadratic there (measured, profile in
runs/duckdb-scale.json: 13.5 s against clingo's 0.69 s at 1,000 blocks, the ``USING KEY`` CTE's
hash joins over its recurring table). Here a round costs its delta: each body atom after the
first is a lookup in a hash index on the columns already bound.

The component's rules are compiled to Python functions (one per semi-naive version: the delta
atom first, then at each step the atom with the most arguments bound, in body order among
equals: ``_most_bound``; SQL keeps the body order, ``to_sql.rule_select``), with the
semantics of ``to_sql.py``: values are numbers (symbols and records interned by the caller,
``values.py``), arithmetic wraps to 32 bits after every operation, ``/`` and ``%`` truncate
toward zero and a division by zero makes the rule instance derive nothing
(``numbers.binary``); every other functor is the clingo engine's Python function
(``values.Values.call``), ``range`` a loop over its values, a record pattern a test of the
record table, an aggregate over lower strata a loop collecting its group (``_aggregate``). What
the compiler does not cover (an aggregate or a negation over the component's own relations, an
ordering of records, a ``min``/``max`` of symbols) raises :class:`Unsupported`; the duckdb engine
then evaluates the component in SQL, which covers or refuses it located; the python engine
refuses, located. A component is compiled once (``CompiledComponent``, picklable) and bound to
each run's relations and values (``bind``). A version's source names no run's number (its
constants and objects are read from the run's ``_K``), so it is one text per rule, and the
shipped rules' versions are compiled ahead of time (``precompiled_versions``, to C when
pathlogic is installed; issue #28 item 1): a version is found there by its text, or compiled
here.
"""
from __future__ import annotations

import hashlib
import marshal
from collections import defaultdict
from operator import itemgetter
from types import FunctionType

from pylogic.engines.dialect import (AdtTerm, AggLit, Atom, BinOp, Call, Constraint, Neg, NegAtom,
                                     Nil, Num, Record, Str, Test, Var, Wildcard)
from pylogic.engines.numbers import binary, wrap_const, wrap_expr
from pylogic.engines.precompiled_versions import VERSIONS
from pylogic.engines.semantics import term_vars
from pylogic.engines.to_sql import (BITS, aggregate_ready, has_division, is_record,
                                    orders_symbols, pattern, record_tag, symbolic)
from pylogic.engines.values import NIL, SIGNATURES

_CMP = {"=": "==", "!=": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">="}


class Unsupported(Exception):
    """A construct this evaluator does not compile (the duckdb engine falls back to SQL; the
    python engine refuses, at ``loc``: the rule's location)."""

    loc = None


class Relations:
    """The run's relations as Python sets of tuples (numbers), with hash indexes on demand:
    ``index(rel, positions)`` maps the key (the value at one position, or the tuple of values
    at several) to the list of rows. ``fetch(rel)`` gives a relation's rows the first time it is
    needed (the caller reads them from DuckDB); a relation read here is final (lower strata)."""

    def __init__(self, fetch):
        self.fetch = fetch
        self.rows: dict[str, set] = {}
        self.indexes: dict[tuple, dict] = {}
        self.of: dict[str, list] = {}    # relation -> [(key of a row, index)]
        self.keysets: dict[tuple, set] = {}     # (rel, positions) -> the keys, without rows
        self.keys_of: dict[str, list] = {}      # relation -> [(key of a row, its keyset)]
        self.selections: dict[tuple, list] = {}  # (rel, positions, key) -> its rows

    def full(self, rel: str) -> set:
        rows = self.rows.get(rel)
        if rows is None:
            rows = self.rows[rel] = set(self.fetch(rel))
        return rows

    def index(self, rel: str, positions: tuple) -> dict:
        idx = self.indexes.get((rel, positions))
        if idx is None:
            idx = self.indexes[(rel, positions)] = defaultdict(list)
            key = itemgetter(*positions)    # one position: the value; several: their tuple
            for row in self.full(rel):
                idx[key(row)].append(row)
            self.of.setdefault(rel, []).append((key, idx))
        return idx

    def add(self, rel: str, rows) -> None:
        """Add ``rows`` (new ones) to ``rel`` and to every index and keyset on it."""
        self.full(rel).update(rows)
        for key, idx in self.of.get(rel, ()):
            for row in rows:
                idx[key(row)].append(row)
        for key, keys in self.keys_of.get(rel, ()):
            keys.update(map(key, rows))

    def select(self, rel: str, positions: tuple, key) -> list:
        """The rows of a final relation (a lower stratum's) whose values at ``positions`` are
        ``key`` (a constant): its index's if built, else a scan, kept for the run. An atom
        whose bound arguments are all constants, read first by a rule that runs once, looks
        its rows up once: a scan, not an index of every row (issue #28 item 1: icbe built
        indexes of 10,000-30,000 rows of ``_cq``, ``_cans`` and ``_cea`` for one lookup)."""
        idx = self.indexes.get((rel, positions))
        if idx is not None:
            return idx.get(key, ())
        rows = self.selections.get((rel, positions, key))
        if rows is None:
            of = itemgetter(*positions)
            rows = self.selections[(rel, positions, key)] = [
                row for row in self.full(rel) if of(row) == key]
        return rows

    def projection(self, rel: str, positions: tuple):
        """The keys of ``index(rel, positions)`` (a negated atom's test, an atom that binds
        nothing): that index's if it is built, else a set of the keys alone (made in C, no lists
        of rows), kept up to date by ``add`` like the indexes."""
        idx = self.indexes.get((rel, positions))
        if idx is not None:
            return idx.keys()
        keys = self.keysets.get((rel, positions))
        if keys is None:
            key = itemgetter(*positions)
            keys = self.keysets[(rel, positions)] = set(map(key, self.full(rel)))
            self.keys_of.setdefault(rel, []).append((key, keys))
        return keys


def _stored(values, constants: tuple):
    """The stored key of a ``select``'s constants (numbers, and strings interned)."""
    key = tuple(values.intern(c) if type(c) is str else c for c in constants)
    return key[0] if len(key) == 1 else key


#: what a compiled version's description names (``_Code.const``), made from a run's ``store``
#: and ``values``: ``("full", rel)``, ``("index", rel, positions)``, ``("projection", rel,
#: positions)``, ``("select", rel, positions, constants)``, ``("call", functor)``, ``("pack",)``,
#: ``("unpack",)``, ``("keys",)``, ``("symbol", text)``, ``("record", key)``: the run's own
#: numbers, so a version's source names no number of one ``Values`` and is the same text in
#: every plan (``precompiled_versions``: compiled ahead of time, found by that text)
_MAKE = {"full": lambda store, values, w: store.full(w[1]),
         "index": lambda store, values, w: store.index(w[1], w[2]),
         "projection": lambda store, values, w: store.projection(w[1], w[2]),
         "select": lambda store, values, w: store.select(w[1], w[2], _stored(values, w[3])),
         "call": lambda store, values, w: values.call(w[1]),
         "pack": lambda store, values, w: values.pack,
         "unpack": lambda store, values, w: values.unpack,
         "keys": lambda store, values, w: values.symbol_keys(),
         "symbol": lambda store, values, w: values.intern(w[1]),
         "record": lambda store, values, w: values.pack(w[1])}


class _Made(dict):
    """Description -> the object of a run it names (``_MAKE``), made on first use from the
    run's ``store`` and ``values``: a version's ``_K``."""

    def __init__(self, store: Relations, values):
        super().__init__()
        self.store, self.values = store, values

    def __missing__(self, what: tuple):
        obj = self[what] = _MAKE[what[0]](self.store, self.values, what)
        return obj


class _Code:
    """The Python source of one rule version, built literal by literal."""

    def __init__(self, kinds: dict):
        self.kinds = kinds              # the rule's variable kinds
        self.env: dict[str, str] = {}   # datalog variable -> Python local
        self.lines: list[str] = []
        self.depth = 1
        self.names: dict = {}           # description -> the local holding its object
        self.lambdas = 0                # the tests' lambdas made (their parameters' names)

    def emit(self, line: str) -> None:
        self.lines.append("    " * self.depth + line)

    def const(self, what: tuple) -> str:
        """A local holding the object ``what`` describes (``_Made``), made when a run first
        reads it (so a component that does not compile reads no relation: a relation it would
        fetch now may be computed by its SQL evaluation); one local per object."""
        name = self.names.get(what)
        if name is None:
            name = self.names[what] = f"K{len(self.names)}"
        return name

    def call(self, name: str, args) -> str:
        """A functor computed by ``functors.py`` (``values.Values.call``)."""
        fn = self.const(("call", name))
        return f"{fn}(({''.join(self.term(a) + ', ' for a in args)}))"

    def term(self, t) -> str:
        """A Python expression of ``t``; a ``range`` emits the loop over its values first."""
        if isinstance(t, Var):
            if t.name not in self.env:
                raise Unsupported(f"variable {t.name} used before it is bound")
            return self.env[t.name]
        if isinstance(t, (Num, Str)):
            c = self.constant(t)
            return self.const(("symbol", c)) if type(c) is str else str(c)
        if isinstance(t, BinOp):
            if t.op in SIGNATURES:
                return self.call(t.op, (t.left, t.right))
            left, right = self.term(t.left), self.term(t.right)
            if t.op in ("/", "%"):
                return f"_division({t.op!r}, {left}, {right})"
            if t.op in BITS:
                return f"(({left}) {BITS[t.op]} ({right}))"
            if t.op not in ("+", "-", "*"):
                raise Unsupported(f"operator {t.op}")
            return f"({wrap_expr(f'({left}) {t.op} ({right})')})"
        if isinstance(t, Neg):
            return f"({wrap_expr(f'-({self.term(t.operand)})')})"
        if isinstance(t, Call):
            if t.name == "bnot":
                return f"(~({self.term(t.args[0])}))"
            if t.name in ("min", "max") and not symbolic(t, self.kinds):
                return f"{t.name}({', '.join(self.term(a) for a in t.args)})"
            if t.name in ("min", "max"):
                return self.call("s" + t.name, t.args)
            if t.name in ("range", "frange", "urange"):        # one instance per value
                values = self.call(t.name, t.args)
                local = self.fresh() + "r"
                self.emit(f"for {local} in {values}:")
                self.depth += 1
                return local
            if t.name in SIGNATURES:
                return self.call(t.name, t.args)
            raise Unsupported(f"functor {t.name}")
        if isinstance(t, Nil):
            return self.const(("record", NIL))
        if isinstance(t, (Record, AdtTerm)):
            if not t.args:
                return self.const(("record", (record_tag(t),)))
            pack = self.const(("pack",))
            return f"{pack}(({record_tag(t)!r}, {''.join(self.term(a) + ', ' for a in t.args)}))"
        raise Unsupported(f"term {type(t).__name__}")

    @staticmethod
    def constant(t):
        """The constant ``t`` (a ``Num`` or a ``Str``) as ``_stored`` takes it: a number
        wrapped, a string as it is (interned by the run)."""
        return wrap_const(t.value) if isinstance(t, Num) else t.value

    def match(self, value: str, pat, later: list) -> None:
        """Match the Python value ``value`` against ``pat`` (``to_sql._Scope.match``)."""
        if isinstance(pat, Wildcard):
            return
        if isinstance(pat, Var) and pat.name not in self.env:
            local = self.env[pat.name] = f"v{len(self.env)}"
            self.emit(f"{local} = {value}")
        elif pattern(pat, self.env):
            fields = self.fresh() + "f"
            unpack = self.const(("unpack",))
            self.emit(f"{fields} = {unpack}({value}, {record_tag(pat)!r}, {len(pat.args)})")
            self.emit(f"if {fields} is None: continue")
            for i, a in enumerate(pat.args):
                self.match(f"{fields}[{i}]", a, later)
        elif self.ready(pat):
            self.emit(f"if {value} != {self.value(pat, 'm')}: continue")
        else:
            later.append((value, pat))

    def test(self, value: str, pat) -> str:
        """A Python test that the value ``value`` matches ``pat``, whose variables are bound
        (a negated atom's record pattern with ``_`` inside)."""
        if isinstance(pat, Wildcard):
            return "True"
        if not pattern(pat, self.env):
            if has_division(pat):
                raise Unsupported("a division inside a negated record pattern")
            return f"{value} == {self.term(pat)}"
        self.lambdas += 1
        f = f"p{self.lambdas}"
        unpack = self.const(("unpack",))
        tests = " and ".join(self.test(f"{f}[{i}]", a) for i, a in enumerate(pat.args))
        return (f"(lambda {f}: {f} is not None and {tests or 'True'})"
                f"({unpack}({value}, {record_tag(pat)!r}, {len(pat.args)}))")

    def ready(self, t) -> bool:
        return {v.name for v in term_vars(t)} <= self.env.keys()

    def assign(self, local: str, t) -> None:
        """``local = t``; an undefined ``t`` skips the instance."""
        if has_division(t):
            expr = self.term(t)          # (a range's loop is emitted before the try)
            self.emit("try:")
            self.emit(f"    {local} = {expr}")
            self.emit("except ZeroDivisionError:")
            self.emit("    continue")
        else:
            self.emit(f"{local} = {self.term(t)}")

    def value(self, t, tag: str) -> str:
        """A Python expression of ``t`` (a local assigned first when ``t`` may be undefined)."""
        if not has_division(t):
            return self.term(t)
        local = self.fresh() + tag
        self.assign(local, t)
        return local

    def fresh(self) -> str:
        return f"x{len(self.lines)}_{self.depth}"


def _check_literals(lits, kinds: dict) -> None:
    """Refuse (``Unsupported``) what the compiler does not cover, aggregate bodies included."""
    for lit in lits:
        if isinstance(lit, AggLit):
            if lit.op not in _AGGREGATES:
                raise Unsupported(f"aggregate {lit.op}")
            _check_literals(lit.body, kinds)
            continue
        if not isinstance(lit, (Atom, NegAtom, Constraint, Test)):
            raise Unsupported(f"literal {type(lit).__name__}")
        if isinstance(lit, Constraint) and lit.op not in _CMP:
            raise Unsupported(f"constraint {lit.op}")
        if isinstance(lit, Constraint) and lit.op not in ("=", "!=") and (
                is_record(lit.left, kinds) or is_record(lit.right, kinds)):
            raise Unsupported("ordering of records")      # refused, located, by to_sql


#: the aggregates compiled here, with ``to_sql._Scope.aggregate``'s semantics (``fsum`` and
#: ``fmean``: ``float_rules.py``'s sum and mean of floats, the functor over the group's keys)
_AGGREGATES = ("count", "sum", "min", "max", "fsum", "fmean")


def rule_versions(rule, rels: set) -> list[tuple]:
    """``[(delta relation or None, version_source)]`` of ``rule`` in the component ``rels``:
    one version per positive atom of the component (it reads the round's delta), or one that
    reads the full relations; ``Unsupported`` located at the rule."""
    atoms = [lit for lit in rule.body if isinstance(lit, Atom)]
    recursive = [k for k, a in enumerate(atoms) if a.rel in rels]
    try:
        return [(None if k is None else atoms[k].rel, version_source(rule, rels, k))
                for k in recursive or [None]]
    except Unsupported as exc:
        exc.loc = exc.loc or rule.loc
        raise


def version_source(rule, rels: set, delta: int | None) -> str:
    """The body of ``def version(D, out, _K)``: the rule with its ``delta``-th positive atom
    reading the rows ``D`` (None: every atom reads the full relations; a round-0 rule), its
    objects read from the run's ``_K`` (``_Made``); the same text for the same rule, ``rels``
    and ``delta`` in every plan."""
    _check_literals(rule.body, rule.kinds)
    code = _Code(rule.kinds)
    code.emit("for _once in _ONE:")
    code.depth += 1

    def head() -> None:
        args = []
        for j, arg in enumerate(rule.head.args):
            if isinstance(arg, Var) and arg.name in code.env:
                args.append(code.env[arg.name])
            else:
                args.append(code.value(arg, f"h{j}"))
        code.emit(f"out(({', '.join(args)}{',' if args else ''}))")
    _conjunction(code, rule.body, rels, delta, head)
    # the objects are made when the version first runs (a version whose delta stays empty
    # never builds its indexes: on a chain most of the dominator-tree walk's)
    fetch = [f"    {name} = _K[{what!r}]" for what, name in code.names.items()]
    return "\n".join(fetch + code.lines)


def _aggregate(code: _Code, lit: AggLit, rels: set) -> None:
    """``result = op target : { body }`` in place, as ``to_sql._Scope.aggregate`` computes it:
    the body's instances for the bound variables collected (``count``/``sum``: the distinct
    tuples of its own variables, the target first; ``min``/``max``: the targets), then the
    value; ``count``/``sum`` of none are 0, ``min``/``max`` of none derive nothing."""
    if lit.target is not None and (symbolic(lit.target, code.kinds)
                                   or is_record(lit.target, code.kinds)):
        raise Unsupported(f"'{lit.op}' of symbols or records")     # refused, located, by to_sql
    acc = code.fresh() + "g"
    depth, env = code.depth, dict(code.env)
    extreme = lit.op in ("min", "max")
    code.emit(f"{acc} = {'[]' if extreme else 'set()'}")
    code.emit("for _once in _ONE:")
    code.depth += 1

    def collect() -> None:
        if extreme:
            code.emit(f"{acc}.append({code.value(lit.target, 't')})")
            return
        elems = [code.value(v, "e") for v in lit.tuple_vars]
        if lit.op != "count":
            elems.insert(0, code.value(lit.target, "t"))
        code.emit(f"{acc}.add(({', '.join(elems)},))")
    _conjunction(code, lit.body, rels, None, collect, inside=True)
    code.depth = depth
    code.env.clear()
    code.env.update(env)
    if extreme:
        code.emit(f"if not {acc}: continue")
        value = f"{lit.op}({acc})"
    elif lit.op == "count":
        value = f"len({acc})"
    elif lit.op == "sum":
        value = wrap_expr(f"sum(_x[0] for _x in {acc})")
    else:       # a float sum (0.0 of none) or mean (of none: nothing), which may be refused
        fn = code.const(("call", lit.op))
        where = code.const(("symbol", str(lit.loc)))
        value = code.fresh() + "s"
        if lit.op == "fmean":
            code.emit(f"if not {acc}: continue")
        code.emit(f"{value} = {fn}([{where}] + [_x[0] for _x in {acc}]) if {acc} else 0")
        code.emit(f"if type({value}) is list: continue")
    if lit.result.name in code.env:     # an atom bound the result first
        code.emit(f"if {code.env[lit.result.name]} != {value}: continue")
    else:
        local = code.env[lit.result.name] = f"v{len(code.env)}"
        code.emit(f"{local} = {value}")


def _conjunction(code: _Code, lits, rels: set, delta: int | None, finish,
                 inside: bool = False) -> None:
    """The loops and tests of the conjunction ``lits`` at ``code``'s depth, then ``finish()``
    innermost. ``delta``: the position of the positive atom reading ``D``; ``inside``: an
    aggregate's body, which may not read the component's own relations."""
    atoms = list(enumerate(lit for lit in lits if isinstance(lit, Atom)))
    if delta is not None:
        atoms.insert(0, atoms.pop(delta))
    if inside and any(a.rel in rels for _, a in atoms):
        raise Unsupported("an aggregate over its own component")
    pending = [lit for lit in lits if isinstance(lit, (Constraint, NegAtom, Test, AggLit))]
    later: list = []                            # (python value, term): atom args not yet ready

    def place() -> None:
        """Emit every pending literal whose variables are bound (bindings by '=' first)."""
        progress = True
        while progress:
            progress = False
            for lit in list(pending):
                if isinstance(lit, Constraint) and lit.op == "=":
                    for var, other in ((lit.left, lit.right), (lit.right, lit.left)):
                        if (isinstance(var, Var) and var.name not in code.env
                                and code.ready(other)):
                            local = f"v{len(code.env)}"
                            code.assign(local, other)
                            code.env[var.name] = local
                        elif pattern(var, code.env) and code.ready(other) and \
                                not pattern(other, code.env):        # unpacking a record
                            code.match(code.value(other, "u"), var, later)
                        else:
                            continue
                        pending.remove(lit)
                        progress = True
                        break
                    if lit not in pending:
                        continue
                if isinstance(lit, AggLit):
                    if aggregate_ready(lit, code.env):
                        _aggregate(code, lit, rels)
                        pending.remove(lit)
                        progress = True
                elif isinstance(lit, Test):
                    if all(code.ready(a) for a in lit.args):
                        test = code.value(Call(lit.name, lit.args, lit.loc), "t")
                        code.emit(f"if {test} != {0 if lit.negated else 1}: continue")
                        pending.remove(lit)
                        progress = True
                elif isinstance(lit, Constraint):
                    if code.ready(lit.left) and code.ready(lit.right):
                        if orders_symbols(lit, code.kinds):   # their texts (to_sql.py)
                            keys = code.const(("keys",))
                            a = f"{keys}[{code.value(lit.left, 'a')}]"
                            b = f"{keys}[{code.value(lit.right, 'b')}]"
                        else:
                            a, b = code.value(lit.left, "a"), code.value(lit.right, "b")
                        code.emit(f"if not ({a} {_CMP[lit.op]} {b}): continue")
                        pending.remove(lit)
                        progress = True
                elif all(code.ready(a) for a in lit.atom.args if not isinstance(a, Wildcard)):
                    positions = tuple(j for j, a in enumerate(lit.atom.args)
                                      if not isinstance(a, Wildcard))
                    if lit.atom.rel in rels:
                        raise Unsupported("negation inside its own component")
                    if any(pattern(a, code.env) for a in lit.atom.args):   # '_' in a record
                        held = code.const(("full", lit.atom.rel))
                        tests = " and ".join(code.test(f"_n[{j}]", a) for j, a in
                                             enumerate(lit.atom.args))
                        code.emit(f"if any({tests} for _n in {held}): continue")
                        pending.remove(lit)
                        progress = True
                        continue
                    vals = []
                    for j in positions:
                        vals.append(code.value(lit.atom.args[j], f"n{j}"))
                    if len(positions) == len(lit.atom.args):
                        # every argument bound: a test of the rows themselves, not of a copy
                        # of them as keys (``!_pre_cav_some_in(f, a, u)``, 69k rows on csmith)
                        held = code.const(("full", lit.atom.rel))
                        code.emit(f"if ({', '.join(vals)},) in {held}: continue")
                    elif positions:
                        keys = code.const(("projection", lit.atom.rel, positions))
                        key = vals[0] if len(vals) == 1 else f"({', '.join(vals)},)"
                        code.emit(f"if {key} in {keys}: continue")
                    else:
                        held = code.const(("full", lit.atom.rel))
                        code.emit(f"if {held}: continue")
                    pending.remove(lit)
                    progress = True
            for item in list(later):
                local, t = item
                if code.ready(t):
                    code.emit(f"if {local} != {code.value(t, 'e')}: continue")
                    later.remove(item)
                    progress = True

    place()
    while atoms:
        # the delta atom first; then the atom with the most arguments bound (all bound: a
        # membership test), in body order among equals
        i, atom = atoms.pop(0 if delta is not None and atoms[0][0] == delta else
                            _most_bound(atoms, code))
        is_delta = delta is not None and i == delta
        bound, binds, checks = [], [], []      # bound: (position, python expr)
        patterns = []                           # (position, record pattern)
        for j, arg in enumerate(atom.args):
            if isinstance(arg, Wildcard):
                continue
            if pattern(arg, code.env):
                patterns.append((j, arg))
            elif isinstance(arg, Var) and arg.name not in code.env:
                first = next((p for p, name in binds if name == arg.name), None)
                if first is not None:
                    checks.append((j, first))
                else:
                    binds.append((j, arg.name))
            elif code.ready(arg):
                bound.append((j, code.value(arg, f"k{j}")))
            else:
                later.append((j, arg))
        row = code.fresh() + "w" if inside else f"r{i}"
        if is_delta:
            code.emit(f"for {row} in D:")
            code.depth += 1
            for j, v in bound:
                code.emit(f"if {row}[{j}] != {v}: continue")
        else:
            positions = tuple(j for j, _ in bound)
            arity = len(atom.args)
            key = bound[0][1] if len(bound) == 1 else f"({', '.join(v for _, v in bound)})"
            if len(positions) == arity and not binds and not patterns:
                names_ = code.const(("full", atom.rel))
                whole = ", ".join(v for _, v in bound)
                code.emit(f"if ({whole},) not in {names_}: continue" if arity else
                          f"if not {names_}: continue")
                row = None
            elif positions and not (binds or checks or patterns) and \
                    not any(isinstance(j, int) for j, _ in later):
                # an atom that binds and checks nothing (its other arguments '_'): a test of
                # its index's keys, not a loop over the rows that match (each would run the rest
                # of the body again for the same bindings: ``rpo(f, a, _)``, ``edge(f, _, b)``)
                keys = code.const(("projection", atom.rel, positions))
                code.emit(f"if {key} not in {keys}: continue")
                row = None
            elif positions and delta is None and not inside and code.depth == 2 and \
                    all(isinstance(atom.args[j], (Num, Str)) for j in positions):
                # the first loop of a rule that runs once, on constants alone: one lookup
                # (``Relations.select``)
                consts = tuple(code.constant(atom.args[j]) for j in positions)
                sel = code.const(("select", atom.rel, positions, consts))
                code.emit(f"for {row} in {sel}:")
                code.depth += 1
            elif positions:
                idx = code.const(("index", atom.rel, positions))
                code.emit(f"for {row} in {idx}.get({key}, ()):")
                code.depth += 1
            else:
                code.emit(f"for {row} in {code.const(('full', atom.rel))}:")
                code.depth += 1
        if binds:
            targets = ["_"] * len(atom.args)
            for j, name in binds:
                targets[j] = code.env[name] = f"v{len(code.env)}"
            if len(binds) * 2 >= len(atom.args):    # unpacking the row beats indexing it
                code.emit(f"{', '.join(targets)}, = {row}")
            else:
                for j, name in binds:
                    code.emit(f"{code.env[name]} = {row}[{j}]")
        for j, p in checks:
            code.emit(f"if {row}[{j}] != {row}[{p}]: continue")
        for j, arg in patterns:
            code.match(f"{row}[{j}]", arg, later)
        for k, (j, arg) in enumerate(list(later)):
            if isinstance(j, int):              # this atom's expression arguments, by column
                later[later.index((j, arg))] = (f"{row}[{j}]", arg)
        place()
    if pending or later:
        raise Unsupported("a literal whose variables are never bound")
    finish()


def _most_bound(atoms: list, code: _Code) -> int:
    """The position in ``atoms`` ((body position, atom) pairs) of the one to join next: the most
    arguments bound (constants, bound variables, expressions of them), all of them first, the
    earliest in the body among equals. The body order is clingo's to choose (it orders joins
    itself); evaluated as written, ``vf_load(f, e), vf_clobber(f, i), ..., vf_load_root(f, e,
    "*")`` built every load-clobber pair of a function before the test of the third atom."""
    best, best_key = 0, None
    for k, (_, atom) in enumerate(atoms):
        args = [a for a in atom.args if not isinstance(a, Wildcard)]
        bound = sum(1 for a in args if code.ready(a))
        key = (bound == len(args), bound)
        if best_key is None or key > best_key:
            best, best_key = k, key
    return best


#: the globals of every version compiled here (the precompiled ones' module has the same)
_GLOBALS = {"_ONE": (0,), "_division": binary}


def version_key(body: str) -> str:
    """The name of a version's source text among the precompiled (``precompiled_versions``)."""
    return hashlib.sha256(body.encode()).hexdigest()[:32]


class CompiledComponent:
    """One component's rules compiled (``compile`` once): each semi-naive version a function
    ``f(D, out, _K)``, the one of ``precompiled_versions`` with its source text when there is
    one (compiled to C when pathlogic was installed), else compiled here. ``bind(store,
    values)`` gives the :class:`Component` of one run."""

    def __init__(self, rels: list[str], rules: list):
        self.rels = list(rels)
        scc = set(rels)
        base: list = []                         # the rules without recursive atoms
        versions: dict[str, list] = {rel: [] for rel in rels}  # delta relation -> versions
        bodies: list[str] = []
        for rule in rules:
            for delta, body in rule_versions(rule, scc):
                (base if delta is None else versions[delta]).append((len(bodies), rule.head.rel))
                bodies.append(body)
        self.base, self.versions = base, versions
        self.keys = [version_key(body) for body in bodies]
        self.code = {}                          # position -> code compiled here
        missing = [i for i, key in enumerate(self.keys) if key not in VERSIONS]
        if missing:
            made: dict = {}
            exec(compile("".join(f"def f{i}(D, out, _K):\n{bodies[i]}\n" for i in missing),
                         "<pathlogic indexed>", "exec"), made)
            self.code = {i: made[f"f{i}"].__code__ for i in missing}
            made.clear()    # its functions' globals: no cycle left for the collector
        self._functions()

    def _functions(self) -> None:
        self.functions = [FunctionType(self.code[i], _GLOBALS) if i in self.code else
                          VERSIONS[key] for i, key in enumerate(self.keys)]

    def __getstate__(self) -> dict:         # code objects do not pickle: marshalled
        state = {k: v for k, v in self.__dict__.items() if k != "functions"}
        return {**state, "code": {i: marshal.dumps(c) for i, c in self.code.items()}}

    def __setstate__(self, state: dict) -> None:
        # a version precompiled now runs precompiled, whatever the build that kept the plan;
        # one that no longer is (a plan of another build, or of an older layout) is a miss
        keys = state.get("keys")
        if keys is None:
            raise ValueError("a plan kept by an older pathlogic: compile it again")
        code = {i: marshal.loads(c) for i, c in state["code"].items() if keys[i] not in VERSIONS}
        if any(key not in VERSIONS for i, key in enumerate(keys) if i not in code):
            raise ValueError("a precompiled version is missing: compile the plan again")
        self.__dict__.update(state, code=code)
        self._functions()

    def bind(self, store: Relations, values) -> "Component":
        """The component over ``store`` and ``values``: its versions' ``_K`` (``_Made``)
        holds the run's objects (no reference cycle: the run's relations are freed when its
        component is, without the collector)."""
        fns = self.functions
        return Component(self.rels, store, [(fns[i], head) for i, head in self.base],
                         {rel: [(fns[i], head) for i, head in versions]
                          for rel, versions in self.versions.items()}, _Made(store, values))


class Component:
    """One recursive component compiled and bound to a run: ``run()`` evaluates it to its
    fixpoint in ``store`` (its relations' rows, starting from those ``store`` already holds) and
    returns the number of rounds. ``compiled(rels, rules, values, store)``: compiled for this
    run alone."""

    def __init__(self, rels: list[str], store: Relations, base: list, versions: dict,
                 made: _Made):
        self.rels, self.store, self.base, self.versions = list(rels), store, base, versions
        self.made = made

    @classmethod
    def compiled(cls, rels: list[str], rules: list, values, store: Relations) -> "Component":
        return CompiledComponent(rels, rules).bind(store, values)

    def run(self) -> int:
        store, rels, made = self.store, self.rels, self.made
        at = {rel: i for i, rel in enumerate(rels)}
        full = [store.full(rel) for rel in rels]
        versions = [[(fn, at[head]) for fn, head in self.versions[rel]] for rel in rels]
        new = [set() for _ in rels]
        for fn, head in self.base:
            fn(None, new[at[head]].add, made)
        delta = [full[i] | new[i] for i in range(len(rels))]
        for i, rel in enumerate(rels):
            store.add(rel, new[i] - full[i])
        rounds = 0
        while any(delta):
            rounds += 1
            new = [set() for _ in rels]
            adds = [s.add for s in new]
            for i, rows in enumerate(delta):
                if rows:
                    for fn, head in versions[i]:
                        fn(rows, adds[head], made)
            for i, fresh in enumerate(new):
                if fresh:
                    fresh -= full[i]
                    if fresh:
                        store.add(rels[i], fresh)
            delta = new
        return rounds
