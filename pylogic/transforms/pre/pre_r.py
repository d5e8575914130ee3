"""PRE(R) (``pathlogic optimize --passes pre-r``; PathFinder §6.3.1.3, Fig. 6.12), the
reference point of the code-growth comparison: the restructuring of Fig. 6.10
(``restructure.py``) duplicating every block where reuse is only partial (PartialReuse:
AVAIL_in = May and ANTIC_in != No), not only the CMP region; ``pre-m`` then removes the fully
redundant computations.
"""
from __future__ import annotations

from typing import Iterable, Optional

from pylogic.ir.model import Module
from pylogic.transforms.pre.restructure import RestructureRecord, restructure_regions

NEEDS = ("pre_partial_reuse", "pre_cand_avail_out", "pre_cmp_exit")


def pre_r(module: Module, rows, *, functions: Optional[Iterable[str]] = None,
          max_names: int = 4, reducible: bool = True) -> tuple[Module, RestructureRecord]:
    """``(new module, record)``: the PartialReuse blocks of every (or each named) function split;
    ``rows``: ``pre_partial_reuse``, ``pre_cand_avail_out``, ``pre_cmp_exit`` of the module."""
    return restructure_regions(module, rows, RestructureRecord(transform="pre-r"),
                               "pre_partial_reuse", functions=functions, max_names=max_names,
                               reducible=reducible)
