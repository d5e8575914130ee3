"""What ``pathlogic analyze`` prints: the per-function table, the predicate statistics (BDD vs
PPG) and the one-line summary, from a ``DirectoryAnalysis``."""
from __future__ import annotations

from pylogic.analysis.directory import DirectoryAnalysis
from pylogic.report.table import format_table

PREDICATE_COLUMNS = (("function", "function"), ("defines", "defines"), ("preds", "predicates"),
                     ("bdd nodes", "bdd_nodes"), ("pairs", "pairs"),
                     ("disj bdd", "disjoint_bdd"), ("disj ppg", "disjoint_ppg"),
                     ("impl bdd", "implied_bdd"), ("impl ppg", "implied_ppg"),
                     ("ppg pairs", "ppg_modelled_pairs"), ("queries bdd", "queries_bdd"),
                     ("queries ppg", "queries_ppg"))


def function_table(result: DirectoryAnalysis) -> str:
    """One row per function: blocks, edges, unreachable blocks, loops, irreducible, cdep rows."""
    return format_table(
        ["function", "blocks", "edges", "unreach", "loops", "irred", "cdep", "analyses"],
        [[r["function"], r["blocks"], r["edges"], r["unreachable"], r["loops"],
          "yes" if r["irreducible"] else "", r["cdep"],
          "failed" if r["error"] else ("cfg+ppg" if "ppg" in r["analyses"] else "cfg")]
         for r in result.functions])


def predicate_table(result: DirectoryAnalysis) -> str:
    """PAS (BDD) vs PPG: pairs of predicates proved disjoint / implied by each."""
    return format_table([h for h, _ in PREDICATE_COLUMNS],
                        [[r.get(k, "-") for _, k in PREDICATE_COLUMNS] for r in result.predicates])


def summary_line(result: DirectoryAnalysis) -> str:
    s = result.summary()
    return (f"{len(s['functions'])} functions in {s['files_analyzed']} files "
            f"({len(s['files_failed'])} failed) -> {result.out} "
            f"[{result.engine}, {len(s['engine_calls'])} engine calls, "
            f"{s['seconds']['total']:.2f} s]")
