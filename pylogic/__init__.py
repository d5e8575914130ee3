"""pathlogic: a Datalog-driven workbench for path-sensitive analysis of predicated code."""
__version__ = "0.1.0"
