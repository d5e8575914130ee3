"""Constant propagation on predicated code (Knoop & Rüthing, J.UCS; docs/passes.md):
``pcp-basic`` and ``pcp-full`` (``pcp.py``) and their predicate-blind baseline ``sccp``
(``sccp.py``, Wegman-Zadeck, §4.2), whose analysis and rewrite they reuse; predicated SSA per
hyperblock (``pssa.py``, §2.6/§3.3), the predicated value graph with its basic and full local
evaluations (``pvg.py``, §2.7-§3.7, with the digest's soundness fixes F1-F3, G1-G4), the
global analysis over the hyperblock partition (``global_cp.py``) and the simplification and
emission of §3.9 (``emit.py``)."""
