"""Predicate analysis: PAS on BDDs (``pas.PredicateAnalysis``), SAT cross-check, brute force.

See ``pas.py`` for the query API; ``network.py`` extracts the define network from PIR;
``conditions.py`` is the condition layer; ``sat_check.py`` and ``brute_force.py`` are the
independent oracles. References: ../shared/specs/pas.md.
"""
from pylogic.predicates.network import PredicateError, build_network
from pylogic.predicates.pas import BddEngine, CrossCheckError, PredicateAnalysis

__all__ = ["PredicateAnalysis", "CrossCheckError", "PredicateError", "BddEngine", "build_network"]
