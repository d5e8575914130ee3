"""Output rows of an engine run, viewed per function.

Every relation's first column is the function id ``"<relpath>::<name>"`` (DESIGN.md facts
contract). ``Rows`` holds one run's tuples for all functions; ``rows.of(function_id)`` is the
view a pass or the predicate layer reads: each relation's rows of that function, with the
function column dropped.

Example
-------
>>> rows = Rows({"idom": [("a.pir::@f", "entry", "b1")]})
>>> rows.of("a.pir::@f")["idom"]
[('entry', 'b1')]
"""
from __future__ import annotations

from collections import defaultdict
from itertools import chain, compress, islice, repeat
from operator import gt, itemgetter
from typing import Iterable, Iterator, Mapping


class FunctionRows(Mapping):
    """Relation name -> that function's rows, function column dropped. A relation the run did
    not compute raises KeyError (so a missing analysis is never read as "no rows")."""

    def __init__(self, function_id: str, tables, computed: Iterable[str]):
        self.function_id = function_id
        self._tables = tables          # relation -> rows of this function (``.get``)
        self._computed = frozenset(computed)

    def __getitem__(self, relation: str) -> list:
        if relation not in self._computed:
            raise KeyError(f"relation {relation!r} was not computed for {self.function_id}")
        return self._tables.get(relation, [])

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self._computed))

    def __len__(self) -> int:
        return len(self._computed)

    def set(self, relation: str) -> set:
        """The relation's rows as a set (single columns unwrapped)."""
        rows = self[relation]
        return {r[0] if len(r) == 1 else r for r in rows}


class Rows(Mapping):
    """Relation name -> rows over all functions, plus per-function views.

    ``relpath`` (rows of one module): the file part of its function ids, for ``function(name)``.
    ``functions`` names the functions the run covered (default: every function id seen in the
    rows, or in ``function`` rows): only for those does ``of`` report a relation as computed.
    """

    def __init__(self, tables: Mapping[str, list] | None = None,
                 functions: Iterable[str] | None = None, relpath: str | None = None):
        self.relpath = relpath
        self._tables: dict[str, list] = {}
        self._computed: dict[str, set] = defaultdict(set)
        self._by_relation: dict[str, dict[str, list]] = {}
        self._sorted: SortedTables | None = None
        if tables is not None:
            self.add_run(tables, functions)

    def add_run(self, tables: Mapping[str, list], functions: Iterable[str] | None = None) -> None:
        """Add one run's output rows; ``functions``: the function ids that run covered."""
        if functions is None:
            functions = {row[0] for rows in tables.values() for row in rows}
        functions = list(functions)
        for name, rows in tables.items():
            self._tables.setdefault(name, []).extend(rows)
        for f in functions:
            self._computed[f].update(tables)
        self._by_relation = {}
        self._sorted = None

    def extend(self, other: "Rows") -> None:
        """Add another run's rows, each function keeping exactly the relations computed for it
        there (runs over disjoint functions, e.g. one per file, merged into one)."""
        for name, rows in other._tables.items():
            self._tables.setdefault(name, []).extend(rows)
        for f, names in other._computed.items():
            self._computed[f].update(names)
        self._by_relation = {}
        self._sorted = None

    def functions(self) -> list[str]:
        """Function ids covered by some run."""
        return sorted(self._computed)

    def __getitem__(self, relation: str) -> list:
        return self._tables[relation]

    def __iter__(self) -> Iterator[str]:
        return iter(self._tables)

    def __len__(self) -> int:
        return len(self._tables)

    def sorted_tables(self) -> "SortedTables":
        """Every relation's rows, deduplicated and sorted (what OUT/results holds), relation
        names in order; each relation sorted when first read, once per set of rows (callers
        must not modify it)."""
        if self._sorted is None:
            self._sorted = SortedTables(self._tables)
        return self._sorted

    def _relation(self, name: str) -> dict[str, list]:
        """function id -> that function's rows of relation ``name``, built when the relation is
        first read, once per set of rows (#32: indexing every relation, input facts included,
        for the few functions the predicate layer reads was 4% of ``analyze``)."""
        per = self._by_relation.get(name)
        if per is None:
            per = self._by_relation[name] = {}
            for row in self._tables.get(name, ()):
                got = per.get(row[0])
                if got is None:
                    per[row[0]] = [row[1:]]
                else:
                    got.append(row[1:])
        return per

    def only(self, function_ids: Iterable[str],
             relations: Iterable[str] | None = None) -> "Rows":
        """The rows of the functions ``function_ids`` alone (each relation's in their order),
        each still computed where it was: what a child process reading those functions gets
        (#32: each child indexing every relation over all functions, ``_relation``, cost the
        predicate statistics 0.1 s per function). ``relations``: of these relations only,
        the others then not computed for anyone (reading one is refused, not empty; #32:
        filtering every relation's rows was 1% of ``analyze``, the children read a few)."""
        ids = set(function_ids)
        keep = ids.__contains__
        names = self._tables.keys() if relations is None else set(relations)
        small = Rows(relpath=self.relpath)
        small._tables = {name: list(compress(rows, map(keep, map(itemgetter(0), rows))))
                         for name, rows in self._tables.items() if name in names}
        for f in ids:
            if f in self._computed:
                small._computed[f] = self._computed[f] & names if relations is not None \
                    else set(self._computed[f])
        return small

    def of(self, function_id: str) -> FunctionRows:
        """The rows of one function (``"<relpath>::<name>"``)."""
        return FunctionRows(function_id, _FunctionTables(self, function_id),
                            self._computed.get(function_id, ()))

    def function(self, name: str) -> FunctionRows:
        """The rows of function ``name`` of this module (``relpath::name``)."""
        if self.relpath is None:
            raise KeyError(f"rows of several modules: name the function id, not {name!r}")
        return self.of(f"{self.relpath}::{name}")

    def for_module(self, relpath: str) -> "Rows":
        """The same rows, with ``function(name)`` resolving names of the module ``relpath``.
        The per-function index of each relation is shared by every view (a view per module
        of a directory would otherwise rebuild it over all modules' rows each time)."""
        view = Rows.__new__(Rows)
        view.__dict__.update(self.__dict__)
        view.relpath = relpath
        return view


class _FunctionTables:
    """One function's rows of each relation of ``rows``, relation by relation (``get``)."""

    __slots__ = ("rows", "function_id")

    def __init__(self, rows: Rows, function_id: str):
        self.rows, self.function_id = rows, function_id

    def get(self, relation: str, default=None):
        return self.rows._relation(relation).get(self.function_id, default)


def sort_rows(rows) -> list:
    """The tuples ``rows`` (one relation's, each column all numbers or all strings) in the order
    ``sorted(rows)`` gives. Pairs: grouped by their first column, each group's second column
    sorted alone (ints or strs compared directly; measured on a transitive closure's 612,000
    pairs in the engine's order: 0.44 -> 0.29 s against the column sorts below). Up to 4
    columns: one stable sort per column, last to first (CPython compares ints or strs directly,
    not tuple by tuple; measured: 700,000 number pairs 0.81 s -> 0.31 s, 300,000 4-column symbol
    rows 0.68 s -> 0.56 s; from 6 columns on it is slower)."""
    rows = list(rows)
    width = len(rows[0]) if rows else 0
    if width == 2:
        return _sort_pairs(rows)
    if not 2 < width <= 4:
        rows.sort()
        return rows
    for i in range(width - 1, -1, -1):
        rows.sort(key=itemgetter(i))
    return rows


def _sort_pairs(rows: list) -> list:
    groups: dict = {}
    get = groups.get
    for x, y in rows:
        group = get(x)
        if group is None:
            groups[x] = [y]
        else:
            group.append(y)
    out: list = []
    extend = out.extend
    for x in sorted(groups):
        ys = groups[x]
        ys.sort()
        extend(zip(repeat(x), ys))
    return out


#: ``sorted_distinct`` merges rows of at most this many sorted runs by one tuple sort (measured
#: on the #32 corpus's 3- and 4-column outputs dealt at random into k sorted runs: the tuple
#: sort 0.002-0.005 s at k = 1-2, 0.016-0.03 s at k = 8-32, against 0.03-0.04 s for
#: ``sort_rows(set(rows))``; about even from k = 128 on).
FEW_SORTED_RUNS = 64


def sorted_distinct(rows: list) -> list:
    """The distinct tuples of ``rows`` (a list, as ``sort_rows`` takes) in sorted order. Rows
    made of a few sorted runs -- an output relation gathered from a few engine calls, each
    sorted -- are merged by one tuple sort (Timsort takes each run as it is) and the
    duplicates, then adjacent, dropped; other rows as ``sort_rows(set(rows))`` (#32: the
    results of analyze's two engine calls were hashed into a set and sorted anew, 0.33 ->
    0.10 s on the corpus's 157,000 rows)."""
    if sum(map(gt, rows, islice(rows, 1, None))) >= FEW_SORTED_RUNS:  # descents: runs - 1
        return sort_rows(set(rows))
    ordered = sorted(rows)
    return [row for row, before in zip(ordered, chain((None,), ordered)) if row != before]


class SortedTables(Mapping):
    """Relation name (in order) -> its rows deduplicated and sorted, each relation sorted when
    first read: the input facts a run's rows include are never sorted unless asked for (#32:
    sorting them was 7% of ``analyze``)."""

    def __init__(self, tables: Mapping[str, list]):
        self._tables = tables
        self._names = sorted(tables)
        self._sorted: dict[str, list] = {}

    def __getitem__(self, relation: str) -> list:
        got = self._sorted.get(relation)
        if got is None:
            got = self._sorted[relation] = sorted_distinct(self._tables[relation])
        return got

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)
