"""Predicate analysis: PAS on BDDs (``pas.PredicateAnalysis``), SAT cross-check, brute force, PPG.

See ``pas.py`` for the query API; ``network.py`` extracts the define network from PIR, reading
the CFG structure (order, dominators, loops, liveness) from Datalog rows (``PAS_RELATIONS``);
``conditions.py`` is the condition layer; ``sat_check.py`` and ``brute_force.py`` are the
independent oracles; ``ppg.py`` reads the partition graphs from ``datalog/ppg.dl`` rows
(``PPG_RELATIONS``). This package runs no Datalog: callers pass rows
(``pylogic.analysis.run.module_rows``). References: PAS (Sias, Hwu, August; pas.md), the PPG
(Gindraud, Brandner, Darte; ppg.md).
"""
from pylogic.predicates.network import PAS_RELATIONS, PredicateError, build_network
from pylogic.predicates.pas import BddEngine, CrossCheckError, PredicateAnalysis
from pylogic.predicates.ppg import PPG_RELATIONS, PartitionGraph, partition_graphs

__all__ = ["PredicateAnalysis", "CrossCheckError", "PredicateError", "BddEngine", "build_network",
           "PAS_RELATIONS", "PPG_RELATIONS", "PartitionGraph", "partition_graphs"]
