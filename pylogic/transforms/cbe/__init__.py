"""Conditional branch elimination (PathFinder ch. 7): ``cbe`` and ``icbe`` (entry splitting,
and exit splitting in ``exit_splitting.py``)."""
