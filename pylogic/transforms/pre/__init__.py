"""Partial redundancy elimination (PathFinder ch. 6): ``pre-m`` (code motion), ``pre-ms``
(speculation), ``pre-mr``/``pre-mr-budget`` and ``pre-r`` (restructuring, ``restructure.py``),
``vng-fre`` (full redundancies on the Value Name Graph), and the parts of ``pre-m``
(``phi_loads``, ``dead_loads``) and of the restructuring (``reducible``)."""
