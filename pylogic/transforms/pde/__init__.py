"""Partial dead code elimination on unpredicated code: ``pde`` (Knoop-Rüthing-Steffen)."""
