"""The second embedded engine: a CheckedProgram's strata evaluated as SQL in DuckDB (``to_sql.py``
translates the rules). Input facts are bulk-loaded through DuckDB's CSV reader; each stratum is
evaluated bottom-up to its fixpoint:

- a non-recursive relation: one ``INSERT`` of the union of its rules;
- a recursive relation whose rules each read it at most once (linear recursion, e.g.
  reachability): one ``WITH RECURSIVE ... UNION`` query, which DuckDB iterates inside the engine
  on the working table (semi-naive, no per-round statement cost: a 30,000-round chain is one
  query);
- any other recursive component (mutual or non-linear recursion): semi-naive iteration driven
  from here, one ``delta`` table per relation; each round evaluates every version of each rule
  with one recursive atom reading the delta, and keeps what is new (``EXCEPT``).

Registered as "duckdb" (after clingo: "auto" keeps clingo as the embedded default).
"""
from __future__ import annotations

import csv
import os
import tempfile
from pathlib import Path

from pylogic.engines.base import register
from pylogic.engines.dialect import Atom
from pylogic.engines.program import CheckedProgram
from pylogic.engines.relevance import needed_relations
from pylogic.engines.run import load_inputs
from pylogic.engines.to_sql import column_types, create_table, rule_select, table_name
from pylogic.errors import DatalogError, SourceLoc

try:
    import duckdb
except ImportError:  # not installed: the engine reports itself unavailable
    duckdb = None


def _load(con, checked: CheckedProgram, rel: str, rows: list, tmpdir: str) -> None:
    """Bulk-load ``rows`` into ``rel``'s table through a CSV file (strings quoted)."""
    relation = checked.relations[rel]
    if not rows:
        return
    if not relation.arity:
        con.execute(f"INSERT INTO {table_name(rel)} VALUES (0)")
        return
    path = os.path.join(tmpdir, f"{len(os.listdir(tmpdir))}.csv")
    with open(path, "w", newline="", encoding="utf-8") as fh:
        csv.writer(fh, quoting=csv.QUOTE_NONNUMERIC, lineterminator="\n").writerows(rows)
    columns = "{" + ", ".join(f"'{c}': '{t}'" for c, t in column_types(relation)) + "}"
    con.execute(f"INSERT INTO {table_name(rel)} SELECT * FROM read_csv(?, header = false, "
                f"delim = ',', quote = '\"', escape = '\"', new_line = '\\n', "
                f"allow_quoted_nulls = false, auto_detect = false, columns = {columns})", [path])
    os.unlink(path)


def _positive_atoms(rule) -> list[Atom]:
    return [lit for lit in rule.body if isinstance(lit, Atom)]


def _full(i, atom) -> str:
    return table_name(atom.rel)


def _union(selects: list[str]) -> str:
    return " UNION ".join(f"({s})" for s in selects)


def _insert_new(con, rel: str, selects: list[str]) -> None:
    """Add to ``rel`` what the ``selects`` derive and it does not hold yet."""
    con.execute(f"INSERT INTO {table_name(rel)} ({_union(selects)}) EXCEPT "
                f"SELECT * FROM {table_name(rel)}")


def _recursive_cte(con, checked: CheckedProgram, rels: list[str], rules: list) -> None:
    """A recursive component as one ``WITH RECURSIVE`` query over a tagged union of its relations
    (a column ``tag`` names the relation, each relation has its own columns, NULL elsewhere).
    The working table is the semi-naive delta; a rule with several recursive atoms (non-linear,
    e.g. the dominator-tree walk) has one version per recursive atom, that atom reading the
    delta and the others the whole relation so far (DuckDB's ``USING KEY`` CTE with
    ``recurring.``, DuckDB >= 1.3). DuckDB iterates inside the engine: no statement per round."""
    scc = {rel: k for k, rel in enumerate(rels)}
    slots = {rel: [(f"s{k}_{c}", t) for c, t in column_types(checked.relations[rel])]
             for k, rel in enumerate(rels)}
    every = [col for rel in rels for col in slots[rel]]
    work = '"_w"'

    def tagged(rel: str, select: str) -> str:
        cols = [f"CAST(NULL AS {t}) AS {c}" for c, t in every]
        own = {c for c, _ in slots[rel]}
        cols = [f"_x.c{c.split('_c')[1]} AS {c}" if c in own else sql
                for (c, _), sql in zip(every, cols)]
        return f"SELECT {scc[rel]} AS tag, {', '.join(cols)} FROM ({select}) AS _x"

    def part(rel: str, source: str) -> str:
        cols = ", ".join(f"{c} AS c{i}" for i, (c, _) in enumerate(slots[rel]))
        return f"(SELECT {cols} FROM {source} WHERE tag = {scc[rel]})"

    base = [tagged(rel, f"SELECT * FROM {table_name(rel)}") for rel in rels]
    step, linear = [], True
    for rule in rules:
        relation = checked.relations[rule.head.rel]
        recursive = [i for i, a in enumerate(_positive_atoms(rule)) if a.rel in scc]
        if not recursive:
            base.append(tagged(rule.head.rel, rule_select(rule, relation, _full)))
        linear = linear and len(recursive) <= 1
        for k in recursive:  # version k: the k-th positive atom reads the delta
            step.append(tagged(rule.head.rel, rule_select(
                rule, relation, lambda i, atom, k=k: part(atom.rel, work) if i == k
                else part(atom.rel, f"recurring.{work}") if atom.rel in scc
                else table_name(atom.rel))))
    names = ", ".join(["tag"] + [c for c, _ in every])
    key = "" if linear else f" USING KEY ({names})"
    con.execute(f"CREATE TEMP TABLE _fix AS WITH RECURSIVE {work}({names}){key} AS "
                f"({_union(base)} UNION SELECT * FROM ({_union(step)})) SELECT * FROM {work}")
    for rel in rels:
        con.execute(f"DELETE FROM {table_name(rel)}")
        con.execute(f"INSERT INTO {table_name(rel)} SELECT * FROM {part(rel, '_fix')}")
    con.execute("DROP TABLE _fix")


#: How recursive components are evaluated: "cte" (one WITH RECURSIVE query each, the default)
#: or "loop" (semi-naive rounds driven from Python: one set of statements per round).
RECURSION = "cte"


def _semi_naive(con, checked: CheckedProgram, rels: list[str], rules: list) -> int:
    """Mutual or non-linear recursion, iterated from here; returns the number of rounds."""
    scc = set(rels)
    for rel in rels:  # round 0: every rule on the full tables (inputs only so far)
        selects = [rule_select(r, checked.relations[rel], _full) for r in rules
                   if r.head.rel == rel]
        con.execute(create_table(checked.relations[rel], "delta", temp=True))
        if selects:
            con.execute(f"INSERT INTO {table_name(rel, 'delta')} ({_union(selects)}) EXCEPT "
                        f"SELECT * FROM {table_name(rel)}")
    for rel in rels:
        con.execute(f"INSERT INTO {table_name(rel)} SELECT * FROM {table_name(rel, 'delta')}")
    versions: dict[str, list[str]] = {rel: [] for rel in rels}
    for rule in rules:
        relation = checked.relations[rule.head.rel]
        recursive = [i for i, a in enumerate(_positive_atoms(rule)) if a.rel in scc]
        for k in recursive:  # version k: the k-th positive atom reads the delta
            versions[rule.head.rel].append(rule_select(
                rule, relation, lambda i, atom, k=k: table_name(atom.rel, "delta") if i == k
                else table_name(atom.rel)))
    rounds = 0
    while True:
        rounds += 1
        new = 0
        for rel in rels:
            con.execute(create_table(checked.relations[rel], "new", temp=True))
            if versions[rel]:
                con.execute(f"INSERT INTO {table_name(rel, 'new')} ({_union(versions[rel])}) "
                            f"EXCEPT SELECT * FROM {table_name(rel)}")
                new += con.execute(f"SELECT count(*) FROM {table_name(rel, 'new')}").fetchone()[0]
        for rel in rels:
            con.execute(f"INSERT INTO {table_name(rel)} SELECT * FROM {table_name(rel, 'new')}")
            con.execute(f"DROP TABLE {table_name(rel, 'delta')}")
            con.execute(f"ALTER TABLE {table_name(rel, 'new')} RENAME TO "
                        f"{table_name(rel, 'delta')}")
        if not new:
            break
    for rel in rels:
        con.execute(f"DROP TABLE {table_name(rel, 'delta')}")
    return rounds


def evaluate(con, checked: CheckedProgram, needed: set[str]) -> None:
    """Evaluate every stratum of ``checked`` that ``needed`` holds, bottom-up, into ``con``'s
    tables (created and loaded by the caller)."""
    by_head: dict[str, list] = {}
    for rule in checked.rules:
        if rule.head.rel in needed:
            by_head.setdefault(rule.head.rel, []).append(rule)
    for stratum in checked.strata:
        rels = [r for r in stratum if r in by_head]
        if not rels:
            continue
        rules = [r for rel in rels for r in by_head[rel]]
        reads = [sum(a.rel in rels for a in _positive_atoms(r)) for r in rules]
        if not any(reads):
            (rel,) = rels
            _insert_new(con, rel, [rule_select(r, checked.relations[rel], _full) for r in rules])
        elif RECURSION == "cte":
            _recursive_cte(con, checked, rels, rules)
        else:
            _semi_naive(con, checked, rels, rules)


def run_duckdb(checked: CheckedProgram, inputs: dict[str, list[tuple]], shown: list[str],
               needed: set[str] | None = None, jobs: int | None = None) -> dict[str, list[tuple]]:
    """Evaluate ``checked`` with the (already validated) input tuples; return the sorted tuples of
    every relation in ``shown``."""
    if needed is None:
        needed = needed_relations(checked, shown)
    config = {"threads": jobs} if jobs else {}
    con = duckdb.connect(":memory:", config=config)
    try:
        for rel in sorted(needed):
            con.execute(create_table(checked.relations[rel]))
        with tempfile.TemporaryDirectory(prefix="pathlogic-duckdb-") as tmpdir:
            for rel, rows in inputs.items():
                if rel in needed:
                    _load(con, checked, rel, rows, tmpdir)
        evaluate(con, checked, needed)
        result = {}
        for rel in shown:
            rows = con.execute(f"SELECT * FROM {table_name(rel)}").fetchall()
            result[rel] = sorted([()] * len(rows) if not checked.relations[rel].arity else rows)
        return result
    except duckdb.Error as exc:  # a translation bug, not a user error: report it located anyway
        raise DatalogError(f"duckdb rejected the translated program: "
                           f"{str(exc).splitlines()[0]}", SourceLoc(checked.main_file)) from None
    finally:
        con.close()


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
