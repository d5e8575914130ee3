"""The relation matrix of a function's predicates, side by side from the BDD (PAS), the SAT
encoding and the PPG: for every unordered pair (a, b) of predicate registers, read at the end of
the block that defines each last (or at the end of one given block), whether a and b are
disjoint, a ⇒ b, b ⇒ a, and whether a ∨ b is always true ("covers").

References: pas.md §2.10 (queries), ppg.md §4.8 (PPG queries), DESIGN.md "Predicates".
"""
from __future__ import annotations

from typing import Mapping, Optional

from pylogic.ir.model import Function
from pylogic.predicates.network import PredicateError
from pylogic.predicates.pas import PredicateAnalysis
from pylogic.predicates.sat_check import SatChecker

KEYS = ("disjoint", "a_implies_b", "b_implies_a", "covers")


def engine_relation(pa: PredicateAnalysis, ra, rb) -> dict:
    """The four relations of references ``ra``, ``rb`` on the BDD."""
    return {"disjoint": pa.disjoint(ra, rb), "a_implies_b": pa.implies(ra, rb),
            "b_implies_a": pa.implies(rb, ra), "covers": pa.exhaustive(ra, rb)}


def sat_relation(pa: PredicateAnalysis, ra, rb) -> dict:
    """The four relations asked of the SAT encoding of the same define network (independent of
    the BDD; pylogic.predicates.sat_check)."""
    oracle = _sat_oracle(pa)
    na, _ = pa._node_id(ra)
    nb, _ = pa._node_id(rb)
    a, b = (pa.index, na), (pa.index, nb)
    return {"disjoint": oracle.ask("disjoint", [a, b]), "a_implies_b": oracle.ask("implies", [a, b]),
            "b_implies_a": oracle.ask("implies", [b, a]), "covers": oracle.ask("exhaustive", [a, b])}


def _sat_oracle(pa: PredicateAnalysis):
    oracle = getattr(pa, "_matrix_sat", None)
    if oracle is None:
        oracle = SatChecker(pa.engine.nets, pa.mode, layer=pa.engine.layer)
        pa._matrix_sat = oracle
    return oracle


def describe(rel: Optional[dict]) -> str:
    """A short cell for the text table: disjoint / a=>b / b=>a / equivalent (+covers) / unknown."""
    if rel is None:
        return "n/a"
    words = []
    if rel["a_implies_b"] and rel["b_implies_a"]:
        words.append("equivalent")
    elif rel["a_implies_b"]:
        words.append("a=>b")
    elif rel["b_implies_a"]:
        words.append("b=>a")
    if rel["disjoint"]:
        words.append("disjoint")
    if rel["covers"]:
        words.append("covers")
    return ",".join(words) or "unknown"


def relation_matrix(function: Function, rows: Mapping, graph=None, at: Optional[str] = None,
                    check: Optional[str] = None, mode: str = "family",
                    lookback: int = 1) -> list[dict]:
    """Rows ``{"a", "b", "at", "bdd", "sat", "ppg"}`` for every unordered pair of predicates.

    Parameters
    ----------
    function : Function
    rows : FunctionRows
        The function's Datalog rows of ``PAS_RELATIONS`` (``PredicateAnalysis``).
    graph : PartitionGraph, optional
        The function's PPG (``pylogic.predicates.ppg``); without it ``ppg`` is null.
    at : str, optional
        Read every predicate at the end of this block (default: each at the end of the block
        defining it last); ``"at"`` is then the label instead of ``"end"``.
    check : None | "sat"
        Also ask the SAT encoding (``"sat"`` is null otherwise).

    Raises
    ------
    PredicateError
        Unknown block, bad mode, missing rows.
    """
    if at is not None and at not in {b.label for b in function.blocks}:
        raise PredicateError(f"no block {at!r} in function {function.name}")
    pa = PredicateAnalysis(function, rows, mode=mode, lookback=lookback)
    preds = pa.predicates
    rows = []
    for i, a in enumerate(preds):
        for b in preds[i + 1:]:
            ra, rb = ((a, at), (b, at)) if at is not None else (a, b)
            rows.append({
                "a": a, "b": b, "at": at if at is not None else "end",
                "bdd": engine_relation(pa, ra, rb),
                "sat": sat_relation(pa, ra, rb) if check == "sat" else None,
                "ppg": graph.relation(a, b, at=at) if graph is not None else None,
            })
    return rows
