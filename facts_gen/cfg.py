"""CFG relations (DESIGN.md facts contract) and the structural facts the Datalog rules lean on:
reverse postorder and retreating edges of the CFG and of the reverse CFG rooted at ``__exit__``, and
the strongly connected components of the reachable blocks.

The structural facts keep dominance output-sensitive (datalog/dominance.dl): with RPO numbers and
retreating edges known, idom is an intersect-walk over forward edges (Cooper, Harvey, Kennedy 2001)
and only irreducible regions need the reach-avoiding fallback. The components let
``datalog/correlation.dl`` summarise a query on a register local to one block at that block
(issue #28: an edge ``m -> n`` lies on a cycle iff ``n`` reaches ``m``, a transitive closure in
Datalog).
"""
from __future__ import annotations

from pylogic.ir.model import Function, Ret
from pylogic.ir.cfg import block_predecessors, block_successors, dfs_structure, strongly_connected
from facts_gen.naming import VIRTUAL_EXIT

#: Relations this module writes (datalog/schema.dl, "CFG" and "Structural facts" sections).
RELATIONS = ("block", "entry", "exit", "edge", "hyperblock",
             "rpo", "retreating", "rpo_rev", "retreating_rev")
#: Written by ``scc_facts``: its own fact family, extracted only for the programs that read it
#: (``datalog/correlation.dl``), so ``analyze``'s facts are what its analyses read.
SCC_RELATIONS = ("scc",)


def exit_blocks(fn: Function) -> list[str]:
    """Blocks whose terminator is an unguarded ``ret`` (guarded rets are side exits too)."""
    return [b.label for b in fn.blocks if any(isinstance(i, Ret) for i in b.instrs)]


def cfg_facts(f: str, fn: Function, out: dict[str, list[tuple]]) -> None:
    """Append the CFG and structural relations of one defined function to ``out``."""
    labels = [b.label for b in fn.blocks]
    out["block"].extend((f, b) for b in labels)
    out["entry"].append((f, labels[0]))
    exits = exit_blocks(fn)
    out["exit"].extend((f, b) for b in exits)
    edges = fn.edges()
    out["edge"].extend((f, a, b) for a, b in edges)
    out["hyperblock"].extend((f, b.label) for b in fn.blocks if b.hyperblock)

    succ, pred = block_successors(fn), block_predecessors(fn)
    rpo, retreating = dfs_structure(labels[0], succ.get)
    out["rpo"].extend((f, b, i) for b, i in rpo.items())
    out["retreating"].extend((f, a, b) for a, b in retreating)

    # Reverse CFG rooted at the virtual exit: __exit__ -> each exit block, then b -> its preds.
    rsucc: dict[str, list[str]] = {VIRTUAL_EXIT: list(exits)}
    for b in labels:
        rsucc[b] = pred[b]
    rrpo, rretreating = dfs_structure(VIRTUAL_EXIT, rsucc.get)
    out["rpo_rev"].extend((f, b, i) for b, i in rrpo.items())
    out["retreating_rev"].extend((f, a, b) for a, b in rretreating)


def scc_facts(f: str, fn: Function, out: dict[str, list[tuple]]) -> None:
    """Each reachable block's strongly connected component, named by one of its blocks."""
    succ = block_successors(fn)
    rpo, _ = dfs_structure(fn.blocks[0].label, succ.get)
    comp = strongly_connected(list(rpo), succ)
    out["scc"].extend((f, b, comp[b]) for b in rpo)
