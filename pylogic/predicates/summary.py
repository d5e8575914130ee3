"""Per-function predicate summary for ``pathlogic analyze``: sizes, and how much the BDD (PAS)
and the PPG each prove over every pair of predicate registers (DESIGN.md "Predicates": the report
shows how much less the PPG proves)."""
from __future__ import annotations

import time
from typing import Optional, Sequence

from pylogic.errors import PathlogicError
from pylogic.ir.model import Module
from pylogic.predicates.pas import PAS_RELATIONS, PredicateAnalysis
from pylogic.predicates.ppg import PPG_RELATIONS, partition_graphs
from pylogic.predicates.relation_matrix import engine_relation

#: Everything ``predicate_summary`` reads: ``module_rows(module, relpath,
#: relations=SUMMARY_RELATIONS)`` computes it in one engine call.
SUMMARY_RELATIONS = PAS_RELATIONS + PPG_RELATIONS


def predicate_summary(module: Module, relpath: str, rows,
                      functions: Optional[Sequence[str]] = None) -> list[dict]:
    """One dict per defined function of ``module`` (or per name in ``functions``).

    Keys: ``function``, ``defines``, ``predicates``, ``bdd_nodes``, ``pairs``,
    ``ppg_modelled_pairs``, ``disjoint_bdd`` / ``disjoint_ppg`` (pairs proved disjoint),
    ``implied_bdd`` / ``implied_ppg`` (ordered implications a ⇒ b, a ≠ b), ``covers_bdd`` /
    ``covers_ppg``, ``queries_bdd`` / ``queries_ppg``, ``seconds_bdd`` / ``seconds_ppg``,
    ``cdg_partitions``, ``cfg_dummies``, ``ppg_violations``; ``error`` (message) when the BDD
    analysis of that function failed (the other functions are still summarised).

    Parameters
    ----------
    module : Module
    relpath : str
        The file's path relative to the analysed directory (function ids ``relpath::name``).
    rows : Rows
        Rows of ``SUMMARY_RELATIONS`` (PAS and PPG) covering the functions summarised.
    functions : sequence of str, optional
        Only these functions (default: every defined function).

    Raises
    ------
    PredicateError
        A function's PPG rows are missing (a missing PAS relation is that function's ``error``).
    """
    graphs = partition_graphs(module, rows, relpath, list(functions) if functions else None)
    out = []
    for fn in module.defined_functions():
        if fn.name not in graphs:
            continue
        g = graphs[fn.name]
        row = {"function": fn.name, "cdg_partitions": len(g.partitions["cdg"]),
               "cfg_dummies": len(g.dummies), "ppg_violations": len(g.violations)}
        t0 = time.perf_counter()
        try:
            pa = PredicateAnalysis(fn, rows.of(f"{relpath}::{fn.name}"))
            stats = pa.stats()
            preds = pa.predicates
            counts = dict.fromkeys(("disjoint_bdd", "disjoint_ppg", "implied_bdd", "implied_ppg",
                                    "covers_bdd", "covers_ppg", "ppg_modelled_pairs"), 0)
            pairs, t_ppg = 0, 0.0
            for i, a in enumerate(preds):
                for b in preds[i + 1:]:
                    pairs += 1
                    bdd = engine_relation(pa, a, b)
                    t1 = time.perf_counter()
                    ppg = g.relation(a, b)
                    t_ppg += time.perf_counter() - t1
                    counts["disjoint_bdd"] += bdd["disjoint"]
                    counts["implied_bdd"] += bdd["a_implies_b"] + bdd["b_implies_a"]
                    counts["covers_bdd"] += bdd["covers"]
                    if ppg is not None:
                        counts["ppg_modelled_pairs"] += 1
                        counts["disjoint_ppg"] += ppg["disjoint"]
                        counts["implied_ppg"] += ppg["a_implies_b"] + ppg["b_implies_a"]
                        counts["covers_ppg"] += ppg["covers"]
        except PathlogicError as exc:
            row["error"] = str(exc)
            out.append(row)
            continue
        row.update({"defines": stats["defines"], "predicates": len(preds),
                    "bdd_nodes": stats["predicate_nodes"], "pairs": pairs, **counts,
                    "queries_bdd": pa.queries, "queries_ppg": g.queries,
                    "seconds_bdd": time.perf_counter() - t0 - t_ppg,
                    "seconds_ppg": g.seconds + t_ppg})
        out.append(row)
    return out
