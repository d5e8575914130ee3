"""Translation of a CheckedProgram's rules to SQL over DuckDB tables (``duckdb_engine.py``).

One table per relation, ``"r_<name>"`` with columns ``c0..c(n-1)``, all ``INTEGER``: a symbol
is stored as its number in the run's symbol table (``intern``), as Soufflé does; symbols are
only compared with ``=``/``!=`` (the checker refuses ordering on symbols), so joins on numbers
give the same rows, and are faster than on strings. A nullary relation keeps one constant
column ``c0 = 0``. A
rule becomes one ``SELECT DISTINCT`` of its head columns:

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
  ``-2147483648`` (clingo crashes with SIGFPE there, Soufflé's C++ is undefined).

Which tables a body atom reads is the caller's choice (``table_of``), so the engine can build the
semi-naive versions of a recursive rule (one body atom reading the delta table).
"""
from __future__ import annotations

from pylogic.engines.dialect import (AggLit, Atom, BinOp, Constraint, Neg, NegAtom, Num, Str, Var,
                                     Wildcard)
from pylogic.engines.semantics import Relation, Rule, lit_vars, term_vars
from pylogic.errors import DatalogError

_CMP = {"=": "=", "!=": "<>", "<": "<", "<=": "<=", ">": ">", ">=": ">="}
_SQL_TYPE = {"number": "INTEGER", "symbol": "INTEGER"}  # symbols interned


def ident(name: str) -> str:
    """A quoted SQL identifier."""
    return '"' + name.replace('"', '""') + '"'


def table_name(rel: str, version: str = "") -> str:
    """The table of relation ``rel`` (``version``: "" the full relation, "delta", "new")."""
    return ident(f"{version}_r_{rel}" if version else f"r_{rel}")


def column_types(rel: Relation) -> list[tuple[str, str]]:
    """``[(column, SQL type)]`` of ``rel``'s table.

    Raises
    ------
    DatalogError
        At the relation's declaration, for a column kind other than number and symbol.
    """
    if not rel.arity:
        return [("c0", "INTEGER")]
    for k in rel.kinds:
        if k not in _SQL_TYPE:
            raise DatalogError(f"duckdb engine: unsupported construct: {k} column of "
                               f"'{rel.name}' (the duckdb engine has number and symbol)", rel.loc)
    return [(f"c{i}", _SQL_TYPE[k]) for i, k in enumerate(rel.kinds)]


def _refuse(what: str, node) -> DatalogError:
    """The located error for a construct this translation does not cover (never guessed)."""
    return DatalogError(f"duckdb engine: unsupported construct: {what}", getattr(node, "loc", None))


def create_table(rel: Relation, version: str = "", temp: bool = False) -> str:
    cols = ", ".join(f"{c} {t}" for c, t in column_types(rel))
    return f"CREATE {'TEMP ' if temp else ''}TABLE {table_name(rel.name, version)} ({cols})"


def wrap_expr(expr: str) -> str:
    """``expr`` (BIGINT) wrapped to the signed 32-bit range (two's complement); the text is
    also a Python expression (``indexed.py``'s compiled rules)."""
    return f"((({expr}) + 2147483648) & 4294967295) - 2147483648"


def wrap_const(value: int) -> int:
    """A constant wrapped to 32 bits: the parser folds ``-(-2147483648)`` to 2147483648, which
    clingo wraps to -2147483648 (measured)."""
    return (value + 2 ** 31) % 2 ** 32 - 2 ** 31


def has_division(term) -> bool:
    if isinstance(term, BinOp):
        return term.op in ("/", "%") or has_division(term.left) or has_division(term.right)
    if isinstance(term, Neg):
        return has_division(term.operand)
    return False


class _Scope:
    """The SQL of one conjunction: ``FROM`` items, ``WHERE`` conditions and where each variable's
    value is (``env``: variable name -> SQL expression)."""

    def __init__(self, env: dict[str, str], prefix: str, counter: list, intern):
        self.env = dict(env)
        self.intern = intern  # symbol -> its number in the run's symbol table
        self.froms: list[str] = []
        self.conds: list[str] = []
        self.prefix = prefix
        self.counter = counter  # shared across nested scopes: unique aliases

    def alias(self, kind: str) -> str:
        self.counter[0] += 1
        return f"{self.prefix}{kind}{self.counter[0]}"

    # -- terms
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
            return str(self.intern(t.value))
        if isinstance(t, BinOp):
            if t.op not in ("+", "-", "*", "/", "%"):
                raise _refuse(f"operator '{t.op}'", t)
            left = f"CAST({self.term(t.left)} AS BIGINT)"
            right = f"CAST({self.term(t.right)} AS BIGINT)"
            if t.op == "/":
                return wrap_expr(f"{left} // NULLIF({right}, 0)")
            if t.op == "%":
                return f"({left} % NULLIF({right}, 0))"
            return wrap_expr(f"{left} {t.op} {right}")
        if isinstance(t, Neg):
            return wrap_expr(f"-CAST({self.term(t.operand)} AS BIGINT)")
        raise _refuse(f"term {type(t).__name__}", t)

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
            if not isinstance(lit, (Atom, NegAtom, Constraint, AggLit)):
                raise _refuse(f"literal {type(lit).__name__}", lit)
            if isinstance(lit, Constraint) and lit.op not in _CMP:
                raise _refuse(f"constraint '{lit.op}'", lit)
            if isinstance(lit, AggLit) and lit.op not in ("count", "sum", "min", "max"):
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
                    self.conds.append(f"{col} = {self.intern(arg.value)}")
                elif isinstance(arg, Num):
                    self.conds.append(f"{col} = {wrap_const(arg.value)}")
                else:
                    later.append((col, arg))
        pending = [lit for lit in lits if isinstance(lit, (Constraint, AggLit))]
        progress = True
        while progress:  # bind variables through '=' and aggregates, in dependency order
            progress = False
            for lit in list(pending):
                if isinstance(lit, Constraint) and lit.op == "=":
                    for var, other in ((lit.left, lit.right), (lit.right, lit.left)):
                        if isinstance(var, Var) and var.name not in self.env and self.ready(other):
                            self.env[var.name] = self.defined(other)
                            pending.remove(lit)
                            progress = True
                            break
                elif isinstance(lit, AggLit) and self._aggregate_ready(lit):
                    self.aggregate(lit)
                    pending.remove(lit)
                    progress = True
        for lit in pending:
            if isinstance(lit, AggLit):
                raise DatalogError("duckdb engine: aggregate whose outer variables are never "
                                   "bound (unsupported)", lit.loc)
            self.conds.append(f"{self.term(lit.left)} {_CMP[lit.op]} {self.term(lit.right)}")
        for col, arg in later:
            self.conds.append(f"{col} = {self.term(arg)}")
        for lit in lits:
            if isinstance(lit, NegAtom):
                self.negation(lit.atom, table_of)

    def negation(self, atom: Atom, table_of) -> None:
        a = self.alias("n")
        conds = []
        for j, arg in enumerate(atom.args):
            if not isinstance(arg, Wildcard):
                conds.append(f"{a}.c{j} = {self.defined(arg)}")
        where = f" WHERE {' AND '.join(conds)}" if conds else ""
        self.conds.append(f"NOT EXISTS (SELECT 1 FROM {table_of(None, atom)} AS {a}{where})")

    def _aggregate_ready(self, lit: AggLit) -> bool:
        local = {v.name for v in lit.tuple_vars if isinstance(v, Var)}
        inner = {v.name for b in lit.body for v in lit_vars(b)}
        if lit.target is not None:
            inner |= {v.name for v in term_vars(lit.target)}
        return all(n in self.env for n in inner - local)

    def aggregate(self, lit: AggLit) -> None:
        """``result = op target : { body }`` as a LATERAL subquery (see the module docstring)."""
        inner = _Scope(self.env, self.prefix + "a", self.counter, self.intern)
        inner.conjunction(lit.body, lambda i, atom: table_name(atom.rel))
        frm = f" FROM {', '.join(inner.froms)}" if inner.froms else ""
        where = f" WHERE {' AND '.join(inner.conds)}" if inner.conds else ""
        a = self.alias("g")
        if lit.op in ("count", "sum"):
            elems = [inner.term(v) for v in lit.tuple_vars]
            if lit.op == "sum":
                elems.insert(0, inner.term(lit.target))
            cols = ", ".join(f"{e} AS x{k}" for k, e in enumerate(elems))
            value = "count(*)" if lit.op == "count" else wrap_expr("coalesce(sum(x0), 0)")
            sub = f"SELECT {value} AS v FROM (SELECT DISTINCT {cols}{frm}{where}) AS {a}_d"
        else:
            sub = f"SELECT {lit.op}({inner.term(lit.target)}) AS v{frm}{where}"
        self.froms.append(f"LATERAL ({sub}) AS {a}")
        self.env[lit.result.name] = f"{a}.v"
        if lit.op in ("min", "max"):
            self.conds.append(f"{a}.v IS NOT NULL")


def rule_select(rule: Rule, relation: Relation, table_of, intern,
                first: int | None = None) -> str:
    """``SELECT DISTINCT`` of ``rule``'s head tuples, its body atoms read from ``table_of(i,
    atom)`` (``i``: position among the rule's positive atoms; None for a negated atom);
    ``intern(symbol)``: the symbol's number; ``first``: the atom joined first. The engine
    disables DuckDB's join reordering, so atoms are joined in this order (as Soufflé does)."""
    scope = _Scope({}, "", [0], intern)
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
