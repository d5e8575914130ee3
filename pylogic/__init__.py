"""pathlogic: a Datalog-driven workbench for path-sensitive analysis of predicated code.

``pylogic.query(program_text, facts=...) -> {relation: rows}`` runs a Soufflé-dialect query with
the shipped analyses on its include path (``pylogic/analysis/query.py``)."""
from pylogic.compiled_modules import install_guard

__version__ = "0.1.0"

install_guard()     # a compiled module whose source changed since its build runs the source


def __getattr__(name):
    # imported on first use: ``import pylogic`` stays cheap for the command line
    if name == "query":
        from pylogic.analysis.query import query
        return query
    raise AttributeError(f"module 'pylogic' has no attribute {name!r}")
