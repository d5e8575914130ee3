"""PRE(MR), its restructuring step (``pathlogic optimize --passes pre-mr``; PathFinder
§6.3.1.1, Fig. 6.10): the CMP region of each expression (``pre_prevented``: the blocks where
its partial redundancy is prevented) duplicated by ``restructure.py``, so that Must-available
and No-available paths through it never merge; ``pre-m`` then removes the computations of its
Must exits. ``pre-mr-budget`` (PRE(Mr), §6.3.2.2) takes the expressions one at a time, in order
of their Must exits, while the copies stay within a code-growth budget.
"""
from __future__ import annotations

from typing import Iterable, Optional

from pylogic.ir.model import Module
from pylogic.transforms.pre.restructure import RestructureRecord, restructure_regions

NEEDS = ("pre_prevented", "pre_cmp_avail_out", "pre_cmp_exit")


def pre_mr(module: Module, rows, *, functions: Optional[Iterable[str]] = None,
           max_names: int = 4, budget: Optional[float] = None, reducible: bool = True
           ) -> tuple[Module, RestructureRecord]:
    """``(new module, record)``: the CMP regions of every (or each named) function split;
    ``rows``: ``pre_prevented``, ``pre_cmp_avail_out``, ``pre_cmp_exit`` of the module."""
    record = RestructureRecord(transform="pre-mr" if budget is None else "pre-mr-budget")
    return restructure_regions(module, rows, record, "pre_prevented", functions=functions,
                               max_names=max_names, budget=budget, reducible=reducible,
                               avail_relation="pre_cmp_avail_out")


def pre_mr_budget(module: Module, rows, *, functions: Optional[Iterable[str]] = None,
                  max_names: int = 4, budget: float = 0.2, reducible: bool = True
                  ) -> tuple[Module, RestructureRecord]:
    """PRE(Mr) (§6.3.2.2): ``pre_mr`` within a code-growth budget (default 20% [AGS97])."""
    return pre_mr(module, rows, functions=functions, max_names=max_names, budget=budget,
                  reducible=reducible)
