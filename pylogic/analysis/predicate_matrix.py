"""The relation matrix of a module's predicates, BDD / SAT / PPG side by side, from one analysis
run's rows: what ``analyze`` stores for the report (``OUT/report/matrices.json``) and
``pathlogic predicates`` prints. References: pas.md §2.10, ppg.md §4.8;
``pylogic.predicates.relation_matrix``.

Example
-------
>>> predicate_matrices(module, "a.pir", ["@main"], check="sat")["@main"][0]["bdd"]   # doctest: +SKIP
{'disjoint': True, 'a_implies_b': False, 'b_implies_a': False, 'covers': False}
"""
from __future__ import annotations

from typing import Optional, Sequence

from facts_gen.naming import escape_field
from pylogic.analysis.run import module_rows
from pylogic.ir.model import Module
from pylogic.predicates.ppg import partition_graphs
from pylogic.predicates.relation_matrix import relation_matrix
from pylogic.predicates.summary import SUMMARY_RELATIONS


def predicate_matrices(module: Module, relpath: str, functions: Optional[Sequence[str]] = None,
                       *, rows=None, at: Optional[str] = None, check: Optional[str] = None,
                       mode: str = "family", engine: str = "auto") -> dict[str, list[dict]]:
    """``relation_matrix`` rows of every defined function of ``module`` (or of those named in
    ``functions``), by name.

    ``rows``: the run's rows of ``SUMMARY_RELATIONS`` (PAS and PPG) for these functions, ids
    ``relpath::name`` (``analyze`` hands its own); None: one engine run computes them here.
    ``at``, ``check``, ``mode``: as in ``relation_matrix``.

    Raises
    ------
    PathlogicError
        The engine run failed; a function's rows are missing or its BDD analysis failed.
    """
    fns = [fn for fn in module.defined_functions() if functions is None or fn.name in functions]
    names = [fn.name for fn in fns]
    if rows is None:
        rows = module_rows(module, relpath, relations=SUMMARY_RELATIONS, functions=names,
                           engine=engine)
    ids = escape_field(relpath)                        # the file part of the function ids
    graphs = partition_graphs(module, rows, ids, names)
    return {fn.name: relation_matrix(fn, rows.of(f"{ids}::{fn.name}"), graphs.get(fn.name),
                                     at=at, check=check, mode=mode) for fn in fns}
