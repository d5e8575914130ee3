"""The second embedded engine: a CheckedProgram's strata evaluated as SQL in DuckDB (``to_sql.py``
translates the rules). Symbols and records are interned (one number each, as in Soufflé:
``values.py``); the functors are the clingo engine's Python functions; input facts are
bulk-loaded through DuckDB's CSV reader; each stratum is evaluated bottom-up to its fixpoint:

- a non-recursive relation: one ``INSERT`` of the union of its rules;
- a recursive component: by default in process (``indexed.py``): semi-naive rounds over hash
  indexes, tuple at a time, so a round costs its delta; its rows are written to its tables only
  when a later SQL statement reads them. A component that does not compile there (an aggregate
  in a recursive rule) goes to SQL:
- ``RECURSION = "cte"``: one ``WITH RECURSIVE ... UNION`` query over a tagged union of its
  relations, which DuckDB iterates inside the engine on the working table (the semi-naive delta).
  A rule with several recursive atoms (non-linear) needs the whole relation besides the delta:
  DuckDB's ``USING KEY`` CTE and its ``recurring.`` table (DuckDB >= 1.3);
- ``RECURSION = "loop"``: semi-naive rounds driven from Python instead (delta tables, one set of
  statements per round), kept as a third strategy.

Why in process (issue #32 item 3, profiled with DuckDB's JSON profile): a DuckDB round costs in
proportion to the whole relations it joins (hash joins rebuild or rescan their full sides; there
are no index joins), and the dominator-tree walk of lib/dominator_tree.dl needs about one round
per block (843 rounds on a 1,000-block CFG with irreducible regions): the CTE took 13.5 s there
against clingo's 0.69 s, 18.7 M rows read from its recurring table, and the per-round loop 139 s.
Every statement also has a fixed planning cost (1-6 ms here), which dominates small inputs.

Registered as "duckdb" (after clingo: "auto" keeps clingo as the embedded default).
"""
from __future__ import annotations

import csv
import os
import tempfile
from pathlib import Path

from pylogic.engines.base import register
from pylogic.engines.dialect import (AdtTerm, AggLit, Atom, BinOp, Call, Constraint, NegAtom,
                                     Record, Test)
from pylogic.engines.functors import refusal
from pylogic.engines.indexed import Component, Relations, Unsupported
from pylogic.engines.program import CheckedProgram
from pylogic.engines.relevance import needed_relations
from pylogic.engines.rows import sort_rows
from pylogic.engines.semantics import rules_by_head
from pylogic.engines.run import load_inputs
from pylogic.engines.to_sql import (column_types, create_table, orders_symbols, rule_select,
                                    table_name)
from pylogic.engines.values import SIGNATURES, Values, udf
from pylogic.collector import collector_paused
from pylogic.errors import DatalogError, SourceLoc

try:
    import duckdb
except ImportError:  # not installed: the engine reports itself unavailable
    duckdb = None


def _used(node, out: set, kinds: dict | None = None) -> set:
    """The functors (``values.SIGNATURES`` names) and record terms ``node`` holds (``kinds``:
    the variable kinds of the rule it is in)."""
    kinds = getattr(node, "kinds", kinds)
    if isinstance(node, Constraint) and orders_symbols(node, kinds or {}):
        out.add("scmp")
    if isinstance(node, (BinOp, Call, Test)):
        name = node.op if isinstance(node, BinOp) else node.name
        out.update({"smin", "smax"} if name in ("min", "max") else {name})
    elif isinstance(node, AggLit) and node.op in ("fsum", "fmean"):
        out.add(node.op)
    elif isinstance(node, (Record, AdtTerm)):
        out.add("pack")
    if isinstance(node, (list, tuple)):
        for x in node:
            _used(x, out, kinds)
    elif hasattr(node, "__dataclass_fields__"):
        for name in node.__dataclass_fields__:
            if name not in ("loc", "kinds"):
                _used(getattr(node, name), out, kinds)
    return out


def _register(con, values: Values, rules) -> None:
    """The DuckDB functions ``to_sql`` calls for ``rules``: each functor
    (``values.SIGNATURES``, the clingo engine's Python definitions) and the record table's
    ``pl_pack``/``pl_unpack`` (registering all of them costs ~6 ms a run, measured: only those
    the rules use). A NULL argument (an undefined value) gives NULL."""
    used = _used(rules, set())
    special = "special"   # the functions see NULL arguments and may give NULL

    def functor(name):
        def fn(args):
            return None if args is None else values.call(name)(args)
        return fn

    for name in sorted(used & SIGNATURES.keys()):
        con.create_function(udf(name), functor(name), ["BIGINT[]"],
                            "BIGINT[]" if name in ("range", "frange", "urange") else "BIGINT",
                            null_handling=special)

    def pack(tag, fields):
        return None if fields is None or None in fields else values.pack((tag, *fields))

    def unpack(n, tag, arity):
        fields = None if n is None else values.unpack(n, tag, arity)
        return None if fields is None else list(fields)

    if "pack" not in used:
        return
    con.create_function(udf("pack"), pack, ["VARCHAR", "BIGINT[]"], "BIGINT",
                        null_handling=special)
    con.create_function(udf("unpack"), unpack, ["BIGINT", "VARCHAR", "INTEGER"], "BIGINT[]",
                        null_handling=special)


def _load(con, checked: CheckedProgram, rel: str, rows: list, tmpdir: str,
          values: Values) -> None:
    """Bulk-load ``rows`` into ``rel``'s table through a CSV file (as stored: ``values.py``)."""
    relation = checked.relations[rel]
    if not rows:
        return
    if not relation.arity:
        con.execute(f"INSERT INTO {table_name(rel)} VALUES (0)")
        return
    path = os.path.join(tmpdir, f"{len(os.listdir(tmpdir))}.csv")
    with open(path, "w", newline="", encoding="utf-8") as fh:
        csv.writer(fh, lineterminator="\n").writerows(values.encode(relation.kinds, rows))
    columns = "{" + ", ".join(f"'{c}': '{t}'" for c, t in column_types(relation)) + "}"
    con.execute(f"INSERT INTO {table_name(rel)} SELECT * FROM read_csv(?, header = false, "
                f"delim = ',', new_line = '\\n', auto_detect = false, columns = {columns})",
                [path])
    os.unlink(path)


def _positive_atoms(rule) -> list[Atom]:
    return [lit for lit in rule.body if isinstance(lit, Atom)]


def _full(i, atom) -> str:
    return table_name(atom.rel)


def _union(selects: list[str]) -> str:
    return " UNION ".join(f"({s})" for s in selects)


def _insert_new(con, rel: str, selects: list[str]) -> int:
    """Add to ``rel`` what the ``selects`` derive and it does not hold yet; returns how many rows
    were added."""
    return con.execute(f"INSERT INTO {table_name(rel)} ({_union(selects)}) EXCEPT "
                       f"SELECT * FROM {table_name(rel)}").fetchone()[0]


def _recursive_cte(con, checked: CheckedProgram, rels: list[str], rules: list,
                   values) -> None:
    """A recursive component as one ``WITH RECURSIVE`` query over a tagged union of its relations
    (a column ``tag`` names the relation; its columns first, NULL after them).
    The working table is the semi-naive delta; a rule with several recursive atoms (non-linear,
    e.g. the dominator-tree walk) has one version per recursive atom, that atom reading the
    delta and the others the whole relation so far (DuckDB's ``USING KEY`` CTE with
    ``recurring.``, DuckDB >= 1.3). DuckDB iterates inside the engine: no statement per round."""
    scc = {rel: k for k, rel in enumerate(rels)}
    # every column is INTEGER (symbols and records interned), so the relations share the columns c0..c(w-1)
    # of the union: its width is the largest arity, not the sum (DuckDB's USING KEY CTE copies
    # its whole table each iteration, so width is time)
    width = max(len(column_types(checked.relations[rel])) for rel in rels)
    work = '"_w"'

    def tagged(rel: str, select: str) -> str:
        n = len(column_types(checked.relations[rel]))
        cols = [f"_x.c{i} AS c{i}" if i < n else f"CAST(NULL AS INTEGER) AS c{i}"
                for i in range(width)]
        return f"SELECT {scc[rel]} AS tag, {', '.join(cols)} FROM ({select}) AS _x"

    def part(rel: str, source: str) -> str:
        cols = ", ".join(f"c{i}" for i in range(len(column_types(checked.relations[rel]))))
        return f"(SELECT {cols} FROM {source} WHERE tag = {scc[rel]})"

    base = [tagged(rel, f"SELECT * FROM {table_name(rel)}") for rel in rels]
    step, whole = [], set()  # whole: relations some version reads in full

    def table_of(k):
        def of(i, atom):
            if i == k:
                return part(atom.rel, work)
            if atom.rel in scc:
                whole.add(atom.rel)
                return part(atom.rel, '"_r"')
            return table_name(atom.rel)
        return of

    for rule in rules:
        relation = checked.relations[rule.head.rel]
        recursive = [i for i, a in enumerate(_positive_atoms(rule)) if a.rel in scc]
        if not recursive:
            base.append(tagged(rule.head.rel, rule_select(rule, relation, _full, values)))
        for k in recursive:  # version k: the k-th positive atom reads the delta
            step.append(tagged(rule.head.rel, rule_select(rule, relation, table_of(k), values,
                                                          first=k)))
    names = ", ".join(["tag"] + [f"c{i}" for i in range(width)])
    key, steps = "", _union(step)
    if whole:  # non-linear: the whole relation so far, materialized once per iteration
        key = f" USING KEY ({names})"  # (measured: 0.73 s instead of 6.6 s, 500-block loop,
        # against reading recurring at each use; per relation: 5.5 s, under load)
        steps = (f'WITH "_r" AS MATERIALIZED (SELECT * FROM recurring.{work}) '
                 f"SELECT * FROM ({steps})")
    con.execute(f"CREATE TEMP TABLE _fix AS WITH RECURSIVE {work}({names}){key} AS "
                f"({_union(base)} UNION SELECT * FROM ({steps})) SELECT * FROM {work}")
    for rel in rels:
        con.execute(f"DELETE FROM {table_name(rel)}")
        con.execute(f"INSERT INTO {table_name(rel)} SELECT * FROM {part(rel, '_fix')}")
    con.execute("DROP TABLE _fix")


#: How recursive components are evaluated: "indexed" (in process over hash indexes,
#: ``indexed.py``; a component it does not compile goes to "cte"), "cte" (one WITH RECURSIVE
#: query each) or "loop" (semi-naive rounds driven from Python: one set of statements per round).
RECURSION = os.environ.get("PATHLOGIC_DUCKDB_RECURSION", "indexed")

#: Join atoms in body order (a semi-naive version from its delta atom), as Soufflé does, with
#: DuckDB's join-order optimizer off; False: DuckDB reorders joins by its estimates.
JOIN_IN_BODY_ORDER = os.environ.get("PATHLOGIC_DUCKDB_JOIN_ORDER", "body") == "body"


def _semi_naive(con, checked: CheckedProgram, rels: list[str], rules: list, values) -> int:
    """Mutual or non-linear recursion, iterated from here; returns the number of rounds. A round
    evaluates only the versions whose delta atom's relation grew in the previous round, and
    touches only the relations that grow (DuckDB has no indexes to make a round cost its delta,
    so what a round skips is what keeps long chains of small rounds affordable)."""
    scc = set(rels)
    size: dict[str, int] = {}
    for rel in rels:  # round 0: every rule on the full tables (inputs only so far)
        selects = [rule_select(r, checked.relations[rel], _full, values) for r in rules
                   if r.head.rel == rel]
        con.execute(create_table(checked.relations[rel], "delta", temp=True))
        con.execute(create_table(checked.relations[rel], "new", temp=True))
        size[rel] = 0
        if selects:
            size[rel] = con.execute(f"INSERT INTO {table_name(rel, 'delta')} ({_union(selects)}) "
                                    f"EXCEPT SELECT * FROM {table_name(rel)}").fetchone()[0]
    for rel in rels:
        if size[rel]:
            con.execute(f"INSERT INTO {table_name(rel)} SELECT * FROM {table_name(rel, 'delta')}")
    versions: dict[str, list[tuple[str, str]]] = {rel: [] for rel in rels}
    for rule in rules:
        relation = checked.relations[rule.head.rel]
        atoms = _positive_atoms(rule)
        for k in [i for i, a in enumerate(atoms) if a.rel in scc]:  # version k: atom k's delta
            versions[rule.head.rel].append((atoms[k].rel, rule_select(
                rule, relation, lambda i, atom, k=k: table_name(atom.rel, "delta") if i == k
                else table_name(atom.rel), values, first=k)))
    rounds = 0
    while any(size.values()):
        rounds += 1
        grown = {}
        for rel in rels:
            live = [sql for source, sql in versions[rel] if size[source]]
            if live:
                n = con.execute(f"INSERT INTO {table_name(rel, 'new')} ({_union(live)}) "
                                f"EXCEPT SELECT * FROM {table_name(rel)}").fetchone()[0]
                if n:
                    grown[rel] = n
        for rel in rels:
            if size[rel]:
                con.execute(f"DELETE FROM {table_name(rel, 'delta')}")
            if rel in grown:
                con.execute(f"INSERT INTO {table_name(rel)} SELECT * FROM "
                            f"{table_name(rel, 'new')}")
                con.execute(f"INSERT INTO {table_name(rel, 'delta')} SELECT * FROM "
                            f"{table_name(rel, 'new')}")
                con.execute(f"DELETE FROM {table_name(rel, 'new')}")
            size[rel] = grown.get(rel, 0)
    for rel in rels:
        con.execute(f"DROP TABLE {table_name(rel, 'delta')}")
        con.execute(f"DROP TABLE {table_name(rel, 'new')}")
    return rounds


def _fetch(con, checked: CheckedProgram, rel: str) -> list:
    """``rel``'s rows from its table (a nullary relation: ``()`` when it holds)."""
    rows = con.execute(f"SELECT * FROM {table_name(rel)}").fetchall()
    if not checked.relations[rel].arity:
        return [()] if rows else []
    return rows


def _store(con, checked: CheckedProgram, rel: str, rows) -> None:
    """Replace ``rel``'s table by ``rows`` (numbers), bulk-loaded through a CSV file."""
    con.execute(f"DELETE FROM {table_name(rel)}")
    if not rows:
        return
    if not checked.relations[rel].arity:
        con.execute(f"INSERT INTO {table_name(rel)} VALUES (0)")
        return
    fd, path = tempfile.mkstemp(prefix="pathlogic-duckdb-", suffix=".csv")
    try:
        with os.fdopen(fd, "w", newline="", encoding="utf-8") as fh:
            csv.writer(fh, lineterminator="\n").writerows(rows)
        columns = "{" + ", ".join(f"'{c}': '{t}'" for c, t in
                                  column_types(checked.relations[rel])) + "}"
        con.execute(f"INSERT INTO {table_name(rel)} SELECT * FROM read_csv(?, header = false, "
                    f"delim = ',', new_line = '\\n', auto_detect = false, columns = {columns})",
                    [path])
    finally:
        os.unlink(path)


def _indexed(con, checked: CheckedProgram, rels: list[str], rules: list, values,
             store: Relations, held: set[str]) -> bool:
    """The component evaluated in process (``indexed.py``) into ``store``; False when it does
    not compile there (nothing done). A rule with an aggregate that reads none of the
    component's relations (``_ppg_size``'s count in ``ppg/cfg.dl``: the component is recursive
    through its other rules) derives the same rows in every round: it is evaluated once in SQL
    into its table first, and the rounds start from those rows (``Component.run`` reads what
    the tables hold); the whole component went to SQL's ``WITH RECURSIVE`` query before, 1.4-3.5
    s of every ppg run on the examples (trim42). A rule with an aggregate and an atom of the
    component still sends it there."""
    before = [r for r in rules if _aggregates(r) and not _reads(r.body) & set(rels)]
    first = {id(r) for r in before}
    try:
        component = Component.compiled(rels, [r for r in rules if id(r) not in first], values,
                                       store)
    except Unsupported:
        return False
    for rel in sorted(held & set().union(*(_reads(r.body) for r in before))):
        _store(con, checked, rel, store.full(rel))
        held.discard(rel)
    for rel in rels:
        selects = [rule_select(r, checked.relations[rel], _full, values) for r in before
                   if r.head.rel == rel]
        if selects:
            _insert_new(con, rel, selects)
    component.run()
    return True


def _aggregates(rule) -> bool:
    return any(isinstance(lit, AggLit) for lit in rule.body)


def _reads(lits) -> set[str]:
    """The relations a rule body reads (aggregate bodies included)."""
    out = set()
    for lit in lits:
        if isinstance(lit, Atom):
            out.add(lit.rel)
        elif isinstance(lit, NegAtom):
            out.add(lit.atom.rel)
        elif isinstance(lit, AggLit):
            out |= _reads(lit.body)
    return out


def _derives_nothing(rule, empty: set[str]) -> bool:
    """``rule`` has a positive body atom (outside aggregates) over a relation known to be empty:
    the conjunction holds nowhere, so no statement needs to run it."""
    return any(a.rel in empty for a in _positive_atoms(rule))


def evaluate(con, checked: CheckedProgram, needed: set[str], values,
             loaded: set[str] | frozenset = frozenset()) -> tuple[Relations, set]:
    """Evaluate every stratum of ``checked`` that ``needed`` holds, bottom-up, into ``con``'s
    tables (created and loaded by the caller); ``values``: the run's ``values.Values``;
    ``loaded``: the relations given input rows.
    Returns the in-process relations and the names of those only they hold: a relation computed
    in process is written to its table only when a later SQL statement reads it.

    A relation without input rows whose stratum derived nothing is known to be empty, and the
    rules of later strata that read it positively derive nothing: they are left out of their
    stratum's statements (a stratum with none left runs none). The rows are the same; the
    statements saved are most of a small program's (every shipped analysis on a few functions
    leaves many relations empty; each statement costs DuckDB's planning, about 5 ms)."""
    store = Relations(lambda rel: _fetch(con, checked, rel))
    held: set[str] = set()
    by_head = {rel: rs for rel, rs in rules_by_head(checked.rules).items() if rel in needed}
    empty = {rel for rel in needed if rel not in loaded and rel not in by_head}
    for stratum in checked.strata:
        rels = [r for r in stratum if r in by_head]
        if not rels:
            continue
        rules = [r for rel in rels for r in by_head[rel]]
        while True:  # a relation of the stratum left without rules is empty too
            rules = [r for r in rules if not _derives_nothing(r, empty)]
            dead = {rel for rel in rels if rel not in loaded and rel not in empty} - \
                {r.head.rel for r in rules}
            if not dead:
                break
            empty |= dead
        rels = [rel for rel in rels if any(r.head.rel == rel for r in rules)]
        if not rules:
            continue
        reads = [sum(a.rel in rels for a in _positive_atoms(r)) for r in rules]
        if any(reads) and RECURSION == "indexed" and _indexed(con, checked, rels, rules, values,
                                                               store, held):
            held.update(rels)
            empty.update(rel for rel in rels if rel not in loaded and not store.full(rel))
            continue
        for rel in sorted(held & set().union(*(_reads(r.body) for r in rules))):
            _store(con, checked, rel, store.full(rel))
            held.discard(rel)
        if not any(reads):
            (rel,) = rels
            added = _insert_new(con, rel, [rule_select(r, checked.relations[rel], _full, values)
                                           for r in rules])
            if not added and rel not in loaded:
                empty.add(rel)
            continue
        if RECURSION in ("cte", "indexed"):
            _recursive_cte(con, checked, rels, rules, values)
        else:
            _semi_naive(con, checked, rels, rules, values)
        empty.update(rel for rel in rels if rel not in loaded and not con.execute(
            f"SELECT 1 FROM {table_name(rel)} LIMIT 1").fetchone())
    return store, held


def run_duckdb(checked: CheckedProgram, inputs: dict[str, list[tuple]], shown: list[str],
               needed: set[str] | None = None, jobs: int | None = None) -> dict[str, list[tuple]]:
    """Evaluate ``checked`` with the (already validated) input tuples; return the sorted tuples of
    every relation in ``shown``."""
    if needed is None:
        needed = needed_relations(checked, shown)
    config = {"threads": jobs} if jobs else {}
    con = duckdb.connect(":memory:", config=config)
    if JOIN_IN_BODY_ORDER:
        con.execute("SET disabled_optimizers = 'join_order'")
    values = Values(checked.types)
    _register(con, values, [r for r in checked.rules if r.head.rel in needed])
    # millions of index rows and no cycles: the collector's passes over them cost up to half of
    # the in-process time (measured, a 30,000-block chain)
    with collector_paused():
        try:
            for rel in sorted(needed):
                con.execute(create_table(checked.relations[rel]))
            with tempfile.TemporaryDirectory(prefix="pathlogic-duckdb-") as tmpdir:
                for rel, rows in inputs.items():
                    if rel in needed:
                        _load(con, checked, rel, rows, tmpdir, values)
            store, held = evaluate(con, checked, needed, values,
                                   {rel for rel, rows in inputs.items() if rows})
            result = {}
            for rel in shown:
                if rel in held:
                    rows = list(store.full(rel)) if checked.relations[rel].arity else \
                        [(0,)] * len(store.full(rel))
                else:
                    rows = con.execute(f"SELECT * FROM {table_name(rel)}").fetchall()
                kinds = checked.relations[rel].kinds
                result[rel] = sort_rows(values.decode(kinds, rows) if kinds else [()] * len(rows))
            return result
        except duckdb.Error as exc:  # a translation bug, not a user error: located anyway
            located = refusal(str(exc))
            if located is not None:
                raise located from None
            text = " ".join(line.strip() for line in str(exc).splitlines() if line.strip())
            raise DatalogError(f"duckdb rejected the translated program: {text[:300]}",
                               SourceLoc(checked.main_file)) from None
        except RuntimeError as exc:  # a functor that fails (functors.py), in process
            located = refusal(str(exc))
            if located is not None:
                raise located from None
            raise DatalogError(f"duckdb engine: {exc}", SourceLoc(checked.main_file)) from None
        finally:
            con.close()
            store = None  # freed by reference counting before the collector runs again


class DuckdbEngine:
    """The second embedded engine (duckdb from PyPI), for comparing engines without Soufflé."""

    name = "duckdb"

    def available(self) -> bool:
        return duckdb is not None

    def unavailable_reason(self) -> str:
        if self.available():
            return ""
        return "the duckdb Python package is not installed (pip install duckdb)"

    def run(self, program: CheckedProgram, facts_dir: str | Path | None,
            facts: dict[str, list[tuple]] | None, outputs: list[str], *,
            jobs: int | None = None, compiled: bool = False) -> dict[str, list[tuple]]:
        """Every relation of ``outputs``; what they do not depend on is neither read nor
        evaluated. ``jobs``: DuckDB's threads; ``compiled`` does not apply (ignored)."""
        needed = needed_relations(program, outputs)
        return run_duckdb(program, load_inputs(program, facts_dir, facts, needed), outputs,
                          needed, jobs)


register(DuckdbEngine())
