"""Translation of a CheckedProgram's rules to SQL over DuckDB tables (``duckdb_engine.py``).

One table per relation, ``"r_<name>"`` with columns ``c0..c(n-1)``, all ``INTEGER``
(``values.py``): a symbol is stored as its number in the run's symbol table, a record or ADT
value as its number in the record table, as Soufflé does, an unsigned value biased by -2^31;
joins and ``=``/``!=`` compare numbers (the same rows, faster than strings); an ordering
comparison of symbols compares their texts (``scmp``), one of records is refused. A nullary
relation keeps one constant column ``c0 = 0``. A rule becomes one ``SELECT DISTINCT`` of its
head columns:

- positive atoms are ``FROM`` items (a variable's first occurrence binds it, later ones are
  equalities), negated atoms ``NOT EXISTS`` anti-joins;
- ``x = expr`` binds ``x`` to the expression once its operands are bound (Soufflé's groundedness);
- an aggregate is a ``LATERAL`` subquery correlated on the variables the rest of the body binds:
  ``count``/``sum`` range over the distinct tuples of the aggregate's local variables (and
  wildcard positions), as Soufflé 2.4.1 does (``AggLit.tuple_vars``); ``count``/``sum`` of an
  empty group are 0; ``min``/``max`` of an empty group derive nothing;
- arithmetic is computed in ``BIGINT`` and wrapped to 32 bits after every operation, which is
  what clingo 5.8.3 and Soufflé's default build do (both wrap silently; measured: clingo gives
  ``2147483647 + 1 = -2147483648``); ``/`` and ``%`` truncate toward zero (C), and a division by
  zero makes the expression undefined: the rule derives nothing for that binding, as in clingo
  (an undefined term falsifies even a negated literal). ``-2147483648 / -1`` wraps to
  ``-2147483648`` (clingo crashes with SIGFPE there, Soufflé's C++ is undefined);
- ``band``/``bor``/``bxor``/``bnot`` are SQL's own (exact on 32-bit operands); every other
  functor and operator (``^``, shifts, logical operators, strings, ``contains``/``match``,
  unsigned arithmetic, ``min``/``max`` of symbols) is a DuckDB function calling the clingo
  engine's Python definition (``values.Values.call``, ``functors.py``); ``range`` is a lateral
  ``unnest``; a record or ADT term is packed (``pl_pack``) and a record pattern matched
  field by field (``pl_unpack``, NULL for another branch or ``nil``).

Which tables a body atom reads is the caller's choice (``table_of``), so the engine can build the
semi-naive versions of a recursive rule (one body atom reading the delta table).
"""
from __future__ import annotations

from pylogic.engines.dialect import (AdtTerm, AggLit, Atom, BinOp, Call, Constraint, Neg, NegAtom,
                                     Nil, Num, Record, Str, Test, Var, Wildcard)
from pylogic.engines.numbers import wrap_const, wrap_expr
from pylogic.engines.semantics import Relation, Rule, lit_vars, term_vars
from pylogic.engines.values import NIL, RECORD, SIGNATURES, udf
from pylogic.errors import DatalogError

_CMP = {"=": "=", "!=": "<>", "<": "<", "<=": "<=", ">": ">", ">=": ">="}


def ident(name: str) -> str:
    """A quoted SQL identifier."""
    return '"' + name.replace('"', '""') + '"'


def table_name(rel: str, version: str = "") -> str:
    """The table of relation ``rel`` (``version``: "" the full relation, "delta", "new")."""
    return ident(f"{version}_r_{rel}" if version else f"r_{rel}")


def column_types(rel: Relation) -> list[tuple[str, str]]:
    """``[(column, SQL type)]`` of ``rel``'s table: every kind is a 32-bit integer
    (``values.py``)."""
    return [(f"c{i}", "INTEGER") for i in range(max(rel.arity, 1))]


def _refuse(what: str, node) -> DatalogError:
    """The located error for a construct this translation does not cover (never guessed)."""
    return DatalogError(f"duckdb engine: unsupported construct: {what}", getattr(node, "loc", None))


def create_table(rel: Relation, version: str = "", temp: bool = False) -> str:
    cols = ", ".join(f"{c} {t}" for c, t in column_types(rel))
    return f"CREATE {'TEMP ' if temp else ''}TABLE {table_name(rel.name, version)} ({cols})"


def has_division(term) -> bool:
    """Whether ``term`` holds a ``/`` or ``%`` (its value may be undefined)."""
    if isinstance(term, BinOp):
        return term.op in ("/", "%") or has_division(term.left) or has_division(term.right)
    if isinstance(term, Neg):
        return has_division(term.operand)
    if isinstance(term, (Call, Record, AdtTerm)):
        return any(has_division(a) for a in term.args)
    return False


#: Bit operators computed natively: on sign-extended 32-bit operands the result is already the
#: 32-bit one (clingo also computes these natively, ``to_clingo._OPS``).
BITS = {"band": "&", "bor": "|", "bxor": "^"}
_SQL_BITS = {"band": "({} & {})", "bor": "({} | {})", "bxor": "xor({}, {})"}


def symbolic(t, kinds: dict) -> bool:
    """Whether ``t`` is a symbol (``min``/``max`` then order the text, as ``functors.py``)."""
    if isinstance(t, Str):
        return True
    if isinstance(t, Var):
        return kinds.get(t.name) == "symbol"
    if isinstance(t, Call):
        if t.name in ("min", "max"):
            return any(symbolic(a, kinds) for a in t.args)
        return SIGNATURES.get(t.name, ((), ""))[1] == "symbol"
    return False


def orders_symbols(lit: Constraint, kinds: dict) -> bool:
    """Whether ``lit`` is ``<``/``<=``/``>``/``>=`` of symbols: their numbers here are the order
    they were met in, so the texts are compared (``scmp``: Soufflé's order, ``functors.py``)."""
    return lit.op not in ("=", "!=") and (symbolic(lit.left, kinds) or symbolic(lit.right, kinds))


def is_record(t, kinds: dict) -> bool:
    """Whether ``t`` is a record or ADT value (a number in the record table)."""
    if isinstance(t, Var):
        return (kinds.get(t.name) or "").startswith(("record:", "adt:"))
    return isinstance(t, (Record, Nil, AdtTerm))


def pattern(t, bound) -> bool:
    """Whether ``t`` is a record or ADT term that binds variables or holds ``_`` (a pattern to
    match against a value, not a value to build)."""
    if not isinstance(t, (Record, AdtTerm)):
        return False
    return any(isinstance(a, Wildcard) or pattern(a, bound) for a in t.args) or \
        any(v.name not in bound for v in term_vars(t))


def record_tag(t) -> str:
    """The key tag of a record or ADT term in the record table (``values.py``)."""
    return RECORD if isinstance(t, Record) else "$" + t.branch


class _Scope:
    """The SQL of one conjunction: ``FROM`` items, ``WHERE`` conditions and where each variable's
    value is (``env``: variable name -> SQL expression)."""

    def __init__(self, env: dict[str, str], prefix: str, counter: list, values, kinds: dict):
        self.env = dict(env)
        self.values = values    # values.Values: symbols and records interned
        self.kinds = kinds      # the rule's variable kinds (Rule.kinds)
        self.froms: list[str] = []
        self.conds: list[str] = []
        self.prefix = prefix
        self.counter = counter  # shared across nested scopes: unique aliases

    def alias(self, kind: str) -> str:
        self.counter[0] += 1
        return f"{self.prefix}{kind}{self.counter[0]}"

    # -- terms
    def call(self, name: str, args) -> str:
        """A functor computed by ``functors.py`` (a Python function registered in DuckDB)."""
        items = ", ".join(f"CAST({self.term(a)} AS BIGINT)" for a in args)
        return f"{udf(name)}(list_value({items}))"

    def term(self, t) -> str:
        """SQL of a ground term: a symbol's number, BIGINT arithmetic, or a column."""
        if isinstance(t, Var):
            if t.name not in self.env:
                raise DatalogError(f"duckdb engine: cannot order the body so that '{t.name}' is "
                                   "bound before it is used (unsupported)", t.loc)
            return self.env[t.name]
        if isinstance(t, Num):
            return f"CAST({wrap_const(t.value)} AS BIGINT)"
        if isinstance(t, Str):
            return str(self.values.intern(t.value))
        if isinstance(t, BinOp):
            if t.op in SIGNATURES:
                return self.call(t.op, (t.left, t.right))
            if t.op not in ("+", "-", "*", "/", "%") and t.op not in BITS:
                raise _refuse(f"operator '{t.op}'", t)
            left = f"CAST({self.term(t.left)} AS BIGINT)"
            right = f"CAST({self.term(t.right)} AS BIGINT)"
            if t.op in BITS:
                return _SQL_BITS[t.op].format(left, right)
            if t.op == "/":
                return wrap_expr(f"{left} // NULLIF({right}, 0)")
            if t.op == "%":
                return f"({left} % NULLIF({right}, 0))"
            return wrap_expr(f"{left} {t.op} {right}")
        if isinstance(t, Neg):
            return wrap_expr(f"-CAST({self.term(t.operand)} AS BIGINT)")
        if isinstance(t, Call):
            if t.name == "bnot":
                return f"(~CAST({self.term(t.args[0])} AS BIGINT))"
            if t.name in ("min", "max"):
                if symbolic(t, self.kinds):
                    return self.call("s" + t.name, t.args)
                items = ", ".join(f"CAST({self.term(a)} AS BIGINT)" for a in t.args)
                return f"{'least' if t.name == 'min' else 'greatest'}({items})"
            if t.name in ("range", "frange", "urange"):     # one value per element: a lateral join
                a = self.alias("r")
                self.froms.append(f"LATERAL (SELECT unnest({self.call(t.name, t.args)}) AS v) "
                                  f"AS {a}")
                return f"{a}.v"
            if t.name in SIGNATURES:
                return self.call(t.name, t.args)
            raise _refuse(f"functor '{t.name}'", t)
        if isinstance(t, Nil):
            return str(self.values.pack(NIL))
        if isinstance(t, (Record, AdtTerm)):
            items = ", ".join(f"CAST({self.term(a)} AS BIGINT)" for a in t.args)
            return f"pl_pack('{record_tag(t)}', list_value({items}))" if t.args else \
                str(self.values.pack((record_tag(t),)))
        raise _refuse(f"term {type(t).__name__}", t)

    def match(self, value: str, pat, later: list) -> None:
        """Match the SQL value ``value`` against the term ``pat``: bind its unbound variables,
        test the rest; a part not ground yet goes to ``later`` as (value, term)."""
        if isinstance(pat, Wildcard):
            return
        if isinstance(pat, Var) and pat.name not in self.env:
            self.env[pat.name] = value
        elif pattern(pat, self.env):
            fields = f"{udf('unpack')}({value}, '{record_tag(pat)}', {len(pat.args)})"
            self.conds.append(f"{fields} IS NOT NULL")
            for i, a in enumerate(pat.args):
                self.match(f"({fields})[{i + 1}]", a, later)
        elif self.ready(pat):
            self.conds.append(f"{value} = {self.defined(pat)}")
        else:
            later.append((value, pat))

    def defined(self, t) -> str:
        """SQL of ``t``; a term with a division also conditions the body on being defined."""
        sql = self.term(t)
        if has_division(t):
            self.conds.append(f"({sql}) IS NOT NULL")
        return sql

    def ready(self, t) -> bool:
        return all(v.name in self.env for v in term_vars(t))

    # -- the body
    def conjunction(self, lits, table_of, first: int | None = None) -> None:
        """Add ``lits`` (normalized literals) to this scope. ``table_of(i, atom)``: the table the
        ``i``-th positive atom of ``lits`` reads; ``first``: the atom joined first (a semi-naive
        version starts from its delta, as Soufflé's plans do), the others in body order."""
        later = []  # (column, term): atom arguments that are expressions, checked once bound
        for lit in lits:
            if not isinstance(lit, (Atom, NegAtom, Constraint, AggLit, Test)):
                raise _refuse(f"literal {type(lit).__name__}", lit)
            if isinstance(lit, Constraint) and lit.op not in _CMP:
                raise _refuse(f"constraint '{lit.op}'", lit)
            if isinstance(lit, Constraint) and lit.op not in ("=", "!=") and (
                    is_record(lit.left, self.kinds) or is_record(lit.right, self.kinds)):
                raise _refuse(f"ordering comparison '{lit.op}' on records (Soufflé compares "
                              "their numbers in its record table, which depend on its "
                              "evaluation order)", lit)
            if isinstance(lit, AggLit) and lit.op not in ("count", "sum", "min", "max", "fsum",
                                                          "fmean"):
                raise _refuse(f"aggregate '{lit.op}'", lit)
        atoms = list(enumerate(lit for lit in lits if isinstance(lit, Atom)))
        if first is not None:
            atoms.insert(0, atoms.pop(first))
        for i, atom in atoms:
            a = self.alias("t")
            self.froms.append(f"{table_of(i, atom)} AS {a}")
            for j, arg in enumerate(atom.args):
                col = f"{a}.c{j}"
                if isinstance(arg, Wildcard):
                    continue
                if isinstance(arg, Var):
                    if arg.name in self.env:
                        self.conds.append(f"{col} = {self.env[arg.name]}")
                    else:
                        self.env[arg.name] = col
                elif isinstance(arg, Str):
                    self.conds.append(f"{col} = {self.values.intern(arg.value)}")
                elif isinstance(arg, Num):
                    self.conds.append(f"{col} = {wrap_const(arg.value)}")
                elif pattern(arg, self.env):
                    self.match(col, arg, later)
                else:
                    later.append((col, arg))
        pending = [lit for lit in lits if isinstance(lit, (Constraint, AggLit, Test))]
        progress = True
        while progress:  # bind variables through '=' and aggregates, in dependency order
            progress = False
            for lit in list(pending):
                if isinstance(lit, Constraint) and lit.op == "=":
                    for var, other in ((lit.left, lit.right), (lit.right, lit.left)):
                        if isinstance(var, Var) and var.name not in self.env and self.ready(other):
                            self.env[var.name] = self.defined(other)
                        elif pattern(var, self.env) and self.ready(other) and \
                                not pattern(other, self.env):        # unpacking a record
                            self.match(self.defined(other), var, later)
                        else:
                            continue
                        pending.remove(lit)
                        progress = True
                        break
                elif isinstance(lit, AggLit) and aggregate_ready(lit, self.env):
                    self.aggregate(lit)
                    pending.remove(lit)
                    progress = True
        for lit in pending:
            if isinstance(lit, AggLit):
                raise DatalogError("duckdb engine: aggregate whose outer variables are never "
                                   "bound (unsupported)", lit.loc)
            if isinstance(lit, Test):   # 1 holds, 0 does not, -1 neither (a bad pattern)
                self.conds.append(f"{self.call(lit.name, lit.args)} = "
                                  f"{0 if lit.negated else 1}")
                continue
            if orders_symbols(lit, self.kinds):
                self.conds.append(f"{self.call('scmp', (lit.left, lit.right))} {_CMP[lit.op]} 0")
                continue
            self.conds.append(f"{self.term(lit.left)} {_CMP[lit.op]} {self.term(lit.right)}")
        for col, arg in later:
            if pattern(arg, self.env):
                raise _refuse("a record pattern whose variables are never bound", arg)
            self.conds.append(f"{col} = {self.term(arg)}")
        for lit in lits:
            if isinstance(lit, NegAtom):
                self.negation(lit.atom, table_of)

    def negation(self, atom: Atom, table_of) -> None:
        a = self.alias("n")
        conds = []
        for j, arg in enumerate(atom.args):
            if pattern(arg, self.env):     # a record with '_' inside: the subquery matches it
                inner = _Scope(self.env, self.prefix, self.counter, self.values, self.kinds)
                inner.match(f"{a}.c{j}", arg, [])
                conds += inner.conds
            elif not isinstance(arg, Wildcard):
                conds.append(f"{a}.c{j} = {self.defined(arg)}")
        where = f" WHERE {' AND '.join(conds)}" if conds else ""
        self.conds.append(f"NOT EXISTS (SELECT 1 FROM {table_of(None, atom)} AS {a}{where})")

    def aggregate(self, lit: AggLit) -> None:
        """``result = op target : { body }`` as a LATERAL subquery (see the module docstring)."""
        if lit.target is not None and (symbolic(lit.target, self.kinds) or is_record(
                lit.target, self.kinds)):
            raise _refuse(f"'{lit.op}' of symbols or records (their numbers here are the order "
                          "they were met in, not Soufflé's order)", lit)
        inner = _Scope(self.env, self.prefix + "a", self.counter, self.values, self.kinds)
        inner.conjunction(lit.body, lambda i, atom: table_name(atom.rel))
        a = self.alias("g")
        if lit.op in ("count", "sum", "fsum", "fmean"):   # the terms first: a range() adds a
            elems = [inner.term(v) for v in lit.tuple_vars]   # FROM item
            if lit.op != "count":
                elems.insert(0, inner.term(lit.target))
        else:
            target = inner.term(lit.target)
        frm = f" FROM {', '.join(inner.froms)}" if inner.froms else ""
        where = f" WHERE {' AND '.join(inner.conds)}" if inner.conds else ""
        if lit.op in ("count", "sum", "fsum", "fmean"):
            cols = ", ".join(f"{e} AS x{k}" for k, e in enumerate(elems))
            value = "count(*)" if lit.op == "count" else wrap_expr("coalesce(sum(x0), 0)") \
                if lit.op == "sum" else self.float_sum(lit)
            sub = f"SELECT {value} AS v FROM (SELECT DISTINCT {cols}{frm}{where}) AS {a}_d"
        else:   # the target a column of its own (a target of outer columns only, as a
            # witness's copy makes it, is no aggregate of the outer query's rows)
            sub = f"SELECT {lit.op}(x0) AS v FROM (SELECT {target} AS x0{frm}{where}) AS {a}_d"
        self.froms.append(f"LATERAL ({sub}) AS {a}")
        if lit.result.name in self.env:   # B(id, max s : {..}): an atom bound the result first
            self.conds.append(f"{self.env[lit.result.name]} = {a}.v")
        else:
            self.env[lit.result.name] = f"{a}.v"
        if lit.op in ("min", "max", "fmean"):
            self.conds.append(f"{a}.v IS NOT NULL")

    def float_sum(self, lit: AggLit) -> str:
        """``sum``/``mean`` of floats over the distinct rows ``x0`` (their keys), ...: the
        functor gets the aggregate's location, then the keys (``floats.summary``); no row: 0.0
        or no value, as in Soufflé."""
        where = self.values.intern(str(lit.loc))
        empty = "0" if lit.op == "fsum" else "NULL"
        return (f"CASE WHEN count(*) = 0 THEN {empty} ELSE {udf(lit.op)}("
                f"list_prepend(CAST({where} AS BIGINT), list(CAST(x0 AS BIGINT)))) END")


def aggregate_ready(lit: AggLit, bound) -> bool:
    """Every variable of the aggregate's body and target but its own is in ``bound`` (the
    aggregate can be evaluated there: here and ``indexed._aggregate``)."""
    local = {v.name for v in lit.tuple_vars if isinstance(v, Var)}
    inner = {v.name for b in lit.body for v in lit_vars(b)}
    if lit.target is not None:
        inner |= {v.name for v in term_vars(lit.target)}
    return inner - local <= bound.keys()


def rule_select(rule: Rule, relation: Relation, table_of, values,
                first: int | None = None) -> str:
    """``SELECT DISTINCT`` of ``rule``'s head tuples, its body atoms read from ``table_of(i,
    atom)`` (``i``: position among the rule's positive atoms; None for a negated atom);
    ``values``: the run's ``values.Values`` (symbols and records interned); ``first``: the atom
    joined first. The engine disables DuckDB's join reordering, so atoms are joined in this
    order (as Soufflé does)."""
    scope = _Scope({}, "", [0], values, rule.kinds)
    scope.conjunction(rule.body, table_of, first)
    cols, types = [], column_types(relation)
    for j, arg in enumerate(rule.head.args):
        sql = scope.defined(arg)
        cols.append(f"CAST({sql} AS {types[j][1]}) AS c{j}")
    if not cols:
        cols = ["0 AS c0"]
    frm = f" FROM {', '.join(scope.froms)}" if scope.froms else ""
    where = f" WHERE {' AND '.join(scope.conds)}" if scope.conds else ""
    return f"SELECT DISTINCT {', '.join(cols)}{frm}{where}"
