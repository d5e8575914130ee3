"""Partial dead code elimination on predicated code (Xue-Cai-Gao PPDE): ``ppde`` and
``ppde-keep`` (``ppde.py``), the motion across SEME regions (``regions.py``)."""
