"""Constant propagation on predicated code (Knoop & Rüthing, J.UCS; docs/passes.md):
the lattice (``lattice.py``), predicated SSA per hyperblock (``pssa.py``, §2.6/§3.3) and the
predicated value graph with its basic and full local evaluations (``pvg.py``, §2.7-§3.7, with the
digest's soundness fixes F1-F3, G1-G4) and the simplification of §3.9."""
